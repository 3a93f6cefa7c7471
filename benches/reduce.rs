//! Reductions on [4096, 4096] f32, the cases of docs/TARGETS.md (NumPy's figures on the same
//! machine kind). Run with `RAYON_NUM_THREADS=1 cargo bench --bench reduce -- --quick`
//! (and 2 threads).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tsr::ops::{reduce, ReduceOp};
use tsr::tensor::Tensor;

/// Deterministic values in [-2, 2), every 10th NaN when `holes`.
fn matrix(holes: bool) -> Tensor {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let n = 4096 * 4096;
    let data: Vec<f32> = (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            if holes && i % 10 == 3 {
                f32::NAN
            } else {
                (s >> 40) as f32 / (1u64 << 22) as f32 - 2.0
            }
        })
        .collect();
    Tensor::from_vec(data, &[4096, 4096]).expect("matrix")
}

fn bench_reduce(c: &mut Criterion) {
    let x = matrix(false);
    let holes = matrix(true);
    let mut g = c.benchmark_group("reduce_4096x4096");
    let cases: [(&str, ReduceOp, Option<&[i64]>, &Tensor); 8] = [
        ("sum_all", ReduceOp::Sum, None, &x),
        ("sum_axis0", ReduceOp::Sum, Some(&[0]), &x),
        ("sum_axis1", ReduceOp::Sum, Some(&[1]), &x),
        ("max_axis1", ReduceOp::Max, Some(&[1]), &x),
        ("argmax_axis1", ReduceOp::ArgMax, Some(&[1]), &x),
        ("mean_axis0", ReduceOp::Mean, Some(&[0]), &x),
        ("var_axis1", ReduceOp::Var { ddof: 0 }, Some(&[1]), &x),
        ("nansum_all", ReduceOp::NanSum, None, &holes),
    ];
    for (name, op, axes, t) in cases {
        g.bench_function(name, |b| {
            b.iter(|| reduce(op, black_box(t), axes, false).expect("reduce"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_reduce);
criterion_main!(benches);

//! Matrix products at the sizes of docs/TARGETS.md (NumPy's figures): square f32 GEMM,
//! matrix-vector, batched and a transposed (strided) operand. Run with
//! `RAYON_NUM_THREADS=1 cargo bench --bench linalg -- --quick` (and 2 threads).

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tsr::ops::matmul;
use tsr::tensor::Tensor;

/// Deterministic values in [-0.5, 0.5) (xorshift).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        })
        .collect()
}

fn tensor(shape: &[usize], seed: u64) -> Tensor {
    Tensor::from_vec(values(shape.iter().product(), seed), shape).expect("tensor")
}

/// (name, left shape, right shape) as in docs/TARGETS.md.
const CASES: [(&str, &[usize], &[usize]); 8] = [
    ("3x3", &[3, 3], &[3, 3]),
    ("64^3", &[64, 64], &[64, 64]),
    ("256^3", &[256, 256], &[256, 256]),
    ("1024^3", &[1024, 1024], &[1024, 1024]),
    ("2048^3", &[2048, 2048], &[2048, 2048]),
    ("matvec 4096", &[4096, 4096], &[4096]),
    ("batched [64,64,64]", &[64, 64, 64], &[64, 64, 64]),
    (
        "batched [8,512,64]@[8,64,512]",
        &[8, 512, 64],
        &[8, 64, 512],
    ),
];

fn bench_matmul(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul_f32");
    for (name, sa, sb) in CASES {
        let (a, b) = (tensor(sa, 1), tensor(sb, 2));
        g.bench_function(name, |bench| {
            bench.iter(|| matmul(black_box(&a), black_box(&b)).expect("matmul"))
        });
    }
    // A transposed left operand goes to the GEMM as strides, without a copy.
    let a = tensor(&[1024, 1024], 3)
        .permute(&[1, 0])
        .expect("transpose");
    let b = tensor(&[1024, 1024], 4);
    g.bench_function("1024^3 a.T", |bench| {
        bench.iter(|| matmul(black_box(&a), black_box(&b)).expect("matmul"))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_matmul
}
criterion_main!(benches);

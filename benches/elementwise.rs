//! Elementwise kernels and softmax at the sizes of docs/TARGETS.md: add/mul/exp/tanh on 1M
//! and 16M f32, maximum(x, 0), [4096, 4096] + [4096] and softmax over the last axis of
//! [4096, 4096]. Run with `RAYON_NUM_THREADS=1 cargo bench --bench elementwise -- --quick`
//! (and 2 threads), and the same workloads in NumPy for the ratios.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use tsr::ops::nn::softmax;
use tsr::ops::{binary, unary, BinaryOp, Operand, UnaryOp};
use tsr::tensor::{Scalar, Tensor};

/// Deterministic values in about [-4, 4] (xorshift).
fn values(n: usize, seed: u64) -> Tensor {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let v: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 21) as f32 - 4.0
        })
        .collect();
    Tensor::from_vec(v, &[n]).expect("tensor")
}

fn bench_elementwise(c: &mut Criterion) {
    let mut g = c.benchmark_group("elementwise");
    g.sample_size(10).warm_up_time(Duration::from_millis(300));
    for (label, n) in [("1M", 1 << 20), ("16M", 16 << 20)] {
        let (a, b) = (values(n, 1), values(n, 2));
        let (ta, tb) = (Operand::Tensor(&a), Operand::Tensor(&b));
        g.bench_function(format!("add_{label}"), |bn| {
            bn.iter(|| black_box(binary(BinaryOp::Add, ta, tb).unwrap()))
        });
        g.bench_function(format!("mul_{label}"), |bn| {
            bn.iter(|| black_box(binary(BinaryOp::Mul, ta, tb).unwrap()))
        });
        g.bench_function(format!("exp_{label}"), |bn| {
            bn.iter(|| black_box(unary(UnaryOp::Exp, &a).unwrap()))
        });
        g.bench_function(format!("tanh_{label}"), |bn| {
            bn.iter(|| black_box(unary(UnaryOp::Tanh, &a).unwrap()))
        });
        if n == 1 << 20 {
            let zero = Operand::Scalar(Scalar::Int(0));
            g.bench_function("maximum_1M", |bn| {
                bn.iter(|| black_box(binary(BinaryOp::Maximum, ta, zero).unwrap()))
            });
        }
    }
    let m = values(4096 * 4096, 3).reshape(&[4096, 4096]).unwrap();
    let row = values(4096, 4);
    g.bench_function("broadcast_add_4096x4096", |bn| {
        bn.iter(|| {
            black_box(binary(BinaryOp::Add, Operand::Tensor(&m), Operand::Tensor(&row)).unwrap())
        })
    });
    g.bench_function("softmax_4096x4096", |bn| {
        bn.iter(|| black_box(softmax(&m, -1).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench_elementwise);
criterion_main!(benches);

//! Quantized kernels: dequantize, quantize, fused matvec and the tiled GEMM path, at the
//! sizes of docs/TARGETS.md (ggml's figures on the same machine kind). Run with
//! `RAYON_NUM_THREADS=1 cargo bench --bench quant -- --quick` (and 2 threads).

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tsr::quant::{dequantize_into, matmul_f32_q, quantize, QBytes, QTensor, QType};
use tsr::tensor::Tensor;

const TYPES: [(&str, QType); 4] = [
    ("q4_k", QType::Q4K),
    ("q5_k", QType::Q5K),
    ("q6_k", QType::Q6K),
    ("q8_0", QType::Q8_0),
];

/// Deterministic roughly normal values (sum of four uniforms, xorshift).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut uniform = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|_| (uniform() + uniform() + uniform() + uniform() - 2.0) * 1.7)
        .collect()
}

fn weight(qtype: QType, n: usize, k: usize) -> QTensor {
    let bytes = quantize(&values(n * k, 7), qtype).expect("quantize");
    QTensor::new(qtype, vec![n, k], QBytes::Owned(bytes.into())).expect("weight")
}

fn bench_dequantize(c: &mut Criterion) {
    let mut g = c.benchmark_group("dequantize");
    for (name, qtype) in TYPES {
        for (label, n) in [("1M", 1usize << 20), ("16M", 1 << 24)] {
            g.bench_function(format!("{name}/{label}"), |b| {
                let bytes = quantize(&values(n, 1), qtype).expect("quantize");
                let mut out = vec![0f32; n];
                b.iter(|| dequantize_into(black_box(&bytes), qtype, &mut out).expect("dequantize"))
            });
        }
    }
    g.finish();
}

fn bench_quantize(c: &mut Criterion) {
    let mut g = c.benchmark_group("quantize");
    let x = values(1 << 20, 2);
    for (name, qtype) in TYPES {
        g.bench_function(format!("{name}/1M"), |b| {
            b.iter(|| quantize(black_box(&x), qtype).expect("quantize"))
        });
    }
    g.finish();
}

fn bench_matmul(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul");
    let k = 4096;
    let x1 = Tensor::from_vec(values(k, 3), &[1, k]).expect("x");
    // Inputs are made inside the closures, which criterion skips for filtered-out names.
    for (name, qtype) in TYPES {
        g.bench_function(format!("matvec_{name}_4096x4096"), |b| {
            let w = weight(qtype, 4096, k);
            b.iter(|| matmul_f32_q(black_box(&x1), &w).expect("matmul"))
        });
    }
    g.bench_function("q4_k_4096x4096_x32", |b| {
        let w = weight(QType::Q4K, 4096, k);
        let x32 = Tensor::from_vec(values(32 * k, 4), &[32, k]).expect("x");
        b.iter(|| matmul_f32_q(black_box(&x32), &w).expect("matmul"))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_dequantize, bench_quantize, bench_matmul
}
criterion_main!(benches);

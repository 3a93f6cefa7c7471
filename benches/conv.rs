//! Convolutions at the sizes of docs/TARGETS.md (ONNX Runtime's figures): im2col + GEMM,
//! a strided 7×7 stem, a batch, depthwise and transposed. Run with
//! `RAYON_NUM_THREADS=1 cargo bench --bench conv -- --quick` (and 2 threads).

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tsr::ops::conv::{conv, conv_transpose, ConvParams, Padding, TransposeParams};
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

fn params(stride: usize, pad: usize, groups: usize) -> ConvParams {
    ConvParams {
        stride: vec![stride; 2],
        padding: Padding::Explicit(vec![pad; 2]),
        dilation: vec![1; 2],
        groups,
    }
}

/// (name, x shape, weight shape, stride, padding, groups) as in docs/TARGETS.md.
type Case = (&'static str, [usize; 4], [usize; 4], usize, usize, usize);
const CASES: [Case; 4] = [
    (
        "[1,64,56,56]*[64,64,3,3] pad 1",
        [1, 64, 56, 56],
        [64, 64, 3, 3],
        1,
        1,
        1,
    ),
    (
        "[1,3,224,224]*[64,3,7,7] s2 p3",
        [1, 3, 224, 224],
        [64, 3, 7, 7],
        2,
        3,
        1,
    ),
    (
        "[8,32,32,32]*[64,32,3,3] pad 1",
        [8, 32, 32, 32],
        [64, 32, 3, 3],
        1,
        1,
        1,
    ),
    (
        "depthwise [1,256,28,28] 3x3 p1",
        [1, 256, 28, 28],
        [256, 1, 3, 3],
        1,
        1,
        256,
    ),
];

fn bench_conv(c: &mut Criterion) {
    let mut g = c.benchmark_group("conv2d_f32");
    for (name, xs, ws, stride, pad, groups) in CASES {
        let (x, w) = (tensor(&xs, 1), tensor(&ws, 2));
        let p = params(stride, pad, groups);
        g.bench_function(name, |bench| {
            bench.iter(|| conv(black_box(&x), black_box(&w), None, 2, &p).expect("conv"))
        });
    }
    let (x, w) = (tensor(&[1, 64, 28, 28], 3), tensor(&[64, 32, 4, 4], 4));
    let p = TransposeParams {
        stride: vec![2; 2],
        padding: vec![1; 2],
        output_padding: vec![0; 2],
        groups: 1,
        dilation: vec![1; 2],
    };
    g.bench_function("transpose [1,64,28,28]*[64,32,4,4] s2 p1", |bench| {
        bench.iter(|| conv_transpose(black_box(&x), black_box(&w), None, 2, &p).expect("conv_t"))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = bench_conv
}
criterion_main!(benches);

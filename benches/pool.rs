//! Pooling, the cases of docs/TARGETS.md (ONNX Runtime's figures on the same machine kind).
//! Run with `RAYON_NUM_THREADS=1 cargo bench --bench pool -- --quick` (and 2 threads).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tsr::ops::pool::{global_pool2d, max_pool2d, PoolParams};
use tsr::ops::ReduceOp;
use tsr::tensor::Tensor;

fn tensor(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let data: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0)
        .collect();
    Tensor::from_vec(data, shape).expect("tensor")
}

fn bench_pool(c: &mut Criterion) {
    let mut g = c.benchmark_group("pool");
    let x = tensor(&[1, 64, 112, 112]);
    let p = PoolParams {
        kernel_size: vec![3, 3],
        stride: vec![2, 2],
        padding: vec![1, 1],
        dilation: vec![1, 1],
        ceil_mode: false,
    };
    g.bench_function("max_pool_3x3_s2_p1_1x64x112x112", |b| {
        b.iter(|| max_pool2d(black_box(&x), &p).expect("max_pool2d"))
    });
    let unpadded = PoolParams {
        padding: vec![0, 0],
        ..p.clone()
    };
    g.bench_function("max_pool_3x3_s2_1x64x112x112", |b| {
        b.iter(|| max_pool2d(black_box(&x), &unpadded).expect("max_pool2d"))
    });
    let y = tensor(&[8, 512, 7, 7]);
    g.bench_function("global_avg_pool_8x512x7x7", |b| {
        b.iter(|| global_pool2d(black_box(&y), ReduceOp::Mean).expect("global_avg_pool2d"))
    });
    g.finish();
}

criterion_group!(benches, bench_pool);
criterion_main!(benches);

//! Cross-cutting tests of the quant module: edge cases of the quantizers, SIMD against
//! scalar kernels, thread-count independence, the tensor API and the fused matmul.
//! (A test-only module: declared under #[cfg(test)] in quant/mod.rs.)

use super::dequant::dequantize_blocks;
use super::matmul::matmul_with;
use super::quantize::quantize_with;
use super::vec_dot::{
    vec_dot, vec_dot_rows, vec_dot_rows_on, vec_dot_type, ActivationRows, RowsKernel,
};
use super::*;
use crate::kernels::isa::Isa;
use crate::tensor::Tensor;

/// Deterministic roughly normal values.
pub fn normal(n: usize, seed: u64) -> Vec<f32> {
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

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    normal(n, seed)
        .iter()
        .map(|v| (v.to_bits() >> 7) as u8)
        .collect()
}

const MAIN: [QType; 5] = [QType::Q4K, QType::Q5K, QType::Q6K, QType::Q8_0, QType::Q8K];

fn roundtrip(x: &[f32], qtype: QType) -> Vec<f32> {
    let bytes = quantize(x, qtype).unwrap();
    dequantize(&bytes, qtype, x.len()).unwrap()
}

fn rel_rmse(x: &[f32], y: &[f32]) -> f64 {
    let err: f64 = x.iter().zip(y).map(|(a, b)| ((a - b) as f64).powi(2)).sum();
    let norm: f64 = x.iter().map(|&a| (a as f64).powi(2)).sum();
    (err / norm).sqrt()
}

#[test]
fn simd_quantizers_match_scalar_bytes() {
    let mut inputs = vec![
        normal(4096, 1),
        normal(4096, 2).iter().map(|v| v * 1e-3 - 5.0).collect(),
    ];
    let mut edge = normal(1024, 3);
    edge[5] = f32::NAN;
    edge[300] = f32::INFINITY;
    edge[600] = -1e30;
    edge[700..].iter_mut().for_each(|v| *v *= 1e-39);
    inputs.push(edge);
    for x in &inputs {
        for qtype in QUANTIZABLE {
            let a = quantize_with(Isa::SCALAR, x, qtype, &|_, _| {}).unwrap();
            let b = quantize_with(Isa::detect(), x, qtype, &|_, _| {}).unwrap();
            assert!(a == b, "{qtype:?}");
        }
    }
}

#[test]
fn progress_is_reported_per_chunk_and_changes_no_byte() {
    let x = normal(3 * 4096 + 256, 7);
    let seen = std::sync::Mutex::new(Vec::new());
    let report = |done, total| seen.lock().unwrap().push((done, total));
    let bytes = quantize_with(Isa::detect(), &x, QType::Q4K, &report).unwrap();
    assert!(bytes == quantize(&x, QType::Q4K).unwrap());
    // One report per chunk; the counts add up in whatever order chunks finish.
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().all(|&(_, total)| total == x.len()));
    assert_eq!(seen.last(), Some(&(x.len(), x.len())));
}

#[test]
fn simd_dequantizers_match_scalar_bits() {
    for qtype in QType::all() {
        let n = 4 * 256;
        let bytes = random_bytes(qtype.bytes_for(n).unwrap(), qtype.id() as u64 + 5);
        let mut a = vec![0f32; n];
        let mut b = vec![0f32; n];
        dequantize_blocks(Isa::SCALAR, qtype, &bytes, &mut a);
        dequantize_blocks(Isa::detect(), qtype, &bytes, &mut b);
        let same = a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same, "{qtype:?}");
    }
}

#[test]
fn large_results_are_the_blocks_values() {
    // Past `STREAM_MIN_BYTES` the result is copied out with streaming stores; a length
    // that is not a whole number of work items or pieces checks the last ones.
    let n = (crate::kernels::stream::STREAM_MIN_BYTES / 4 + 3 * 4096 + 256) / 256 * 256;
    for qtype in [QType::Q4K, QType::Q8_0] {
        let bytes = random_bytes(qtype.bytes_for(n).unwrap(), 77);
        let got = dequantize(&bytes, qtype, n).unwrap();
        let mut want = vec![0f32; n];
        dequantize_blocks(Isa::SCALAR, qtype, &bytes, &mut want);
        let same = got
            .iter()
            .zip(&want)
            .all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same && got.len() == n, "{qtype:?}");
    }
}

#[test]
fn roundtrip_error_is_small() {
    let x = normal(8192, 9);
    for (qtype, bound) in [
        (QType::Q4K, 0.12),
        (QType::Q5K, 0.06),
        (QType::Q6K, 0.03),
        (QType::Q8_0, 0.01),
        (QType::Q8K, 0.01),
        (QType::Q4_0, 0.15),
        (QType::Q4_1, 0.12),
        (QType::Q5_0, 0.08),
        (QType::Q5_1, 0.06),
        (QType::Q8_1, 0.01),
        (QType::F16, 1e-3),
        (QType::BF16, 1e-2),
        (QType::F32, 0.0),
    ] {
        let e = rel_rmse(&x, &roundtrip(&x, qtype));
        assert!(e <= bound, "{qtype:?}: relative rmse {e}");
    }
}

#[test]
fn all_zeros_quantize_to_zero_bytes() {
    let x = vec![0f32; 512];
    for qtype in MAIN {
        assert!(
            quantize(&x, qtype).unwrap().iter().all(|&b| b == 0),
            "{qtype:?}"
        );
        assert!(roundtrip(&x, qtype).iter().all(|&v| v == 0.0), "{qtype:?}");
    }
}

#[test]
fn constants_round_trip() {
    for c in [0.5f32, -0.5, 3.0, -1234.0] {
        let x = vec![c; 256];
        for qtype in MAIN {
            let y = roundtrip(&x, qtype);
            // The scales are stored as f16 (relative precision 2^-11) times 6-bit ints.
            let tol = c.abs() * 2e-3;
            assert!(
                y.iter().all(|&v| (v - c).abs() <= tol),
                "{qtype:?} {c}: {:?}",
                &y[..2]
            );
        }
    }
    // docs/KQUANT.md's example: a positive constant block has every scale 63, every min 0.
    let b = quantize(&[2.0f32; 256], QType::Q4K).unwrap();
    assert_eq!(&b[4..16], &[255, 255, 255, 255, 0, 0, 0, 0, 15, 15, 15, 15]);
}

#[test]
fn huge_outlier_keeps_its_value() {
    let mut x = normal(256, 4);
    x[77] = 1e4;
    for qtype in MAIN {
        let y = roundtrip(&x, qtype);
        assert!((y[77] - 1e4).abs() <= 1e4 * 0.02, "{qtype:?}: {}", y[77]);
        assert!(y.iter().all(|v| v.is_finite()), "{qtype:?}");
    }
}

#[test]
fn scale_underflowing_f16_gives_zeros() {
    // Scales near 1e-9 are below f16's smallest subnormal: the stored d is 0.
    let x: Vec<f32> = normal(256, 5).iter().map(|v| v * 1e-9).collect();
    for qtype in [QType::Q4K, QType::Q5K, QType::Q6K, QType::Q8_0] {
        let y = roundtrip(&x, qtype);
        assert!(y.iter().all(|&v| v == 0.0), "{qtype:?}");
    }
    // Q8_K keeps an f32 scale.
    assert!(rel_rmse(&x, &roundtrip(&x, QType::Q8K)) < 0.01);
}

#[test]
fn negative_values_only() {
    let x: Vec<f32> = normal(1024, 6).iter().map(|v| -3.0 - v.abs()).collect();
    for (qtype, bound) in [
        (QType::Q4K, 0.02),
        (QType::Q5K, 0.01),
        (QType::Q6K, 0.02),
        (QType::Q8_0, 0.005),
        (QType::Q8K, 0.005),
    ] {
        let e = rel_rmse(&x, &roundtrip(&x, qtype));
        assert!(e <= bound, "{qtype:?}: {e}");
    }
    // Q8_K: the largest magnitude maps to -127, so d is positive for negative data.
    let b = quantize(&x[..256], QType::Q8K).unwrap();
    assert!(f32::from_le_bytes([b[0], b[1], b[2], b[3]]) > 0.0);
}

#[test]
fn q8k_block_layout() {
    let mut x = vec![0f32; 256];
    x[3] = -2.0;
    x[20] = 1.0;
    let b = quantize(&x, QType::Q8K).unwrap();
    // iscale = -127 / -2 = 63.5: the largest magnitude becomes -127, and 63.5 rounds
    // to the even 64.
    assert_eq!(f32::from_le_bytes([b[0], b[1], b[2], b[3]]), 1.0 / 63.5);
    assert_eq!(b[4 + 3] as i8, -127);
    assert_eq!(b[4 + 20] as i8, 64);
    assert_eq!(i16::from_le_bytes([b[260], b[261]]), -127);
    assert_eq!(i16::from_le_bytes([b[262], b[263]]), 64);
}

#[test]
fn quantize_rejects_bad_lengths_and_types() {
    let e = quantize(&[1.0; 100], QType::Q4K).unwrap_err();
    assert!(e.contains("100") && e.contains("256"), "{e}");
    let e = quantize(&[1.0; 256], QType::Q2K).unwrap_err();
    assert!(e.contains("q2_k"), "{e}");
    assert!(quantize(&[], QType::Q4K).unwrap().is_empty());
    let e = dequantize(&[0; 143], QType::Q4K, 256).unwrap_err();
    assert!(e.contains("143"), "{e}");
    assert!(dequantize(&[0; 144], QType::Q4K, 255).is_err());
}

#[test]
fn results_do_not_depend_on_thread_count() {
    let x = normal(64 * 256, 8);
    let xt = Tensor::from_vec(normal(20 * 512, 10), &[20, 512]).unwrap();
    let xv = Tensor::from_vec(normal(3 * 512, 11), &[3, 512]).unwrap();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let q = quantize(&x, QType::Q4K).unwrap();
            let w =
                QTensor::new(QType::Q4K, vec![32, 512], QBytes::Owned(q.clone().into())).unwrap();
            let a = matmul_f32_q(&xt, &w).unwrap().to_vec::<f32>();
            let b = matmul_f32_q(&xv, &w).unwrap().to_vec::<f32>();
            (q, a, b)
        })
    };
    assert!(run(1) == run(2));
}

/// Blocks whose floats are all exact: power-of-two scales and small quants.
fn exact_blocks(wtype: QType, nblocks: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let at = vec_dot_type(wtype).unwrap();
    let mut w = random_bytes(nblocks * wtype.block_bytes(), seed);
    let mut a = random_bytes(nblocks * at.block_bytes(), seed + 1);
    let one = half::f16::from_f32(0.5).to_le_bytes();
    for b in w.chunks_exact_mut(wtype.block_bytes()) {
        let d = match wtype {
            QType::Q6K => 208,
            _ => 0,
        };
        b[d..d + 2].copy_from_slice(&one);
        if matches!(wtype, QType::Q4K | QType::Q5K) {
            b[2..4].copy_from_slice(&one);
        }
    }
    for b in a.chunks_exact_mut(at.block_bytes()) {
        if at == QType::Q8K {
            b[..4].copy_from_slice(&0.25f32.to_le_bytes());
            for v in &mut b[4..260] {
                *v = (*v as i8 / 16) as u8;
            }
            let sums: Vec<i16> = b[4..260]
                .chunks(16)
                .map(|g| g.iter().map(|&q| q as i8 as i16).sum())
                .collect();
            for (o, s) in b[260..].chunks_exact_mut(2).zip(sums) {
                o.copy_from_slice(&s.to_le_bytes());
            }
        } else {
            b[..2].copy_from_slice(&one);
            for v in &mut b[2..] {
                *v = (*v as i8 / 16) as u8;
            }
        }
    }
    (w, a)
}

#[test]
fn simd_dots_equal_scalar_exactly_on_exact_floats() {
    for wtype in [QType::Q4K, QType::Q5K, QType::Q6K, QType::Q8_0] {
        let n = if wtype == QType::Q8_0 { 16 } else { 2 };
        for seed in 0..8 {
            let (w, a) = exact_blocks(wtype, n, 100 * seed + wtype.id() as u64);
            let s = vec_dot(Isa::SCALAR, wtype, &w, &a);
            let v = vec_dot(Isa::detect(), wtype, &w, &a);
            assert_eq!(s, v, "{wtype:?} seed {seed}");
        }
    }
}

#[test]
fn simd_dots_equal_scalar_bitwise_on_any_data() {
    for wtype in [QType::Q4K, QType::Q5K, QType::Q6K, QType::Q8_0] {
        let at = vec_dot_type(wtype).unwrap();
        // 3 and 7 blocks of 256: Q8_0 then has an odd number of its 32-value blocks.
        for (k, seed) in [(768, 1), (1792, 2), (256, 3), (1024, 4)] {
            // The last case has spikes, so quants reach the ends of their ranges
            // (nibbles 0 and 15, activations ±127) where saturating steps would show.
            let wild = |v: Vec<f32>| -> Vec<f32> {
                v.into_iter()
                    .enumerate()
                    .map(|(i, x)| match (seed, i % 7) {
                        (4, 0) => x * 1e3,
                        (4, 3) => -5e2,
                        _ => x,
                    })
                    .collect()
            };
            let w = quantize_with(Isa::SCALAR, &wild(normal(k, seed)), wtype, &|_, _| ()).unwrap();
            let a =
                quantize_with(Isa::SCALAR, &wild(normal(k, seed + 50)), at, &|_, _| ()).unwrap();
            let s = vec_dot(Isa::SCALAR, wtype, &w, &a);
            for isa in Isa::supported() {
                let v = vec_dot(isa, wtype, &w, &a);
                assert_eq!(s.to_bits(), v.to_bits(), "{wtype:?} k={k} {isa:?}");
            }
        }
    }
}

#[test]
fn many_row_dots_equal_scalar_dots_bitwise() {
    // Q8_0 rows of 1 block (no pair), of 25 blocks (pairs and a last odd block), of 128
    // (one whole run of the VNNI tile), 130 and 131 (more pairs than one run, even and
    // odd).
    let cases = [
        (QType::Q4K, 768),
        (QType::Q5K, 768),
        (QType::Q6K, 768),
        (QType::Q8_0, 32),
        (QType::Q8_0, 800),
        (QType::Q8_0, 4096),
        (QType::Q8_0, 4160),
        (QType::Q8_0, 4192),
    ];
    for (wtype, k) in cases {
        let at = vec_dot_type(wtype).unwrap();
        let (wbytes, abytes) = (wtype.bytes_for(k).unwrap(), at.bytes_for(k).unwrap());
        // Spikes in every fifth row reach the ends of the quant ranges.
        let spiky = |v: Vec<f32>, row: usize| -> Vec<f32> {
            v.into_iter()
                .enumerate()
                .map(|(i, x)| match (row % 5, i % 7) {
                    (0, 0) => x * 1e3,
                    (0, 3) => -5e2,
                    _ => x,
                })
                .collect()
        };
        let rows = |t: QType, n: usize, seed: u64| -> Vec<u8> {
            (0..n)
                .flat_map(|i| {
                    let v = spiky(normal(k, seed + i as u64), i);
                    quantize_with(Isa::SCALAR, &v, t, &|_, _| ()).unwrap()
                })
                .collect()
        };
        // Tiles of 4 (AVX2) or 16 (AVX-512) weight rows by groups of 32 or 64 activation
        // rows taken 4 at a time (K-quants), 4 weight rows by 32 activation rows (Q8_0)
        // or 4 by 4 (Q8_0 with VNNI), and passes of 8 weight rows against one activation
        // row (Q4_K on AVX2) or 4 side by side (Q4_K, Q5_K on AVX-512 VNNI), whole and
        // cut short. (One Q8_0 row given to the AVX2 tile takes the single-row dots, as
        // in a matmul; given to the VNNI tile, it has no packed rows and takes the
        // 512-bit tile.)
        let shapes = [
            (5, 1),
            (8, 1),
            (19, 1),
            (1, 2),
            (3, 3),
            (4, 31),
            (5, 32),
            (9, 33),
            (6, 70),
            (16, 4),
            (35, 66),
        ];
        for (n, m) in shapes {
            let (w, a) = (rows(wtype, n, 40), rows(at, m, 900));
            assert_many_row_dots(wtype, (&w, wbytes), (&a, abytes));
        }
    }
}

#[test]
fn one_row_dots_take_rows_at_their_stride_and_one_activation_row() {
    // Weight rows of 3 Q4_K or Q5_K blocks and 8 spare bytes, and one activation row of
    // 2 Q8_K blocks followed by half a row more: each output is the scalar dot of its
    // row's first 2 blocks with the activation row, on every ISA (on AVX2 by the Q4_K
    // matrix-vector kernel, on AVX-512 VNNI by four rows side by side and three alone).
    let (n, k) = (19, 768);
    let abytes = QType::Q8K.bytes_for(512).unwrap();
    let a = quantize_with(Isa::SCALAR, &normal(768, 99), QType::Q8K, &|_, _| ()).unwrap();
    for wtype in [QType::Q4K, QType::Q5K] {
        let wbytes = wtype.bytes_for(k).unwrap() + 8;
        let w: Vec<u8> = (0..n)
            .flat_map(|r| {
                let mut row =
                    quantize_with(Isa::SCALAR, &normal(k, r as u64), wtype, &|_, _| ()).unwrap();
                row.extend([0x7c; 8]);
                row
            })
            .collect();
        assert_one_row_dots(wtype, (&w, wbytes), (&a, abytes));
    }
}

/// `vec_dot_rows` of the weight rows `w` (stride `w.1`) against the first activation
/// row of `a` (stride `a.1`, the one whole row) gives each row's scalar dot, bit for
/// bit, on every ISA.
fn assert_one_row_dots(wtype: QType, w: (&[u8], usize), a: (&[u8], usize)) {
    let want: Vec<u32> =
        w.0.chunks_exact(w.1)
            .map(|row| vec_dot(Isa::SCALAR, wtype, row, &a.0[..a.1]).to_bits())
            .collect();
    for isa in Isa::supported() {
        let mut out = vec![0f32; want.len()];
        let acts = ActivationRows::new(isa, wtype, a);
        vec_dot_rows(isa, wtype, w, &acts, &mut out);
        let bits: Vec<u32> = out.iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, want, "{wtype:?} {isa:?}");
    }
}

#[test]
fn q8_0_rows_take_rows_at_their_stride() {
    // Weight and activation rows of 25 Q8_0 blocks and 8 spare bytes (the Q8_0 tiles
    // need equal strides), the activation rows followed by half a row more: each
    // output is the scalar dot of its rows' 25 blocks, for one activation row on every
    // ISA, and for 33 (a group of 32 and one more) on every ISA and every many-row
    // kernel the CPU runs.
    let (n, k) = (19, 800);
    let bytes = QType::Q8_0.bytes_for(k).unwrap() + 8;
    let rows = |seeds: std::ops::Range<u64>| -> Vec<u8> {
        let mut rows: Vec<u8> = seeds
            .flat_map(|seed| {
                let v = normal(k, seed);
                let mut row = quantize_with(Isa::SCALAR, &v, QType::Q8_0, &|_, _| ()).unwrap();
                row.extend([0x7c; 8]);
                row
            })
            .collect();
        rows.extend(vec![0x55; bytes / 2]);
        rows
    };
    let w = rows(0..n);
    assert_one_row_dots(QType::Q8_0, (&w, bytes), (&rows(99..100), bytes));

    assert_many_row_dots(QType::Q8_0, (&w, bytes), (&rows(100..133), bytes));
}

/// `vec_dot_rows` of the weight rows `w` against the activation rows `a` (each with
/// its stride; whole rows only) gives every pair's scalar dot, bit for bit, on every
/// ISA and with every many-row kernel the CPU runs, not only the widest.
fn assert_many_row_dots(wtype: QType, w: (&[u8], usize), a: (&[u8], usize)) {
    let want: Vec<u32> =
        w.0.chunks_exact(w.1)
            .flat_map(|wrow| {
                a.0.chunks_exact(a.1)
                    .map(|arow| vec_dot(Isa::SCALAR, wtype, wrow, arow).to_bits())
            })
            .collect();
    let bits = |out: &[f32]| out.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    let shape = (w.0.len() / w.1, a.0.len() / a.1);
    for isa in Isa::supported() {
        let mut out = vec![0f32; want.len()];
        let acts = ActivationRows::new(isa, wtype, a);
        vec_dot_rows(isa, wtype, w, &acts, &mut out);
        assert_eq!(bits(&out), want, "{wtype:?} {shape:?} {isa:?}");
    }
    for kernel in RowsKernel::all() {
        // The narrowest ISA the kernel runs on: activations are prepared for the widest
        // kernel an ISA allows (the AVX2 Q8_0 tile's only where AVX2 is the widest).
        let Some(isa) = Isa::supported()
            .into_iter()
            .find(|&isa| kernel.runs_on(isa))
        else {
            eprintln!("skipped the {kernel:?} many-row kernel: this CPU lacks it");
            continue;
        };
        let mut out = vec![0f32; want.len()];
        let acts = ActivationRows::new(isa, wtype, a);
        vec_dot_rows_on(kernel, isa, wtype, w, &acts, &mut out);
        assert_eq!(bits(&out), want, "{wtype:?} {shape:?} {kernel:?}");
    }
}

/// x @ w.T computed from the dequantized weight in f64.
fn reference(x: &[f32], m: usize, k: usize, w: &QTensor) -> Vec<f64> {
    let wd = w.dequantize().unwrap().to_vec::<f32>();
    let n = w.shape[0];
    let mut out = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k)
                .map(|p| x[i * k + p] as f64 * wd[j * k + p] as f64)
                .sum();
        }
    }
    out
}

fn check_matmul(isa: Isa, qtype: QType, m: usize, n: usize, k: usize) {
    let x = normal(m * k, 21 + m as u64);
    let wv = normal(n * k, 22 + n as u64);
    let w = QTensor::quantize(&Tensor::from_vec(wv, &[n, k]).unwrap(), qtype).unwrap();
    let got = matmul_with(isa, &Tensor::from_vec(x.clone(), &[m, k]).unwrap(), &w).unwrap();
    assert_eq!(got.shape(), &[m, n]);
    let got = got.to_vec::<f32>();
    let want = reference(&x, m, k, &w);
    let wd = w.dequantize().unwrap().to_vec::<f32>();
    let fused = vec_dot_type(qtype).is_some();
    for i in 0..m {
        let row = &x[i * k..(i + 1) * k];
        let amax = row.iter().fold(0f32, |a, v| a.max(v.abs())) as f64;
        for j in 0..n {
            let wrow = &wd[j * k..(j + 1) * k];
            let abs: f64 = row
                .iter()
                .zip(wrow)
                .map(|(a, b)| (a * b).abs() as f64)
                .sum();
            // Fused: activations are rounded to steps of amax/127, so each term moves by
            // at most half a step times |w|. Both: f32 summation error.
            let quant = if fused {
                0.5 * amax / 127.0 * wrow.iter().map(|v| v.abs() as f64).sum::<f64>()
            } else {
                0.0
            };
            let tol = quant * 1.01 + 1e-5 * abs + 1e-6;
            let err = (got[i * n + j] as f64 - want[i * n + j]).abs();
            assert!(
                err <= tol,
                "{qtype:?} {isa:?} m={m} ({i},{j}): err {err} > tol {tol}"
            );
        }
    }
}

#[test]
fn fused_matmul_matches_dequantize_then_matmul() {
    for qtype in [QType::Q4K, QType::Q5K, QType::Q6K, QType::Q8_0] {
        for isa in [Isa::SCALAR, Isa::detect()] {
            check_matmul(isa, qtype, 1, 37, 512);
            check_matmul(isa, qtype, 5, 20, 256);
        }
    }
}

#[test]
fn a_row_gives_the_same_bits_in_any_batch() {
    let (m, n, k) = (40, 24, 512);
    let x = Tensor::from_vec(normal(m * k, 5), &[m, k]).unwrap();
    for qtype in [QType::Q4K, QType::Q5K, QType::Q6K, QType::Q8_0, QType::Q4_0] {
        let w = QTensor::quantize(&Tensor::from_vec(normal(n * k, 6), &[n, k]).unwrap(), qtype)
            .unwrap();
        for isa in Isa::supported() {
            let whole = matmul_with(isa, &x, &w).unwrap().to_vec::<f32>();
            // Batches of 1, 7, 15, 16 and 17 rows, cut from the same rows.
            for batch in [1, 7, 15, 16, 17] {
                for start in (0..m).step_by(batch) {
                    let rows = batch.min(m - start);
                    let part = Tensor::from_vec(
                        x.to_vec::<f32>()[start * k..(start + rows) * k].to_vec(),
                        &[rows, k],
                    )
                    .unwrap();
                    let got = matmul_with(isa, &part, &w).unwrap().to_vec::<f32>();
                    let want = &whole[start * n..(start + rows) * n];
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(
                        bits(&got),
                        bits(want),
                        "{qtype:?} {isa:?} rows {start}..+{rows}"
                    );
                }
            }
        }
    }
}

#[test]
fn many_row_and_tiled_matmul_match_dequantize_then_matmul() {
    for qtype in [
        QType::Q4K,
        QType::Q6K,
        QType::Q8_0,
        QType::Q4_0,
        QType::Q5_1,
        QType::F16,
    ] {
        for isa in [Isa::SCALAR, Isa::detect()] {
            check_matmul(isa, qtype, 17, 29, 1280);
        }
    }
    // Types without a fused kernel use the tiled path for a single row too.
    check_matmul(Isa::detect(), QType::Q4_1, 1, 5, 64);
    check_matmul(Isa::detect(), QType::F32, 2, 3, 7);
}

#[test]
fn matmul_shapes_and_errors() {
    let w = QTensor::quantize(
        &Tensor::from_vec(normal(3 * 256, 1), &[3, 256]).unwrap(),
        QType::Q4K,
    )
    .unwrap();
    let x = Tensor::from_vec(normal(2 * 4 * 256, 2), &[2, 4, 256]).unwrap();
    assert_eq!(matmul_f32_q(&x, &w).unwrap().shape(), &[2, 4, 3]);
    let v = Tensor::from_vec(normal(256, 3), &[256]).unwrap();
    assert_eq!(matmul_f32_q(&v, &w).unwrap().shape(), &[3]);
    let bad = Tensor::from_vec(normal(128, 3), &[128]).unwrap();
    let e = matmul_f32_q(&bad, &w).unwrap_err();
    assert!(e.contains("128") && e.contains("256"), "{e}");
    let e = matmul_f32_q(&Tensor::from_vec(vec![1i64; 256], &[256]).unwrap(), &w).unwrap_err();
    assert!(e.contains("i64"), "{e}");
    let e = matmul_f32_q(&Tensor::scalar(1f32), &w).unwrap_err();
    assert!(e.contains("dimension"), "{e}");
    let w3 = QTensor::quantize(
        &Tensor::from_vec(normal(2 * 256, 1), &[1, 2, 256]).unwrap(),
        QType::Q8_0,
    )
    .unwrap();
    assert!(matmul_f32_q(&v, &w3).unwrap_err().contains("2-d"));
    // Empty operands.
    let x0 = Tensor::from_vec(Vec::<f32>::new(), &[0, 256]).unwrap();
    assert_eq!(matmul_f32_q(&x0, &w).unwrap().shape(), &[0, 3]);
    let w0 = QTensor::quantize(
        &Tensor::from_vec(Vec::<f32>::new(), &[0, 256]).unwrap(),
        QType::Q4K,
    )
    .unwrap();
    assert_eq!(matmul_f32_q(&v, &w0).unwrap().shape(), &[0]);
    let wk0 = QTensor::quantize(
        &Tensor::from_vec(Vec::<f32>::new(), &[4, 0]).unwrap(),
        QType::Q8_0,
    )
    .unwrap();
    let xk0 = Tensor::from_vec(Vec::<f32>::new(), &[2, 0]).unwrap();
    assert_eq!(
        matmul_f32_q(&xk0, &wk0).unwrap().to_vec::<f32>(),
        vec![0.0; 8]
    );
}

#[test]
fn qtensor_api() {
    let t = Tensor::from_vec(normal(6 * 512, 4), &[2, 3, 512]).unwrap();
    let q = QTensor::quantize(&t, QType::Q6K).unwrap();
    assert_eq!(q.nbytes(), 6 * 2 * 210);
    assert_eq!(q.numel(), Some(6 * 512));
    let d = q.dequantize().unwrap();
    assert_eq!(d.shape(), &[2, 3, 512]);
    assert!(rel_rmse(&t.to_vec::<f32>(), &d.to_vec::<f32>()) < 0.03);
    let e = QTensor::quantize(
        &Tensor::from_vec(vec![1f32; 300], &[3, 100]).unwrap(),
        QType::Q4K,
    )
    .unwrap_err();
    assert!(e.contains("(100)") && e.contains("256"), "{e}");
    let e = QTensor::new(QType::Q4K, vec![2, 256], QBytes::Owned(vec![0; 144].into())).unwrap_err();
    assert!(e.contains("288") && e.contains("144"), "{e}");
    assert!(q.dequantize_transposed().unwrap_err().contains("2-d"));
    // Integer tensors are converted.
    let qi = QTensor::quantize(
        &Tensor::from_vec(vec![127i32; 32], &[32]).unwrap(),
        QType::Q8_0,
    )
    .unwrap();
    assert_eq!(qi.dequantize().unwrap().to_vec::<f32>(), vec![127.0; 32]);
}

#[test]
fn dequantize_transposed_is_the_transpose() {
    for (qtype, n, k) in [
        (QType::Q4K, 37, 768),
        (QType::Q8_0, 5, 96),
        (QType::F16, 3, 7),
        (QType::Q5K, 1, 256),
    ] {
        let w = QTensor::quantize(&Tensor::from_vec(normal(n * k, 2), &[n, k]).unwrap(), qtype)
            .unwrap();
        let d = w.dequantize().unwrap().to_vec::<f32>();
        let t = w.dequantize_transposed().unwrap();
        assert_eq!(t.shape(), &[k, n]);
        let t = t.to_vec::<f32>();
        for j in 0..n {
            for p in 0..k {
                assert_eq!(t[p * n + j].to_bits(), d[j * k + p].to_bits(), "{qtype:?}");
            }
        }
    }
}

#[test]
fn dense_types_convert() {
    let x = [1.5f32, -2.0, 65504.0, 1e-3];
    for qtype in [QType::F32, QType::F16, QType::BF16] {
        let y = roundtrip(&x, qtype);
        for (a, b) in x.iter().zip(&y) {
            assert!((a - b).abs() <= a.abs() * 4e-3, "{qtype:?}");
        }
    }
    let bytes: Vec<u8> = [-5i16, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(dequantize(&bytes, QType::I16, 2).unwrap(), vec![-5.0, 7.0]);
    let bytes: Vec<u8> = 2.5f64.to_le_bytes().to_vec();
    assert_eq!(dequantize(&bytes, QType::F64, 1).unwrap(), vec![2.5]);
    assert_eq!(dequantize(&[0xff], QType::I8, 1).unwrap(), vec![-1.0]);
}

#[test]
fn scalar_quantizers_reproduce_the_ggml_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/kquant");
    let input: Vec<f32> = std::fs::read(dir.join("input_f32.bin"))
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    for (name, qtype) in [
        ("Q4_K", QType::Q4K),
        ("Q5_K", QType::Q5K),
        ("Q6_K", QType::Q6K),
        ("Q8_0", QType::Q8_0),
        ("Q8_K", QType::Q8K),
    ] {
        let want = std::fs::read(dir.join(format!("{name}.quant.bin"))).unwrap();
        assert!(
            quantize_with(Isa::SCALAR, &input, qtype, &|_, _| {}).unwrap() == want,
            "{name}"
        );
    }
}

#[test]
fn legacy_quantizers_follow_the_reference_formulas() {
    // Q4_0: the largest magnitude is -8, so d = 1 and q = x + 8 exactly.
    let x: Vec<f32> = (0..32).map(|i| (i % 16) as f32 - 8.0).collect();
    let b = quantize(&x, QType::Q4_0).unwrap();
    assert_eq!(half::f16::from_le_bytes([b[0], b[1]]).to_f32(), 1.0);
    assert_eq!(b[2], 0x00);
    assert_eq!(b[3], 0x11);
    assert_eq!(roundtrip(&x, QType::Q4_0), x);
    // Q4_1: min 0, max 15: d = 1, m = 0.
    let y: Vec<f32> = (0..32).map(|i| (i % 16) as f32).collect();
    assert_eq!(roundtrip(&y, QType::Q4_1), y);
    // Q5_0 and Q5_1 carry a fifth bit.
    let z: Vec<f32> = (0..32).map(|i| i as f32 - 16.0).collect();
    assert_eq!(roundtrip(&z, QType::Q5_0), z);
    let u: Vec<f32> = (0..32).map(|i| i as f32).collect();
    assert_eq!(roundtrip(&u, QType::Q5_1), u);
    // Q8_1 stores s = d·Σq.
    let b = quantize(&u, QType::Q8_1).unwrap();
    let d = half::f16::from_le_bytes([b[0], b[1]]).to_f32();
    let sum: i32 = b[4..].iter().map(|&q| q as i8 as i32).sum();
    assert_eq!(
        half::f16::from_le_bytes([b[2], b[3]]),
        half::f16::from_f32(sum as f32 * (31.0 / 127.0))
    );
    assert!(d > 0.0);
}

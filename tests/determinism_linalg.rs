//! Matrix products and convolutions give the same bits for 1, 2 and 3 threads (the
//! work is split at boundaries fixed by the shapes), on operands large enough to be
//! split, including strided views passed to the GEMM without copies; and the fast paths
//! agree with a naive f64 sum.

use tsr::ops::conv::{conv, conv_transpose, ConvParams, Padding, TransposeParams};
use tsr::ops::matmul;
mod common;

use common::{tensor, with_threads};
use tsr::tensor::{DType, SliceSpec, Tensor};

fn bits(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .iter()
            .map(|x| x.to_bits() as u64)
            .collect(),
        _ => t.to_vec::<f64>().iter().map(|x| x.to_bits()).collect(),
    }
}

/// Runs `f` with 1, 2 and 3 threads and asserts the results are bitwise equal.
fn same_bits_for_any_thread_count(what: &str, f: impl Fn() -> Tensor + Send + Sync) -> Tensor {
    let one = with_threads(1, &f);
    for n in [2, 3] {
        assert_eq!(
            bits(&with_threads(n, &f)),
            bits(&one),
            "{what}: {n} threads"
        );
    }
    one
}

/// numpy.matmul for 2-D operands, summed in f64.
fn naive_2d(a: &Tensor, b: &Tensor) -> Vec<f64> {
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    let (av, bv) = (a.to_vec::<f64>(), b.to_vec::<f64>());
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            out[i * n + j] = (0..k).map(|p| av[i * k + p] * bv[p * n + j]).sum();
        }
    }
    out
}

fn assert_close(got: &Tensor, want: &[f64], tol: f64, what: &str) {
    for (g, w) in got.to_vec::<f64>().iter().zip(want) {
        assert!((g - w).abs() <= tol, "{what}: {g} vs {w}");
    }
}

fn every_other(t: &Tensor, axis: i64) -> Tensor {
    let spec = SliceSpec {
        start: None,
        stop: None,
        step: 2,
    };
    t.slice(axis, spec).unwrap()
}

#[test]
fn matmul_2d_and_views_are_thread_count_independent() {
    for dtype in [DType::F32, DType::F64] {
        let tol = if dtype == DType::F32 { 1e-4 } else { 1e-12 };
        // Not multiples of the micro-tile, k beyond the crate's k-block.
        let a = tensor(&[301, 700], 1, dtype);
        let b = tensor(&[700, 259], 2, dtype);
        let got = same_bits_for_any_thread_count("2-D", || matmul(&a, &b).unwrap());
        assert_close(&got, &naive_2d(&a, &b), tol, "2-D");
        // Transposed, sliced (step 2) and reversed operands, read through strides.
        let at = tensor(&[700, 301], 3, dtype).transpose(0, 1).unwrap();
        let bs = every_other(&tensor(&[700, 518], 4, dtype), 1);
        let flip = SliceSpec {
            start: None,
            stop: None,
            step: -1,
        };
        let br = tensor(&[700, 259], 5, dtype).slice(0, flip).unwrap();
        for (name, x, y) in [
            ("a.T", &at, &b),
            ("b[:, ::2]", &a, &bs),
            ("b[::-1]", &a, &br),
        ] {
            let got = same_bits_for_any_thread_count(name, || matmul(x, y).unwrap());
            let want = naive_2d(&x.contiguous(), &y.contiguous());
            assert_close(&got, &want, tol, name);
        }
        // Matrix-vector, both ways round.
        let v = tensor(&[700], 6, dtype);
        same_bits_for_any_thread_count("matvec", || {
            matmul(&tensor(&[2000, 700], 7, dtype), &v).unwrap()
        });
        same_bits_for_any_thread_count("vecmat", || matmul(&v, &b).unwrap());
    }
}

#[test]
fn batched_and_broadcast_matmul_are_thread_count_independent() {
    for dtype in [DType::F32, DType::F64] {
        let tol = if dtype == DType::F32 { 1e-4 } else { 1e-12 };
        let a = tensor(&[6, 70, 90], 1, dtype);
        let b = tensor(&[6, 90, 50], 2, dtype);
        let got = same_bits_for_any_thread_count("batched", || matmul(&a, &b).unwrap());
        for i in 0..6 {
            let (ai, bi) = (a.select(0, i).unwrap(), b.select(0, i).unwrap());
            let gi = got.select(0, i).unwrap();
            assert_close(&gi, &naive_2d(&ai, &bi), tol, "batched");
        }
        // Right operand shared by every batch index: merged into one product.
        let w = tensor(&[90, 300], 3, dtype);
        let got = same_bits_for_any_thread_count("broadcast", || matmul(&a, &w).unwrap());
        let flat = a.reshape(&[420, 90]).unwrap();
        assert_close(
            &got.reshape(&[420, 300]).unwrap(),
            &naive_2d(&flat, &w),
            tol,
            "broadcast",
        );
        // A strided batch (every other matrix) that cannot merge its rows.
        let a2 = every_other(&tensor(&[8, 70, 90], 4, dtype), 0);
        same_bits_for_any_thread_count("strided batch", || matmul(&a2, &w).unwrap());
    }
}

#[test]
fn convolutions_are_thread_count_independent() {
    let x = tensor(&[2, 16, 30, 30], 1, DType::F32);
    let w = tensor(&[32, 16, 3, 3], 2, DType::F32);
    let p = ConvParams {
        stride: vec![1, 1],
        padding: Padding::Explicit(vec![1, 1]),
        dilation: vec![1, 1],
        groups: 1,
    };
    same_bits_for_any_thread_count("conv2d", || conv(&x, &w, None, 2, &p).unwrap());
    let dw = tensor(&[16, 1, 3, 3], 3, DType::F32);
    let p = ConvParams { groups: 16, ..p };
    same_bits_for_any_thread_count("depthwise", || conv(&x, &dw, None, 2, &p).unwrap());
    // The generic depthwise kernel (the 3×3 one has its own AVX2 twin).
    let dw5 = tensor(&[32, 1, 5, 3], 5, DType::F32);
    let p5 = ConvParams {
        stride: vec![2, 1],
        padding: Padding::Explicit(vec![2, 1]),
        ..p
    };
    same_bits_for_any_thread_count("depthwise 5x3", || conv(&x, &dw5, None, 2, &p5).unwrap());
    let wt = tensor(&[16, 8, 4, 4], 4, DType::F32);
    let p = TransposeParams {
        stride: vec![2, 2],
        padding: vec![1, 1],
        output_padding: vec![0, 0],
        groups: 1,
        dilation: vec![1, 1],
    };
    same_bits_for_any_thread_count("conv_transpose2d", || {
        conv_transpose(&x, &wt, None, 2, &p).unwrap()
    });
}

/// A shape or per-dim option in a table of cases.
type Dims = &'static [usize];

/// Each f32 fast path (blocked im2col, Winograd, blocked transposed convolution) gives
/// the same bits for any thread count and agrees with the f64 kernels (checked against
/// NumPy by the op fixtures) within f32 rounding of sums of up to 600 products.
#[test]
fn f32_convolution_paths_agree_with_f64() {
    let pad = |p: &[usize]| Padding::Explicit(p.to_vec());
    let conv_case = |x: &[usize],
                     w: &[usize],
                     stride: &[usize],
                     padding: Padding,
                     dilation: &[usize],
                     groups| {
        let nd = w.len() - 2;
        let (x, w) = (tensor(x, 11, DType::F32), tensor(w, 12, DType::F32));
        let b = tensor(&[w.shape()[0]], 13, DType::F32);
        let p = ConvParams {
            stride: stride.to_vec(),
            padding,
            dilation: dilation.to_vec(),
            groups,
        };
        let what = format!("conv {:?} * {:?} {p:?}", x.shape(), w.shape());
        let got = same_bits_for_any_thread_count(&what, || conv(&x, &w, Some(&b), nd, &p).unwrap());
        let f64 = |t: &Tensor| t.to_dtype(DType::F64);
        let want = conv(&f64(&x), &f64(&w), Some(&f64(&b)), nd, &p).unwrap();
        assert_close(&got, &want.to_vec::<f64>(), 2e-5, &what);
    };
    #[rustfmt::skip]
    let cases: &[(Dims, Dims, Dims, Padding, Dims, usize)] = &[
        // Winograd: 3×3 stride 1, ≥ 8 channels, ≥ 48 output positions; odd and even outputs,
        // padding 0..2, groups, many bands per sample (a tall image with 64 channels), partial
        // tiles on both edges, output channels in several groups of panels, a short or lone
        // panel going last.
        (&[2, 16, 30, 30], &[24, 16, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        (&[1, 16, 20, 20], &[64, 16, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        (&[2, 8, 14, 9], &[30, 8, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        (&[1, 8, 9, 13], &[8, 8, 3, 3], &[1, 1], pad(&[0, 0]), &[1, 1], 1),
        (&[1, 9, 10, 7], &[12, 9, 3, 3], &[1, 1], pad(&[2, 1]), &[1, 1], 1),
        (&[1, 32, 11, 12], &[16, 16, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 2),
        (&[1, 64, 128, 20], &[8, 64, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        (&[1, 8, 7, 9], &[8, 8, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        // Blocked im2col: strides, dilation, 7×7, few channels, blocks split inside rows,
        // more positions than a block, "same" padding, 1-d and 3-d, groups, 3×3 outputs
        // too small for Winograd (an image smaller than its tile).
        (&[1, 8, 2, 1], &[8, 8, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        (&[2, 3, 45, 47], &[16, 3, 7, 7], &[2, 2], pad(&[3, 3]), &[1, 1], 1),
        (&[1, 4, 40, 41], &[6, 4, 3, 3], &[1, 1], pad(&[1, 1]), &[1, 1], 1),
        (&[1, 12, 17, 19], &[12, 4, 3, 2], &[1, 3], pad(&[2, 0]), &[2, 1], 3),
        (&[1, 6, 21, 20], &[8, 6, 4, 3], &[1, 1], Padding::Same, &[1, 2], 1),
        (&[3, 5, 77], &[7, 5, 5], &[2], pad(&[4]), &[3], 1),
        (&[1, 4, 9, 10, 11], &[5, 4, 3, 2, 3], &[2, 1, 1], pad(&[1, 0, 2]), &[1, 2, 1], 1),
        // An empty image with padding: outputs from the padding alone (the bias).
        (&[1, 3, 0, 5], &[4, 3, 3, 3], &[1, 1], pad(&[2, 2]), &[1, 1], 1),
    ];
    for (x, w, stride, padding, dilation, groups) in cases {
        conv_case(x, w, stride, padding.clone(), dilation, *groups);
    }
    // Transposed: strides, dilation, output padding, groups, more channels than a block.
    let transpose_case = |x: &[usize],
                          w: &[usize],
                          stride: &[usize],
                          padding: &[usize],
                          output_padding: &[usize],
                          dilation: &[usize],
                          groups| {
        let nd = w.len() - 2;
        let (x, w) = (tensor(x, 14, DType::F32), tensor(w, 15, DType::F32));
        let b = tensor(&[w.shape()[1] * groups], 16, DType::F32);
        let p = TransposeParams {
            stride: stride.to_vec(),
            padding: padding.to_vec(),
            output_padding: output_padding.to_vec(),
            groups,
            dilation: dilation.to_vec(),
        };
        let what = format!("conv_transpose {:?} * {:?} {p:?}", x.shape(), w.shape());
        let got = same_bits_for_any_thread_count(&what, || {
            conv_transpose(&x, &w, Some(&b), nd, &p).unwrap()
        });
        let f64 = |t: &Tensor| t.to_dtype(DType::F64);
        let want = conv_transpose(&f64(&x), &f64(&w), Some(&f64(&b)), nd, &p).unwrap();
        assert_close(&got, &want.to_vec::<f64>(), 2e-5, &what);
    };
    #[rustfmt::skip]
    let cases: &[(Dims, Dims, Dims, Dims, Dims, Dims, usize)] = &[
        (&[2, 16, 15, 15], &[16, 8, 4, 4], &[2, 2], &[1, 1], &[0, 0], &[1, 1], 1),
        (&[1, 6, 7, 9], &[6, 3, 3, 2], &[1, 3], &[0, 1], &[0, 2], &[2, 1], 2),
        (&[1, 32, 8, 8], &[32, 96, 3, 3], &[2, 2], &[1, 1], &[1, 1], &[1, 1], 1),
        (&[2, 3, 50], &[3, 4, 5], &[3], &[2], &[1], &[2], 1),
        (&[1, 2, 3, 4, 5], &[2, 3, 2, 3, 2], &[2, 1, 2], &[0, 1, 0], &[1, 0, 0], &[1, 1, 2], 1),
        // 144 positions per channel, already the micro-kernel's row stride: x read in place.
        (&[2, 8, 12, 12], &[8, 2, 3, 3], &[2, 2], &[1, 1], &[1, 1], &[1, 1], 2),
    ];
    for &(x, w, stride, padding, output_padding, dilation, groups) in cases {
        transpose_case(x, w, stride, padding, output_padding, dilation, groups);
    }
}

/// Winograd's transforms would turn an infinity into inf - inf = NaN; with a
/// non-finite operand the direct sum runs instead, as IEEE arithmetic has it.
#[test]
fn convolutions_with_infinities_follow_the_direct_sum() {
    // 8 × 8 outputs: enough positions for Winograd but for the infinities.
    let x = tensor(&[1, 8, 8, 8], 17, DType::F32);
    let mut xv = x.to_vec::<f32>();
    xv[3 * 64 + 27] = f32::INFINITY;
    xv[5 * 64 + 28] = f32::NEG_INFINITY;
    let x = Tensor::from_vec(xv, &[1, 8, 8, 8]).unwrap();
    let w = tensor(&[8, 8, 3, 3], 18, DType::F32);
    let p = ConvParams {
        stride: vec![1, 1],
        padding: Padding::Explicit(vec![1, 1]),
        dilation: vec![1, 1],
        groups: 1,
    };
    let got = conv(&x, &w, None, 2, &p).unwrap().to_vec::<f32>();
    let f64 = |t: &Tensor| t.to_dtype(DType::F64);
    let want = conv(&f64(&x), &f64(&w), None, 2, &p)
        .unwrap()
        .to_vec::<f64>();
    for (g, w) in got.iter().zip(&want) {
        let same_class = g.is_nan() == w.is_nan() && (g.is_infinite() == w.is_infinite());
        assert!(
            same_class && (!w.is_finite() || (*g as f64 - w).abs() < 1e-4),
            "{g} vs {w}"
        );
    }
    assert!(want.iter().any(|w| w.is_infinite()));
}

use super::forward::*;
use super::params::*;
use super::transpose::*;
use super::unfold::*;
use crate::ops::testutil::{tensor, values, views};
use crate::tensor::{DType, Result, Tensor};
use DType::*;

/// A small deterministic generator for test data and shapes.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
    fn values(&mut self, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| self.next() as f64 / (1u64 << 31) as f64 - 0.5)
            .collect()
    }
}

/// One convolution problem with up to three spatial dims.
#[derive(Clone, Debug)]
struct Problem {
    batch: usize,
    groups: usize,
    c_in: usize,
    c_out: usize,
    image: Vec<usize>,
    kernel: Vec<usize>,
    stride: Vec<usize>,
    pad: Vec<usize>,
    dilation: Vec<usize>,
}

impl Problem {
    fn random(rng: &mut Lcg, spatial: usize) -> Problem {
        let groups = rng.range(1, 3);
        let per_dim = |rng: &mut Lcg, lo: usize, hi: usize| -> Vec<usize> {
            (0..spatial).map(|_| rng.range(lo, hi)).collect()
        };
        Problem {
            batch: rng.range(1, 2),
            groups,
            c_in: groups * rng.range(1, 2),
            c_out: groups * rng.range(1, 2),
            image: per_dim(rng, 1, 8),
            kernel: per_dim(rng, 1, 3),
            stride: per_dim(rng, 1, 3),
            pad: per_dim(rng, 0, 2),
            dilation: per_dim(rng, 1, 2),
        }
    }

    fn out(&self) -> Option<Vec<usize>> {
        (0..self.image.len())
            .map(|d| {
                let span = self.dilation[d] * (self.kernel[d] - 1) + 1;
                let padded = self.image[d] + 2 * self.pad[d];
                (padded >= span).then(|| (padded - span) / self.stride[d] + 1)
            })
            .collect()
    }

    fn x_shape(&self) -> Vec<usize> {
        [vec![self.batch, self.c_in], self.image.clone()].concat()
    }

    fn w_shape(&self) -> Vec<usize> {
        [
            vec![self.c_out, self.c_in / self.groups],
            self.kernel.clone(),
        ]
        .concat()
    }

    fn params(&self) -> ConvParams {
        ConvParams {
            stride: self.stride.clone(),
            padding: Padding::Explicit(self.pad.clone()),
            dilation: self.dilation.clone(),
            groups: self.groups,
        }
    }
}

/// Three spatial dims, padding `v` (with `fill` for the missing leading ones).
fn three(v: &[usize], fill: usize) -> [usize; 3] {
    let mut out = [fill; 3];
    out[3 - v.len()..].copy_from_slice(v);
    out
}

/// The convolution sum written out from its definition, with symmetric padding.
fn naive_conv(p: &Problem, x: &[f64], w: &[f64], bias: Option<&[f64]>) -> Vec<f64> {
    let (img, ker) = (three(&p.image, 1), three(&p.kernel, 1));
    let (st, pad, dil) = (three(&p.stride, 1), three(&p.pad, 0), three(&p.dilation, 1));
    let out = three(&p.out().unwrap(), 1);
    let (ci, co) = (p.c_in / p.groups, p.c_out / p.groups);
    let mut result = vec![];
    for n in 0..p.batch {
        for oc in 0..p.c_out {
            let g = oc / co;
            for o0 in 0..out[0] {
                for o1 in 0..out[1] {
                    for o2 in 0..out[2] {
                        let mut sum = bias.map_or(0.0, |b| b[oc]);
                        for c in 0..ci {
                            for k0 in 0..ker[0] {
                                for k1 in 0..ker[1] {
                                    for k2 in 0..ker[2] {
                                        let at = |o: usize, k: usize, d: usize| {
                                            let i = (o * st[d] + k * dil[d]) as i64 - pad[d] as i64;
                                            (0..img[d] as i64).contains(&i).then_some(i as usize)
                                        };
                                        let (Some(i0), Some(i1), Some(i2)) =
                                            (at(o0, k0, 0), at(o1, k1, 1), at(o2, k2, 2))
                                        else {
                                            continue;
                                        };
                                        let xc = n * p.c_in + g * ci + c;
                                        let xi = ((xc * img[0] + i0) * img[1] + i1) * img[2] + i2;
                                        let wc = oc * ci + c;
                                        let wi = ((wc * ker[0] + k0) * ker[1] + k1) * ker[2] + k2;
                                        sum += x[xi] * w[wi];
                                    }
                                }
                            }
                        }
                        result.push(sum);
                    }
                }
            }
        }
    }
    result
}

fn dot(a: &Tensor, b: &Tensor) -> f64 {
    values(a).iter().zip(values(b)).map(|(x, y)| x * y).sum()
}

fn assert_near(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-10 * (1.0 + want.abs()),
        "{what}: {got} vs {want}"
    );
}

/// Checks `conv` on random problems against the naive sum, and that a problem
/// whose kernel does not fit is an error.
fn check_random_problems(spatial: usize, seed: u64, count: usize) {
    let mut rng = Lcg(seed);
    let mut checked = 0;
    while checked < count {
        let p = Problem::random(&mut rng, spatial);
        let x = tensor(&rng.values(p.x_shape().iter().product()), &p.x_shape(), F64);
        let w = tensor(&rng.values(p.w_shape().iter().product()), &p.w_shape(), F64);
        let b = tensor(&rng.values(p.c_out), &[p.c_out], F64);
        let got = conv(&x, &w, Some(&b), spatial, &p.params());
        let Some(out) = p.out() else {
            assert!(got.is_err(), "{p:?}");
            continue;
        };
        let want = naive_conv(&p, &values(&x), &values(&w), Some(&values(&b)));
        let shape = [vec![p.batch, p.c_out], out].concat();
        let got = got.unwrap();
        assert_eq!(got.shape(), shape, "{p:?}");
        // The GEMM fuses multiply-adds, so sums that cancel differ in the last bits.
        for (g, w) in values(&got).iter().zip(&want) {
            assert_near(*g, *w, &format!("{p:?}"));
        }
        checked += 1;
    }
}

#[test]
fn conv2d_matches_the_naive_sum_on_random_problems() {
    check_random_problems(2, 1, 150);
}

#[test]
fn conv1d_and_conv3d_match_the_naive_sum() {
    check_random_problems(1, 2, 80);
    check_random_problems(3, 3, 40);
}

#[test]
fn conv_transpose_is_the_adjoint_of_conv() {
    // <conv(x, w), y> == <x, conv_transpose(y, w)>, with output_padding chosen so
    // that the transposed convolution gives back x's size.
    let mut rng = Lcg(4);
    let mut checked = 0;
    while checked < 100 {
        let p = Problem::random(&mut rng, 2);
        let Some(out) = p.out() else { continue };
        let x = tensor(&rng.values(p.x_shape().iter().product()), &p.x_shape(), F64);
        let w = tensor(&rng.values(p.w_shape().iter().product()), &p.w_shape(), F64);
        let y_shape = [vec![p.batch, p.c_out], out.clone()].concat();
        let y = tensor(&rng.values(y_shape.iter().product()), &y_shape, F64);
        let output_padding = (0..2)
            .map(|d| {
                let span = p.dilation[d] * (p.kernel[d] - 1) + 1;
                let reach = (out[d] - 1) * p.stride[d] + span;
                p.image[d] + 2 * p.pad[d] - reach
            })
            .collect();
        let t = TransposeParams {
            stride: p.stride.clone(),
            padding: p.pad.clone(),
            output_padding,
            groups: p.groups,
            dilation: p.dilation.clone(),
        };
        let back = conv_transpose(&y, &w, None, 2, &t).unwrap();
        assert_eq!(back.shape(), x.shape(), "{p:?}");
        let forward = conv(&x, &w, None, 2, &p.params()).unwrap();
        assert_near(dot(&forward, &y), dot(&x, &back), &format!("{p:?}"));
        checked += 1;
    }
}

#[test]
fn col2im_is_the_adjoint_of_im2col() {
    let mut rng = Lcg(5);
    let mut checked = 0;
    while checked < 60 {
        let p = Problem::random(&mut rng, 2);
        let Some(out) = p.out() else { continue };
        let u = UnfoldParams {
            kernel_size: p.kernel.clone(),
            dilation: p.dilation.clone(),
            padding: p.pad.clone(),
            stride: p.stride.clone(),
        };
        let x = tensor(&rng.values(p.x_shape().iter().product()), &p.x_shape(), F64);
        let k: usize = p.kernel.iter().product();
        let c_shape = [p.batch, p.c_in * k, out.iter().product()];
        let c = tensor(&rng.values(c_shape.iter().product()), &c_shape, F64);
        let cols = im2col(&x, &u).unwrap();
        assert_eq!(cols.shape(), c_shape);
        let back = col2im(&c, &p.image, &u).unwrap();
        assert_eq!(back.shape(), x.shape());
        assert_near(dot(&cols, &c), dot(&x, &back), &format!("{p:?}"));
        checked += 1;
    }
}

#[test]
fn im2col_columns_times_the_weight_is_the_convolution() {
    let p = Problem {
        batch: 2,
        groups: 1,
        c_in: 3,
        c_out: 4,
        image: vec![5, 6],
        kernel: vec![2, 3],
        stride: vec![2, 1],
        pad: vec![1, 1],
        dilation: vec![1, 2],
    };
    let mut rng = Lcg(6);
    let x = tensor(&rng.values(2 * 3 * 30), &p.x_shape(), F64);
    let w = tensor(&rng.values(4 * 3 * 6), &p.w_shape(), F64);
    let u = UnfoldParams {
        kernel_size: p.kernel.clone(),
        dilation: p.dilation.clone(),
        padding: p.pad.clone(),
        stride: p.stride.clone(),
    };
    let cols = im2col(&x, &u).unwrap();
    let w2 = w.reshape(&[4, 18]).unwrap();
    let via_cols = crate::ops::matmul(&w2, &cols).unwrap();
    let direct = conv(&x, &w, None, 2, &p.params()).unwrap();
    assert_eq!(values(&via_cols), values(&direct));
}

#[test]
fn same_and_valid_padding() {
    let mut rng = Lcg(7);
    for (k, dil) in [(3, 1), (4, 1), (2, 3), (5, 2)] {
        let x = tensor(&rng.values(2 * 7 * 6), &[1, 2, 7, 6], F64);
        let w = tensor(&rng.values(3 * 2 * k * k), &[3, 2, k, k], F64);
        let same = ConvParams {
            stride: vec![1, 1],
            padding: Padding::Same,
            dilation: vec![dil, dil],
            groups: 1,
        };
        let got = conv(&x, &w, None, 2, &same).unwrap();
        assert_eq!(got.shape(), [1, 3, 7, 6]);
        // Same = explicit padding of the larger half on both sides, cropped at the end.
        let total = dil * (k - 1);
        let big = ConvParams {
            padding: Padding::Explicit(vec![total / 2; 2]),
            ..same.clone()
        };
        let ext_x = {
            // Pad one extra zero row/column after when the total is odd.
            let extra = total % 2;
            let mut v = vec![0.0; 2 * (7 + extra) * (6 + extra)];
            let xv = values(&x);
            for c in 0..2 {
                for i in 0..7 {
                    for j in 0..6 {
                        v[(c * (7 + extra) + i) * (6 + extra) + j] = xv[(c * 7 + i) * 6 + j];
                    }
                }
            }
            tensor(&v, &[1, 2, 7 + extra, 6 + extra], F64)
        };
        let want = conv(&ext_x, &w, None, 2, &big).unwrap();
        assert_eq!(values(&got), values(&want), "k {k} dilation {dil}");
        let valid = ConvParams {
            padding: Padding::Valid,
            ..same.clone()
        };
        let got = conv(&x, &w, None, 2, &valid);
        if total < 6 {
            assert_eq!(got.unwrap().shape()[2], 7 - total);
        } else {
            assert!(got.is_err());
        }
        let strided = ConvParams {
            stride: vec![2, 1],
            ..same
        };
        let err = conv(&x, &w, None, 2, &strided).unwrap_err();
        assert!(err.to_string().contains("padding=\"same\" needs stride 1"));
    }
}

#[test]
fn dtypes_unbatched_inputs_views_and_empty_batches() {
    let p = |groups| ConvParams {
        stride: vec![1, 1],
        padding: Padding::Explicit(vec![1, 0]),
        dilation: vec![1, 1],
        groups,
    };
    let xv: Vec<f64> = (0..2 * 4 * 3).map(|i| (i % 7) as f64 - 3.0).collect();
    let wv: Vec<f64> = (0..3 * 2 * 2 * 2).map(|i| (i % 5) as f64 - 2.0).collect();
    let x = tensor(&xv, &[1, 2, 4, 3], F64);
    let w = tensor(&wv, &[3, 2, 2, 2], F64);
    let want = values(&conv(&x, &w, None, 2, &p(1)).unwrap());
    // Integer data: exact in every dtype; ints stay ints, halves round once.
    for dtype in [I32, I64, F16, BF16, F32] {
        let got = conv(&x.to_dtype(dtype), &w.to_dtype(dtype), None, 2, &p(1)).unwrap();
        assert_eq!(got.dtype(), dtype);
        assert_eq!(values(&got), want, "{dtype}");
    }
    let mixed = conv(&x.to_dtype(F16), &w.to_dtype(I8), None, 2, &p(1)).unwrap();
    assert_eq!(mixed.dtype(), F16);
    for xv in views(&x) {
        assert_eq!(values(&conv(&xv, &w, None, 2, &p(1)).unwrap()), want);
    }
    let unbatched = conv(&x.select(0, 0).unwrap(), &w, None, 2, &p(1)).unwrap();
    assert_eq!(unbatched.shape(), [3, 5, 2]);
    assert_eq!(values(&unbatched), want);
    let empty = tensor(&[], &[0, 2, 4, 3], F32);
    let got = conv(&empty, &w.to_dtype(F32), None, 2, &p(1)).unwrap();
    assert_eq!(got.shape(), [0, 3, 5, 2]);
    // Depthwise: groups = channels.
    let dw = tensor(&wv[..2 * 4], &[2, 1, 2, 2], F64);
    let got = conv(&x, &dw, None, 2, &p(2)).unwrap();
    assert_eq!(got.shape(), [1, 2, 5, 2]);
}

/// A 2-d transposed convolution with unit stride and dilation, no padding.
fn plain_transpose() -> TransposeParams {
    TransposeParams {
        stride: vec![1, 1],
        padding: vec![0, 0],
        output_padding: vec![0, 0],
        groups: 1,
        dilation: vec![1, 1],
    }
}

#[test]
fn empty_images_and_strides_far_past_the_input() {
    // conv_transpose of an empty image: the output is the bias alone.
    let t = plain_transpose();
    let empty = tensor(&[], &[1, 1, 0, 5], F32);
    let (w, b) = (
        tensor(&[1.0; 9], &[1, 1, 3, 3], F32),
        tensor(&[2.0], &[1], F32),
    );
    let got = conv_transpose(&empty, &w, Some(&b), 2, &t).unwrap();
    assert_eq!(got.shape(), [1, 1, 2, 7]);
    assert_eq!(values(&got), vec![2.0; 14]);
    // No input channels: conv gives the bias alone too.
    let p = ConvParams {
        stride: vec![1, 1],
        padding: Padding::Valid,
        dilation: vec![1, 1],
        groups: 1,
    };
    let no_channels = tensor(&[], &[1, 0, 4, 4], F32);
    let w = tensor(&[], &[1, 0, 3, 3], F32);
    let got = conv(&no_channels, &w, Some(&b), 2, &p).unwrap();
    assert_eq!(
        (got.shape(), values(&got)),
        (&[1, 1, 2, 2][..], vec![2.0; 4])
    );
    // Taps 2^62 apart with as much padding and a stride past the image: only the
    // middle row of the kernel reads the image, at its first row.
    let x = tensor(&[1.0; 50], &[1, 2, 5, 5], F32);
    let far = |groups| ConvParams {
        stride: vec![(1 << 63) - 1, 1],
        padding: Padding::Explicit(vec![1 << 62, 0]),
        dilation: vec![1 << 62, 1],
        groups,
    };
    let w = tensor(&[1.0; 18], &[1, 2, 3, 3], F32);
    let got = conv(&x, &w, None, 2, &far(1)).unwrap();
    assert_eq!(
        (got.shape(), values(&got)),
        (&[1, 1, 1, 3][..], vec![6.0; 3])
    );
    let dw = tensor(&[1.0; 18], &[2, 1, 3, 3], F32);
    let got = conv(&x, &dw, None, 2, &far(2)).unwrap();
    assert_eq!(
        (got.shape(), values(&got)),
        (&[1, 2, 1, 3][..], vec![3.0; 6])
    );
    // A transposed convolution whose taps reach past usize is an error.
    let huge = TransposeParams {
        stride: vec![(1 << 63) - 1, 1],
        padding: vec![(1 << 63) - 1, 0],
        dilation: vec![2, 1],
        ..t
    };
    let x = tensor(&[0.0; 3], &[1, 1, 3, 1], F32);
    let w = tensor(&[0.0; 3], &[1, 1, 3, 1], F32);
    let err = conv_transpose(&x, &w, None, 2, &huge)
        .unwrap_err()
        .to_string();
    assert!(err.contains("sizes are too large"), "{err}");
}

#[test]
fn errors_name_the_argument_and_the_shapes() {
    let x = tensor(&[0.0; 48], &[1, 3, 4, 4], F32);
    let w = tensor(&[0.0; 24], &[2, 3, 2, 2], F32);
    let p = ConvParams {
        stride: vec![1, 1],
        padding: Padding::Explicit(vec![0, 0]),
        dilation: vec![1, 1],
        groups: 1,
    };
    let msg = |r: Result<Tensor>| r.unwrap_err().to_string();
    let flat = tensor(&[0.0; 16], &[4, 4], F32);
    assert!(msg(conv(&flat, &w, None, 2, &p)).contains("expected x of rank 3"));
    assert!(msg(conv(&x, &flat, None, 2, &p)).contains("weight must be 4-D"));
    let g2 = ConvParams {
        groups: 2,
        ..p.clone()
    };
    assert!(msg(conv(&x, &w, None, 2, &g2)).contains("groups=2 must divide the 3 input channels"));
    let w4 = tensor(&[0.0; 32], &[2, 4, 2, 2], F32);
    assert!(msg(conv(&x, &w4, None, 2, &p)).contains("does not match the 3 input channels"));
    let b = tensor(&[0.0; 3], &[3], F32);
    assert!(msg(conv(&x, &w, Some(&b), 2, &p)).contains("bias must have shape [2]"));
    let s0 = ConvParams {
        stride: vec![0, 1],
        ..p.clone()
    };
    assert!(msg(conv(&x, &w, None, 2, &s0)).contains("stride must be positive"));
    let big = tensor(&[0.0; 150], &[2, 3, 5, 5], F32);
    let err = msg(conv(&x, &big, None, 2, &p));
    assert!(
        err.contains("does not fit the padded input (size 4)"),
        "{err}"
    );
    assert!(
        err.contains("[1, 3, 4, 4]") && err.contains("[2, 3, 5, 5]"),
        "{err}"
    );
    let t = TransposeParams {
        stride: vec![2, 2],
        output_padding: vec![2, 0],
        ..plain_transpose()
    };
    let wt = tensor(&[0.0; 24], &[3, 2, 2, 2], F32);
    assert!(msg(conv_transpose(&x, &wt, None, 2, &t)).contains("output_padding must be smaller"));
    let u = UnfoldParams {
        kernel_size: vec![2, 2],
        dilation: vec![1, 1],
        padding: vec![0, 0],
        stride: vec![1, 1],
    };
    let cols = tensor(&[0.0; 12 * 8], &[1, 12, 8], F32);
    assert!(msg(col2im(&cols, &[4, 4], &u)).contains("do not fit"));
}

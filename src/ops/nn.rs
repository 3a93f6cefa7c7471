//! Neural-network functions with `torch.nn.functional` semantics: activations,
//! softmax/log_softmax along an axis, and layer/RMS normalization over trailing dims.
//!
//! Dtypes: bool and integer inputs give f32 (except `relu`, which keeps integer
//! dtypes); f16/bf16 compute in f32 and round once at the end; f64 computes in f64.

use super::binary::zeroed_output;
use super::unary::math_map;
use super::{binary, elems, BinaryOp, Operand};
use crate::kernels::elementwise::nn::{self as kernel, NnFloat};
use crate::kernels::isa::Isa;
use crate::kernels::math::Arith;
use crate::kernels::math::MathFn;
use crate::tensor::shape::{normalize_axis, shape_str};
use crate::tensor::{DType, Elem, Result, Scalar, Tensor, TensorError};

/// Elementwise activations computed in a float type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    Sigmoid,
    Silu,
    /// The exact form, x/2 · (1 + erf(x/√2)).
    Gelu,
    /// gelu with `approximate="tanh"`.
    GeluTanh,
}

impl Activation {
    pub fn name(self) -> &'static str {
        match self {
            Activation::Sigmoid => "sigmoid",
            Activation::Silu => "silu",
            Activation::Gelu | Activation::GeluTanh => "gelu",
        }
    }

    fn math_fn(self) -> MathFn {
        match self {
            Activation::Sigmoid => MathFn::Sigmoid,
            Activation::Silu => MathFn::Silu,
            Activation::Gelu => MathFn::Gelu,
            Activation::GeluTanh => MathFn::GeluTanh,
        }
    }
}

/// Runs `$body` with `$C` bound to the float type float-valued functions compute in
/// for `$dtype`: f64 for f64, f32 for everything else (f16/bf16 round once at the end).
macro_rules! compute {
    ($dtype:expr, $C:ident => $body:expr) => {
        if $dtype == $crate::tensor::DType::F64 {
            type $C = f64;
            $body
        } else {
            type $C = f32;
            $body
        }
    };
}
pub(super) use compute;

/// `max(x, 0)` elementwise, keeping the dtype (NaN stays NaN, -0 gives 0); bool is an
/// error as in PyTorch.
pub fn relu(x: &Tensor) -> Result<Tensor> {
    if x.dtype() == DType::Bool {
        return Err(TensorError::dtype(
            "relu",
            DType::Bool,
            "is not defined for bool tensors",
        ));
    }
    // maximum(0, x) rather than maximum(x, 0): the first operand wins ties, so -0 gives +0.
    binary(
        BinaryOp::Maximum,
        Operand::Scalar(Scalar::Int(0)),
        Operand::Tensor(x),
    )
}

/// An activation elementwise; the result has the float result dtype of `x`.
pub fn activation(act: Activation, x: &Tensor) -> Result<Tensor> {
    crate::dispatch!(x.dtype(), T => activate::<T>(act, x))
}

fn activate<T: Arith>(act: Activation, x: &Tensor) -> Result<Tensor> {
    math_map::<T>(act.name(), x, act.math_fn())
}

/// `softmax(x, axis)`: exp(x) / sum(exp(x)) along `axis`, computed stably (the lane's
/// maximum is subtracted first). A 0-d tensor is one lane of one element (axis 0 or
/// -1). A lane holding NaN, +inf, or only -inf gives NaN, as in PyTorch.
pub fn softmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    let isa = Isa::detect();
    compute!(x.dtype(), C => softmax_like::<C>("softmax", x, axis, |o, i| kernel::softmax(isa, o, i)))
}

/// `log_softmax(x, axis)`: (x - max) - log(sum(exp(x - max))) along `axis`, the stable
/// form of log(softmax(x)); same rules as `softmax`.
pub fn log_softmax(x: &Tensor, axis: i64) -> Result<Tensor> {
    let isa = Isa::detect();
    compute!(x.dtype(), C => {
        softmax_like::<C>("log_softmax", x, axis, |o, i| kernel::log_softmax(isa, o, i))
    })
}

/// Runs a softmax kernel along `axis`; a 0-d `x` is one lane of one element.
fn softmax_like<C: NnFloat>(
    op: &str,
    x: &Tensor,
    axis: i64,
    f: impl Fn(&mut [C], &[C]) + Sync + Send,
) -> Result<Tensor> {
    let out = x.dtype().float_result();
    if x.ndim() == 0 {
        normalize_axis(op, axis, 1)?;
        return along_axis(op, &x.reshape(&[1])?, 0, out, f)?.reshape(&[]);
    }
    along_axis(op, x, axis, out, f)
}

/// `layer_norm(x, normalized_shape, weight, bias, eps)` as torch: over the trailing
/// dims named by `normalized_shape` (which must end x's shape), (x - mean) /
/// sqrt(var + eps) with the biased variance, then `* weight + bias`. `weight` and
/// `bias` broadcast to `normalized_shape`; the result dtype promotes x's float result
/// dtype with theirs.
pub fn layer_norm(
    x: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> Result<Tensor> {
    let op = "layer_norm";
    let out = norm_dtype(x, &[weight, bias]);
    let groups = NormGroups::new(op, x, normalized_shape)?;
    compute!(out, C => {
        let w = groups.affine::<C>("weight", weight)?;
        let b = groups.affine::<C>("bias", bias)?;
        let eps = C::from_f64(eps);
        groups.apply::<C>(out, |o, i| kernel::layer_norm(o, i, w.as_deref(), b.as_deref(), eps))
    })
}

/// `rms_norm(x, normalized_shape, weight, eps)` as torch: x / sqrt(mean(x²) + eps) *
/// weight over the trailing dims named by `normalized_shape`, with `weight` as in
/// `layer_norm`; `eps` none is the machine epsilon of the result dtype (torch's
/// `finfo(dtype).eps`).
pub fn rms_norm(
    x: &Tensor,
    normalized_shape: &[usize],
    weight: Option<&Tensor>,
    eps: Option<f64>,
) -> Result<Tensor> {
    let op = "rms_norm";
    let out = norm_dtype(x, &[weight]);
    let groups = NormGroups::new(op, x, normalized_shape)?;
    let eps = eps.unwrap_or_else(|| out.machine_epsilon());
    compute!(out, C => {
        let w = groups.affine::<C>("weight", weight)?;
        let eps = C::from_f64(eps);
        groups.apply::<C>(out, |o, i| kernel::rms_norm(o, i, w.as_deref(), eps))
    })
}

/// x seen as rows of the `normalized_shape` groups a norm runs over.
struct NormGroups<'a> {
    op: &'static str,
    x: &'a Tensor,
    normalized_shape: &'a [usize],
}

impl<'a> NormGroups<'a> {
    /// Checks that `normalized_shape` ends x's shape (torch's rule).
    fn new(op: &'static str, x: &'a Tensor, normalized_shape: &'a [usize]) -> Result<Self> {
        if !x.shape().ends_with(normalized_shape) {
            let msg = format!(
                "normalized_shape {} must match the last dims of x, which has shape {}",
                shape_str(normalized_shape),
                shape_str(x.shape())
            );
            return Err(TensorError::shape(op, msg));
        }
        Ok(NormGroups {
            op,
            x,
            normalized_shape,
        })
    }

    /// A `weight` or `bias` as `C` values, one per element of a group.
    fn affine<C: Elem>(&self, what: &str, p: Option<&Tensor>) -> Result<Option<Vec<C>>> {
        let Some(p) = p else { return Ok(None) };
        let p = p.broadcast_to(self.normalized_shape).map_err(|_| {
            let msg = format!(
                "{what} of shape {} does not match normalized_shape {} (x has shape {})",
                shape_str(p.shape()),
                shape_str(self.normalized_shape),
                shape_str(self.x.shape())
            );
            TensorError::shape(self.op, msg)
        })?;
        Ok(Some(p.to_vec::<C>()))
    }

    /// Runs `f(out_group, in_group)` on every group and returns x's shape in `out`.
    fn apply<C: NnFloat>(
        &self,
        out: DType,
        f: impl Fn(&mut [C], &[C]) + Sync + Send,
    ) -> Result<Tensor> {
        let group: usize = self.normalized_shape.iter().product();
        let rows = self.x.numel().checked_div(group).unwrap_or(0);
        let as_rows = self.x.reshape(&[rows as i64, group as i64])?;
        let dims: Vec<i64> = self.x.shape().iter().map(|&d| d as i64).collect();
        along_axis(self.op, &as_rows, -1, out, f)?.reshape(&dims)
    }
}

/// x's float result dtype promoted with the dtypes of the affine parameters.
fn norm_dtype(x: &Tensor, params: &[Option<&Tensor>]) -> DType {
    params
        .iter()
        .flatten()
        .fold(x.dtype().float_result(), |d, p| {
            DType::promote(d, p.dtype())
        })
        .float_result()
}

/// Calls `f(out_lane, in_lane)` for every lane of `x` along `axis`, in `C`, and returns
/// the results (same shape as x) in `out`.
fn along_axis<C: NnFloat>(
    op: &str,
    x: &Tensor,
    axis: i64,
    out: DType,
    f: impl Fn(&mut [C], &[C]) + Sync + Send,
) -> Result<Tensor> {
    if x.ndim() == 0 {
        let msg = "x must have at least one dimension, got a 0-d tensor";
        return Err(TensorError::shape(op, msg));
    }
    let axis = normalize_axis(op, axis, x.ndim())? as i64;
    // Move the axis last, so that every lane is a contiguous run.
    let moved = x.to_dtype(C::DTYPE).transpose(axis, -1)?.contiguous();
    let src = elems::<C>(op, &moved)?;
    let mut dst = zeroed_output(op, moved.shape())?;
    let lane = moved.shape().last().copied().unwrap_or(1);
    kernel::for_each_lane(&mut dst, src, lane, f);
    let result = Tensor::from_vec(dst, moved.shape())?.transpose(axis, -1)?;
    Ok(result.contiguous().to_dtype(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::math::erf::erfc;
    use crate::ops::testutil::{assert_close, assert_tensor, tensor, values, views};
    use DType::*;

    const ACTIVATIONS: [Activation; 4] = [
        Activation::Sigmoid,
        Activation::Silu,
        Activation::Gelu,
        Activation::GeluTanh,
    ];

    fn reference(act: Activation, x: f64) -> f64 {
        match act {
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Silu => x / (1.0 + (-x).exp()),
            // x/2 (1 + erf(x/√2)) and x/2 (1 + tanh(y)), written without cancellation.
            Activation::Gelu => 0.5 * x * erfc(-x * std::f64::consts::FRAC_1_SQRT_2),
            Activation::GeluTanh => {
                let y = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3));
                x / (1.0 + (-2.0 * y).exp())
            }
        }
    }

    /// A relative tolerance of a few rounding steps of the compute type.
    fn tolerance(dtype: DType) -> f64 {
        match dtype {
            F16 => 1e-3,
            BF16 => 8e-3,
            F64 => 1e-14,
            _ => 1e-6,
        }
    }

    #[test]
    fn activations_in_every_dtype() {
        let vals = [-30.0, -3.0, -1.0, 0.0, 1.0, 2.0, 5.0, 100.0];
        for dtype in DType::ALL {
            let x = tensor(&vals, &[2, 4], dtype);
            let input = values(&x);
            let out = dtype.float_result();
            for act in ACTIVATIONS {
                let want: Vec<f64> = input.iter().map(|&v| reference(act, v)).collect();
                let got = activation(act, &x).unwrap();
                let what = format!("{act:?} {dtype}");
                assert_close(&got, out, &[2, 4], &want, tolerance(out), &what);
            }
        }
    }

    #[test]
    fn activations_of_views_empty_and_special_values() {
        let x = tensor(
            &(0..24).map(|i| i as f64 * 0.5 - 6.0).collect::<Vec<_>>(),
            &[2, 3, 4],
            F32,
        );
        for act in ACTIVATIONS {
            let want = values(&activation(act, &x).unwrap());
            for v in views(&x) {
                assert_eq!(values(&activation(act, &v).unwrap()), want, "{act:?}");
            }
            let e = activation(act, &tensor(&[], &[0, 3], I64)).unwrap();
            assert_eq!((e.dtype(), e.shape()), (F32, &[0, 3][..]));
        }
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        let s = tensor(&[inf, -inf, nan], &[3], F64);
        let sig = activation(Activation::Sigmoid, &s).unwrap();
        assert_tensor(&sig, F64, &[3], &[1.0, 0.0, nan], "sigmoid");
        let gelu = activation(Activation::Gelu, &s).unwrap();
        assert_tensor(&gelu, F64, &[3], &[inf, nan, nan], "gelu");
        let zero_d = activation(Activation::Silu, &tensor(&[2.0], &[], BF16)).unwrap();
        assert_eq!((zero_d.dtype(), zero_d.ndim()), (BF16, 0));
    }

    #[test]
    fn relu_keeps_the_dtype() {
        let vals = [-2.0, 0.0, 3.0, f64::NAN];
        for dtype in [F16, BF16, F32, F64] {
            let got = relu(&tensor(&vals, &[4], dtype)).unwrap();
            assert_tensor(&got, dtype, &[4], &[0.0, 0.0, 3.0, f64::NAN], "relu");
        }
        for dtype in [U8, I8, I32, I64] {
            let got = relu(&tensor(&vals[..3], &[3], dtype)).unwrap();
            let want = if dtype == U8 {
                [254.0, 0.0, 3.0]
            } else {
                [0.0, 0.0, 3.0]
            };
            assert_tensor(&got, dtype, &[3], &want, "relu int");
        }
        let err = relu(&tensor(&[1.0], &[1], Bool)).unwrap_err();
        assert!(
            err.to_string().contains("is not defined for bool tensors"),
            "{err}"
        );
    }

    /// Softmax along `axis` written with index arithmetic over a [2, 3, 4] tensor.
    fn reference_softmax(x: &[f64], shape: [usize; 3], axis: usize, log: bool) -> Vec<f64> {
        let strides = [shape[1] * shape[2], shape[2], 1];
        let mut out = vec![0.0; x.len()];
        for (i, o) in out.iter_mut().enumerate() {
            let pos = [i / strides[0], i / strides[1] % shape[1], i % shape[2]];
            let lane: Vec<f64> = (0..shape[axis])
                .map(|j| {
                    let mut p = pos;
                    p[axis] = j;
                    x[p[0] * strides[0] + p[1] * strides[1] + p[2]]
                })
                .collect();
            let max = lane.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let sum: f64 = lane.iter().map(|v| (v - max).exp()).sum();
            *o = if log {
                x[i] - max - sum.ln()
            } else {
                (x[i] - max).exp() / sum
            };
        }
        out
    }

    #[test]
    fn softmax_along_every_axis() {
        let vals: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 * 0.7 - 3.0).collect();
        let x = tensor(&vals, &[2, 3, 4], F64);
        for axis in [-3i64, -2, -1, 0, 1, 2] {
            let a = axis.rem_euclid(3) as usize;
            for log in [false, true] {
                let want = reference_softmax(&vals, [2, 3, 4], a, log);
                let f = if log { log_softmax } else { softmax };
                for v in views(&x) {
                    let got = f(&v, axis).unwrap();
                    assert_close(
                        &got,
                        F64,
                        &[2, 3, 4],
                        &want,
                        1e-14,
                        &format!("axis {axis} log {log}"),
                    );
                }
                let got = f(&x.to_dtype(F16), axis).unwrap();
                assert_close(&got, F16, &[2, 3, 4], &want, 2e-3, "f16");
            }
        }
        assert!(matches!(softmax(&x, 3), Err(TensorError::Axis { .. })));
    }

    #[test]
    fn softmax_is_stable_and_handles_edge_shapes() {
        let big = tensor(&[1000.0, 1000.0, -1000.0], &[3], F32);
        assert_tensor(
            &softmax(&big, 0).unwrap(),
            F32,
            &[3],
            &[0.5, 0.5, 0.0],
            "large",
        );
        let logs = log_softmax(&big, -1).unwrap();
        assert_close(
            &logs,
            F32,
            &[3],
            &[-(2f64.ln()), -(2f64.ln()), -2000.0 - 2f64.ln()],
            1e-6,
            "log",
        );
        let ints = softmax(&tensor(&[1.0, 1.0], &[2], I64), 0).unwrap();
        assert_tensor(&ints, F32, &[2], &[0.5, 0.5], "ints give f32");
        let s = tensor(&[3.0], &[], F32);
        assert_tensor(&softmax(&s, 0).unwrap(), F32, &[], &[1.0], "0-d");
        assert_tensor(&log_softmax(&s, -1).unwrap(), F32, &[], &[0.0], "0-d log");
        assert!(softmax(&s, 1).is_err());
        let e = softmax(&tensor(&[], &[2, 0], F32), -1).unwrap();
        assert_eq!(e.shape(), [2, 0]);
        let e = softmax(&tensor(&[], &[0, 3], F32), -1).unwrap();
        assert_eq!(e.shape(), [0, 3]);
    }

    #[test]
    fn norms_over_trailing_dims_are_norms_over_their_flattening() {
        let vals: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 4.0).collect();
        let x = tensor(&vals, &[2, 3, 4], F64);
        let flat = x.reshape(&[2, 12]).unwrap();
        let w = tensor(
            &(0..12).map(|i| i as f64 * 0.25).collect::<Vec<_>>(),
            &[3, 4],
            F64,
        );
        let w_flat = w.reshape(&[12]).unwrap();
        let ln = layer_norm(&x, &[3, 4], Some(&w), None, 1e-5).unwrap();
        let want = layer_norm(&flat, &[12], Some(&w_flat), None, 1e-5).unwrap();
        assert_eq!(ln.shape(), [2, 3, 4]);
        assert_eq!(values(&ln), values(&want));
        // eps none: the machine epsilon of the result dtype (torch's finfo(dtype).eps).
        let rms = rms_norm(&x, &[3, 4], None, None).unwrap();
        let want = rms_norm(&flat, &[12], None, Some(f64::EPSILON)).unwrap();
        assert_eq!(values(&rms), values(&want));
        // [] normalizes each element alone; an empty group count is fine.
        let each = layer_norm(&x, &[], None, None, 1e-5).unwrap();
        assert!(values(&each).iter().all(|&v| v == 0.0));
        let empty = tensor(&[], &[0, 3], F32);
        assert_eq!(
            layer_norm(&empty, &[3], None, None, 1e-5).unwrap().shape(),
            [0, 3]
        );
        let err = layer_norm(&x, &[4, 3], None, None, 1e-5)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "normalized_shape [4, 3] must match the last dims of x, which has shape [2, 3, 4]"
            ),
            "{err}"
        );
    }

    #[test]
    fn norms_over_the_last_axis() {
        let vals: Vec<f64> = (0..12).map(|i| ((i * 5) % 7) as f64 - 2.0).collect();
        let x = tensor(&vals, &[3, 4], F64);
        let w = tensor(&[0.5, 1.0, 2.0, -1.0], &[4], F64);
        let b = tensor(&[1.0], &[1], F64);
        let mut want_ln = vec![];
        let mut want_rms = vec![];
        for row in vals.chunks(4) {
            let mean = row.iter().sum::<f64>() / 4.0;
            let var = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 4.0;
            let ms = row.iter().map(|v| v * v).sum::<f64>() / 4.0;
            let wv = [0.5, 1.0, 2.0, -1.0];
            for (j, v) in row.iter().enumerate() {
                want_ln.push((v - mean) / (var + 1e-5).sqrt() * wv[j] + 1.0);
                want_rms.push(v / (ms + 1e-6).sqrt() * wv[j]);
            }
        }
        for v in views(&x) {
            let ln = layer_norm(&v, &[4], Some(&w), Some(&b), 1e-5).unwrap();
            assert_close(&ln, F64, &[3, 4], &want_ln, 1e-14, "layer_norm");
            let rms = rms_norm(&v, &[4], Some(&w), Some(1e-6)).unwrap();
            assert_close(&rms, F64, &[3, 4], &want_rms, 1e-14, "rms_norm");
        }
        // Dtypes: ints give f32, f16 stays f16, an f32 weight promotes f16 to f32.
        let xi = x.to_dtype(I32);
        assert_eq!(
            layer_norm(&xi, &[4], None, None, 1e-5).unwrap().dtype(),
            F32
        );
        let h = layer_norm(
            &x.to_dtype(F16),
            &[4],
            Some(&w.to_dtype(F16)),
            Some(&b.to_dtype(F16)),
            1e-5,
        )
        .unwrap();
        assert_close(&h, F16, &[3, 4], &want_ln, 3e-3, "f16");
        assert_eq!(
            rms_norm(&x.to_dtype(F16), &[4], Some(&w.to_dtype(F32)), Some(1e-6))
                .unwrap()
                .dtype(),
            F32
        );
        // A 0-d weight scales everything; a wrong one is an error naming it.
        let two = tensor(&[2.0], &[], F64);
        let scaled = rms_norm(&x, &[4], Some(&two), Some(1e-6)).unwrap();
        let plain = values(&rms_norm(&x, &[4], None, Some(1e-6)).unwrap());
        assert_eq!(
            values(&scaled),
            plain.iter().map(|v| v * 2.0).collect::<Vec<_>>()
        );
        let bad = tensor(&[1.0; 3], &[3], F64);
        let err = layer_norm(&x, &[4], Some(&bad), None, 1e-5)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("weight of shape [3] does not match normalized_shape [4]"),
            "{err}"
        );
        let err = layer_norm(&x, &[4], None, Some(&bad), 1e-5)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bias of shape [3]"), "{err}");
        let err = rms_norm(&two, &[1], None, Some(1e-6))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("normalized_shape [1] must match the last dims of x, which has shape []"),
            "{err}"
        );
        let e = layer_norm(&tensor(&[], &[0, 4], F32), &[4], Some(&w), None, 1e-5).unwrap();
        assert_eq!((e.dtype(), e.shape()), (F64, &[0, 4][..]));
    }

    #[test]
    fn softmax_gives_the_same_bits_for_any_thread_count() {
        // 300 lanes of 1000: several lane groups, so the work is split across threads.
        let vals: Vec<f64> = (0..300_000u64)
            .map(|i| ((i * 7919) % 2003) as f64 * 0.01 - 10.0)
            .collect();
        let x = tensor(&vals, &[300, 1000], F32);
        let run = |n: usize, f: fn(&Tensor, i64) -> Result<Tensor>, axis: i64| {
            let out = crate::kernels::parallel::with_threads(n, || f(&x, axis).unwrap());
            out.to_vec::<f32>()
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        for f in [softmax, log_softmax] {
            for axis in [-1, 0] {
                let one = run(1, f, axis);
                assert_eq!(run(2, f, axis), one);
                assert_eq!(run(3, f, axis), one);
            }
        }
        // And the vector path equals the f64 reference within f32 rounding.
        let got = softmax(&x, -1).unwrap();
        let want = reference_rows(&vals, 1000);
        assert_close(&got, F32, &[300, 1000], &want, 1e-5, "softmax rows");
    }

    fn reference_rows(x: &[f64], lane: usize) -> Vec<f64> {
        x.chunks(lane)
            .flat_map(|row| {
                let xs: Vec<f64> = row.iter().map(|&v| f64::from(v as f32)).collect();
                let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = xs.iter().map(|v| (v - max).exp()).sum();
                xs.into_iter().map(move |v| (v - max).exp() / sum)
            })
            .collect()
    }
}

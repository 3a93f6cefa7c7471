//! Convolution, pooling and resampling builtins (torch.nn.functional names, argument order and
//! defaults). Size arguments (stride, padding, ...) are an int or a list with one
//! entry per spatial dim.

use super::{Bound, Builtin};
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::conv::{self, ConvParams, Padding, TransposeParams, UnfoldParams};
use crate::ops::interpolate::{scaled_size, Mode};
use crate::ops::pool::{self, PoolParams};
use crate::ops::ReduceOp;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, FromArg, Sizes};
use crate::tensor::Result as TensorResult;

macro_rules! conv_builtin {
    ($name:literal, $spatial:literal, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a;
                x: Var,
                weight: Var,
                bias: Option<Var> = none,
                stride: Sizes<$spatial> = 1,
                padding: ConvPadding<$spatial> = 0,
                dilation: Sizes<$spatial> = 1,
                groups: usize = 1,
            ) {
                let params = ConvParams {
                    stride: stride.0,
                    padding: padding.0,
                    dilation: dilation.0,
                    groups,
                };
                a.recorded(rules::conv(&x, &weight, bias.as_ref(), $spatial, &params))
            }
        }
    };
}

macro_rules! conv_transpose_builtin {
    ($name:literal, $spatial:literal, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a;
                x: Var,
                weight: Var,
                bias: Option<Var> = none,
                stride: Sizes<$spatial> = 1,
                padding: Sizes<$spatial> = 0,
                output_padding: Sizes<$spatial> = 0,
                groups: usize = 1,
                dilation: Sizes<$spatial> = 1,
            ) {
                let params = TransposeParams {
                    stride: stride.0,
                    padding: padding.0,
                    output_padding: output_padding.0,
                    groups,
                    dilation: dilation.0,
                };
                a.recorded(rules::conv_transpose(&x, &weight, bias.as_ref(), $spatial, &params))
            }
        }
    };
}

macro_rules! max_pool_builtin {
    ($name:literal, $spatial:literal, $doc:literal, |$x:ident, $params:ident| $rule:expr) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a;
                x: Var,
                kernel_size: Sizes<$spatial>,
                stride: Option<Sizes<$spatial>> = none,
                padding: Sizes<$spatial> = 0,
                dilation: Sizes<$spatial> = 1,
                ceil_mode: bool = false,
            ) {
                let params = pool_params(kernel_size, stride, padding, dilation, ceil_mode);
                let ($x, $params) = (&x, &params);
                a.recorded($rule)
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    conv_builtin!(
        "conv1d",
        1,
        "1-d convolution (cross-correlation) of x [N, C_in, L] with weight [C_out, C_in/groups, k]; padding may be \"valid\" or \"same\"."
    ),
    conv_builtin!(
        "conv2d",
        2,
        "2-d convolution (cross-correlation) of x [N, C_in, H, W] with weight [C_out, C_in/groups, kh, kw]; padding may be \"valid\" or \"same\"; depthwise is groups = C_in."
    ),
    conv_builtin!(
        "conv3d",
        3,
        "3-d convolution (cross-correlation) of x [N, C_in, D, H, W] with weight [C_out, C_in/groups, kd, kh, kw]; padding may be \"valid\" or \"same\"."
    ),
    conv_transpose_builtin!(
        "conv_transpose1d",
        1,
        "Transposed 1-d convolution (the adjoint of conv1d) of x [N, C_in, L] with weight [C_in, C_out/groups, k]."
    ),
    conv_transpose_builtin!(
        "conv_transpose2d",
        2,
        "Transposed 2-d convolution (the adjoint of conv2d) of x [N, C_in, H, W] with weight [C_in, C_out/groups, kh, kw]."
    ),
    conv_transpose_builtin!(
        "conv_transpose3d",
        3,
        "Transposed 3-d convolution (the adjoint of conv3d) of x [N, C_in, D, H, W] with weight [C_in, C_out/groups, kd, kh, kw]."
    ),
    max_pool_builtin!(
        "max_pool2d",
        2,
        "Largest value of each window of x [N, C, H, W]; stride defaults to kernel_size; NaN propagates.",
        |x, params| rules::max_pool2d(x, params)
    ),
    builtin! {
        name: "avg_pool2d",
        doc: "Mean of each window of x [N, C, H, W]; stride defaults to kernel_size; padding zeros count unless count_include_pad=false.",
        fn(_, a;
            x: Var,
            kernel_size: Sizes<2>,
            stride: Option<Sizes<2>> = none,
            padding: Sizes<2> = 0,
            ceil_mode: bool = false,
            count_include_pad: bool = true,
        ) {
            let params = pool_params(kernel_size, stride, padding, Sizes(vec![1, 1]), ceil_mode);
            a.recorded(rules::avg_pool2d(&x, &params, count_include_pad))
        }
    },
    builtin! {
        name: "adaptive_avg_pool2d",
        doc: "Averages x [N, C, H, W] down to output_size (an int or [h, w], none keeps that size) with PyTorch's windows.",
        fn(_, a; x: Var, output_size: OutputSize) {
            a.recorded(rules::adaptive_avg_pool2d(&x, output_size.0))
        }
    },
    builtin! {
        name: "adaptive_max_pool2d",
        doc: "The largest value of each of PyTorch's adaptive windows of x [N, C, H, W], giving output_size (an int or [h, w], none keeps that size); NaN propagates.",
        fn(_, a; x: Var, output_size: OutputSize) {
            a.recorded(rules::adaptive_max_pool2d(&x, output_size.0))
        }
    },
    max_pool_builtin!(
        "max_pool1d",
        1,
        "Largest value of each window of x [N, C, L]; stride defaults to kernel_size; NaN propagates.",
        |x, params| rules::pool1d(rules::Pool::Max, x, params)
    ),
    builtin! {
        name: "avg_pool1d",
        doc: "Mean of each window of x [N, C, L]; stride defaults to kernel_size; padding zeros count unless count_include_pad=false.",
        fn(_, a;
            x: Var,
            kernel_size: Sizes<1>,
            stride: Option<Sizes<1>> = none,
            padding: Sizes<1> = 0,
            ceil_mode: bool = false,
            count_include_pad: bool = true,
        ) {
            let params = pool_params(kernel_size, stride, padding, Sizes(vec![1]), ceil_mode);
            a.recorded(rules::pool1d(rules::Pool::Avg { count_include_pad }, &x, &params))
        }
    },
    max_pool_builtin!(
        "max_pool3d",
        3,
        "Largest value of each window of x [N, C, D, H, W]; stride defaults to kernel_size; NaN propagates.",
        |x, params| rules::max_pool3d(x, params)
    ),
    builtin! {
        name: "interpolate",
        doc: "Resizes x [N, C, *spatial] to size (an int or one per spatial dim) or by scale_factor (output floor(in * factor)), as torch: mode \"nearest\", \"nearest-exact\", \"linear\" (3-d x), \"bilinear\" or \"bicubic\" (4-d), \"trilinear\" (5-d); align_corners only for the linear and cubic modes.",
        fn(_, a;
            x: Var,
            size: Option<&Value> = none,
            scale_factor: Option<&Value> = none,
            mode: String = "nearest",
            align_corners: Option<bool> = none,
        ) {
            interpolate(&a, &x, size, scale_factor, &mode, align_corners)
        }
    },
    builtin! {
        name: "global_avg_pool2d",
        doc: "Mean over the height and width of x [N, C, H, W], giving [N, C, 1, 1]; ints give f32.",
        fn(_, a; x: Var) {
            global(&a, &x, ReduceOp::Mean)
        }
    },
    builtin! {
        name: "global_max_pool2d",
        doc: "Largest value over the height and width of x [N, C, H, W], giving [N, C, 1, 1].",
        fn(_, a; x: Var) {
            global(&a, &x, ReduceOp::Max)
        }
    },
    builtin! {
        name: "im2col",
        doc: "torch's unfold: every kernel window of x [N, C, H, W] as a column, giving [N, C*kh*kw, L].",
        fn(_, a;
            x: Var,
            kernel_size: Sizes<2>,
            dilation: Sizes<2> = 1,
            padding: Sizes<2> = 0,
            stride: Sizes<2> = 1,
        ) {
            let params = unfold_params(kernel_size, dilation, padding, stride);
            a.recorded(rules::moved("im2col", &x, |t| conv::im2col(t, &params)))
        }
    },
    builtin! {
        name: "col2im",
        doc: "torch's fold, the adjoint of im2col: adds the columns of cols [N, C*kh*kw, L] back into [N, C, output_size], summing overlaps.",
        fn(_, a;
            cols: Var,
            output_size: Sizes<2>,
            kernel_size: Sizes<2>,
            dilation: Sizes<2> = 1,
            padding: Sizes<2> = 0,
            stride: Sizes<2> = 1,
        ) {
            let params = unfold_params(kernel_size, dilation, padding, stride);
            a.recorded(rules::col2im(&cols, &output_size.0, &params))
        }
    },
];

/// A global pool: over H and W, kept as [N, C, 1, 1]; recorded as that reduction
/// (the same bits) when x is tracked.
fn global(a: &Bound, x: &Var, op: ReduceOp) -> Result<Value, Diagnostic> {
    let pooled = pool::global_pool2d(x, op).map_err(|e| a.tensor_err(e))?;
    if !autograd::recording(&[x]) {
        return Ok(Value::from(pooled));
    }
    a.recorded(rules::reduce(op, x, Some(&[-2, -1]), true))
}

/// A convolution's padding: "valid", "same", or sizes per spatial dim.
struct ConvPadding<const N: usize>(Padding);

impl<'a, const N: usize> FromArg<'a> for ConvPadding<N> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let padding = match arg.get() {
            Some(Value::Str(s)) => match &**s {
                "same" => Padding::Same,
                "valid" => Padding::Valid,
                other => {
                    let msg = format!("`padding` must be \"valid\", \"same\", an int or a list of {N} ints, got \"{other}\"");
                    return Err(arg.err(msg));
                }
            },
            _ => Padding::Explicit(Sizes::<N>::from_arg(arg)?.0),
        };
        Ok(ConvPadding(padding))
    }
}

/// The shared arguments of the max and average pools (stride defaults to kernel_size).
fn pool_params<const N: usize>(
    kernel_size: Sizes<N>,
    stride: Option<Sizes<N>>,
    padding: Sizes<N>,
    dilation: Sizes<N>,
    ceil_mode: bool,
) -> PoolParams {
    PoolParams {
        stride: stride.map_or_else(|| kernel_size.0.clone(), |s| s.0),
        kernel_size: kernel_size.0,
        padding: padding.0,
        dilation: dilation.0,
        ceil_mode,
    }
}

/// An adaptive pool's output size: an int, or two entries that are ints or none.
struct OutputSize([Option<usize>; 2]);

impl<'a> FromArg<'a> for OutputSize {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let value = arg.value()?;
        let entry = |v: &Value| match v {
            Value::None => Some(None),
            v => v.as_int().and_then(|n| usize::try_from(n).ok()).map(Some),
        };
        let parsed = match value {
            Value::Tuple(items) => match items.as_slice() {
                [h, w] => entry(h).zip(entry(w)).map(|(h, w)| [h, w]),
                _ => None,
            },
            v if v.as_int().is_some() => entry(v).map(|n| [n, n]),
            v => match v.as_int_list().as_deref() {
                Some(&[h, w]) => entry(&Value::Int(h))
                    .zip(entry(&Value::Int(w)))
                    .map(|(h, w)| [h, w]),
                _ => None,
            },
        };
        parsed.map(OutputSize).ok_or_else(|| {
            let msg = format!(
                "`output_size` must be a non-negative int or a list of 2 (none keeps the input size), got {}",
                value.describe()
            );
            arg.err(msg)
        })
    }
}

fn unfold_params(
    kernel_size: Sizes<2>,
    dilation: Sizes<2>,
    padding: Sizes<2>,
    stride: Sizes<2>,
) -> UnfoldParams {
    UnfoldParams {
        kernel_size: kernel_size.0,
        dilation: dilation.0,
        padding: padding.0,
        stride: stride.0,
    }
}

/// interpolate's arguments checked: the output size of each spatial dim, from
/// `size` or from `scale_factor`, and the mode.
fn interpolate(
    a: &Bound,
    x: &Var,
    size: Option<&Value>,
    scale_factor: Option<&Value>,
    mode: &str,
    align_corners: Option<bool>,
) -> Result<Value, Diagnostic> {
    let Some((mode, wants)) = Mode::parse(mode) else {
        let msg = format!("`mode` must be \"nearest\", \"nearest-exact\", \"linear\", \"bilinear\", \"bicubic\" or \"trilinear\", got \"{mode}\"");
        return Err(a.arg_err("mode", msg));
    };
    let spatial = x.ndim().saturating_sub(2);
    if !(1..=3).contains(&spatial) || wants.is_some_and(|w| w != spatial) {
        let need = match wants {
            Some(w) => format!("{}-d", w + 2),
            None => "3-d, 4-d or 5-d".into(),
        };
        let msg = format!(
            "this mode needs a {need} x [N, C, *spatial], got shape {:?}",
            x.shape()
        );
        return Err(a.arg_err("x", msg));
    }
    if align_corners.is_some() && matches!(mode, Mode::Nearest | Mode::NearestExact) {
        return Err(a.arg_err(
            "align_corners",
            "align_corners is only for the linear and cubic modes (torch)",
        ));
    }
    let input = &x.shape()[2..];
    let (sizes, factors) = match (size, scale_factor) {
        (Some(size), None) => {
            let sizes = per_dim(size, spatial, |v| {
                v.as_int()
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|&n| n > 0)
            });
            let sizes = sizes.ok_or_else(|| {
                a.arg_err(
                    "size",
                    format!(
                        "`size` must be a positive int or a list of {spatial}, got {}",
                        size.describe()
                    ),
                )
            })?;
            (sizes, vec![None; spatial])
        }
        (None, Some(factor)) => {
            let factors = per_dim(factor, spatial, |v| {
                v.as_f64().filter(|f| *f > 0.0 && f.is_finite())
            });
            let factors = factors.ok_or_else(|| {
                a.arg_err(
                    "scale_factor",
                    format!(
                        "`scale_factor` must be a positive number or a list of {spatial}, got {}",
                        factor.describe()
                    ),
                )
            })?;
            let sizes = input
                .iter()
                .zip(&factors)
                .map(|(&n, &f)| scaled_size(n, f))
                .collect::<TensorResult<Vec<usize>>>()
                .map_err(|e| a.arg_err("scale_factor", e.to_string()))?;
            (sizes, factors.into_iter().map(Some).collect())
        }
        _ => return Err(a.err("interpolate needs exactly one of size and scale_factor")),
    };
    a.recorded(rules::interpolate(
        x,
        &sizes,
        &factors,
        mode,
        align_corners.unwrap_or(false),
    ))
}

/// One entry per spatial dim: a single value repeated, or a list of `n`.
fn per_dim<T: Clone>(v: &Value, n: usize, entry: impl Fn(&Value) -> Option<T>) -> Option<Vec<T>> {
    if let Some(one) = entry(v) {
        return Some(vec![one; n]);
    }
    let items: Vec<Value> = match v {
        Value::Tuple(items) => items.iter().cloned().collect(),
        Value::Tensor(t) if t.ndim() == 1 && t.dtype().is_int() => {
            t.to_vec::<i64>().into_iter().map(Value::Int).collect()
        }
        Value::Tensor(t) if t.ndim() == 1 && t.dtype().is_float() => {
            t.to_vec::<f64>().into_iter().map(Value::Float).collect()
        }
        _ => return None,
    };
    if items.len() != n {
        return None;
    }
    items.iter().map(entry).collect()
}

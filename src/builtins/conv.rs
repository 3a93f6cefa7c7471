//! Convolution and pooling builtins (torch.nn.functional names, argument order and
//! defaults). Size arguments (stride, padding, ...) are an int or a list with one
//! entry per spatial dim.

use super::{Bound, Builtin};
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::conv::{self, ConvParams, Padding, TransposeParams, UnfoldParams};
use crate::ops::pool::{self, PoolParams};
use crate::ops::ReduceOp;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, FromArg, Sizes};
use crate::tensor::{Result as TensorResult, Tensor};

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
    builtin! {
        name: "conv_transpose2d",
        doc: "Transposed 2-d convolution (the adjoint of conv2d) of x [N, C_in, H, W] with weight [C_in, C_out/groups, kh, kw].",
        fn(_, a;
            x: Var,
            weight: Var,
            bias: Option<Var> = none,
            stride: Sizes<2> = 1,
            padding: Sizes<2> = 0,
            output_padding: Sizes<2> = 0,
            groups: usize = 1,
            dilation: Sizes<2> = 1,
        ) {
            let params = TransposeParams {
                stride: stride.0,
                padding: padding.0,
                output_padding: output_padding.0,
                groups,
                dilation: dilation.0,
            };
            a.recorded(rules::conv_transpose(&x, &weight, bias.as_ref(), 2, &params))
        }
    },
    builtin! {
        name: "max_pool2d",
        doc: "Largest value of each window of x [N, C, H, W]; stride defaults to kernel_size; NaN propagates.",
        fn(_, a;
            x: Var,
            kernel_size: Sizes<2>,
            stride: Option<Sizes<2>> = none,
            padding: Sizes<2> = 0,
            dilation: Sizes<2> = 1,
            ceil_mode: bool = false,
        ) {
            let params = pool_params(kernel_size, stride, padding, dilation, ceil_mode);
            a.recorded(rules::max_pool2d(&x, &params))
        }
    },
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
        fn(_, a; x: Tensor, output_size: OutputSize) {
            tensor_result(&a, pool::adaptive_avg_pool2d(&x, output_size.0))
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
            x: Tensor,
            kernel_size: Sizes<2>,
            dilation: Sizes<2> = 1,
            padding: Sizes<2> = 0,
            stride: Sizes<2> = 1,
        ) {
            let params = unfold_params(kernel_size, dilation, padding, stride);
            tensor_result(&a, conv::im2col(&x, &params))
        }
    },
    builtin! {
        name: "col2im",
        doc: "torch's fold, the adjoint of im2col: adds the columns of cols [N, C*kh*kw, L] back into [N, C, output_size], summing overlaps.",
        fn(_, a;
            cols: Tensor,
            output_size: Sizes<2>,
            kernel_size: Sizes<2>,
            dilation: Sizes<2> = 1,
            padding: Sizes<2> = 0,
            stride: Sizes<2> = 1,
        ) {
            let params = unfold_params(kernel_size, dilation, padding, stride);
            tensor_result(&a, conv::col2im(&cols, &output_size.0, &params))
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

fn tensor_result(a: &Bound, r: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| a.tensor_err(e))
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

/// The shared arguments of max_pool2d and avg_pool2d (stride defaults to kernel_size).
fn pool_params(
    kernel_size: Sizes<2>,
    stride: Option<Sizes<2>>,
    padding: Sizes<2>,
    dilation: Sizes<2>,
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

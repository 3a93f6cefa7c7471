//! Convolution and pooling builtins (torch.nn.functional names, argument order and
//! defaults). Size arguments (stride, padding, ...) are an int or a list with one
//! entry per spatial dim.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops::conv::{self, ConvParams, Padding, TransposeParams, UnfoldParams};
use crate::ops::pool::{self, PoolParams};
use crate::ops::ReduceOp;
use crate::runtime::value::Value;
use crate::tensor::{Result as TensorResult, Tensor};

macro_rules! conv_builtin {
    ($name:literal, $spatial:literal, $doc:literal) => {
        Builtin {
            name: $name,
            params: &[
                "x",
                "weight",
                "bias=none",
                "stride=1",
                "padding=0",
                "dilation=1",
                "groups=1",
            ],
            doc: $doc,
            func: |_, a| conv_nd(&a, $spatial),
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
    Builtin {
        name: "conv_transpose2d",
        params: &[
            "x",
            "weight",
            "bias=none",
            "stride=1",
            "padding=0",
            "output_padding=0",
            "groups=1",
            "dilation=1",
        ],
        doc: "Transposed 2-d convolution (the adjoint of conv2d) of x [N, C_in, H, W] with weight [C_in, C_out/groups, kh, kw].",
        func: conv_transpose2d,
    },
    Builtin {
        name: "max_pool2d",
        params: &[
            "x",
            "kernel_size",
            "stride=none",
            "padding=0",
            "dilation=1",
            "ceil_mode=false",
        ],
        doc: "Largest value of each window of x [N, C, H, W]; stride defaults to kernel_size; NaN propagates.",
        func: max_pool2d,
    },
    Builtin {
        name: "avg_pool2d",
        params: &[
            "x",
            "kernel_size",
            "stride=none",
            "padding=0",
            "ceil_mode=false",
            "count_include_pad=true",
        ],
        doc: "Mean of each window of x [N, C, H, W]; stride defaults to kernel_size; padding zeros count unless count_include_pad=false.",
        func: avg_pool2d,
    },
    Builtin {
        name: "adaptive_avg_pool2d",
        params: &["x", "output_size"],
        doc: "Averages x [N, C, H, W] down to output_size (an int or [h, w], none keeps that size) with PyTorch's windows.",
        func: adaptive_avg_pool2d,
    },
    Builtin {
        name: "global_avg_pool2d",
        params: &["x"],
        doc: "Mean over the height and width of x [N, C, H, W], giving [N, C, 1, 1]; ints give f32.",
        func: |_, a| global(&a, ReduceOp::Mean),
    },
    Builtin {
        name: "global_max_pool2d",
        params: &["x"],
        doc: "Largest value over the height and width of x [N, C, H, W], giving [N, C, 1, 1].",
        func: |_, a| global(&a, ReduceOp::Max),
    },
    Builtin {
        name: "im2col",
        params: &["x", "kernel_size", "dilation=1", "padding=0", "stride=1"],
        doc: "torch's unfold: every kernel window of x [N, C, H, W] as a column, giving [N, C*kh*kw, L].",
        func: im2col,
    },
    Builtin {
        name: "col2im",
        params: &[
            "cols",
            "output_size",
            "kernel_size",
            "dilation=1",
            "padding=0",
            "stride=1",
        ],
        doc: "torch's fold, the adjoint of im2col: adds the columns of cols [N, C*kh*kw, L] back into [N, C, output_size], summing overlaps.",
        func: col2im,
    },
];

fn tensor_result(a: &Bound, r: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| a.tensor_err(e))
}

/// A size argument: an int (repeated for every spatial dim) or a list with one
/// non-negative int per spatial dim; `default` when absent.
fn sizes(
    a: &Bound,
    i: usize,
    name: &str,
    n: usize,
    default: usize,
) -> Result<Vec<usize>, Diagnostic> {
    let Some(arg) = a.get(i) else {
        return Ok(vec![default; n]);
    };
    let want = || format!("`{name}` must be an int or a list of {n} ints");
    let values = match arg.value.as_int() {
        Some(v) => vec![v; n],
        None => arg
            .value
            .as_int_list()
            .ok_or_else(|| a.arg_err(i, format!("{}, got {}", want(), arg.value.describe())))?,
    };
    if values.len() != n {
        return Err(a.arg_err(i, format!("{}, got {} values", want(), values.len())));
    }
    values
        .iter()
        .map(|&v| {
            usize::try_from(v)
                .map_err(|_| a.arg_err(i, format!("`{name}` must not be negative, got {v}")))
        })
        .collect()
}

fn groups(a: &Bound, i: usize) -> Result<usize, Diagnostic> {
    Ok(a.get(i).map(|_| a.count(i)).transpose()?.unwrap_or(1))
}

fn conv_nd(a: &Bound, spatial: usize) -> Result<Value, Diagnostic> {
    let (x, w, bias) = (a.tensor(0)?, a.tensor(1)?, a.opt_tensor(2)?);
    let padding = match a.get(4).map(|p| &p.value) {
        Some(Value::Str(s)) => match &**s {
            "same" => Padding::Same,
            "valid" => Padding::Valid,
            other => {
                let msg = format!("`padding` must be \"valid\", \"same\", an int or a list of {spatial} ints, got \"{other}\"");
                return Err(a.arg_err(4, msg));
            }
        },
        _ => Padding::Explicit(sizes(a, 4, "padding", spatial, 0)?),
    };
    let params = ConvParams {
        stride: sizes(a, 3, "stride", spatial, 1)?,
        padding,
        dilation: sizes(a, 5, "dilation", spatial, 1)?,
        groups: groups(a, 6)?,
    };
    tensor_result(a, conv::conv(&x, &w, bias.as_ref(), spatial, &params))
}

fn conv_transpose2d(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (x, w, bias) = (a.tensor(0)?, a.tensor(1)?, a.opt_tensor(2)?);
    let params = TransposeParams {
        stride: sizes(&a, 3, "stride", 2, 1)?,
        padding: sizes(&a, 4, "padding", 2, 0)?,
        output_padding: sizes(&a, 5, "output_padding", 2, 0)?,
        groups: groups(&a, 6)?,
        dilation: sizes(&a, 7, "dilation", 2, 1)?,
    };
    tensor_result(&a, conv::conv_transpose(&x, &w, bias.as_ref(), 2, &params))
}

/// The shared arguments of max_pool2d and avg_pool2d (stride defaults to kernel_size).
fn pool_params(a: &Bound, dilation: Option<usize>, ceil: usize) -> Result<PoolParams, Diagnostic> {
    let kernel_size = sizes(a, 1, "kernel_size", 2, 0)?;
    let stride = match a.get(2) {
        None => kernel_size.clone(),
        Some(_) => sizes(a, 2, "stride", 2, 1)?,
    };
    let dilation = match dilation {
        Some(i) => sizes(a, i, "dilation", 2, 1)?,
        None => vec![1, 1],
    };
    Ok(PoolParams {
        kernel_size,
        stride,
        padding: sizes(a, 3, "padding", 2, 0)?,
        dilation,
        ceil_mode: a.bool_or(ceil, false)?,
    })
}

fn max_pool2d(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let params = pool_params(&a, Some(4), 5)?;
    tensor_result(&a, pool::max_pool2d(&x, &params))
}

fn avg_pool2d(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let params = pool_params(&a, None, 4)?;
    let count_include_pad = a.bool_or(5, true)?;
    tensor_result(&a, pool::avg_pool2d(&x, &params, count_include_pad))
}

fn adaptive_avg_pool2d(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let size = output_size(&a, 1)?;
    tensor_result(&a, pool::adaptive_avg_pool2d(&x, size))
}

/// An adaptive pool's output size: an int, or two entries that are ints or none.
fn output_size(a: &Bound, i: usize) -> Result<[Option<usize>; 2], Diagnostic> {
    let arg = a.req(i)?;
    let entry = |v: &Value| match v {
        Value::None => Some(None),
        v => v.as_int().and_then(|n| usize::try_from(n).ok()).map(Some),
    };
    let parsed = match &arg.value {
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
    parsed.ok_or_else(|| {
        let msg = format!(
            "`output_size` must be a non-negative int or a list of 2 (none keeps the input size), got {}",
            arg.value.describe()
        );
        a.arg_err(i, msg)
    })
}

fn global(a: &Bound, op: ReduceOp) -> Result<Value, Diagnostic> {
    tensor_result(a, pool::global_pool2d(&a.tensor(0)?, op))
}

fn unfold_params(a: &Bound, first: usize) -> Result<UnfoldParams, Diagnostic> {
    Ok(UnfoldParams {
        kernel_size: sizes(a, first, "kernel_size", 2, 0)?,
        dilation: sizes(a, first + 1, "dilation", 2, 1)?,
        padding: sizes(a, first + 2, "padding", 2, 0)?,
        stride: sizes(a, first + 3, "stride", 2, 1)?,
    })
}

fn im2col(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let params = unfold_params(&a, 1)?;
    tensor_result(&a, conv::im2col(&x, &params))
}

fn col2im(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let cols = a.tensor(0)?;
    let output_size = sizes(&a, 1, "output_size", 2, 0)?;
    let params = unfold_params(&a, 2)?;
    tensor_result(&a, conv::col2im(&cols, &output_size, &params))
}

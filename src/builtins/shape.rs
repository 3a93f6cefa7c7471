//! Shape builtins: views (reshape, transpose, permute, ...), joins and splits, and
//! functions that select elements by value (where, nonzero, unique, ...).

use std::rc::Rc;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops::index::{argwhere, nonzero};
use crate::ops::shape::{self as ops, Sections};
use crate::runtime::value::Value;
use crate::tensor::shape::shape_str;
use crate::tensor::{Scalar, Tensor, TensorError};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "reshape",
        params: &["x", "*shape"],
        doc: "x with a new shape (a list or separate ints, one may be -1); a view when the strides allow.",
        func: reshape,
    },
    Builtin {
        name: "transpose",
        params: &["x", "d0=-2", "d1=-1"],
        doc: "Swaps two axes (a view); `x.T` swaps the last two.",
        func: transpose,
    },
    Builtin {
        name: "permute",
        params: &["x", "dims"],
        doc: "Reorders all axes (a view): `permute(x, [2, 0, 1])`.",
        func: permute,
    },
    Builtin {
        name: "unsqueeze",
        params: &["x", "axis|dim"],
        doc: "Inserts a size-1 axis at axis (a view).",
        func: unsqueeze,
    },
    Builtin {
        name: "squeeze",
        params: &["x", "axis|dim=none"],
        doc: "Removes size-1 axes (all of them, or the given ones) (a view).",
        func: squeeze,
    },
    Builtin {
        name: "flatten",
        params: &["x"],
        doc: "x as a 1-D tensor (a view when contiguous).",
        func: flatten,
    },
    Builtin {
        name: "broadcast_to",
        params: &["x", "shape"],
        doc: "A view of x repeated to shape by NumPy's broadcasting rule (a write gives it its own copy first).",
        func: broadcast_to,
    },
    Builtin {
        name: "contiguous",
        params: &["x"],
        doc: "x in row-major order (copies only when x is not).",
        func: contiguous,
    },
    Builtin {
        name: "clone",
        params: &["x"],
        doc: "A copy of x that owns its data.",
        func: clone,
    },
    Builtin {
        name: "to",
        params: &["x", "dtype"],
        doc: "x converted to dtype (`x.to(f32)`); integers wrap and floats truncate like NumPy's astype.",
        func: to,
    },
    Builtin {
        name: "concat",
        params: &["tensors", "axis|dim=0"],
        doc: "Joins a tuple of tensors along an existing axis (NumPy's concatenate): `concat((a, b), axis=1)`; dtypes promote.",
        func: concat,
    },
    Builtin {
        name: "stack",
        params: &["tensors", "axis|dim=0"],
        doc: "Joins a tuple of tensors of one shape along a new axis: `stack((a, b), axis=0)`.",
        func: stack,
    },
    Builtin {
        name: "split",
        params: &["x", "sections|indices_or_sections", "axis|dim=0"],
        doc: "A tuple of views of x along axis: an int gives that many equal parts, a list the indices to cut before.",
        func: split,
    },
    Builtin {
        name: "where",
        params: &["cond|condition", "a|x", "b|y"],
        doc: "a where cond is nonzero, else b, elementwise; all three broadcast, numbers are weak.",
        func: where_,
    },
    Builtin {
        name: "nonzero",
        params: &["x"],
        doc: "A tuple of i64 index tensors, one per axis, of the nonzero elements in row-major order.",
        func: |_, a| {
            let parts = or_diag(&a, nonzero(&a.tensor(0)?))?;
            Ok(tuple(parts))
        },
    },
    Builtin {
        name: "argwhere",
        params: &["x"],
        doc: "The coordinates of the nonzero elements, an i64 tensor of shape [N, ndim].",
        func: |_, a| view(&a, argwhere),
    },
    Builtin {
        name: "unique",
        params: &["x"],
        doc: "The sorted distinct values of the flattened tensor; NaNs collapse into one, last.",
        func: |_, a| view(&a, ops::unique),
    },
    Builtin {
        name: "count_nonzero",
        params: &["x", "axis|dim=none", "keepdim|keepdims=false"],
        doc: "Number (i64) of nonzero elements over all elements or the given axes; NaN counts as nonzero.",
        func: count_nonzero,
    },
    Builtin {
        name: "fill_",
        params: &["x", "value"],
        doc: "Sets every element of x to value (cast to x's dtype); `x.fill_(v)` changes x in place.",
        func: fill,
    },
];

fn or_diag<T>(a: &Bound, r: Result<T, TensorError>) -> Result<T, Diagnostic> {
    r.map_err(|e| a.tensor_err(e))
}

fn tuple(parts: Vec<Tensor>) -> Value {
    Value::Tuple(Rc::new(parts.into_iter().map(Value::from).collect()))
}

/// Argument `i` as a sequence of tensors: a tuple (numbers count as 0-d tensors), or
/// a tensor's rows (NumPy iterates an array along its first axis).
fn tensor_seq(a: &Bound, i: usize) -> Result<Vec<Tensor>, Diagnostic> {
    match &a.req(i)?.value {
        Value::Tuple(items) => items
            .iter()
            .enumerate()
            .map(|(k, v)| {
                v.to_tensor().ok_or_else(|| {
                    a.arg_err(
                        i,
                        format!(
                            "element {k} of `tensors` must be a tensor or number, got {}",
                            v.describe()
                        ),
                    )
                })
            })
            .collect(),
        Value::Tensor(t) if t.ndim() > 0 => or_diag(
            a,
            (0..t.shape()[0] as i64).map(|k| t.select(0, k)).collect(),
        ),
        other => Err(a.arg_err(
            i,
            format!(
                "argument `tensors` of {} must be a tuple of tensors such as (a, b), got {}",
                a.builtin.name,
                other.describe()
            ),
        )),
    }
}

/// A concat/stack error, labelling the axis or the tensors, whichever is to blame.
fn join_err(a: &Bound, e: TensorError) -> Diagnostic {
    let (slot, what) = match e {
        TensorError::Axis { .. } => (1, "this axis"),
        _ => (0, "these tensors"),
    };
    let d = a.tensor_err(e);
    match a.get(slot) {
        Some(arg) => d.with_label(arg.span, what),
        None => d,
    }
}

fn concat(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let parts = tensor_seq(&a, 0)?;
    let axis = a.opt_int(1)?.unwrap_or(0);
    ops::concat(&parts, axis)
        .map(Value::from)
        .map_err(|e| join_err(&a, e))
}

fn stack(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let parts = tensor_seq(&a, 0)?;
    let axis = a.opt_int(1)?.unwrap_or(0);
    ops::stack(&parts, axis)
        .map(Value::from)
        .map_err(|e| join_err(&a, e))
}

fn split(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let how = match a.req(1)?.value.as_int() {
        Some(n) => Sections::Count(n),
        None => Sections::At(a.axes(1)?.unwrap_or_default()),
    };
    let axis = a.opt_int(2)?.unwrap_or(0);
    Ok(tuple(or_diag(&a, ops::split(&x, &how, axis))?))
}

fn where_(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let cond = a.tensor(0)?;
    let (x, y) = (a.operand(1)?, a.operand(2)?);
    ops::where_(&cond, x, y)
        .map(Value::from)
        .map_err(|e| match e {
            // Name all three shapes: the mismatch may be between any two of them.
            TensorError::Broadcast { .. } => {
                let mut d = a.err("where: cond, a and b cannot be broadcast together");
                for (i, name) in ["cond", "a", "b"].into_iter().enumerate() {
                    if let Some(arg) = a.get(i) {
                        let shape = arg.value.to_tensor().map(|t| shape_str(t.shape()));
                        let shape = shape.unwrap_or_else(|| "[]".into());
                        d = d.with_label(arg.span, format!("{name} has shape {shape}"));
                    }
                }
                d
            }
            other => a.tensor_err(other),
        })
}

fn count_nonzero(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let axes = a.axes(1)?;
    let keepdim = a.bool_or(2, false)?;
    or_diag(&a, ops::count_nonzero(&x, axes.as_deref(), keepdim)).map(Value::from)
}

fn fill(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let mut x = a.tensor(0)?;
    let v = &a.req(1)?.value;
    let value = match v {
        Value::Tensor(t) if t.numel() == 1 => {
            let f = t.item_f64().unwrap_or(0.0);
            Some(match t.dtype().category() {
                crate::tensor::Category::Float => Scalar::Float(f),
                _ => Scalar::Int(t.item_i64().unwrap_or(0)),
            })
        }
        other => other.as_scalar(),
    };
    let value = value.ok_or_else(|| {
        a.arg_err(
            1,
            format!(
                "argument `value` of fill_ must be a number, got {}",
                v.describe()
            ),
        )
    })?;
    or_diag(&a, ops::fill_inplace(&mut x, value))?;
    Ok(Value::from(x))
}

fn view(
    a: &Bound,
    f: impl FnOnce(&Tensor) -> Result<Tensor, TensorError>,
) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    f(&x).map(Value::from).map_err(|e| a.tensor_err(e))
}

fn reshape(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    // reshape(x, [2, 3]) or reshape(x, 2, 3)
    let mut dims = Vec::new();
    for arg in &a.rest {
        let list = arg.value.as_int_list().ok_or_else(|| {
            Diagnostic::new(
                arg.span,
                format!(
                    "reshape needs ints or a list of ints, got {}",
                    arg.value.describe()
                ),
            )
        })?;
        dims.extend(list);
    }
    view(&a, |x| x.reshape(&dims))
}

fn transpose(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let d0 = a.opt_int(1)?.unwrap_or(-2);
    let d1 = a.opt_int(2)?.unwrap_or(-1);
    view(&a, |x| x.transpose(d0, d1))
}

fn permute(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let dims = a.axes(1)?.unwrap_or_default();
    view(&a, |x| x.permute(&dims))
}

fn unsqueeze(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let axis = a.int(1)?;
    view(&a, |x| x.unsqueeze(axis))
}

fn squeeze(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let axes = a.axes(1)?;
    view(&a, |x| x.squeeze(axes.as_deref()))
}

fn flatten(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    view(&a, |x| x.reshape(&[-1]))
}

fn broadcast_to(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let shape = a.shape(1)?;
    view(&a, |x| x.broadcast_to(&shape))
}

fn contiguous(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    view(&a, |x| Ok(x.contiguous()))
}

fn clone(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    // contiguous() may return the same storage; a clone must own fresh data.
    view(&a, |x| {
        Tensor::from_storage(x.contiguous().storage().clone(), x.shape())
    })
}

fn to(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let dtype = a
        .opt_dtype(1)?
        .ok_or_else(|| a.err("to() needs a dtype, e.g. x.to(f32)"))?;
    view(&a, |x| Ok(x.to_dtype(dtype)))
}

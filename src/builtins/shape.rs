//! Shape builtins: views (reshape, transpose, permute, ...), joins and splits, and
//! functions that select elements by value (where, nonzero, unique, ...).

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::autograd::rules::{self, VarOperand};
use crate::autograd::{self, Var};
use crate::diag::Diagnostic;
use crate::ops::index::{argwhere, nonzero};
use crate::ops::rearrange;
use crate::ops::shape::{self as ops, Sections};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, Axes, FromArg, Rest, Shape, TensorLike};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Scalar, Tensor, TensorError};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "reshape",
        doc: "x with a new shape (a list or separate ints, one may be -1); a view when the strides allow.",
        fn(_, a; x: Var, shape: Rest) {
            // reshape(x, [2, 3]) or reshape(x, 2, 3)
            let mut dims = Vec::new();
            for arg in shape.0 {
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
            a.recorded(rules::reshape(&x, &dims))
        }
    },
    builtin! {
        name: "transpose",
        doc: "All axes reversed (NumPy; the same as `x.T`), or axes d0 and d1 swapped when both are given; a view. `x.mT` swaps the last two (torch).",
        fn(_, a; x: Var, d0: Option<i64> = none, d1: Option<i64> = none) {
            match (d0, d1) {
                (None, None) => a.recorded(rules::reverse_axes(&x)),
                (Some(d0), Some(d1)) => a.recorded(rules::transpose(&x, d0, d1)),
                _ => Err(a.err("transpose takes no axes (reverse them all) or two axes to swap, got one")),
            }
        }
    },
    builtin! {
        name: "permute",
        doc: "Reorders all axes (a view): `permute(x, [2, 0, 1])`.",
        fn(_, a; x: Var, dims: Option<Axes>) {
            a.recorded(rules::permute(&x, &dims.map(|d| d.0).unwrap_or_default()))
        }
    },
    builtin! {
        name: "unsqueeze",
        doc: "Inserts a size-1 axis at axis (a view).",
        fn(_, a; x: Var, axis|dim: i64) {
            reshaped(&a, "unsqueeze", &x, x.unsqueeze(axis))
        }
    },
    builtin! {
        name: "squeeze",
        doc: "Removes size-1 axes (all of them, or the given ones) (a view).",
        fn(_, a; x: Var, axis|dim: Option<Axes> = none) {
            reshaped(&a, "squeeze", &x, x.squeeze(axis.map(|a| a.0).as_deref()))
        }
    },
    builtin! {
        name: "flatten",
        doc: "x with the axes start_dim to end_dim (inclusive) merged into one: a 1-D tensor by default, 0-d x included (torch); a view when the strides allow.",
        fn(_, a; x: Var, start_dim: i64 = 0, end_dim: i64 = -1) {
            reshaped(&a, "flatten", &x, rearrange::flatten(&x, start_dim, end_dim))
        }
    },
    builtin! {
        name: "broadcast_to",
        doc: "A view of x repeated to shape by NumPy's broadcasting rule (a write gives it its own copy first).",
        fn(_, a; x: Var, shape: Shape) {
            a.recorded(rules::broadcast_to(&x, &shape.0))
        }
    },
    builtin! {
        name: "contiguous",
        doc: "x in row-major order (copies only when x is not).",
        fn(_, a; x: Var) {
            reshaped(&a, "contiguous", &x, Ok(x.contiguous()))
        }
    },
    builtin! {
        name: "clone",
        doc: "A copy of x that owns its data.",
        fn(_, a; x: Var) {
            // contiguous() may return the same storage; a clone must own fresh data.
            reshaped(&a, "clone", &x, Tensor::from_storage(x.contiguous().storage().clone(), x.shape()))
        }
    },
    builtin! {
        name: "to",
        doc: "x converted to dtype (`x.to(f32)`); integers wrap and floats truncate like NumPy's astype.",
        fn(_, a; x: &Value, dtype: Option<DType>) {
            to_dtype(&a, "to", x, dtype)
        }
    },
    builtin! {
        name: "astype",
        doc: "x converted to dtype, as NumPy's `x.astype(dtype)`: the same as `x.to(dtype)`.",
        fn(_, a; x: &Value, dtype: Option<DType>) {
            to_dtype(&a, "astype", x, dtype)
        }
    },
    builtin! {
        name: "concat",
        doc: "Joins a tuple of tensors along an existing axis (NumPy's concatenate): `concat((a, b), axis=1)`; dtypes promote.",
        fn(_, a; tensors: TensorSeq, axis|dim: i64 = 0) {
            joined(&a, rules::concat(&tensors.0, axis))
        }
    },
    builtin! {
        name: "stack",
        doc: "Joins a tuple of tensors of one shape along a new axis: `stack((a, b), axis=0)`.",
        fn(_, a; tensors: TensorSeq, axis|dim: i64 = 0) {
            joined(&a, rules::stack(&tensors.0, axis))
        }
    },
    builtin! {
        name: "split",
        doc: "A tensor: a tuple of views of x along axis (default 0), sections an int for that many equal parts or a list of the indices to cut before. A string: Python's str.split, sections (or sep) the separator, none for runs of whitespace, and axis (or maxsplit) the most splits, none or -1 for all.",
        // One name, two functions: the string form keeps Python's keywords as aliases.
        fn(_, a; x: &Value, sections|indices_or_sections|sep: Option<&Value> = none, axis|dim|maxsplit: Option<&Value> = none) {
            if let Value::Str(s) = x {
                return super::strings::split(&a, s, sections, axis);
            }
            let x: Var = a.convert("x")?;
            let Some(sections) = sections else {
                return Err(a.arg_err("sections", "split of a tensor is missing the argument `sections`"));
            };
            let how = match sections.as_int() {
                Some(n) => Sections::Count(n),
                None => Sections::At(a.convert::<Option<Axes>>("sections")?.map(|s| s.0).unwrap_or_default()),
            };
            let axis = a.convert::<Option<i64>>("axis")?.unwrap_or(0);
            parts_moved(&a, &x, |t| ops::split(t, &how, axis))
        }
    },
    builtin! {
        name: "where",
        doc: "a where cond is nonzero, else b, elementwise; all three broadcast, numbers are weak. With cond alone, nonzero(cond): a tuple of i64 index tensors (NumPy).",
        fn(_, bound; cond|condition: Tensor, a|x: Option<VarOperand> = none, b|y: Option<VarOperand> = none) {
            match (a, b) {
                (Some(a), Some(b)) => rules::where_(&Var::constant(cond.clone()), a, b)
                    .map(Value::from)
                    .map_err(|e| match e {
                        autograd::GradError::Tensor(e) => where_err(&bound, e),
                        other => bound.grad_err(other),
                    }),
                (None, None) => Ok(tuple(or_diag(&bound, nonzero(&cond))?)),
                _ => Err(bound.err("where takes cond alone, or cond, a and b: one of a and b is missing")),
            }
        }
    },
    builtin! {
        name: "nonzero",
        doc: "A tuple of i64 index tensors, one per axis, of the nonzero elements in row-major order.",
        fn(_, a; x: Tensor) {
            let parts = or_diag(&a, nonzero(&x))?;
            Ok(tuple(parts))
        }
    },
    builtin! {
        name: "argwhere",
        doc: "The coordinates of the nonzero elements, an i64 tensor of shape [N, ndim].",
        fn(_, a; x: Tensor) {
            view(&a, argwhere(&x))
        }
    },
    builtin! {
        name: "unique",
        doc: "The sorted distinct values of the flattened tensor; NaNs collapse into one, last. With return_inverse / return_counts, a tuple (values, inverse, counts) of those asked for: inverse (i64, x's shape) indexes values, counts (i64) (NumPy 2).",
        fn(_, a; x: Tensor, return_inverse: bool = false, return_counts: bool = false) {
            if !return_inverse && !return_counts {
                return view(&a, ops::unique(&x));
            }
            let u = or_diag(&a, ops::unique_all(&x))?;
            let mut parts = vec![u.values];
            if return_inverse {
                parts.push(u.inverse);
            }
            if return_counts {
                parts.push(u.counts);
            }
            Ok(tuple(parts))
        }
    },
    builtin! {
        name: "count_nonzero",
        doc: "Number (i64) of nonzero elements over all elements or the given axes; NaN counts as nonzero.",
        fn(_, a; x: Tensor, axis|dim: Option<Axes> = none, keepdim|keepdims: bool = false) {
            let axes = axis.map(|a| a.0);
            or_diag(&a, ops::count_nonzero(&x, axes.as_deref(), keepdim)).map(Value::from)
        }
    },
    builtin! {
        name: "fill_",
        doc: "Sets every element of x to value (cast to x's dtype); `x.fill_(v)` changes x in place.",
        fn(_, a; x: Tensor, value: &Value) {
            fill(&a, x, value)
        }
    },
];

pub(super) fn or_diag<T>(a: &Bound, r: Result<T, TensorError>) -> Result<T, Diagnostic> {
    r.map_err(|e| a.tensor_err(e))
}

pub(super) fn tuple(parts: Vec<Tensor>) -> Value {
    Value::Tuple(Rc::new(parts.into_iter().map(Value::from).collect()))
}

pub(super) fn view(a: &Bound, r: Result<Tensor, TensorError>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| a.tensor_err(e))
}

/// The pieces `f(x)` of a split, as a tuple, each recorded as moved from x.
pub(super) fn parts_moved(
    a: &Bound,
    x: &Var,
    f: impl Fn(&Tensor) -> Result<Vec<Tensor>, TensorError>,
) -> Result<Value, Diagnostic> {
    let parts = rules::moved_parts(a.builtin.name, x, f).map_err(|e| a.grad_err(e))?;
    Ok(Value::Tuple(Rc::new(
        parts
            .into_iter()
            .map(Value::from)
            .collect::<Vec<_>>()
            .into(),
    )))
}

/// `f(x)` for an `f` that only moves x's elements (or writes zeros), recorded:
/// the gradient goes back to where each element came from.
pub(super) fn moved(
    a: &Bound,
    x: &Var,
    f: impl Fn(&Tensor) -> Result<Tensor, TensorError>,
) -> Result<Value, Diagnostic> {
    a.recorded(rules::moved(a.builtin.name, x, f))
}

/// A sequence of tensors: a tuple (numbers count as 0-d tensors), or a tensor's
/// rows (NumPy iterates an array along its first axis).
/// The tensors of a tuple (numbers as 0-d tensors), or the rows of a tensor, each
/// keeping its track for gradients.
pub(super) struct TensorSeq(pub(super) Vec<Var>);

impl<'a> FromArg<'a> for TensorSeq {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let parts = match arg.value()? {
            Value::Tuple(items) => items
                .iter()
                .enumerate()
                .map(|(k, v)| match v {
                    Value::Tensor(t) => Ok((**t).clone()),
                    other => other.to_tensor().map(Var::constant).ok_or_else(|| {
                        arg.err(format!(
                            "element {k} of `tensors` must be a tensor or number, got {}",
                            other.describe()
                        ))
                    }),
                })
                .collect::<Result<_, _>>()?,
            Value::Tensor(t) if t.ndim() > 0 => (0..t.shape()[0] as i64)
                .map(|k| rules::row(t, k))
                .collect::<Result<_, _>>()
                .map_err(|e| arg.tensor_err(e))?,
            other => {
                return Err(arg.err(format!(
                    "argument `tensors` of {} must be a tuple of tensors such as (a, b), got {}",
                    arg.callee(),
                    other.describe()
                )))
            }
        };
        Ok(TensorSeq(parts))
    }
}

/// A recorded concat/stack's result as a value.
fn joined(a: &Bound, r: autograd::Result<Var>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| match e {
        autograd::GradError::Tensor(e) => join_err(a, e),
        other => a.grad_err(other),
    })
}

/// A concat/stack error, labelling the axis or the tensors, whichever is to blame.
fn join_err(a: &Bound, e: TensorError) -> Diagnostic {
    let (param, what) = match e {
        TensorError::Axis { .. } => ("axis", "this axis"),
        _ => ("tensors", "these tensors"),
    };
    let d = a.tensor_err(e);
    match a.given(param) {
        Some(arg) => d.with_label(arg.span, what),
        None => d,
    }
}

/// A where error; a broadcast one names all three shapes, as the mismatch may
/// be between any two of them.
fn where_err(a: &Bound, e: TensorError) -> Diagnostic {
    let TensorError::Broadcast { .. } = e else {
        return a.tensor_err(e);
    };
    let mut d = a.err("where: cond, a and b cannot be broadcast together");
    for name in ["cond", "a", "b"] {
        if let Some(arg) = a.given(name) {
            let shape = arg.value.to_tensor().map(|t| shape_str(t.shape()));
            let shape = shape.unwrap_or_else(|| "[]".into());
            d = d.with_label(arg.span, format!("{name} has shape {shape}"));
        }
    }
    d
}

fn fill(a: &Bound, mut x: Tensor, v: &Value) -> Result<Value, Diagnostic> {
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
            "value",
            format!(
                "argument `value` of fill_ must be a number, got {}",
                v.describe()
            ),
        )
    })?;
    or_diag(a, ops::fill_inplace(&mut x, value))?;
    Ok(Value::from(x))
}

/// `x.to(dtype)` and `x.astype(dtype)`; a float number converts from its f64 value.
fn to_dtype(a: &Bound, name: &str, x: &Value, dtype: Option<DType>) -> Result<Value, Diagnostic> {
    let dtype =
        dtype.ok_or_else(|| a.err(format!("{name}() needs a dtype, e.g. x.{name}(f32)")))?;
    if let Value::Tensor(t) = x {
        return a.recorded(rules::cast(t, dtype));
    }
    let x: TensorLike = a.convert("x")?;
    Ok(Value::from(x.exact().to_dtype(dtype)))
}

/// `r`, x's elements in another shape, recorded as made from `x` by `op`.
pub(super) fn reshaped(
    a: &Bound,
    op: &'static str,
    x: &Var,
    r: Result<Tensor, TensorError>,
) -> Result<Value, Diagnostic> {
    let y = r.map_err(|e| a.tensor_err(e))?;
    Ok(Value::from(rules::reshaped(op, x, y)))
}

//! Builtins that rearrange elements (NumPy names and semantics unless marked
//! torch): pad, tile, repeat, roll, flip, rot90, moveaxis, swapaxes, expand_dims,
//! the stacks (hstack, vstack, dstack, column_stack), the splits (array_split,
//! torch's chunk and unbind) and meshgrid.

use super::create::FillValue;
use super::shape::{moved, or_diag, parts_moved, reshaped, tuple, view, TensorSeq};
use super::{Bound, Builtin};
use crate::autograd::rules::{self, VarOperand};
use crate::autograd::{self, Var};
use crate::diag::Diagnostic;
use crate::ops::pad::{pad, PadMode};
use crate::ops::pieces::{self, SplitInto};
use crate::ops::rearrange as views;
use crate::ops::tile::{self, Repeats};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, Axes, FromArg, Rest};
use crate::tensor::{Scalar, Tensor};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "pad",
        doc: "A copy of x with pad_width elements added before and after each axis (an int, a (before, after) pair, or one pair per axis); mode \"constant\" (constant_values, cast to x's dtype), \"reflect\", \"symmetric\", \"edge\" or \"wrap\" (NumPy).",
        fn(_, a; x: Var, pad_width: PadWidth, mode: String = "constant", constant_values: FillValue = 0) {
            let mode = or_diag(&a, PadMode::from_name(&mode))?;
            let fill = constant_values.0;
            if !autograd::recording(&[&x]) {
                return view(&a, pad(&x, &pad_width.0, mode, fill));
            }
            let zeros = rules::moved("pad", &x, |t| pad(t, &pad_width.0, mode, Scalar::Int(0)))
                .map_err(|e| a.grad_err(e))?;
            if !matches!(mode, PadMode::Constant) || is_plus_zero(fill) || !zeros.is_tracked() {
                return Ok(Value::from(zeros));
            }
            // Another constant is written where the padding is (the same bits as
            // padding with it).
            let inside = Tensor::scalar(false).broadcast_to(x.shape()).map_err(|e| a.tensor_err(e))?;
            let padding = pad(&inside, &pad_width.0, PadMode::Constant, Scalar::Bool(true))
                .map_err(|e| a.tensor_err(e))?;
            a.recorded(rules::where_(&Var::constant(padding), VarOperand::Scalar(fill), VarOperand::Var(&zeros)))
        }
    },
    builtin! {
        name: "tile",
        doc: "x repeated reps times along each axis (an int or a list; a shorter list counts from the last axis, a longer one adds leading axes) (NumPy).",
        fn(_, a; x: Var, reps: Axes) {
            moved(&a, &x, |t| tile::tile(t, &reps.0))
        }
    },
    builtin! {
        name: "repeat",
        doc: "Each element repeated along axis (the flattened x when none), copies side by side: repeats is an int or one int per element (NumPy).",
        fn(_, a; x: Var, repeats: &Value, axis|dim: Option<i64> = none) {
            let how = match repeats.as_int() {
                Some(n) => Repeats::Each(n),
                None => Repeats::PerElement(a.convert::<Axes>("repeats")?.0),
            };
            moved(&a, &x, |t| tile::repeat(t, &how, axis))
        }
    },
    builtin! {
        name: "flip",
        doc: "x with the order of elements reversed along axis (an int or a list; all axes when none); a view (NumPy).",
        fn(_, a; x: Var, axis|dim|dims: Option<Axes> = none) {
            let axes = axis.map(|a| a.0);
            moved(&a, &x, |t| views::flip(t, axes.as_deref()))
        }
    },
    builtin! {
        name: "roll",
        doc: "A copy of x with elements shifted by shift along axis, wrapping around; shift and axis are ints or lists that pair up; without axis, the flattened x is rolled and keeps its shape (NumPy).",
        fn(_, a; x: Var, shift|shifts: Axes, axis|dim|dims: Option<Axes> = none) {
            let axes = axis.map(|a| a.0);
            moved(&a, &x, |t| tile::roll(t, &shift.0, axes.as_deref()))
        }
    },
    builtin! {
        name: "rot90",
        doc: "x rotated by 90 degrees k times in the plane of axes (two axes, (0, 1) when none), from the first towards the second; a view (NumPy).",
        fn(_, a; x: Var, k: i64 = 1, axes|dims: Option<Axes> = none) {
            let axes = axes.map_or(vec![0, 1], |a| a.0);
            moved(&a, &x, |t| views::rot90(t, k, &axes))
        }
    },
    builtin! {
        name: "moveaxis",
        doc: "x with the axes source (an int or a list) moved to the positions destination, the other axes keeping their order; a view (NumPy).",
        fn(_, a; x: Var, source: Axes, destination: Axes) {
            moved(&a, &x, |t| views::moveaxis(t, &source.0, &destination.0))
        }
    },
    builtin! {
        name: "swapaxes",
        doc: "x with axis1 and axis2 swapped; a view (NumPy; the same as transpose(x, axis1, axis2)).",
        fn(_, a; x: Var, axis1: i64, axis2: i64) {
            a.recorded(rules::transpose(&x, axis1, axis2))
        }
    },
    builtin! {
        name: "expand_dims",
        doc: "x with size-1 axes inserted at axis (an int or a list of positions in the result); a view (NumPy).",
        fn(_, a; x: Var, axis|dim: Axes) {
            reshaped(&a, "expand_dims", &x, views::expand_dims(&x, &axis.0))
        }
    },
    builtin! {
        name: "meshgrid",
        doc: "Coordinate grids of the vectors xs, a tuple of copies of one shape: [len(x1), len(x0), ...] for indexing=\"xy\" (the default), [len(x0), len(x1), ...] for \"ij\" (NumPy).",
        fn(_, a; xs: Rest, indexing: String = "xy") {
            let xs = xs.vars("meshgrid")?;
            let values: Vec<Tensor> = xs.iter().map(|v| v.tensor().clone()).collect();
            let grids = or_diag(&a, pieces::meshgrid(&values, &indexing))?;
            if !autograd::recording(&xs.iter().collect::<Vec<_>>()) {
                return Ok(tuple(grids));
            }
            // Grid k copies xs[k]: recorded as moved from all of them.
            let grids = (0..grids.len())
                .map(|k| {
                    rules::moved_many("meshgrid", &xs, |ts| {
                        pieces::meshgrid(ts, &indexing)?
                            .into_iter()
                            .nth(k)
                            .ok_or_else(|| crate::tensor::TensorError::value("meshgrid", "internal: a grid is missing"))
                    })
                    .map(Value::from)
                    .map_err(|e| a.grad_err(e))
                })
                .collect::<Result<Vec<Value>, Diagnostic>>()?;
            Ok(Value::Tuple(std::rc::Rc::new(grids.into())))
        }
    },
    builtin! {
        name: "hstack",
        doc: "Joins a tuple of tensors along axis 1, or axis 0 when they are vectors (numbers count as vectors of one); dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            joined_moved(&a, &tensors, pieces::hstack)
        }
    },
    builtin! {
        name: "vstack",
        doc: "Joins a tuple of tensors along axis 0, a vector [n] counting as a row [1, n]; dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            joined_moved(&a, &tensors, pieces::vstack)
        }
    },
    builtin! {
        name: "dstack",
        doc: "Joins a tuple of tensors along axis 2, a vector [n] counting as [1, n, 1] and a matrix [m, n] as [m, n, 1]; dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            joined_moved(&a, &tensors, pieces::dstack)
        }
    },
    builtin! {
        name: "column_stack",
        doc: "Joins a tuple of tensors along axis 1, a vector [n] counting as a column [n, 1]; dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            joined_moved(&a, &tensors, pieces::column_stack)
        }
    },
    builtin! {
        name: "array_split",
        doc: "A tuple of views of x along axis: sections an int for that many parts as equal as can be (the first len % sections one longer), or a list of the indices to cut before (NumPy).",
        fn(_, a; x: Var, sections|indices_or_sections: &Value, axis|dim: i64 = 0) {
            let how = match sections.as_int() {
                Some(n) => SplitInto::Parts(n),
                None => SplitInto::At(a.convert::<Axes>("sections")?.0),
            };
            parts_moved(&a, &x, |t| pieces::array_split(t, how.clone(), axis))
        }
    },
    builtin! {
        name: "chunk",
        doc: "A tuple of views of x along dim of ceil(len / chunks) elements each, the last shorter; there may be fewer than chunks (torch).",
        fn(_, a; x: Var, chunks: i64, dim|axis: i64 = 0) {
            parts_moved(&a, &x, |t| pieces::chunk(t, chunks, dim))
        }
    },
    builtin! {
        name: "unbind",
        doc: "A tuple of the slices of x along dim, each without that axis; views (torch).",
        fn(_, a; x: Var, dim|axis: i64 = 0) {
            parts_moved(&a, &x, |t| pieces::unbind(t, dim))
        }
    },
];

/// A join of `tensors` by `f`, recorded: each input gets back its elements'
/// gradient.
fn joined_moved(
    a: &Bound,
    tensors: &TensorSeq,
    f: fn(&[Tensor]) -> crate::tensor::Result<Tensor>,
) -> Result<Value, Diagnostic> {
    a.recorded(rules::moved_many(a.builtin.name, &tensors.0, f))
}

/// NumPy's `pad_width`: an int for every side, a `(before, after)` pair for every
/// axis, or a tuple of one pair (or one int) per axis.
struct PadWidth(Vec<(i64, i64)>);

impl<'a> FromArg<'a> for PadWidth {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        let want = || {
            arg.err(format!(
                "pad_width must be an int, a (before, after) pair or one pair per axis, got {}",
                v.describe()
            ))
        };
        let pair = |list: &[i64]| match *list {
            [n] => Some((n, n)),
            [before, after] => Some((before, after)),
            _ => None,
        };
        let pairs = match (v.as_int_list(), v) {
            (Some(list), _) => vec![pair(&list).ok_or_else(want)?],
            (None, Value::Tuple(items)) => items
                .iter()
                .map(|item| item.as_int_list().as_deref().and_then(pair))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(want)?,
            (None, Value::Tensor(t)) if t.ndim() == 2 && t.dtype().is_int() => t
                .to_vec::<i64>()
                .chunks(t.shape()[1].max(1))
                .map(pair)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(want)?,
            _ => return Err(want()),
        };
        Ok(PadWidth(pairs))
    }
}

/// Whether padding with `s` writes the zeros a pad of the map of positions does.
fn is_plus_zero(s: Scalar) -> bool {
    match s {
        Scalar::Int(n) => n == 0,
        Scalar::Bool(b) => !b,
        Scalar::Float(f) => f.to_bits() == 0,
    }
}

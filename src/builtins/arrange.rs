//! Builtins that rearrange elements (NumPy names and semantics unless marked
//! torch): pad, tile, repeat, roll, flip, rot90, moveaxis, swapaxes, expand_dims,
//! the stacks (hstack, vstack, dstack, column_stack), the splits (array_split,
//! torch's chunk and unbind) and meshgrid.

use super::create::FillValue;
use super::shape::{or_diag, reshaped, tuple, view, TensorSeq};
use super::Builtin;
use crate::autograd::Var;
use crate::diag::Diagnostic;
use crate::ops::pad::{pad, PadMode};
use crate::ops::pieces::{self, SplitInto};
use crate::ops::rearrange as views;
use crate::ops::tile::{self, Repeats};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, Axes, FromArg, Rest};
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "pad",
        doc: "A copy of x with pad_width elements added before and after each axis (an int, a (before, after) pair, or one pair per axis); mode \"constant\" (constant_values, cast to x's dtype), \"reflect\", \"symmetric\", \"edge\" or \"wrap\" (NumPy).",
        fn(_, a; x: Tensor, pad_width: PadWidth, mode: String = "constant", constant_values: FillValue = 0) {
            let mode = or_diag(&a, PadMode::from_name(&mode))?;
            view(&a, pad(&x, &pad_width.0, mode, constant_values.0))
        }
    },
    builtin! {
        name: "tile",
        doc: "x repeated reps times along each axis (an int or a list; a shorter list counts from the last axis, a longer one adds leading axes) (NumPy).",
        fn(_, a; x: Tensor, reps: Axes) {
            view(&a, tile::tile(&x, &reps.0))
        }
    },
    builtin! {
        name: "repeat",
        doc: "Each element repeated along axis (the flattened x when none), copies side by side: repeats is an int or one int per element (NumPy).",
        fn(_, a; x: Tensor, repeats: &Value, axis|dim: Option<i64> = none) {
            let how = match repeats.as_int() {
                Some(n) => Repeats::Each(n),
                None => Repeats::PerElement(a.convert::<Axes>("repeats")?.0),
            };
            view(&a, tile::repeat(&x, &how, axis))
        }
    },
    builtin! {
        name: "flip",
        doc: "x with the order of elements reversed along axis (an int or a list; all axes when none); a view (NumPy).",
        fn(_, a; x: Tensor, axis|dim|dims: Option<Axes> = none) {
            view(&a, views::flip(&x, axis.map(|a| a.0).as_deref()))
        }
    },
    builtin! {
        name: "roll",
        doc: "A copy of x with elements shifted by shift along axis, wrapping around; shift and axis are ints or lists that pair up; without axis, the flattened x is rolled and keeps its shape (NumPy).",
        fn(_, a; x: Tensor, shift|shifts: Axes, axis|dim|dims: Option<Axes> = none) {
            view(&a, tile::roll(&x, &shift.0, axis.map(|a| a.0).as_deref()))
        }
    },
    builtin! {
        name: "rot90",
        doc: "x rotated by 90 degrees k times in the plane of axes (two axes, (0, 1) when none), from the first towards the second; a view (NumPy).",
        fn(_, a; x: Tensor, k: i64 = 1, axes|dims: Option<Axes> = none) {
            let axes = axes.map_or(vec![0, 1], |a| a.0);
            view(&a, views::rot90(&x, k, &axes))
        }
    },
    builtin! {
        name: "moveaxis",
        doc: "x with the axes source (an int or a list) moved to the positions destination, the other axes keeping their order; a view (NumPy).",
        fn(_, a; x: Tensor, source: Axes, destination: Axes) {
            view(&a, views::moveaxis(&x, &source.0, &destination.0))
        }
    },
    builtin! {
        name: "swapaxes",
        doc: "x with axis1 and axis2 swapped; a view (NumPy; the same as transpose(x, axis1, axis2)).",
        fn(_, a; x: Tensor, axis1: i64, axis2: i64) {
            view(&a, x.transpose(axis1, axis2))
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
            let xs = xs.tensors("meshgrid")?;
            Ok(tuple(or_diag(&a, pieces::meshgrid(&xs, &indexing))?))
        }
    },
    builtin! {
        name: "hstack",
        doc: "Joins a tuple of tensors along axis 1, or axis 0 when they are vectors (numbers count as vectors of one); dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            view(&a, pieces::hstack(&tensors.tensors()))
        }
    },
    builtin! {
        name: "vstack",
        doc: "Joins a tuple of tensors along axis 0, a vector [n] counting as a row [1, n]; dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            view(&a, pieces::vstack(&tensors.tensors()))
        }
    },
    builtin! {
        name: "dstack",
        doc: "Joins a tuple of tensors along axis 2, a vector [n] counting as [1, n, 1] and a matrix [m, n] as [m, n, 1]; dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            view(&a, pieces::dstack(&tensors.tensors()))
        }
    },
    builtin! {
        name: "column_stack",
        doc: "Joins a tuple of tensors along axis 1, a vector [n] counting as a column [n, 1]; dtypes promote (NumPy).",
        fn(_, a; tensors: TensorSeq) {
            view(&a, pieces::column_stack(&tensors.tensors()))
        }
    },
    builtin! {
        name: "array_split",
        doc: "A tuple of views of x along axis: sections an int for that many parts as equal as can be (the first len % sections one longer), or a list of the indices to cut before (NumPy).",
        fn(_, a; x: Tensor, sections|indices_or_sections: &Value, axis|dim: i64 = 0) {
            let how = match sections.as_int() {
                Some(n) => SplitInto::Parts(n),
                None => SplitInto::At(a.convert::<Axes>("sections")?.0),
            };
            Ok(tuple(or_diag(&a, pieces::array_split(&x, how, axis))?))
        }
    },
    builtin! {
        name: "chunk",
        doc: "A tuple of views of x along dim of ceil(len / chunks) elements each, the last shorter; there may be fewer than chunks (torch).",
        fn(_, a; x: Tensor, chunks: i64, dim|axis: i64 = 0) {
            Ok(tuple(or_diag(&a, pieces::chunk(&x, chunks, dim))?))
        }
    },
    builtin! {
        name: "unbind",
        doc: "A tuple of the slices of x along dim, each without that axis; views (torch).",
        fn(_, a; x: Tensor, dim|axis: i64 = 0) {
            Ok(tuple(or_diag(&a, pieces::unbind(&x, dim))?))
        }
    },
];

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

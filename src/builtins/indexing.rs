//! Indexing functions: NumPy's take, take_along_axis, put_along_axis, unravel_index,
//! digitize and isin; torch's gather, scatter, scatter_add, index_add, index_select,
//! masked_fill and one_hot. (`where(cond)` with one argument is in shape.rs, beside
//! its three-argument form.) Functions that write return a new tensor.

use super::shape::{moved, tuple};
use super::{Bound, Builtin};
use crate::autograd::rules::VarOperand;
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::{gather, lookup, scatter, Operand};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Shape};
use crate::tensor::{Result as TensorResult, Scalar, Tensor};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "take",
        doc: "The elements at the integer positions idx along axis (of the flattened tensor when none); the axis is replaced by idx's shape; negative positions count from the end (NumPy).",
        fn(_, a; x: Var, idx|indices: Tensor, axis|dim: Option<i64> = none) {
            moved(&a, &x, |t| gather::take(t, &idx, axis))
        }
    },
    builtin! {
        name: "take_along_axis",
        doc: "out[..., j, ...] = x[..., idx[..., j, ...], ...] along axis, for an integer idx with x's number of dims that broadcasts against x elsewhere (NumPy).",
        fn(_, a; x: Var, idx|indices: Tensor, axis|dim: i64) {
            moved(&a, &x, |t| gather::take_along_axis(t, &idx, axis))
        }
    },
    builtin! {
        name: "put_along_axis",
        doc: "A copy of x with out[..., idx[..., j, ...], ...] = values[..., j, ...] along axis (NumPy's put_along_axis, returning the result); values broadcast to idx; the last write wins.",
        fn(_, a; x: Var, idx|indices: Tensor, values: Var, axis|dim: i64) {
            a.recorded(rules::moved_many("put_along_axis", &[x, values], |t| {
                scatter::put_along_axis(&t[0], &idx, &t[1], axis)
            }))
        }
    },
    builtin! {
        name: "unravel_index",
        doc: "The coordinates in shape (row-major) of each flat index, as a tuple of i64 tensors of indices' shape, one per dimension (NumPy).",
        fn(_, a; indices: Tensor, shape: Shape) {
            let parts = lookup::unravel_index(&indices, &shape.0).map_err(|e| a.tensor_err(e))?;
            Ok(tuple(parts))
        }
    },
    builtin! {
        name: "digitize",
        doc: "The i64 index of the bin each element of x falls in, for 1-D monotonic bins: bins[i-1] <= x < bins[i] for increasing bins (bins[i-1] < x <= bins[i] when right) (NumPy).",
        fn(_, a; x: Tensor, bins: Tensor, right: bool = false) {
            result(&a, lookup::digitize(&x, &bins, right))
        }
    },
    builtin! {
        name: "isin",
        doc: "True where an element of x equals one of test_elements (any shape; NaN equals nothing), a bool tensor of x's shape; invert negates it (NumPy).",
        fn(_, a; x: Tensor, test_elements: Tensor, invert: bool = false) {
            result(&a, lookup::isin(&x, &test_elements, invert))
        }
    },
    builtin! {
        name: "gather",
        doc: "out[..., j, ...] = x[..., index[..., j, ...], ...] along dim, for an integer index with x's number of dims, no larger than x elsewhere (torch; negative entries count from the end).",
        fn(_, a; x|input: Var, dim|axis: i64, index: Tensor) {
            a.recorded(rules::gather(&x, dim, &index))
        }
    },
    builtin! {
        name: "scatter",
        doc: "A copy of x with out[..., index[..., j, ...], ...] = src[..., j, ...] along dim (src a tensor, read in index's shape, or a number); the last write in index order wins (torch).",
        fn(_, a; x|input: Var, dim|axis: i64, index: Tensor, src|value: VarOperand) {
            match src {
                VarOperand::Var(src) => a.recorded(rules::moved_many("scatter", &[x.clone(), src.clone()], |t| {
                    scatter::scatter(&t[0], dim, &index, Operand::Tensor(&t[1]))
                })),
                VarOperand::Scalar(s) if autograd::recording(&[&x]) => {
                    // The number written where index points: where(written, s, x).
                    let none = Tensor::scalar(false).broadcast_to(x.shape()).map_err(|e| a.tensor_err(e))?;
                    let written = scatter::scatter(&none.contiguous(), dim, &index, Operand::Scalar(Scalar::Bool(true)))
                        .map_err(|e| a.tensor_err(e))?;
                    // Run once for its checks of index and dim.
                    scatter::scatter(&x, dim, &index, Operand::Scalar(s)).map_err(|e| a.tensor_err(e))?;
                    a.recorded(rules::where_(&Var::constant(written), VarOperand::Scalar(s), VarOperand::Var(&x)))
                }
                VarOperand::Scalar(s) => result(&a, scatter::scatter(&x, dim, &index, Operand::Scalar(s))),
            }
        }
    },
    builtin! {
        name: "scatter_add",
        doc: "scatter that adds src into x instead of writing, in index order (the same bits for any thread count) (torch).",
        fn(_, a; x|input: Var, dim|axis: i64, index: Tensor, src: Var) {
            a.recorded(rules::scatter_add(&x, dim, &index, &src))
        }
    },
    builtin! {
        name: "index_add",
        doc: "A copy of x with alpha * src[..., j, ...] added to x[..., index[j], ...] along dim for the 1-D index, in index order (torch).",
        fn(_, a; x|input: Var, dim|axis: i64, index: Tensor, src|source: Var, alpha: Operand = 1) {
            let Operand::Scalar(alpha) = alpha else {
                return Err(a.arg_err("alpha", "alpha must be a number"));
            };
            a.recorded(rules::index_add(&x, dim, &index, &src, alpha))
        }
    },
    builtin! {
        name: "index_select",
        doc: "The slices of x at the 1-D integer index along dim, in index order; the axis keeps its place (torch).",
        fn(_, a; x|input: Var, dim|axis: i64, index: Tensor) {
            moved(&a, &x, |t| gather::index_select(t, dim, &index))
        }
    },
    builtin! {
        name: "masked_fill",
        doc: "A copy of x with value (a number or 0-d tensor, cast to x's dtype) where the bool mask, broadcast to x's shape, is true (torch).",
        fn(_, a; x|input: Var, mask: Tensor, value: Operand) {
            let y = scatter::masked_fill(&x, &mask, value).map_err(|e| a.tensor_err(e))?;
            match value {
                // The same bits: value (cast to x's dtype) where mask, else x.
                Operand::Scalar(s) if autograd::recording(&[&x]) => {
                    a.recorded(rules::where_(&Var::constant(mask), VarOperand::Scalar(s), VarOperand::Var(&x)))
                }
                _ => Ok(Value::from(y)),
            }
        }
    },
    builtin! {
        name: "one_hot",
        doc: "An i64 tensor of labels' shape plus a last axis of num_classes (the largest label + 1 when -1), 1 at each label and 0 elsewhere (torch).",
        fn(_, a; labels|tensor: Tensor, num_classes: i64 = -1) {
            result(&a, lookup::one_hot(&labels, num_classes))
        }
    },
];

fn result(a: &Bound, t: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    t.map(Value::from).map_err(|e| a.tensor_err(e))
}

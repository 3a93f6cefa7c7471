//! Reduction builtins: `axis=` (int or list, `dim=` accepted) and `keepdim=`.

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::interp::value::Value;
use crate::ops::{self, ReduceOp};

macro_rules! reduce_builtin {
    ($name:literal, $op:expr, $doc:literal) => {
        Builtin {
            name: $name,
            params: &["x", "axis|dim=none", "keepdim|keepdims=false"],
            doc: $doc,
            func: |_, a| reduce(&a, $op),
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    reduce_builtin!(
        "sum",
        ReduceOp::Sum,
        "Sum over all elements or the given axes (pairwise, fixed order); ints sum to i64."
    ),
    reduce_builtin!(
        "mean",
        ReduceOp::Mean,
        "Arithmetic mean over all elements or the given axes; ints give f32."
    ),
    reduce_builtin!(
        "max",
        ReduceOp::Max,
        "Largest value over all elements or the given axes; NaN propagates."
    ),
    reduce_builtin!(
        "min",
        ReduceOp::Min,
        "Smallest value over all elements or the given axes; NaN propagates."
    ),
    reduce_builtin!(
        "argmax",
        ReduceOp::ArgMax,
        "Index (i64) of the first largest value, in the flattened tensor or along one axis."
    ),
];

fn reduce(a: &Bound, op: ReduceOp) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let axes = a.axes(1)?;
    let keepdim = a.bool_or(2, false)?;
    ops::reduce(op, &x, axes.as_deref(), keepdim)
        .map(Value::Tensor)
        .map_err(|e| a.tensor_err(e))
}

//! Reduction builtins: `axis=` (int or list, `dim=` accepted) and `keepdim=`
//! (`keepdims=` accepted); also the vector norm, normalize and the scans (cumsum,
//! cumprod, cummax, cummin).

use std::cmp::Ordering;

use super::{sequences, Bound, Builtin};
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::gather;
use crate::ops::order_picks::running_extreme_indices;
use crate::ops::rearrange::moveaxis;
use crate::ops::reduce::ScanOp;
use crate::ops::{self, ReduceOp};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Axes};
use crate::tensor::{Result as TensorResult, Tensor};

/// A builtin `NAME(x, axis=none, keepdim=false)` for a reduction op.
macro_rules! reduce_builtin {
    ($name:literal, $op:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; x: Var, axis|dim: Option<Axes> = none, keepdim|keepdims: bool = false) {
                reduce(&a, $op, &x, axis, keepdim)
            }
        }
    };
}

/// `var` and `std`, which also take `ddof`.
macro_rules! spread_builtin {
    ($name:literal, $op:ident, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a;
                x: Var,
                axis|dim: Option<Axes> = none,
                keepdim|keepdims: bool = false,
                ddof: i64 = 0,
            ) {
                reduce(&a, ReduceOp::$op { ddof }, &x, axis, keepdim)
            }
        }
    };
}

/// A scan `NAME(x, axis=none)` (of the flattened tensor when none).
macro_rules! scan_builtin {
    ($name:literal, $op:ident, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; x: Var, axis|dim: Option<i64> = none) {
                match ScanOp::$op {
                    ScanOp::Sum => a.recorded(rules::cumsum(&x, axis)),
                    ScanOp::Prod if autograd::recording(&[&x]) => a.recorded(rules::cumprod(&x, axis)),
                    ScanOp::Max | ScanOp::Min if autograd::recording(&[&x]) => {
                        running_extreme(&a, &x, axis, ScanOp::$op == ScanOp::Max)
                    }
                    op => result(&a, ops::reduce::scan(op, &x, axis)),
                }
            }
        }
    };
}

/// `sum`, `any`, `all`: a tensor reduces; a tuple or range folds as Python's
/// builtin does.
macro_rules! reduce_or_fold_builtin {
    ($name:literal, $op:expr, $fold:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; x: &Value, axis|dim: Option<Axes> = none, keepdim|keepdims: bool = false) {
                if sequences::is_sequence(x) {
                    only_for_tensors(&a, &["axis", "keepdim"])?;
                    return $fold(&a, x);
                }
                reduce(&a, $op, &a.convert::<Var>("x")?, axis, keepdim)
            }
        }
    };
}

/// `min`, `max`: a tensor reduces; a tuple or range gives its first smallest
/// (largest) item, by `key(item)` when a key function is given.
macro_rules! reduce_or_extreme_builtin {
    ($name:literal, $op:expr, $want:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(ctx, a;
                x: &Value,
                axis|dim: Option<Axes> = none,
                keepdim|keepdims: bool = false,
                key: Option<&Value> = none,
            ) {
                if sequences::is_sequence(x) {
                    only_for_tensors(&a, &["axis", "keepdim"])?;
                    return sequences::extreme(ctx, &a, x, key, $want);
                }
                if key.is_some() {
                    return Err(a.arg_err("key", concat!($name, ": key= applies to a tuple or range, not a tensor")));
                }
                reduce(&a, $op, &a.convert::<Var>("x")?, axis, keepdim)
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    reduce_or_fold_builtin!(
        "sum",
        ReduceOp::Sum,
        sequences::sum,
        "Sum over all elements or the given axes (pairwise, fixed order); bool and ints sum to i64. Of a tuple or range, 0 + x0 + x1 + ... with the language's + (Python's sum)."
    ),
    reduce_builtin!(
        "prod",
        ReduceOp::Prod,
        "Product over all elements or the given axes; bool and ints give i64 (wrapping)."
    ),
    reduce_builtin!(
        "mean",
        ReduceOp::Mean,
        "Arithmetic mean over all elements or the given axes; ints give f32; nan when empty."
    ),
    spread_builtin!(
        "var",
        Var,
        "Variance (mean squared deviation, divided by n - ddof) over all elements or the given axes; ints give f32."
    ),
    spread_builtin!(
        "std",
        Std,
        "Standard deviation, the square root of var (ddof=0 by default, as NumPy); ints give f32."
    ),
    reduce_or_extreme_builtin!(
        "max",
        ReduceOp::Max,
        Ordering::Greater,
        "Largest value over all elements or the given axes; NaN propagates. Of a tuple or range, its first largest item (by key(item) when key= is given), as Python's max."
    ),
    reduce_or_extreme_builtin!(
        "min",
        ReduceOp::Min,
        Ordering::Less,
        "Smallest value over all elements or the given axes; NaN propagates. Of a tuple or range, its first smallest item (by key(item) when key= is given), as Python's min."
    ),
    reduce_builtin!(
        "ptp",
        ReduceOp::Ptp,
        "Range, max minus min (peak to peak), over all elements or the given axes, in x's dtype (ints wrap, as NumPy); NaN propagates; bool is an error."
    ),
    reduce_builtin!(
        "logsumexp",
        ReduceOp::LogSumExp,
        "log(sum(exp(x))) over all elements or the given axes, shifted by the maximum so it does not overflow (torch); computed in f64; ints give f32; -inf when empty."
    ),
    reduce_builtin!(
        "argmax",
        ReduceOp::ArgMax,
        "Index (i64) of the first largest value (a NaN counts as largest), in the flattened tensor or along one axis."
    ),
    reduce_builtin!(
        "argmin",
        ReduceOp::ArgMin,
        "Index (i64) of the first smallest value (a NaN counts as smallest), in the flattened tensor or along one axis."
    ),
    reduce_builtin!(
        "nansum",
        ReduceOp::NanSum,
        "Sum treating NaN as zero; bool and ints sum to i64."
    ),
    reduce_builtin!(
        "nanprod",
        ReduceOp::NanProd,
        "Product treating NaN as one; bool and ints give i64."
    ),
    reduce_builtin!(
        "nanmean",
        ReduceOp::NanMean,
        "Mean of the values that are not NaN (nan where there are none); ints give f32."
    ),
    spread_builtin!(
        "nanvar",
        NanVar,
        "Variance of the values that are not NaN (divided by count - ddof; NaN where that is not positive); ints give f32."
    ),
    spread_builtin!(
        "nanstd",
        NanStd,
        "Standard deviation of the values that are not NaN, the square root of nanvar; ints give f32."
    ),
    reduce_builtin!(
        "nanmax",
        ReduceOp::NanMax,
        "Largest value ignoring NaN (nan for an all-NaN slice)."
    ),
    reduce_builtin!(
        "nanmin",
        ReduceOp::NanMin,
        "Smallest value ignoring NaN (nan for an all-NaN slice)."
    ),
    reduce_builtin!(
        "nanargmax",
        ReduceOp::NanArgMax,
        "Index (i64) of the first largest value ignoring NaN; an all-NaN slice is an error."
    ),
    reduce_builtin!(
        "nanargmin",
        ReduceOp::NanArgMin,
        "Index (i64) of the first smallest value ignoring NaN; an all-NaN slice is an error."
    ),
    reduce_or_fold_builtin!(
        "any",
        ReduceOp::Any,
        |a, x| sequences::truth(a, x, false),
        "True where some element is nonzero (NaN counts), over all elements or the given axes. Of a tuple or range, whether some item is true."
    ),
    reduce_or_fold_builtin!(
        "all",
        ReduceOp::All,
        |a, x| sequences::truth(a, x, true),
        "True where every element is nonzero (NaN counts), over all elements or the given axes. Of a tuple or range, whether every item is true."
    ),
    builtin! {
        name: "normalize",
        doc: "x divided by max(its p-norm along dim, eps), as torch.nn.functional.normalize (dim=1 by default, as torch).",
        fn(_, a; x: Var, p: f64 = 2.0, dim|axis: Axes = 1, eps: f64 = 1e-12) {
            a.recorded(rules::normalize(&x, p, &dim.0, eps))
        }
    },
    scan_builtin!(
        "cumsum",
        Sum,
        "Running sum along axis (of the flattened tensor when none); bool and ints give i64."
    ),
    scan_builtin!(
        "cumprod",
        Prod,
        "Running product along axis (of the flattened tensor when none), sequential; bool and ints give i64 (wrapping)."
    ),
    scan_builtin!(
        "cummax",
        Max,
        "Running maximum along axis (of the flattened tensor when none), values only (NumPy's maximum.accumulate); keeps the dtype; NaN propagates."
    ),
    scan_builtin!(
        "cummin",
        Min,
        "Running minimum along axis (of the flattened tensor when none), values only (NumPy's minimum.accumulate); keeps the dtype; NaN propagates."
    ),
];

/// The named options were given for a sequence, which has no axes.
fn only_for_tensors(a: &Bound, names: &[&str]) -> Result<(), Diagnostic> {
    match names.iter().find(|n| a.given(n).is_some()) {
        Some(n) => Err(a.arg_err(
            n,
            format!(
                "{}: {n}= applies to a tensor, not a tuple or range",
                a.builtin.name
            ),
        )),
        None => Ok(()),
    }
}

fn reduce(
    a: &Bound,
    op: ReduceOp,
    x: &Var,
    axis: Option<Axes>,
    keepdim: bool,
) -> Result<Value, Diagnostic> {
    let axes = axis.map(|a| a.0);
    a.recorded(rules::reduce(op, x, axes.as_deref(), keepdim))
}

/// cummax/cummin of a tracked x: the values recorded as copies of the elements
/// each running extreme took (the same values as the scan).
fn running_extreme(a: &Bound, x: &Var, axis: Option<i64>, max: bool) -> Result<Value, Diagnostic> {
    let lanes_last = |t: &Tensor| -> TensorResult<Tensor> {
        match axis {
            None => t.reshape(&[-1]),
            Some(ax) => moveaxis(t, &[ax], &[-1]),
        }
    };
    let from_lanes = |t: Tensor| -> TensorResult<Tensor> {
        match axis {
            None => Ok(t),
            Some(ax) => moveaxis(&t, &[-1], &[ax]),
        }
    };
    let picks = lanes_last(x)
        .and_then(|t| running_extreme_indices(&t, max))
        .map_err(|e| a.tensor_err(e))?;
    let last = picks.ndim() as i64 - 1;
    a.recorded(rules::moved(a.builtin.name, x, |t| {
        from_lanes(gather::take_along_axis(&lanes_last(t)?, &picks, last)?)
    }))
}

fn result(a: &Bound, t: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    t.map(Value::from).map_err(|e| a.tensor_err(e))
}

//! Sorting and selection builtins: sort, argsort, topk, kthvalue, and the order
//! statistics median, percentile, quantile and their NaN-skipping forms.

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::gather::gather;
use crate::ops::sort::{self, Method};
use crate::ops::stats::order_stat_over;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Axes, TensorLike};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{Result as TensorResult, Tensor};

/// `NAME(x, q, axis=none, method="linear", keepdim=false)` for a quantile form with
/// its scale.
macro_rules! quantile_builtin {
    ($name:literal, $scale:expr, $skip:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a;
                x: Var,
                q: TensorLike,
                axis|dim: Option<Axes> = none,
                method: String = "linear",
                keepdim|keepdims: bool = false,
            ) {
                let m = Method::from_name($name, &method).map_err(|e| a.tensor_err(e))?;
                // A number keeps all its bits: q = 0.3 is not the f32 nearest 0.3.
                let q = q.exact();
                let axes = axis.map(|a| a.0);
                let y = order_stat_over($name, &x, axes.as_deref(), keepdim, |x, axis| {
                    sort::quantile($name, x, &q, axis, m, $scale, $skip)
                }).map_err(|e| a.tensor_err(e))?;
                let fractions: Vec<f64> = q.to_vec::<f64>().iter().map(|v| v / $scale).collect();
                a.recorded(rules::order_stat($name, &x, y, axes.as_deref(), &fractions, m, $skip))
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "sort",
        doc: "A sorted copy along axis (the flattened tensor when none): ascending with NaN last (NumPy), descending with NaN first; stable keeps ties in order.",
        fn(_, a; x: Var, axis|dim: i64 = -1, descending: bool = false, stable: bool = true) {
            let axis = axis_or_none(&a, axis);
            if !autograd::recording(&[&x]) {
                return result(&a, sort::sort(&x, axis, descending, stable));
            }
            let order = sort::argsort(&x, axis, descending).map_err(|e| a.tensor_err(e))?;
            a.recorded(rules::moved("sort", &x, |t| {
                let t = if axis.is_none() { t.reshape(&[-1])? } else { t.clone() };
                gather(&t, axis.unwrap_or(0), &order)
            }))
        }
    },
    builtin! {
        name: "argsort",
        doc: "The i64 indices that sort x along axis (the flattened tensor when none); always stable: ties keep their order, also when descending (torch).",
        fn(_, a; x: Tensor, axis|dim: i64 = -1, descending: bool = false, stable: bool = true) {
            let _ = stable;
            result(&a, sort::argsort(&x, axis_or_none(&a, axis), descending))
        }
    },
    builtin! {
        name: "topk",
        doc: "The k largest (smallest when largest=false) elements along axis and their i64 indices, as a tuple (values, indices) (torch); NaN counts as largest; found by selection, not a full sort.",
        fn(_, a; x: Var, k: i64, axis|dim: i64 = -1, largest: bool = true, sorted: bool = true) {
            picked(&a, "topk", &x, sort::topk(&x, k, axis, largest, sorted), axis)
        }
    },
    builtin! {
        name: "kthvalue",
        doc: "The k-th smallest element (k from 1) along axis and its i64 index, as a tuple (values, indices) with the axis removed (torch).",
        fn(_, a; x: Var, k: i64, axis|dim: i64 = -1) {
            picked(&a, "kthvalue", &x, sort::kthvalue(&x, k, axis), axis)
        }
    },
    builtin! {
        name: "searchsorted",
        doc: "For each element of v, the i64 index where it would be inserted into the sorted 1-D a to keep it sorted (NumPy; NaN sorts last): before equal elements for side=\"left\", after them for \"right\".",
        fn(_, b; a: Tensor, v: Tensor, side: String = "left") {
            result(&b, sort::searchsorted(&a, &v, &side))
        }
    },
    builtin! {
        name: "median",
        doc: "The median along axis (of everything when none), by selection; a NaN in a lane gives NaN; bool and ints give f64 (NumPy).",
        fn(_, a; x: Var, axis|dim: Option<Axes> = none, keepdim|keepdims: bool = false) {
            let axes = axis.map(|a| a.0);
            let y = order_stat_over("median", &x, axes.as_deref(), keepdim, |x, axis| {
                sort::median(x, axis, false)
            }).map_err(|e| a.tensor_err(e))?;
            a.recorded(rules::order_stat("median", &x, y, axes.as_deref(), &[0.5], Method::Linear, false))
        }
    },
    builtin! {
        name: "nanmedian",
        doc: "The median along axis (of everything when none) of the values that are not NaN (NaN when there are none); bool and ints give f64.",
        fn(_, a; x: Var, axis|dim: Option<Axes> = none, keepdim|keepdims: bool = false) {
            let axes = axis.map(|a| a.0);
            let y = order_stat_over("nanmedian", &x, axes.as_deref(), keepdim, |x, axis| {
                sort::median(x, axis, true)
            }).map_err(|e| a.tensor_err(e))?;
            a.recorded(rules::order_stat("nanmedian", &x, y, axes.as_deref(), &[0.5], Method::Linear, true))
        }
    },
    quantile_builtin!(
        "percentile",
        100.0,
        false,
        "The q-th percentiles (q in [0, 100], a number or a tensor whose shape leads the result) along axis, by selection; method \"linear\" (NumPy's default), \"lower\", \"higher\", \"midpoint\" or \"nearest\"; a NaN in a lane gives NaN; bool and ints give f64."
    ),
    quantile_builtin!(
        "nanpercentile",
        100.0,
        true,
        "percentile of the values that are not NaN (NaN when there are none)."
    ),
    quantile_builtin!(
        "quantile",
        1.0,
        false,
        "The q-th quantiles (q in [0, 1]) along axis, as percentile with q scaled by 100 (NumPy)."
    ),
];

/// An axis that defaults to -1 but may be `none` (the flattened tensor).
fn axis_or_none(a: &Bound, axis: i64) -> Option<i64> {
    (!a.passed_none("axis")).then_some(axis)
}

pub(super) fn result(a: &Bound, t: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    t.map(Value::from).map_err(|e| a.tensor_err(e))
}

pub(super) fn pair(a: &Bound, t: TensorResult<(Tensor, Tensor)>) -> Result<Value, Diagnostic> {
    let (v, i) = t.map_err(|e| a.tensor_err(e))?;
    Ok(Value::Tuple(Rc::new(
        vec![Value::from(v), Value::from(i)].into(),
    )))
}

/// (values, indices) of a selection along `axis` (indices with the axis, or with
/// it removed), the values recorded as the elements of x the indices point at.
fn picked(
    a: &Bound,
    op: &'static str,
    x: &Var,
    t: TensorResult<(Tensor, Tensor)>,
    axis: i64,
) -> Result<Value, Diagnostic> {
    let (v, i) = t.map_err(|e| a.tensor_err(e))?;
    if !autograd::recording(&[x]) {
        return pair(a, Ok((v, i)));
    }
    let shape = v.shape().to_vec();
    let values = rules::moved(op, x, |t| {
        let t = if t.ndim() == 0 {
            t.reshape(&[1])?
        } else {
            t.clone()
        };
        let at = normalize_axis(op, axis, t.ndim())?;
        // The indices with the axis (kthvalue's, a 0-d topk's lack it).
        let mut along: Vec<i64> = i.shape().iter().map(|&n| n as i64).collect();
        if along.len() < t.ndim() {
            along.insert(at, 1);
        }
        let idx = i.reshape(&along)?;
        gather(&t, at as i64, &idx)?.reshape(&shape.iter().map(|&n| n as i64).collect::<Vec<_>>())
    })
    .map_err(|e| a.grad_err(e))?;
    Ok(Value::Tuple(Rc::new(
        vec![Value::from(values), Value::from(i)].into(),
    )))
}

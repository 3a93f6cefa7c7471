//! Statistics builtins: histogram, bincount, cov, corrcoef, average and diff (the
//! reductions and scans among them, ptp, nanvar, logsumexp, cumprod, ..., are with the
//! other reductions).

use super::sort::{pair, result};
use super::Builtin;
use crate::autograd::{rules, Var};
use crate::ops::stats::{self, Bins};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Axes};
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "histogram",
        doc: "The counts of the flattened x in bins, and the bin edges, as a tuple (counts, edges) (NumPy): bins an int (equal widths over range, or x's min to max) or a 1-D tensor of edges; the last bin includes its right edge; counts i64, summed weights, or a density.",
        fn(_, a;
            x: Tensor,
            bins: &Value = 10,
            range: Option<&Value> = none,
            weights: Option<Tensor> = none,
            density: bool = false,
        ) {
            let bins = match (bins.as_int(), bins.to_tensor()) {
                (Some(n), _) => Bins::Count(n),
                (None, Some(edges)) => Bins::Edges(edges),
                (None, None) => {
                    return Err(a.arg_err("bins", format!(
                        "histogram: bins must be an int or a 1-D tensor of edges, got {}",
                        bins.describe()
                    )))
                }
            };
            // A tuple keeps its numbers' 53 bits; a list literal is a tensor.
            let bounds: Option<Vec<f64>> = match range {
                None => None,
                Some(Value::Tuple(items)) => items.iter().map(Value::as_f64).collect(),
                Some(v) => v.to_tensor().filter(|t| t.ndim() == 1).map(|t| t.to_vec::<f64>()),
            };
            let range = match (range, bounds.as_deref()) {
                (None, _) => None,
                (_, Some(&[lo, hi])) => Some((lo, hi)),
                (Some(v), _) => {
                    return Err(a.arg_err("range", format!(
                        "histogram: range must be two numbers (min, max), got {}",
                        v.describe()
                    )))
                }
            };
            pair(&a, stats::histogram(&x, bins, range, weights.as_ref(), density))
        }
    },
    builtin! {
        name: "bincount",
        doc: "For the 1-D non-negative ints x, how often each of 0, 1, ..., max(x) occurs (i64), or the sums of their weights (f64); at least minlength long (NumPy).",
        fn(_, a; x: Tensor, weights: Option<Tensor> = none, minlength: i64 = 0) {
            result(&a, stats::bincount(&x, weights.as_ref(), minlength))
        }
    },
    builtin! {
        name: "cov",
        doc: "The covariance matrix of the variables in x's rows (columns when rowvar=false), y's appended (NumPy), divided by n - ddof (ddof 1, 0 with bias=true); squeezed; ints give f32.",
        fn(_, a;
            x: Var,
            y: Option<Var> = none,
            rowvar: bool = true,
            bias: bool = false,
            ddof: Option<i64> = none,
        ) {
            a.recorded(stats::cov(&x, y.as_ref(), rowvar, bias, ddof))
        }
    },
    builtin! {
        name: "corrcoef",
        doc: "The Pearson correlation coefficients of the variables in x's rows (columns when rowvar=false), y's appended (NumPy), clipped to [-1, 1]; ints give f32.",
        fn(_, a; x: Var, y: Option<Var> = none, rowvar: bool = true) {
            a.recorded(stats::corrcoef(&x, y.as_ref(), rowvar))
        }
    },
    builtin! {
        name: "average",
        doc: "The weighted mean sum(x * weights) / sum(weights) over all elements or the given axes (the mean without weights); returned=true also gives the sum of the weights, as a tuple (NumPy).",
        fn(_, a;
            x: Var,
            axis|dim: Option<Axes> = none,
            weights: Option<Var> = none,
            returned: bool = false,
        ) {
            let axes = axis.map(|a| a.0);
            let (avg, sum) = stats::average(&x, axes.as_deref(), weights.as_ref())
                .map_err(|e| a.grad_err(e))?;
            if returned {
                Ok(Value::Tuple(std::rc::Rc::new(vec![Value::from(avg), Value::from(sum)].into())))
            } else {
                Ok(Value::from(avg))
            }
        }
    },
    builtin! {
        name: "diff",
        doc: "The n-th differences x[1:] - x[:-1] along axis (NumPy), in x's dtype; bool gives x[1:] != x[:-1].",
        fn(_, a; x: Var, n: i64 = 1, axis|dim: i64 = -1) {
            let y = stats::diff(&x, n, axis).map_err(|e| a.tensor_err(e))?;
            a.recorded(rules::diff(&x, y, n, axis))
        }
    },
];

//! `histogram`: counts (or summed weights, or a density) of values in bins, with the
//! edges, as NumPy computes them.

use super::{check_weights, rounding};
use crate::kernels::histogram::{count_into, edge_bin_of, EqualBins};
use crate::ops::output_buffer;
use crate::tensor::{budget, DType, Result, Tensor, TensorError};

const OP: &str = "histogram";

/// How the bins are given: a count of equal-width bins over the range, or the edges.
pub enum Bins {
    Count(i64),
    Edges(Tensor),
}

/// NumPy's `histogram(x, bins, range, weights, density)` of the flattened `x`: the
/// counts (i64; the summed weights with `weights`; the density with `density`) and
/// the edges.
///
/// Equal-width bins span `range`, or `x`'s min and max (widened by 0.5 each way when
/// equal; [0, 1] when `x` is empty; NaN or inf there is an error). Their edges are
/// NumPy's `linspace` in `x`'s float dtype (f64 for bool and integers), computed in the
/// dtype NumPy computes them in, and each value's bin is estimated and corrected as
/// NumPy does. Given edges must not decrease and are returned as given. Values outside
/// the edges and NaN are not counted.
///
/// Summed weights keep a float weights' dtype (i64 for bool and integer weights); the
/// density, counts / bin width / total, has the float dtype of the edges (promoted with
/// the weights'), where NumPy gives f64 without weights.
pub fn histogram(
    x: &Tensor,
    bins: Bins,
    range: Option<(f64, f64)>,
    weights: Option<&Tensor>,
    density: bool,
) -> Result<(Tensor, Tensor)> {
    check_weights(OP, x, weights)?;
    budget::check_items(OP, "the f64 copy of x", x.numel(), 8)?;
    let values = x.to_vec::<f64>();
    let edges_dtype = if x.dtype().is_float() {
        x.dtype()
    } else {
        DType::F64
    };
    let (edge_tensor, edges, equal) = match bins {
        Bins::Count(n) => {
            let (first, last, computed_in) = outer_edges(&values, range, edges_dtype)?;
            let n = usize::try_from(n)
                .ok()
                .filter(|&n| n >= 1)
                .ok_or_else(|| TensorError::value(OP, format!("bins must be positive, got {n}")))?;
            let edges = equal_edges(first, last, n, computed_in, rounding(edges_dtype))?;
            if edges.windows(2).any(|w| w[0] >= w[1]) {
                return Err(TensorError::value(
                    OP,
                    format!(
                        "too many bins for the data range: cannot make {n} bins of nonzero width"
                    ),
                ));
            }
            let round = rounding(edges_dtype);
            let first_rounded = round(first);
            let width = round(last - first);
            let t = Tensor::from_vec(edges.clone(), &[n + 1])?.to_dtype(edges_dtype);
            (t, edges, Some((first_rounded, width)))
        }
        Bins::Edges(e) => {
            if e.ndim() != 1 || e.numel() < 2 {
                return Err(TensorError::value(
                    OP,
                    format!(
                        "bins must be an integer or a 1-D tensor of at least 2 edges, got shape {:?}",
                        e.shape()
                    ),
                ));
            }
            let edges = e.to_vec::<f64>();
            if edges.windows(2).any(|w| w[0] > w[1]) {
                return Err(TensorError::value(OP, "bin edges must not decrease"));
            }
            (e.contiguous(), edges, None)
        }
    };
    let n = edges.len() - 1;
    let round = rounding(edges_dtype);
    let bin = |v: f64| match equal {
        Some((first, width)) => EqualBins {
            edges: &edges,
            first,
            width,
            round,
        }
        .bin_of(round(v)),
        None => edge_bin_of(&edges, v),
    };
    let weights_dtype = weights.map(|w| w.dtype());
    let counts = match weights_dtype {
        Some(wd) if wd.is_float() => {
            let w = weights.map(|w| w.to_vec::<f64>());
            let mut totals = output_buffer(OP, &[n], 0.0f64)?;
            count_into(&mut totals, &values, w.as_deref(), 1.0, bin);
            Tensor::from_vec(totals, &[n])?.to_dtype(wd)
        }
        _ => {
            let w = weights.map(|w| w.to_vec::<i64>());
            let mut totals = output_buffer(OP, &[n], 0i64)?;
            count_into(&mut totals, &values, w.as_deref(), 1, bin);
            Tensor::from_vec(totals, &[n])?
        }
    };
    if !density {
        return Ok((counts, edge_tensor));
    }
    let edge_dtype = edge_tensor.dtype();
    let dtype = match weights_dtype {
        Some(wd) => DType::promote(edge_dtype, wd),
        None => edge_dtype,
    }
    .float_result();
    // NumPy: counts / diff(edges) / counts.sum(), the widths taken in the edges' dtype.
    let width_round = rounding(edge_dtype);
    let widths: Vec<f64> = edges.windows(2).map(|w| width_round(w[1] - w[0])).collect();
    let counts = counts.to_vec::<f64>();
    let total: f64 = counts.iter().sum();
    let density: Vec<f64> = counts
        .iter()
        .zip(&widths)
        .map(|(c, w)| c / w / total)
        .collect();
    Ok((
        Tensor::from_vec(density, &[n])?.to_dtype(dtype),
        edge_tensor,
    ))
}

/// The range of equal-width bins, and the dtype NumPy's `linspace` computes their
/// edges in: a given range is made of Python floats (f64); the data's min and max are
/// of `x`'s dtype (f64 for bool and integers).
fn outer_edges(
    values: &[f64],
    range: Option<(f64, f64)>,
    edges_dtype: DType,
) -> Result<(f64, f64, DType)> {
    let (first, last, computed_in) = match range {
        Some((first, last)) => {
            if first > last {
                return Err(TensorError::value(
                    OP,
                    format!("range must be (min, max) with min <= max, got ({first}, {last})"),
                ));
            }
            if !(first.is_finite() && last.is_finite()) {
                return Err(TensorError::value(
                    OP,
                    format!("the range [{first}, {last}] is not finite"),
                ));
            }
            (first, last, DType::F64)
        }
        None if values.is_empty() => (0.0, 1.0, DType::F64),
        None => {
            let nan_min = values.iter().any(|v| v.is_nan());
            let min = values.iter().copied().fold(f64::INFINITY, f64::min);
            let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if nan_min || !(min.is_finite() && max.is_finite()) {
                let (min, max) = if nan_min {
                    (f64::NAN, f64::NAN)
                } else {
                    (min, max)
                };
                return Err(TensorError::value(
                    OP,
                    format!("the range of x, [{min}, {max}], is not finite: give range= to count the finite values"),
                ));
            }
            (min, max, edges_dtype)
        }
    };
    if first == last {
        let round = rounding(computed_in);
        return Ok((round(first - 0.5), round(last + 0.5), computed_in));
    }
    Ok((first, last, computed_in))
}

/// NumPy's `linspace(first, last, n + 1)` computed in `computed_in` (each step rounded
/// to it), then rounded to the edges' dtype by `round`.
fn equal_edges(
    first: f64,
    last: f64,
    n: usize,
    computed_in: DType,
    round: fn(f64) -> f64,
) -> Result<Vec<f64>> {
    let r = rounding(computed_in);
    let mut edges = output_buffer(OP, &[n.saturating_add(1)], 0.0f64)?;
    let div = n as f64;
    let delta = r(last - first);
    let step = r(delta / div);
    for (i, e) in edges.iter_mut().enumerate() {
        let i = r(i as f64);
        let offset = if step == 0.0 {
            r(r(i / div) * delta)
        } else {
            r(i * step)
        };
        *e = round(r(offset + first));
    }
    edges[n] = round(last);
    Ok(edges)
}

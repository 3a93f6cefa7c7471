//! Sorting and selection along an axis: sort, argsort, topk, kthvalue, and the
//! order statistics (median, percentile, quantile and their NaN-skipping forms).
//! Each moves the axis last (a view), makes the rows contiguous, and hands them to
//! `kernels::sort`; results are moved back.

use super::stats::rounding;
use super::{copied_buffer, elems, output_buffer};
use crate::kernels::sort::{
    argsort_rows, order_stats_rows, search_sorted, select_rows, sort_rows, Selector,
};
use crate::tensor::budget;
use crate::tensor::shape::normalize_axis;
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// `x` with `axis` swapped with the last axis (the flattened tensor when `None`),
/// contiguous: rows of the last axis.
struct Rows {
    t: Tensor,
    /// The axis swapped with the last one, to swap back.
    axis: Option<usize>,
}

impl Rows {
    fn new(op: &str, x: &Tensor, axis: Option<i64>) -> Result<Rows> {
        match axis {
            None => Ok(Rows {
                t: x.reshape(&[-1])?.contiguous(),
                axis: None,
            }),
            Some(a) => {
                let a = normalize_axis(op, a, x.ndim())?;
                let last = x.ndim() as i64 - 1;
                Ok(Rows {
                    t: x.transpose(a as i64, last)?.contiguous(),
                    axis: Some(a),
                })
            }
        }
    }

    fn row_len(&self) -> usize {
        self.t.shape().last().copied().unwrap_or(1)
    }

    /// The shape of a result with `len` elements per row.
    fn shape_with(&self, len: usize) -> Vec<usize> {
        let mut s = self.t.shape().to_vec();
        if let Some(l) = s.last_mut() {
            *l = len;
        }
        s
    }

    /// A result laid out like the rows, moved back to the input's axis order.
    fn restore(&self, r: Tensor) -> Result<Tensor> {
        match self.axis {
            Some(a) if a + 1 < r.ndim() => {
                Ok(r.transpose(a as i64, r.ndim() as i64 - 1)?.contiguous())
            }
            _ => Ok(r),
        }
    }
}

/// A copy of `x` sorted along `axis` (the flattened tensor when `None`), ascending with
/// NaN last (NumPy), or descending with NaN first (torch); a stable sort keeps ties in
/// order.
pub fn sort(x: &Tensor, axis: Option<i64>, descending: bool, stable: bool) -> Result<Tensor> {
    let rows = Rows::new("sort", x, axis)?;
    crate::dispatch!(x.dtype(), T => {
        let mut out = copied_buffer("sort", elems::<T>("sort", &rows.t)?)?;
        sort_rows(&mut out, rows.row_len(), descending, stable);
        rows.restore(Tensor::from_vec(out, rows.t.shape())?)
    })
}

/// The i64 indices that sort `x` along `axis` (stable: ties keep their order, also
/// when descending).
pub fn argsort(x: &Tensor, axis: Option<i64>, descending: bool) -> Result<Tensor> {
    let rows = Rows::new("argsort", x, axis)?;
    let mut out = output_buffer("argsort", rows.t.shape(), 0i64)?;
    crate::dispatch!(x.dtype(), T => {
        argsort_rows(elems::<T>("argsort", &rows.t)?, &mut out, rows.row_len(), descending)
    });
    rows.restore(Tensor::from_vec(out, rows.t.shape())?)
}

/// The `k` largest (smallest) elements along `axis` and their i64 indices, in sorted
/// order when `sorted` (else in index order); NaN counts as largest (torch).
pub fn topk(
    x: &Tensor,
    k: i64,
    axis: i64,
    largest: bool,
    sorted: bool,
) -> Result<(Tensor, Tensor)> {
    let zero_d = x.ndim() == 0;
    let x = zero_d_as_row(x);
    let rows = Rows::new("topk", &x, Some(axis))?;
    let n = rows.row_len();
    let k = check_k("topk", k, n, 0)?;
    let (v, i) = select(&x, &rows, "topk", k, largest, sorted)?;
    if zero_d && k == 1 {
        // torch: the top 1 of a 0-d tensor is 0-d.
        return Ok((v.reshape(&[])?, i.reshape(&[])?));
    }
    Ok((v, i))
}

/// The `k`-th smallest element (1-based) along `axis` and its index, with the axis
/// removed (torch).
pub fn kthvalue(x: &Tensor, k: i64, axis: i64) -> Result<(Tensor, Tensor)> {
    let x = zero_d_as_row(x);
    let rows = Rows::new("kthvalue", &x, Some(axis))?;
    let n = rows.row_len();
    let k = check_k("kthvalue", k, n, 1)?;
    let (v, i) = select(&x, &rows, "kthvalue", k, false, true)?;
    let at = rows.axis.unwrap_or(0) as i64;
    let pick = |t: Tensor| t.select(at, k as i64 - 1);
    let (v, i) = (pick(v)?, pick(i)?);
    Ok((v.contiguous(), i.contiguous()))
}

/// torch treats a 0-d tensor as one element along axis 0 or -1.
fn zero_d_as_row(x: &Tensor) -> Tensor {
    if x.ndim() == 0 {
        x.reshape(&[1]).unwrap_or_else(|_| x.clone())
    } else {
        x.clone()
    }
}

/// `k` as a count between `min` and the row length `n`.
fn check_k(op: &str, k: i64, n: usize, min: i64) -> Result<usize> {
    if k < min || k > n as i64 {
        let lo = if min == 0 { "0" } else { "1" };
        return Err(TensorError::value(
            op,
            format!("k = {k} is out of range: the axis has {n} elements (k from {lo} to {n})"),
        ));
    }
    Ok(k as usize)
}

/// The first `k` of each row in the order of a stable sort (descending when `largest`):
/// values and i64 indices, shaped like `x` with `k` along the axis.
fn select(
    x: &Tensor,
    rows: &Rows,
    op: &str,
    k: usize,
    largest: bool,
    sorted: bool,
) -> Result<(Tensor, Tensor)> {
    let shape = rows.shape_with(k);
    let mut idx = output_buffer(op, &shape, 0i64)?;
    let n = rows.row_len();
    // Each task selects through an index buffer of one row.
    budget::check_items(
        op,
        "the index buffer of a row",
        n,
        std::mem::size_of::<usize>(),
    )?;
    let values = crate::dispatch!(x.dtype(), T => {
        let data = elems::<T>(op, &rows.t)?;
        select_rows(data, &mut idx, n, k, largest, sorted);
        let mut out = output_buffer(op, &shape, T::default())?;
        for (r, (o, i)) in out.chunks_mut(k.max(1)).zip(idx.chunks(k.max(1))).enumerate() {
            for (o, &i) in o.iter_mut().zip(i) {
                *o = data[r * n + i as usize];
            }
        }
        Tensor::from_vec(out, &shape)?
    });
    Ok((
        rows.restore(values)?,
        rows.restore(Tensor::from_vec(idx, &shape)?)?,
    ))
}

/// For each element of `v`, the i64 index where it would be inserted into the sorted
/// 1-D `a` to keep it sorted (NumPy's searchsorted; NaN sorts last): before equal
/// elements when `side` is "left", after them when "right". Both are compared in
/// their common dtype (f64 when either is a float, else i64).
pub fn searchsorted(a: &Tensor, v: &Tensor, side: &str) -> Result<Tensor> {
    let op = "searchsorted";
    let right = match side {
        "left" => false,
        "right" => true,
        _ => {
            return Err(TensorError::value(
                op,
                format!("side must be \"left\" or \"right\", got \"{side}\""),
            ))
        }
    };
    if a.ndim() != 1 {
        return Err(TensorError::value(
            op,
            format!("a must be 1-D, got shape {:?}", a.shape()),
        ));
    }
    let mut out = output_buffer(op, v.shape(), 0i64)?;
    if a.dtype().is_float() || v.dtype().is_float() {
        let (a, v) = (a.to_vec::<f64>(), v.to_vec::<f64>());
        search_sorted(&a, &v, &mut out, right);
    } else {
        let (a, v) = (a.to_vec::<i64>(), v.to_vec::<i64>());
        search_sorted(&a, &v, &mut out, right);
    }
    Tensor::from_vec(out, v.shape())
}

/// How an order statistic between two neighbours is found (NumPy's `method=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Linear,
    Lower,
    Higher,
    Midpoint,
    Nearest,
}

impl Method {
    pub fn from_name(op: &str, name: &str) -> Result<Method> {
        Ok(match name {
            "linear" => Method::Linear,
            "lower" => Method::Lower,
            "higher" => Method::Higher,
            "midpoint" => Method::Midpoint,
            "nearest" => Method::Nearest,
            _ => {
                return Err(TensorError::value(
                    op,
                    format!("method \"{name}\" is not one of \"linear\", \"lower\", \"higher\", \"midpoint\", \"nearest\""),
                ))
            }
        })
    }
}

/// The median along `axis` (of everything when `None`), as NumPy: the middle value or
/// the mean of the two middle values, by selection; NaN in a lane gives NaN (or, with
/// `skip_nan`, is left out). Floats keep their dtype, bool and ints give f64.
pub fn median(x: &Tensor, axis: Option<i64>, skip_nan: bool) -> Result<Tensor> {
    let op = if skip_nan { "nanmedian" } else { "median" };
    stats(op, x, axis, &[0.5], None, skip_nan, |sel, _, round, out| {
        let n = sel.count();
        out[0] = if n % 2 == 1 {
            sel.nth(n / 2)
        } else {
            let (a, b) = sel.pair(n / 2 - 1);
            round(round(a + b) * 0.5)
        };
    })
}

/// Quantiles `q` (fractions in [0, 1]; `scale = 100` for percentiles) along `axis`,
/// NumPy's `method=` between the two neighbours: the result has `q`'s shape followed by
/// the reduced shape. Floats keep their dtype, bool and ints give f64.
pub fn quantile(
    op: &str,
    x: &Tensor,
    q: &Tensor,
    axis: Option<i64>,
    method: Method,
    scale: f64,
    skip_nan: bool,
) -> Result<Tensor> {
    let qs: Vec<f64> = q.to_dtype(DType::F64).to_vec::<f64>();
    let fractions: Vec<f64> = qs.iter().map(|&v| v / scale).collect();
    if qs.iter().any(|&v| !(0.0..=scale).contains(&v)) {
        let what = if scale == 100.0 {
            "Percentiles"
        } else {
            "Quantiles"
        };
        return Err(TensorError::value(
            op,
            format!("{what} must be in the range [0, {scale}]"),
        ));
    }
    let t = stats(
        op,
        x,
        axis,
        &fractions,
        Some(q.shape()),
        skip_nan,
        |sel, qs, round, out| {
            for (o, &q) in out.iter_mut().zip(qs) {
                *o = interpolate(sel, q, method, round);
            }
        },
    )?;
    // The methods that pick an element keep the dtype (NumPy), unless a NaN came out.
    let picks = matches!(method, Method::Lower | Method::Higher | Method::Nearest);
    let nan = t.to_vec::<f64>().iter().any(|v| v.is_nan());
    Ok(if picks && !nan {
        t.to_dtype(x.dtype())
    } else {
        t
    })
}

/// NumPy's value at fraction `q` of the sorted numbers: the virtual index
/// `q * (n - 1)` between two neighbours, combined by `method` (`_lerp` for linear,
/// its arithmetic rounded to the input dtype by `round`).
fn interpolate(sel: &mut Selector, q: f64, method: Method, round: fn(f64) -> f64) -> f64 {
    let n = sel.count();
    let v = q * (n - 1) as f64;
    let below = v.floor();
    let i = below as usize;
    let gamma = v - below;
    match method {
        Method::Lower => sel.nth(i),
        Method::Higher => sel.nth(if gamma > 0.0 { i + 1 } else { i }),
        Method::Nearest => {
            let j = if gamma > 0.5 || (gamma == 0.5 && i % 2 == 1) {
                i + 1
            } else {
                i
            };
            sel.nth(j)
        }
        Method::Linear | Method::Midpoint => {
            let t = if method == Method::Midpoint {
                0.5
            } else {
                gamma
            };
            let (a, b) = sel.pair(i);
            let diff = round(b - a);
            if t >= 0.5 {
                round(b - round(diff * round(1.0 - t)))
            } else {
                round(a + round(diff * round(t)))
            }
        }
    }
}

/// Runs `stat` over the lanes of `axis` (or everything): `per_row` results per lane,
/// in a result shaped `lead` (the shape of `q`, when given) + the reduced shape.
fn stats(
    op: &str,
    x: &Tensor,
    axis: Option<i64>,
    qs: &[f64],
    lead: Option<&[usize]>,
    skip_nan: bool,
    stat: impl Fn(&mut Selector, &[f64], fn(f64) -> f64, &mut [f64]) + Sync + Send,
) -> Result<Tensor> {
    let rows = Rows::new(op, x, axis)?;
    let n = rows.row_len();
    // Each task selects in an f64 copy of one row.
    budget::check_items(op, "the f64 copy of a row", n, std::mem::size_of::<f64>())?;
    let per_row = qs.len();
    let mut reduced = rows.t.shape().to_vec();
    reduced.pop();
    let lanes: usize = reduced.iter().product();
    let mut out = output_buffer(op, &[lanes, per_row], 0f64)?;
    let dtype = if x.dtype().is_float() {
        x.dtype()
    } else {
        DType::F64
    };
    let round = rounding(dtype);
    crate::dispatch!(x.dtype(), T => {
        let data = elems::<T>(op, &rows.t)?;
        order_stats_rows(data, &mut out, n, per_row, T::to_f64, skip_nan, |sel, o| stat(sel, qs, round, o));
    });
    // [lanes, q] → q's shape + the lanes' shape (the axis's position is the last one
    // of `reduced` in row order; swap it back first).
    let mut t = Tensor::from_vec(out, &[lanes, per_row])?
        .transpose(0, 1)?
        .contiguous();
    let mut shape: Vec<usize> = lead.map(|l| l.to_vec()).unwrap_or_default();
    shape.extend(&reduced);
    t = t.reshape(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
    if let Some(a) = rows.axis {
        // `reduced` has the original last axis at position `a`: move it back to the end.
        let lead_n = shape.len() - reduced.len();
        let nd = reduced.len();
        if a < nd {
            let mut perm: Vec<i64> = (0..lead_n as i64).collect();
            let mut rest: Vec<i64> = (0..nd as i64).map(|d| d + lead_n as i64).collect();
            let moved = rest.remove(a);
            rest.push(moved);
            perm.extend(rest);
            t = t.permute(&perm)?.contiguous();
        }
    }
    Ok(t.to_dtype(dtype))
}

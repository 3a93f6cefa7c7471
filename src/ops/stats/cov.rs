//! `cov` and `corrcoef`: the covariance and correlation matrices of variables,
//! written once over `ops::algebra::Algebra` (so recorded, they differentiate and
//! keep their bits).

use crate::ops::algebra::Algebra;
use crate::ops::{BinaryOp, ReduceOp, UnaryOp};
use crate::tensor::{DType, TensorError};

/// NumPy's `cov(m, y, rowvar, bias, ddof)`: the covariance of the variables in the
/// rows of `m` (its columns when `rowvar` is false), with `y`'s variables appended;
/// a 1-D input is one variable. Divided by `n - ddof` (`ddof` 1, or 0 with `bias`),
/// by inf when that is not positive (NumPy's 0 divisor). Size-1 dims are squeezed
/// (one variable gives a 0-d result). Computed in f64, in the float dtype of `m` and
/// `y` promoted (NumPy: f64 at least).
pub fn cov<T: Algebra>(
    m: &T,
    y: Option<&T>,
    rowvar: bool,
    bias: bool,
    ddof: Option<i64>,
) -> Result<T, T::Error> {
    let ddof = ddof.unwrap_or(if bias { 0 } else { 1 });
    cov_f64("cov", m, y, rowvar, ddof)?.cast_to(result_dtype(m, y))
}

/// NumPy's `corrcoef(x, y, rowvar)`: `cov` divided by the standard deviations of both
/// variables of each entry, clipped to [-1, 1] (NaN stays); one variable gives
/// `c / c` (1, or NaN). Computed in f64, in the float dtype of the inputs.
pub fn corrcoef<T: Algebra>(x: &T, y: Option<&T>, rowvar: bool) -> Result<T, T::Error> {
    let dtype = result_dtype(x, y);
    let c = cov_f64("corrcoef", x, y, rowvar, 1)?;
    let r = if c.dims().is_empty() {
        T::combine(BinaryOp::Div, &c, &c)?
    } else {
        let n = c.dims()[0] as i64;
        let std = c.diagonal_of(0, 0, 1)?.apply(UnaryOp::Sqrt)?;
        // Two divisions, as NumPy: by the row's deviation, then the column's.
        let by_row = T::combine(BinaryOp::Div, &c, &std.reshape_to(&[n, 1])?)?;
        T::combine(BinaryOp::Div, &by_row, &std.reshape_to(&[1, n])?)?.clipped(-1.0, 1.0)?
    };
    r.cast_to(dtype)
}

fn result_dtype<T: Algebra>(m: &T, y: Option<&T>) -> DType {
    let m = m.values().dtype();
    let d = y.map_or(m, |y| DType::promote(m, y.values().dtype()));
    d.float_result()
}

/// The covariance in f64 divided by `n - ddof`, shaped as NumPy's.
fn cov_f64<T: Algebra>(
    op: &str,
    m: &T,
    y: Option<&T>,
    rowvar: bool,
    ddof: i64,
) -> Result<T, T::Error> {
    let mut x = variables(op, "m", m, rowvar)?;
    if x.dims()[0] == 0 {
        return x.reshape_to(&[0, 0])?.contiguous_copy();
    }
    if let Some(y) = y {
        let y = variables(op, "y", y, rowvar)?;
        if y.dims()[1] != x.dims()[1] {
            return Err(TensorError::shape(
                op,
                format!(
                    "m and y must have the same number of observations, got {} and {}",
                    x.dims()[1],
                    y.dims()[1]
                ),
            )
            .into());
        }
        x = T::concat_along(&[x, y], 0)?;
    }
    let n = x.dims()[1] as f64;
    // NumPy multiplies by 1 / fact, with fact clamped to 0 when not positive.
    let scale = 1.0 / (n - ddof as f64).max(0.0);
    let mean = x.reduce_over(ReduceOp::Mean, Some(&[1]), true)?;
    let centered = T::combine(BinaryOp::Sub, &x, &mean)?;
    let products = T::matrix_product(&centered, &centered.permute_to(&[1, 0])?)?;
    let c = products.scaled(scale)?;
    let kept: Vec<i64> = c
        .dims()
        .iter()
        .filter(|&&d| d != 1)
        .map(|&d| d as i64)
        .collect();
    c.reshape_to(&kept)
}

/// `t` as a 2-D f64 tensor of variables in rows: a 0-d or 1-D tensor is one variable;
/// columns become rows when `rowvar` is false (unless there is one row).
fn variables<T: Algebra>(op: &str, name: &str, t: &T, rowvar: bool) -> Result<T, T::Error> {
    if t.dims().len() > 2 {
        return Err(TensorError::shape(
            op,
            format!(
                "{name} must have at most 2 dimensions, got shape {:?}",
                t.dims()
            ),
        )
        .into());
    }
    let t = t.cast_to(DType::F64)?;
    let t = match t.dims().len() {
        0 => t.reshape_to(&[1, 1])?,
        1 => t.reshape_to(&[1, t.values().numel() as i64])?,
        _ => t,
    };
    if !rowvar && t.dims()[0] != 1 {
        return t.permute_to(&[1, 0])?.contiguous_copy();
    }
    Ok(t)
}

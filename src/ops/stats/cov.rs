//! `cov` and `corrcoef`: the covariance and correlation matrices of variables.

use crate::ops::shape::concat;
use crate::ops::{binary, matmul, reduce, BinaryOp, Operand, ReduceOp};
use crate::tensor::{DType, Result, Tensor, TensorError};

/// NumPy's `cov(m, y, rowvar, bias, ddof)`: the covariance of the variables in the
/// rows of `m` (its columns when `rowvar` is false), with `y`'s variables appended;
/// a 1-D input is one variable. Divided by `n - ddof` (`ddof` 1, or 0 with `bias`),
/// by inf when that is not positive (NumPy's 0 divisor). Size-1 dims are squeezed
/// (one variable gives a 0-d result). Computed in f64, in the float dtype of `m` and
/// `y` promoted (NumPy: f64 at least).
pub fn cov(
    m: &Tensor,
    y: Option<&Tensor>,
    rowvar: bool,
    bias: bool,
    ddof: Option<i64>,
) -> Result<Tensor> {
    let ddof = ddof.unwrap_or(if bias { 0 } else { 1 });
    Ok(cov_f64("cov", m, y, rowvar, ddof)?.to_dtype(result_dtype(m, y)))
}

/// NumPy's `corrcoef(x, y, rowvar)`: `cov` divided by the standard deviations of both
/// variables of each entry, clipped to [-1, 1] (NaN stays); one variable gives
/// `c / c` (1, or NaN). Computed in f64, in the float dtype of the inputs.
pub fn corrcoef(x: &Tensor, y: Option<&Tensor>, rowvar: bool) -> Result<Tensor> {
    let op = "corrcoef";
    let dtype = result_dtype(x, y);
    let c = cov_f64(op, x, y, rowvar, 1)?;
    let mut v = c.to_vec::<f64>();
    if c.ndim() == 0 {
        v[0] /= v[0];
    } else {
        let n = c.shape()[0];
        let std: Vec<f64> = (0..n).map(|i| v[i * n + i].sqrt()).collect();
        for (k, e) in v.iter_mut().enumerate() {
            // Two divisions, as NumPy: by the row's deviation, then the column's.
            *e = (*e / std[k / n] / std[k % n]).clamp(-1.0, 1.0);
        }
    }
    Ok(Tensor::from_vec(v, c.shape())?.to_dtype(dtype))
}

fn result_dtype(m: &Tensor, y: Option<&Tensor>) -> DType {
    let d = y.map_or(m.dtype(), |y| DType::promote(m.dtype(), y.dtype()));
    d.float_result()
}

/// The covariance in f64 divided by `n - ddof`, shaped as NumPy's.
fn cov_f64(op: &str, m: &Tensor, y: Option<&Tensor>, rowvar: bool, ddof: i64) -> Result<Tensor> {
    let mut x = variables(op, "m", m, rowvar)?;
    if x.shape()[0] == 0 {
        return Tensor::from_vec(Vec::<f64>::new(), &[0, 0]);
    }
    if let Some(y) = y {
        let y = variables(op, "y", y, rowvar)?;
        if y.shape()[1] != x.shape()[1] {
            return Err(TensorError::shape(
                op,
                format!(
                    "m and y must have the same number of observations, got {} and {}",
                    x.shape()[1],
                    y.shape()[1]
                ),
            ));
        }
        x = concat(&[x, y], 0)?;
    }
    let n = x.shape()[1] as f64;
    // NumPy multiplies by 1 / fact, with fact clamped to 0 when not positive.
    let scale = 1.0 / (n - ddof as f64).max(0.0);
    let mean = reduce(ReduceOp::Mean, &x, Some(&[1]), true)?;
    let centered = binary(BinaryOp::Sub, Operand::Tensor(&x), Operand::Tensor(&mean))?;
    let products = matmul(&centered, &centered.transpose(0, 1)?)?;
    let values: Vec<f64> = products.to_vec::<f64>().iter().map(|v| v * scale).collect();
    let c = Tensor::from_vec(values, products.shape())?;
    c.squeeze(None)
}

/// `t` as a 2-D f64 tensor of variables in rows: a 0-d or 1-D tensor is one variable;
/// columns become rows when `rowvar` is false (unless there is one row).
fn variables(op: &str, name: &str, t: &Tensor, rowvar: bool) -> Result<Tensor> {
    if t.ndim() > 2 {
        return Err(TensorError::shape(
            op,
            format!(
                "{name} must have at most 2 dimensions, got shape {:?}",
                t.shape()
            ),
        ));
    }
    let t = t.to_dtype(DType::F64);
    let t = match t.ndim() {
        0 => t.reshape(&[1, 1])?,
        1 => t.reshape(&[1, t.numel() as i64])?,
        _ => t,
    };
    if !rowvar && t.shape()[0] != 1 {
        return Ok(t.transpose(0, 1)?.contiguous());
    }
    Ok(t)
}

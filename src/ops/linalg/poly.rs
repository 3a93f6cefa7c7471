//! Polynomials and interpolation as NumPy's: `polyfit` (least squares on the scaled
//! Vandermonde matrix), `polyval` (Horner) and `interp` (piecewise linear).

use super::lstsq::lstsq;
use super::stack::result_dtype;
use crate::ops::algebra::Algebra;
use crate::ops::{binary, BinaryOp, Operand};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Result, Tensor, TensorError};

/// `numpy.polyval(p, x)`: the polynomial with coefficients `p` (1-D, highest power
/// first) at every element of `x`, by Horner's rule starting from `x`'s zeros.
pub fn polyval<T: Algebra>(p: &T, x: &T) -> std::result::Result<T, T::Error> {
    if p.dims().len() != 1 {
        return Err(TensorError::shape(
            "polyval",
            format!(
                "p must be 1-D coefficients, got shape {}",
                shape_str(p.dims())
            ),
        )
        .into());
    }
    let mut y = x.zeros_as()?;
    for i in 0..p.dims()[0] {
        let c = p.pick(0, i as i64)?;
        y = T::combine(BinaryOp::Add, &T::combine(BinaryOp::Mul, &y, x)?, &c)?;
    }
    Ok(y)
}

/// `numpy.polyfit(x, y, deg)`: the least-squares coefficients (highest power first)
/// of a degree-`deg` polynomial through the points, for each column of a 2-D `y`.
/// Like NumPy, the Vandermonde columns are scaled to unit norm and singular values
/// below `len(x)` epsilons are dropped.
pub fn polyfit(x: &Tensor, y: &Tensor, deg: i64) -> Result<Tensor> {
    let op = "polyfit";
    let Ok(deg) = usize::try_from(deg) else {
        return Err(TensorError::value(
            op,
            format!("deg must be 0 or more, got {deg}"),
        ));
    };
    if x.ndim() != 1 || x.numel() == 0 || !(1..=2).contains(&y.ndim()) || y.shape()[0] != x.numel()
    {
        return Err(TensorError::shape(
            op,
            format!(
                "x has shape {} and y has shape {}: x must be a non-empty vector and y have as many rows",
                shape_str(x.shape()),
                shape_str(y.shape())
            ),
        ));
    }
    let dtype = result_dtype(DType::promote(x.dtype(), y.dtype()));
    let xs = x.to_vec::<f64>();
    let (n, cols) = (xs.len(), deg + 1);
    // Checked against the memory limit: a huge deg is an error, not an abort.
    let mut lhs = crate::ops::output_buffer(op, &[n, cols], 0.0)?;
    for (i, &xi) in xs.iter().enumerate() {
        let mut power = 1.0;
        for j in (0..cols).rev() {
            lhs[i * cols + j] = power;
            power *= xi;
        }
    }
    let scale: Vec<f64> = (0..cols)
        .map(|j| {
            (0..n)
                .map(|i| lhs[i * cols + j].powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .map(|s| if s == 0.0 { 1.0 } else { s })
        .collect();
    for (i, v) in lhs.iter_mut().enumerate() {
        *v /= scale[i % cols];
    }
    let lhs = Tensor::from_vec(lhs, &[n, cols])?.to_dtype(dtype);
    let eps = if dtype == DType::F64 {
        f64::EPSILON
    } else {
        f64::from(f32::EPSILON)
    };
    let c = lstsq(&lhs, &y.to_dtype(dtype), Some(n as f64 * eps))?.remove(0);
    let shape: Vec<i64> = std::iter::once(cols as i64)
        .chain((1..c.ndim()).map(|_| 1))
        .collect();
    let scale = Tensor::from_vec(scale, &[cols])?
        .to_dtype(dtype)
        .reshape(&shape)?;
    binary(BinaryOp::Div, Operand::Tensor(&c), Operand::Tensor(&scale))
}

/// `numpy.interp(x, xp, fp, left, right)`: the piecewise-linear interpolant through
/// `(xp, fp)` (`xp` increasing) at each `x`, `left`/`right` (default `fp`'s ends)
/// outside; f64.
pub fn interp(
    x: &Tensor,
    xp: &Tensor,
    fp: &Tensor,
    left: Option<f64>,
    right: Option<f64>,
) -> Result<Tensor> {
    let op = "interp";
    if xp.ndim() != 1 || fp.ndim() != 1 || xp.numel() != fp.numel() || xp.numel() == 0 {
        return Err(TensorError::shape(
            op,
            format!(
                "xp has shape {} and fp has shape {}: both must be the same non-empty 1-D length",
                shape_str(xp.shape()),
                shape_str(fp.shape())
            ),
        ));
    }
    let (xp, fp) = (xp.to_vec::<f64>(), fp.to_vec::<f64>());
    let last = xp.len() - 1;
    let left = left.unwrap_or(fp[0]);
    let right = right.unwrap_or(fp[last]);
    let at = |v: f64| -> f64 {
        if v.is_nan() {
            return v;
        }
        if v < xp[0] {
            return left;
        }
        if v > xp[last] {
            return right;
        }
        if v == xp[last] || last == 0 {
            return fp[last];
        }
        // The last j with xp[j] <= v (then v < xp[j + 1]); clamped for an xp that is
        // not increasing, whose result NumPy leaves undefined too.
        let j = xp.partition_point(|&p| p <= v).clamp(1, last) - 1;
        if v == xp[j] {
            // At a node: its value, even where a neighbouring slope is infinite.
            return fp[j];
        }
        let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
        let mut y = slope * (v - xp[j]) + fp[j];
        // NumPy's fallbacks for an infinite slope.
        if y.is_nan() {
            y = slope * (v - xp[j + 1]) + fp[j + 1];
            if y.is_nan() && fp[j] == fp[j + 1] {
                y = fp[j];
            }
        }
        y
    };
    let ys: Vec<f64> = x.to_vec::<f64>().into_iter().map(at).collect();
    Tensor::from_vec(ys, x.shape())
}

//! The pseudo-inverse and least squares: pinv's adjoint in recorded ops (valid
//! where the rank does not change, as torch's), lstsq differentiated as
//! pinv(a)·b.

use super::linalg::mt;
use super::{add, matmul, neg, reduce, reshape, sub, svdvals};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{output_of, record, with_value};
use crate::autograd::var::Var;
use crate::ops::linalg as la;
use crate::ops::ReduceOp;
use crate::tensor::Tensor;

/// The pseudo-inverse of each matrix, singular values at or below `rcond` times
/// the largest dropped.
pub fn pinv(a: &Var, rcond: Option<f64>) -> Result<Var> {
    let p = la::pinv(a, rcond)?;
    let (sa, sp) = (a.clone(), p.clone());
    Ok(record("pinv", &[a], p, move |g, node| {
        let p = output_of(node, &sp);
        Ok(vec![Some(pinv_adjoint(&sa, &p, g)?)])
    }))
}

/// The gradient of p = a⁺ given p's: −pᵀ·g·pᵀ + (I − a·p)·gᵀ·p·pᵀ + pᵀ·p·gᵀ·(I − p·a)
/// (from d(a⁺) = −a⁺·da·a⁺ + a⁺a⁺ᵀ·daᵀ·(I − a·a⁺) + (I − a⁺a)·daᵀ·a⁺ᵀa⁺).
fn pinv_adjoint(a: &Var, p: &Var, g: &Var) -> Result<Var> {
    let (pt, gt) = (mt(p)?, mt(g)?);
    let through = neg(&matmul(&matmul(&pt, g)?, &pt)?)?;
    let w = matmul(&matmul(&gt, p)?, &pt)?;
    let left = sub(&w, &matmul(a, &matmul(p, &w)?)?)?;
    let z = matmul(&matmul(&pt, p)?, &gt)?;
    let right = sub(&z, &matmul(&matmul(&z, p)?, a)?)?;
    add(&add(&through, &left)?, &right)
}

/// numpy.linalg.lstsq's (x, residuals, rank, sv): the values lstsq computes,
/// differentiated as x = pinv(a)·b, residuals = the column sums of (a·x − b)²
/// and sv = svdvals(a). The rank is an integer.
pub fn lstsq(a: &Var, b: &Var, rcond: Option<f64>) -> Result<(Var, Var, Tensor, Var)> {
    let parts = la::lstsq(a, b, rcond)?;
    let [x, residuals, rank, sv]: [Tensor; 4] =
        parts.try_into().map_err(|_| GradError::NotDifferentiable {
            op: "lstsq (internal: four outputs expected)".into(),
        })?;
    if !crate::autograd::record::recording(&[a, b]) {
        return Ok((
            Var::constant(x),
            Var::constant(residuals),
            rank,
            Var::constant(sv),
        ));
    }
    let columns = match b.ndim() {
        1 => reshape(b, &[-1, 1])?,
        _ => b.clone(),
    };
    // In the result dtype, so that pinv's cutoff is lstsq's.
    let a = super::cast(a, x.dtype())?;
    let columns = super::cast(&columns, x.dtype())?;
    let composed = matmul(&pinv(&a, rcond)?, &columns)?;
    let residuals = if residuals.numel() == 0 {
        Var::constant(residuals)
    } else {
        let r = sub(&matmul(&a, &composed)?, &columns)?;
        let sums = reduce(ReduceOp::Sum, &super::mul(&r, &r)?, Some(&[0]), false)?;
        with_value("lstsq", &sums, residuals)
    };
    let composed = reshape(
        &composed,
        &x.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
    )?;
    let x = with_value("lstsq", &composed, x);
    let sv = with_value("lstsq", &svdvals(&a)?, sv);
    Ok((x, residuals, rank, sv))
}

//! `a @ b` (1-D, 2-D, batched with broadcasting): g_a = g @ bᵀ, g_b = aᵀ @ g, the
//! transposes views read by the GEMM as they are.

use super::{reshape, sum_to, transpose};
use crate::autograd::error::Result;
use crate::autograd::record::record;
use crate::autograd::var::Var;
use crate::ops;
use crate::tensor::shape::broadcast_shapes;

pub fn matmul(a: &Var, b: &Var) -> Result<Var> {
    let y = ops::matmul(a, b)?;
    let (sa, sb) = (a.clone(), b.clone());
    Ok(record("matmul", &[a, b], y, move |g, _| {
        // 1-D operands as matrices: a row [1, k] and a column [k, 1].
        let a2 = matrix(&sa, true)?;
        let b2 = matrix(&sb, false)?;
        let (ra, rb) = (a2.ndim(), b2.ndim());
        let mut shape = broadcast_shapes("matmul", &a2.shape()[..ra - 2], &b2.shape()[..rb - 2])?;
        shape.extend([a2.shape()[ra - 2], b2.shape()[rb - 1]]);
        let g2 = reshape(g, &shape.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
        let ga = match sa.is_tracked() {
            true => {
                let ga = matmul(&g2, &transpose(&b2, -1, -2)?)?;
                Some(back_to(&sum_to(&ga, a2.shape())?, &sa)?)
            }
            false => None,
        };
        let gb = match sb.is_tracked() {
            true => {
                let gb = matmul(&transpose(&a2, -1, -2)?, &g2)?;
                Some(back_to(&sum_to(&gb, b2.shape())?, &sb)?)
            }
            false => None,
        };
        Ok(vec![ga, gb])
    }))
}

/// `x` as a matrix: a 1-D `x` becomes a row (`row`) or a column.
fn matrix(x: &Var, row: bool) -> Result<Var> {
    match (x.ndim(), row) {
        (1, true) => reshape(x, &[1, -1]),
        (1, false) => reshape(x, &[-1, 1]),
        _ => Ok(x.clone()),
    }
}

/// `g` in `x`'s shape (undoing [`matrix`]).
fn back_to(g: &Var, x: &Var) -> Result<Var> {
    if g.shape() == x.shape() {
        return Ok(g.clone());
    }
    reshape(g, &x.shape().iter().map(|&d| d as i64).collect::<Vec<_>>())
}

/// The product of `x` and a constant weight `w` [N, K] that is not a tensor (a
/// quantized one): `y = x @ wᵀ` when `x_left`, else `y = w @ x`. `weight` gives
/// w's values (dequantized) only when a gradient is asked for: g @ w, or wᵀ @ g.
pub fn matmul_weight(
    x: &Var,
    y: crate::tensor::Tensor,
    x_left: bool,
    weight: impl Fn() -> std::result::Result<crate::tensor::Tensor, String> + 'static,
) -> Var {
    record("matmul", &[x], y, move |g, _| {
        let w = Var::constant(weight().map_err(|e| {
            crate::autograd::error::GradError::NotDifferentiable {
                op: format!("matmul with a quantized tensor ({e})"),
            }
        })?);
        let gx = if x_left {
            matmul(g, &w)?
        } else {
            matmul(&transpose(&w, -1, -2)?, g)?
        };
        Ok(vec![Some(gx)])
    })
}

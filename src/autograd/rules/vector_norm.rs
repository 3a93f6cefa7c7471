//! The vector norm of any order over axes, and normalize built on it. The
//! gradient follows torch's linalg.vector_norm: zero where the norm is zero, the
//! inf norms share it evenly between the elements that attain the norm, the
//! count of nonzeros (order 0) has a zero derivative.

use super::{binary, div, mul, reduce, unary, where_, zeros_from, VarOperand};
use crate::autograd::error::Result;
use crate::autograd::record::{output_of, record};
use crate::autograd::var::Var;
use crate::ops::{self, BinaryOp, Operand, ReduceOp, UnaryOp};
use crate::tensor::{Scalar, Tensor};

/// `ord`-norm of x over `axes` (all when none), as numpy.linalg.vector_norm.
pub fn vector_norm(x: &Var, ord: f64, axes: Option<&[i64]>, keepdim: bool) -> Result<Var> {
    let y = ops::reduce::norm(x, ord, axes, keepdim)?;
    // The output's shape with the reduced axes kept as 1, to broadcast over x.
    let kept_shape = ops::reduce::norm(x, ord, axes, true)?.shape().to_vec();
    let kept: Vec<i64> = kept_shape.iter().map(|&d| d as i64).collect();
    let (sx, sy, axes) = (x.clone(), y.clone(), axes.map(<[i64]>::to_vec));
    Ok(record("norm", &[x], y, move |g, node| {
        let x = &sx;
        let n = super::reshape(&output_of(node, &sy), &kept)?;
        let g = super::reshape(g, &kept)?;
        let sign = unary(UnaryOp::Sign, x)?;
        let dx = if ord == 0.0 {
            zeros_from(&mul(&g, &sign)?)?
        } else if ord == 1.0 {
            mul(&g, &sign)?
        } else if ord.is_infinite() {
            // Ties share evenly: g·sign(x)·[|x| = n] / count.
            let abs = unary(UnaryOp::Abs, x)?;
            let hit = ops::binary(BinaryOp::Eq, abs.operand_of(), n.operand_of())?;
            let hit = Var::constant(hit.to_dtype(x.dtype()));
            let count = reduce(ReduceOp::Sum, &hit, axes.as_deref(), true)?;
            div(&mul(&mul(&g, &sign)?, &hit)?, &count)?
        } else {
            // g·sign(x)·|x|^(p−1) / n^(p−1), zero where n = 0 (and, for p < 1, where
            // x = 0).
            let abs = unary(UnaryOp::Abs, x)?;
            let power =
                |v: &Var| binary(BinaryOp::Pow, VarOperand::Var(v), super::number(ord - 1.0));
            let scaled = if ord == 2.0 {
                x.clone()
            } else {
                let s = mul(&sign, &power(&abs)?)?;
                if ord < 1.0 {
                    masked_zero(&s, x.tensor())?
                } else {
                    s
                }
            };
            let denom = if ord == 2.0 { n.clone() } else { power(&n)? };
            let scale = masked_zero(&div(&g, &denom)?, n.tensor())?;
            mul(&scale, &scaled)?
        };
        Ok(vec![Some(dx)])
    }))
}

/// `v` with zero where `at` (broadcast) is zero.
fn masked_zero(v: &Var, at: &Tensor) -> Result<Var> {
    let zero = ops::binary(
        BinaryOp::Eq,
        Operand::Tensor(at),
        Operand::Scalar(Scalar::Int(0)),
    )?;
    where_(
        &Var::constant(zero),
        VarOperand::Scalar(Scalar::Int(0)),
        VarOperand::Var(v),
    )
}

/// `x / max(norm_p(x, axes), eps)`, as torch.nn.functional.normalize: the same
/// ops (and bits) as the untracked forward.
pub fn normalize(x: &Var, p: f64, axes: &[i64], eps: f64) -> Result<Var> {
    let n = vector_norm(x, p, Some(axes), true)?;
    let denom = binary(BinaryOp::Maximum, VarOperand::Var(&n), super::number(eps))?;
    binary(BinaryOp::Div, VarOperand::Var(x), VarOperand::Var(&denom))
}

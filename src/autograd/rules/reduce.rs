//! Reductions over axes and their gradients: the output's gradient is given back
//! its reduced axes and broadcast over the input, weighted by each element's share.

use super::{broadcast_to, div, mul, reshape, scale, sub, where_, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{output_of, record};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::{self, BinaryOp, Operand, ReduceOp, UnaryOp};
use crate::tensor::shape::normalize_axis;
use crate::tensor::Scalar;

/// `op` over `axes` (all when `None`).
pub fn reduce(op: ReduceOp, x: &Var, axes: Option<&[i64]>, keepdim: bool) -> Result<Var> {
    let y = ops::reduce(op, x, axes, keepdim)?;
    if !y.dtype().is_float() || !crate::autograd::record::recording(&[x]) {
        return Ok(Var::constant(y));
    }
    let reduced = reduced_axes(op, x.ndim(), axes)?;
    // The shape of y with the reduced axes kept as 1.
    let kept: Vec<i64> = x
        .shape()
        .iter()
        .enumerate()
        .map(|(i, &d)| if reduced.contains(&i) { 1 } else { d as i64 })
        .collect();
    let n: usize = reduced.iter().map(|&a| x.shape()[a]).product();
    let (saved_x, saved_y) = (x.clone(), y.clone());
    Ok(record(op.name(), &[x], y, move |g, node| {
        // g and y with the reduced axes back, broadcast over x.
        let spread = |v: &Var| broadcast_to(&reshape(v, &kept)?, saved_x.shape());
        let g = spread(g)?;
        let x = &saved_x;
        let axes = axes_i64(&reduced);
        let dx = match op {
            ReduceOp::Sum => g,
            ReduceOp::Mean => scale(&g, 1.0 / n as f64)?,
            ReduceOp::Max | ReduceOp::Min | ReduceOp::NanMax | ReduceOp::NanMin => {
                // Ties share the gradient evenly (torch's amax/amin); NaN never
                // equals the result, so the nan-forms skip it.
                let y = spread(&output_of(node, &saved_y))?;
                mul(&g, &shares(x, &y, &axes)?)?
            }
            ReduceOp::Ptp => {
                let max = broadcast_to(&reduce(ReduceOp::Max, x, Some(&axes), true)?, x.shape())?;
                let min = broadcast_to(&reduce(ReduceOp::Min, x, Some(&axes), true)?, x.shape())?;
                mul(
                    &g,
                    &sub(&shares(x, &max, &axes)?, &shares(x, &min, &axes)?)?,
                )?
            }
            ReduceOp::Prod => mul(&g, &others_product(x, &axes)?)?,
            ReduceOp::NanProd => {
                let present = not_nan(x)?;
                let ones = where_(&present, VarOperand::Var(x), super::number(1.0))?;
                let d = mul(&g, &others_product(&ones, &axes)?)?;
                where_(&present, VarOperand::Var(&d), super::binary::ZERO)?
            }
            ReduceOp::NanSum => where_(&not_nan(x)?, VarOperand::Var(&g), super::binary::ZERO)?,
            ReduceOp::NanMean => {
                let present = not_nan(x)?;
                let count = present_count(&present, x, &axes)?;
                let d = div(&g, &count)?;
                where_(&present, VarOperand::Var(&d), super::binary::ZERO)?
            }
            ReduceOp::NanVar { ddof } | ReduceOp::NanStd { ddof } => {
                let present = not_nan(x)?;
                let count = present_count(&present, x, &axes)?;
                let mean = reduce(ReduceOp::NanMean, x, Some(&axes), true)?;
                let centered = sub(x, &broadcast_to(&mean, x.shape())?)?;
                let dof = super::shift(&count, -(ddof as f64))?;
                let dvar = div(&scale(&centered, 2.0)?, &dof)?;
                let d = if matches!(op, ReduceOp::NanVar { .. }) {
                    mul(&g, &dvar)?
                } else {
                    let y = spread(&output_of(node, &saved_y))?;
                    div(&mul(&g, &scale(&dvar, 0.5)?)?, &y)?
                };
                where_(&present, VarOperand::Var(&d), super::binary::ZERO)?
            }
            ReduceOp::Var { ddof } | ReduceOp::Std { ddof } => {
                let mean = reduce(ReduceOp::Mean, x, Some(&axes_i64(&reduced)), true)?;
                let centered = sub(x, &broadcast_to(&mean, x.shape())?)?;
                let dof = n as f64 - ddof as f64;
                if matches!(op, ReduceOp::Var { .. }) {
                    mul(&g, &scale(&centered, 2.0 / dof)?)?
                } else {
                    let y = spread(&output_of(node, &saved_y))?;
                    div(&mul(&g, &scale(&centered, 1.0 / dof)?)?, &y)?
                }
            }
            ReduceOp::LogSumExp => {
                let y = spread(&output_of(node, &saved_y))?;
                mul(&g, &super::unary(UnaryOp::Exp, &sub(x, &y)?)?)?
            }
            _ => {
                return Err(GradError::NotDifferentiable {
                    op: format!("{} (its gradient is not built yet)", op.name()),
                })
            }
        };
        Ok(vec![Some(dx)])
    }))
}

/// The running sum along `axis` (of the flattened x when none); the gradient is the
/// running sum of g taken from the other end.
pub fn cumsum(x: &Var, axis: Option<i64>) -> Result<Var> {
    let y = ops::reduce::cumsum(x, axis)?;
    let shape: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    Ok(record("cumsum", &[x], y, move |g, _| {
        let ax = scan_axis("cumsum", axis, g)?;
        Ok(vec![Some(reshape(&reverse_cumsum(g, ax)?, &shape)?)])
    }))
}

/// The axis a scan's output runs along (0 for the flattened scan).
fn scan_axis(op: &str, axis: Option<i64>, y: &Var) -> Result<usize> {
    Ok(match axis {
        Some(a) => normalize_axis(op, a, y.ndim())?,
        None => 0,
    })
}

/// The running sum of `v` along `ax` taken from the far end.
fn reverse_cumsum(v: &Var, ax: usize) -> Result<Var> {
    let mut items = vec![Index::Slice(super::shape::ALL); ax];
    items.push(Index::Slice(crate::tensor::SliceSpec {
        start: None,
        stop: None,
        step: -1,
    }));
    let flip = |v: &Var| super::index(v, &items).map_err(|e| GradError::Tensor(e.error));
    flip(&cumsum(&flip(v)?, Some(ax as i64))?)
}

/// The running product along `axis` (of the flattened x when none). Before a
/// lane's first zero the gradient is the reverse running sum of g·y over x; at
/// the first zero it is the reverse running sum of g times the running product
/// with that zero taken as 1; after it, 0 (every product there holds the zero).
pub fn cumprod(x: &Var, axis: Option<i64>) -> Result<Var> {
    let y = ops::reduce::scan(ops::reduce::ScanOp::Prod, x, axis)?;
    let (sx, sy) = (x.clone(), y.clone());
    Ok(record("cumprod", &[x], y, move |g, node| {
        let ax = scan_axis("cumprod", axis, g)?;
        let lanes: Vec<i64> = g.shape().iter().map(|&d| d as i64).collect();
        let x = reshape(&sx, &lanes)?;
        let y = output_of(node, &sy);
        // Masks: before the first zero, and the first zero itself.
        let zero = ops::binary(
            BinaryOp::Eq,
            x.operand_of(),
            Operand::Scalar(Scalar::Int(0)),
        )?;
        let seen = ops::reduce::cumsum(&zero, Some(ax as i64))?;
        let before = ops::binary(
            BinaryOp::Eq,
            Operand::Tensor(&seen),
            Operand::Scalar(Scalar::Int(0)),
        )?;
        let first = ops::binary(
            BinaryOp::Eq,
            Operand::Tensor(&seen),
            Operand::Scalar(Scalar::Int(1)),
        )?;
        let first = ops::binary(
            BinaryOp::LogicalAnd,
            Operand::Tensor(&first),
            Operand::Tensor(&zero),
        )?;
        let (before, first) = (Var::constant(before), Var::constant(first));
        let one = super::number(1.0);
        let safe = where_(&before, VarOperand::Var(&x), one)?;
        let ahead = div(&reverse_cumsum(&mul(g, &y)?, ax)?, &safe)?;
        let lifted = cumprod(&where_(&first, one, VarOperand::Var(&x))?, Some(ax as i64))?;
        let at_zero = reverse_cumsum(&mul(g, &lifted)?, ax)?;
        let rest = where_(&first, VarOperand::Var(&at_zero), super::binary::ZERO)?;
        let dx = where_(&before, VarOperand::Var(&ahead), VarOperand::Var(&rest))?;
        Ok(vec![Some(reshape(
            &dx,
            &sx.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
        )?)])
    }))
}

/// Where x equals the lane's extreme `y` (broadcast), each tie's share: 1/count.
fn shares(x: &Var, y: &Var, axes: &[i64]) -> Result<Var> {
    let hit = ops::binary(BinaryOp::Eq, x.operand_of(), y.operand_of())?;
    let hit = Var::constant(hit.to_dtype(x.dtype()));
    let count = reduce(ReduceOp::Sum, &hit, Some(axes), true)?;
    div(&hit, &broadcast_to(&count, x.shape())?)
}

/// Where x is not NaN (a constant mask).
fn not_nan(x: &Var) -> Result<Var> {
    let nan = ops::unary(UnaryOp::IsNan, x)?;
    Ok(Var::constant(ops::unary(UnaryOp::LogicalNot, &nan)?))
}

/// The count of present elements of each lane, broadcast over x (a constant).
fn present_count(present: &Var, x: &Var, axes: &[i64]) -> Result<Var> {
    let count = reduce(
        ReduceOp::Sum,
        &super::cast(present, x.dtype())?,
        Some(axes),
        true,
    )?;
    broadcast_to(&count.detach(), x.shape())
}

/// For each element, the product of the other elements of its lane (over
/// `axes`): prod/x without zeros; with one zero, the product of the rest at the
/// zero and 0 elsewhere; with more, 0 (torch's prod backward). Recorded.
fn others_product(x: &Var, axes: &[i64]) -> Result<Var> {
    let zero = ops::binary(
        BinaryOp::Eq,
        x.operand_of(),
        Operand::Scalar(Scalar::Int(0)),
    )?;
    let zeros = ops::reduce(ReduceOp::Sum, &zero, Some(axes), true)?;
    let zeros = zeros.broadcast_to(x.shape())?;
    let is = |n: i64| {
        ops::binary(
            BinaryOp::Eq,
            Operand::Tensor(&zeros),
            Operand::Scalar(Scalar::Int(n)),
        )
    };
    let (none, one) = (Var::constant(is(0)?), is(1)?);
    let lone_zero = ops::binary(
        BinaryOp::LogicalAnd,
        Operand::Tensor(&one),
        Operand::Tensor(&zero),
    )?;
    let zero = Var::constant(zero);
    // 1 in place of each zero: no 0/0 even in a branch that is not taken.
    let safe = where_(&zero, super::number(1.0), VarOperand::Var(x))?;
    let rest = broadcast_to(&reduce(ReduceOp::Prod, &safe, Some(axes), true)?, x.shape())?;
    let at_zero = where_(
        &Var::constant(lone_zero),
        VarOperand::Var(&rest),
        super::binary::ZERO,
    )?;
    where_(
        &none,
        VarOperand::Var(&div(&rest, &safe)?),
        VarOperand::Var(&at_zero),
    )
}

fn axes_i64(axes: &[usize]) -> Vec<i64> {
    axes.iter().map(|&a| a as i64).collect()
}

/// The axes `op` reduces, normalized.
fn reduced_axes(op: ReduceOp, ndim: usize, axes: Option<&[i64]>) -> Result<Vec<usize>> {
    Ok(match axes {
        None => (0..ndim).collect(),
        Some(list) => list
            .iter()
            .map(|&a| normalize_axis(op.name(), a, ndim))
            .collect::<std::result::Result<_, _>>()?,
    })
}

//! Reductions over axes and their gradients: the output's gradient is given back
//! its reduced axes and broadcast over the input, weighted by each element's share.

use super::{broadcast_to, div, mul, reshape, scale, sub};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{output_of, record};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::{self, BinaryOp, ReduceOp, UnaryOp};
use crate::tensor::shape::normalize_axis;

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
        let dx = match op {
            ReduceOp::Sum => g,
            ReduceOp::Mean => scale(&g, 1.0 / n as f64)?,
            ReduceOp::Max | ReduceOp::Min => {
                // Ties share the gradient evenly (torch's amax/amin).
                let y = spread(&output_of(node, &saved_y))?;
                let hit = ops::binary(BinaryOp::Eq, x.operand_of(), y.operand_of())?;
                let hit = Var::constant(hit.to_dtype(x.dtype()));
                let count = reduce(ReduceOp::Sum, &hit, Some(&axes_i64(&reduced)), true)?;
                div(&mul(&g, &hit)?, &broadcast_to(&count, x.shape())?)?
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
        let ax = match axis {
            Some(a) => crate::tensor::shape::normalize_axis("cumsum", a, g.ndim())?,
            None => 0,
        };
        let mut items = vec![Index::Slice(super::shape::ALL); ax];
        items.push(Index::Slice(crate::tensor::SliceSpec {
            start: None,
            stop: None,
            step: -1,
        }));
        let flip = |v: &Var| super::index(v, &items).map_err(|e| GradError::Tensor(e.error));
        let back = flip(&cumsum(&flip(g)?, Some(ax as i64))?)?;
        Ok(vec![Some(reshape(&back, &shape)?)])
    }))
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

//! Views and casts: reshape, permute, transpose, broadcast_to, their adjoints, and
//! `sum_to`, which reduces a broadcast gradient back to an operand's shape.

use super::reduce;
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::record;
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::ReduceOp;
use crate::tensor::{DType, SliceSpec, Tensor};

fn dims_of(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

/// `x.reshape(dims)` (a view when the layout allows).
pub fn reshape(x: &Var, dims: &[i64]) -> Result<Var> {
    let y = x.reshape(dims)?;
    let back = dims_of(x.shape());
    Ok(record("reshape", &[x], y, move |g, _| {
        Ok(vec![Some(reshape(g, &back)?)])
    }))
}

/// `y`, which holds `x`'s elements in the same row-major order in another shape
/// (squeeze, flatten, a copy), as made from `x` by `op`.
pub fn reshaped(op: &'static str, x: &Var, y: Tensor) -> Var {
    let back = dims_of(x.shape());
    record(op, &[x], y, move |g, _| Ok(vec![Some(reshape(g, &back)?)]))
}

/// `x.permute(dims)`, a view.
pub fn permute(x: &Var, dims: &[i64]) -> Result<Var> {
    let y = x.permute(dims)?;
    let n = x.ndim() as i64;
    let mut inverse = vec![0i64; dims.len()];
    for (i, &d) in dims.iter().enumerate() {
        inverse[d.rem_euclid(n.max(1)) as usize] = i as i64;
    }
    Ok(record("permute", &[x], y, move |g, _| {
        Ok(vec![Some(permute(g, &inverse)?)])
    }))
}

/// NumPy's `x.T` and `transpose(x)`: every axis in reverse order, a view.
pub fn reverse_axes(x: &Var) -> Result<Var> {
    let order: Vec<i64> = (0..x.ndim() as i64).rev().collect();
    permute(x, &order)
}

/// `x.transpose(d0, d1)`, a view.
pub fn transpose(x: &Var, d0: i64, d1: i64) -> Result<Var> {
    let y = x.transpose(d0, d1)?;
    Ok(record("transpose", &[x], y, move |g, _| {
        Ok(vec![Some(transpose(g, d0, d1)?)])
    }))
}

/// `x` broadcast to `shape`, a view.
pub fn broadcast_to(x: &Var, shape: &[usize]) -> Result<Var> {
    let y = x.broadcast_to(shape)?;
    let back = x.shape().to_vec();
    Ok(record("broadcast_to", &[x], y, move |g, _| {
        Ok(vec![Some(sum_to(g, &back)?)])
    }))
}

/// `g` summed over the axes broadcasting added or stretched, to `shape`.
pub fn sum_to(g: &Var, shape: &[usize]) -> Result<Var> {
    if g.shape() == shape {
        return Ok(g.clone());
    }
    let Some(lead) = g.ndim().checked_sub(shape.len()) else {
        return Err(GradError::Tensor(crate::tensor::TensorError::shape(
            "grad",
            "internal: a gradient with fewer dims than its operand",
        )));
    };
    let mut axes: Vec<i64> = (0..lead as i64).collect();
    for (i, &d) in shape.iter().enumerate() {
        if d == 1 && g.shape()[lead + i] != 1 {
            axes.push((lead + i) as i64);
        }
    }
    let summed = reduce(ReduceOp::Sum, g, Some(&axes), false)?;
    reshape(&summed, &dims_of(shape))
}

/// `parts` joined along `axis` (NumPy's concatenate); each part's gradient is its
/// slice of g.
pub fn concat(parts: &[Var], axis: i64) -> Result<Var> {
    let tensors: Vec<Tensor> = parts.iter().map(|p| p.tensor().clone()).collect();
    let y = crate::ops::shape::concat(&tensors, axis)?;
    let ax = crate::tensor::shape::normalize_axis("concat", axis, y.ndim())?;
    let sizes: Vec<usize> = parts.iter().map(|p| p.shape()[ax]).collect();
    let inputs: Vec<&Var> = parts.iter().collect();
    Ok(record("concat", &inputs, y, move |g, _| {
        let mut start = 0;
        sizes
            .iter()
            .map(|&n| {
                let mut items = vec![Index::Slice(ALL); ax];
                items.push(Index::Slice(SliceSpec {
                    start: Some(start as i64),
                    stop: Some((start + n) as i64),
                    step: 1,
                }));
                start += n;
                let piece = super::index(g, &items).map_err(|e| GradError::Tensor(e.error))?;
                Ok(Some(piece))
            })
            .collect()
    }))
}

/// `parts`, of one shape, stacked along a new `axis` (each gets a size-1 axis there,
/// then they are joined).
pub fn stack(parts: &[Var], axis: i64) -> Result<Var> {
    let Some(first) = parts.first() else {
        return Ok(Var::constant(crate::ops::shape::stack(&[], axis)?));
    };
    let ndim = first.ndim() as i64 + 1;
    let ax = crate::tensor::shape::normalize_axis("stack", axis, ndim as usize)?;
    let widened = parts
        .iter()
        .map(|p| {
            if p.shape() != first.shape() {
                // ops::stack words the error.
                let all: Vec<Tensor> = parts.iter().map(|p| p.tensor().clone()).collect();
                crate::ops::shape::stack(&all, axis)?;
            }
            let mut dims = dims_of(p.shape());
            dims.insert(ax, 1);
            reshape(p, &dims)
        })
        .collect::<Result<Vec<_>>>()?;
    concat(&widened, ax as i64)
}

/// `:`, a whole axis.
pub(super) const ALL: SliceSpec = SliceSpec {
    start: None,
    stop: None,
    step: 1,
};

/// `x` converted to `dtype`; the gradient is converted back by the engine.
pub fn cast(x: &Var, dtype: DType) -> Result<Var> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    Ok(record("to", &[x], x.to_dtype(dtype), |g, _| {
        Ok(vec![Some(g.clone())])
    }))
}

/// The same tensor as a new node: what `grad` differentiates with respect to when
/// its argument is already tracked by an outer `grad`.
pub fn identity(x: &Var) -> Var {
    record("identity", &[x], x.tensor().clone(), |g, _| {
        Ok(vec![Some(g.clone())])
    })
}

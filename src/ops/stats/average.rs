//! `average`: the (weighted) mean over all elements or the given axes.

use crate::ops::{binary, reduce, BinaryOp, Operand, ReduceOp};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{DType, Result, Tensor, TensorError};

/// NumPy's `average(x, axis, weights, returned)`: the mean without weights (as `mean`:
/// ints give f32); with weights, `sum(x * w) / sum(w)` computed in f64 and given in the
/// float dtype of `x` and `w` promoted. `w` has `x`'s shape, or the shape of `x`'s
/// dims at `axes` (in the order given). Also returns the sum of the weights (the
/// element count without weights) broadcast to the result's shape.
pub fn average(
    x: &Tensor,
    axes: Option<&[i64]>,
    weights: Option<&Tensor>,
) -> Result<(Tensor, Tensor)> {
    let op = "average";
    for &a in axes.unwrap_or_default() {
        normalize_axis(op, a, x.ndim())?;
    }
    let Some(w) = weights else {
        let avg = reduce(ReduceOp::Mean, x, axes, false)?;
        let count = x.numel() as f64 / avg.numel().max(1) as f64;
        let count = Tensor::scalar(count)
            .broadcast_to(avg.shape())?
            .contiguous()
            .to_dtype(avg.dtype());
        return Ok((avg, count));
    };
    let dtype = DType::promote(x.dtype(), w.dtype()).float_result();
    let w = aligned_weights(op, x, axes, w)?.to_dtype(DType::F64);
    let xf = x.to_dtype(DType::F64);
    let weighted = binary(BinaryOp::Mul, Operand::Tensor(&xf), Operand::Tensor(&w))?;
    let totals = reduce(ReduceOp::Sum, &weighted, axes, false)?;
    let full = w.broadcast_to(x.shape())?;
    let scale = reduce(ReduceOp::Sum, &full, axes, false)?;
    if scale.to_vec::<f64>().contains(&0.0) {
        return Err(TensorError::value(
            op,
            "the weights sum to zero, so they cannot be normalized",
        ));
    }
    let avg = binary(
        BinaryOp::Div,
        Operand::Tensor(&totals),
        Operand::Tensor(&scale),
    )?;
    Ok((avg.to_dtype(dtype), scale.to_dtype(dtype)))
}

/// `w` shaped to broadcast against `x`: as is when it has `x`'s shape, else (with
/// `axes`) its dims placed at `axes` and 1 elsewhere.
fn aligned_weights(op: &str, x: &Tensor, axes: Option<&[i64]>, w: &Tensor) -> Result<Tensor> {
    if w.shape() == x.shape() {
        return Ok(w.clone());
    }
    let Some(axes) = axes else {
        return Err(TensorError::shape(
            op,
            format!(
                "weights of shape {:?} differ from x's {:?}: give axis= to weigh along it",
                w.shape(),
                x.shape()
            ),
        ));
    };
    let dims: Vec<usize> = axes
        .iter()
        .map(|&a| normalize_axis(op, a, x.ndim()))
        .collect::<Result<_>>()?;
    let along: Vec<usize> = dims.iter().map(|&d| x.shape()[d]).collect();
    if w.shape() != along {
        return Err(TensorError::shape(
            op,
            format!(
                "weights must have x's shape {:?}, or {:?} along axis {axes:?}, got {:?}",
                x.shape(),
                along,
                w.shape()
            ),
        ));
    }
    // Order w's dims as they come in x, then give the other dims size 1.
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| dims[i]);
    let perm: Vec<i64> = order.iter().map(|&i| i as i64).collect();
    let shape: Vec<i64> = (0..x.ndim())
        .map(|d| {
            if dims.contains(&d) {
                x.shape()[d] as i64
            } else {
                1
            }
        })
        .collect();
    w.permute(&perm)?.contiguous().reshape(&shape)
}

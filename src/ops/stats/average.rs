//! `average`: the (weighted) mean over all elements or the given axes, written once
//! over `ops::algebra::Algebra` (so recorded, it differentiates and keeps its bits).

use crate::ops::algebra::Algebra;
use crate::ops::{BinaryOp, ReduceOp};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{DType, Tensor, TensorError};

/// NumPy's `average(x, axis, weights, returned)`: the mean without weights (as `mean`:
/// ints give f32); with weights, `sum(x * w) / sum(w)` computed in f64 and given in the
/// float dtype of `x` and `w` promoted. `w` has `x`'s shape, or the shape of `x`'s
/// dims at `axes` (in the order given). Also returns the sum of the weights (the
/// element count without weights) broadcast to the result's shape.
pub fn average<T: Algebra>(
    x: &T,
    axes: Option<&[i64]>,
    weights: Option<&T>,
) -> Result<(T, T), T::Error> {
    let op = "average";
    let ndim = x.dims().len();
    for &a in axes.unwrap_or_default() {
        normalize_axis(op, a, ndim)?;
    }
    let Some(w) = weights else {
        let avg = x.reduce_over(ReduceOp::Mean, axes, false)?;
        let count = x.values().numel() as f64 / avg.values().numel().max(1) as f64;
        let count = Tensor::scalar(count)
            .broadcast_to(avg.dims())?
            .contiguous()
            .to_dtype(avg.values().dtype());
        return Ok((avg, T::constant(count)));
    };
    let dtype = DType::promote(x.values().dtype(), w.values().dtype()).float_result();
    let w = aligned_weights(op, x, axes, w)?.cast_to(DType::F64)?;
    let xf = x.cast_to(DType::F64)?;
    let weighted = T::combine(BinaryOp::Mul, &xf, &w)?;
    let totals = weighted.reduce_over(ReduceOp::Sum, axes, false)?;
    let full = w.broadcast_as(x.dims())?;
    let scale = full.reduce_over(ReduceOp::Sum, axes, false)?;
    if scale.values().to_vec::<f64>().contains(&0.0) {
        return Err(TensorError::value(
            op,
            "the weights sum to zero, so they cannot be normalized",
        )
        .into());
    }
    let avg = T::combine(BinaryOp::Div, &totals, &scale)?;
    Ok((avg.cast_to(dtype)?, scale.cast_to(dtype)?))
}

/// `w` shaped to broadcast against `x`: as is when it has `x`'s shape, else (with
/// `axes`) its dims placed at `axes` and 1 elsewhere.
fn aligned_weights<T: Algebra>(
    op: &str,
    x: &T,
    axes: Option<&[i64]>,
    w: &T,
) -> Result<T, T::Error> {
    if w.dims() == x.dims() {
        return Ok(w.clone());
    }
    let Some(axes) = axes else {
        return Err(TensorError::shape(
            op,
            format!(
                "weights of shape {:?} differ from x's {:?}: give axis= to weigh along it",
                w.dims(),
                x.dims()
            ),
        )
        .into());
    };
    let dims: Vec<usize> = axes
        .iter()
        .map(|&a| normalize_axis(op, a, x.dims().len()))
        .collect::<Result<_, _>>()?;
    let along: Vec<usize> = dims.iter().map(|&d| x.dims()[d]).collect();
    if w.dims() != along {
        return Err(TensorError::shape(
            op,
            format!(
                "weights must have x's shape {:?}, or {:?} along axis {axes:?}, got {:?}",
                x.dims(),
                along,
                w.dims()
            ),
        )
        .into());
    }
    // Order w's dims as they come in x, then give the other dims size 1.
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| dims[i]);
    let perm: Vec<i64> = order.iter().map(|&i| i as i64).collect();
    let shape: Vec<i64> = (0..x.dims().len())
        .map(|d| {
            if dims.contains(&d) {
                x.dims()[d] as i64
            } else {
                1
            }
        })
        .collect();
    w.permute_to(&perm)?.contiguous_copy()?.reshape_to(&shape)
}

//! `diff`: differences of neighbours along an axis, repeated `n` times.

use crate::ops::{binary, BinaryOp, Operand};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{DType, Result, SliceSpec, Tensor, TensorError};

/// NumPy's `diff(x, n, axis)`: `x[1:] - x[:-1]` along `axis`, `n` times, in the dtype
/// (integers wrap); bool gives `x[1:] != x[:-1]` (NumPy). Each pass shortens the axis
/// by one, down to zero; `n = 0` returns `x`.
pub fn diff(x: &Tensor, n: i64, axis: i64) -> Result<Tensor> {
    let op = "diff";
    if n < 0 {
        return Err(TensorError::value(
            op,
            format!("order must be non-negative but got {n}"),
        ));
    }
    if n > 0 && x.ndim() == 0 {
        return Err(TensorError::value(
            op,
            "needs a tensor of at least one dimension, got a 0-d tensor",
        ));
    }
    let axis = if x.ndim() == 0 {
        0
    } else {
        normalize_axis(op, axis, x.ndim())?
    };
    let step = if x.dtype() == DType::Bool {
        BinaryOp::Ne
    } else {
        BinaryOp::Sub
    };
    let mut t = x.clone();
    for _ in 0..n {
        // A pass over an empty axis changes nothing: stop rather than loop `n` times.
        let Some(last) = t.shape()[axis].checked_sub(1) else {
            break;
        };
        let last = last as i64;
        let upper = t.slice(
            axis as i64,
            SliceSpec {
                start: Some(1),
                stop: None,
                step: 1,
            },
        )?;
        let lower = t.slice(
            axis as i64,
            SliceSpec {
                start: None,
                stop: Some(last),
                step: 1,
            },
        )?;
        t = binary(step, Operand::Tensor(&upper), Operand::Tensor(&lower))?;
    }
    Ok(t)
}

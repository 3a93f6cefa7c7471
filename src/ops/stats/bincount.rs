//! `bincount`: how often each non-negative integer occurs (or its summed weights).

use super::check_weights;
use crate::kernels::histogram::count_into;
use crate::ops::output_buffer;
use crate::tensor::{DType, Result, Tensor, TensorError};

/// NumPy's `bincount(x, weights, minlength)`: for the 1-D bool or integer `x` of
/// non-negative values, element `i` of the result counts the occurrences of `i` (i64),
/// or sums their weights (f64, in order, as NumPy); the length is `max(x) + 1`, at
/// least `minlength`.
pub fn bincount(x: &Tensor, weights: Option<&Tensor>, minlength: i64) -> Result<Tensor> {
    let op = "bincount";
    if x.dtype().is_float() {
        return Err(TensorError::dtype(
            op,
            x.dtype(),
            "x must be of bool or an integer dtype",
        ));
    }
    if x.ndim() != 1 {
        return Err(TensorError::shape(
            op,
            format!("x must be 1-D, got shape {:?}", x.shape()),
        ));
    }
    check_weights(op, x, weights)?;
    let minlength = usize::try_from(minlength).map_err(|_| {
        TensorError::value(
            op,
            format!("minlength must not be negative, got {minlength}"),
        )
    })?;
    // u64 values above i64::MAX are too many bins for any memory: saturate to say so.
    let values: Vec<i64> = if x.dtype() == DType::U64 {
        x.to_vec::<u64>()
            .into_iter()
            .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
            .collect()
    } else {
        x.to_vec::<i64>()
    };
    if let Some(v) = values.iter().find(|&&v| v < 0) {
        return Err(TensorError::value(
            op,
            format!("x must not have negative values, got {v}"),
        ));
    }
    let top = values.iter().max().map_or(0, |&m| m as u64 + 1);
    let len = usize::try_from(top).unwrap_or(usize::MAX).max(minlength);
    // The bins as f64 values: exact below 2^53, and longer results exceed memory.
    let positions: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    let bin = |v: f64| Some(v as usize);
    match weights {
        Some(w) => {
            let w = w.to_vec::<f64>();
            let mut totals = output_buffer(op, &[len], 0.0f64)?;
            count_into(&mut totals, &positions, Some(&w), 1.0, bin);
            Tensor::from_vec(totals, &[len])
        }
        None => {
            let mut totals = output_buffer(op, &[len], 0i64)?;
            count_into(&mut totals, &positions, None, 1, bin);
            Tensor::from_vec(totals, &[len])
        }
    }
}

//! Tensor creation: filled, ranges, identity.

use crate::tensor::{DType, Result, Scalar, Tensor, TensorError};

/// A tensor of `shape` filled with `value` cast to `dtype`.
pub fn full(shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
    let _ = (shape, value, dtype);
    Err(TensorError::value("full", "not implemented yet"))
}

/// `numpy.arange(start, stop, step)` in `dtype`.
pub fn arange(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Tensor> {
    let _ = (start, stop, step, dtype);
    Err(TensorError::value("arange", "not implemented yet"))
}

/// `numpy.linspace(start, stop, num)` (endpoint included) in `dtype`.
pub fn linspace(start: f64, stop: f64, num: usize, dtype: DType) -> Result<Tensor> {
    let _ = (start, stop, num, dtype);
    Err(TensorError::value("linspace", "not implemented yet"))
}

/// An `n × m` identity-like matrix with ones on diagonal `k`.
pub fn eye(n: usize, m: usize, k: i64, dtype: DType) -> Result<Tensor> {
    let _ = (n, m, k, dtype);
    Err(TensorError::value("eye", "not implemented yet"))
}

//! Matrix products with `numpy.matmul` semantics.

use crate::tensor::{Result, Tensor, TensorError};

pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let _ = (a, b);
    Err(TensorError::value("matmul", "not implemented yet"))
}

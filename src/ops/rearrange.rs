//! Views that reorder axes: NumPy's `.T` (all axes reversed) and torch's `.mT`
//! (the last two swapped). Nothing here copies: each result is a Layout over the
//! same storage.

use crate::tensor::{Result, Tensor, TensorError};

/// NumPy's `x.T` and `transpose(x)`: every axis in reverse order.
pub fn reverse_axes(x: &Tensor) -> Result<Tensor> {
    let order: Vec<i64> = (0..x.ndim() as i64).rev().collect();
    x.permute(&order)
}

/// torch's `x.mT`: the last two axes swapped, for a matrix or a batch of them.
pub fn swap_last_two(x: &Tensor) -> Result<Tensor> {
    if x.ndim() < 2 {
        return Err(TensorError::shape(
            "mT",
            format!(
                "needs a matrix or a batch of matrices, got a {}-d tensor",
                x.ndim()
            ),
        ));
    }
    x.transpose(-2, -1)
}

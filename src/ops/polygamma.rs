//! `polygamma(n, x)`: the n-th derivative of digamma, elementwise (torch's).

use super::{unary, UnaryOp};
use crate::kernels::math::special;
use crate::tensor::{Result, Tensor, TensorError};

/// ψ⁽ⁿ⁾(x) elementwise: digamma for n = 0, trigamma for 1 (those ops' bits), else
/// computed in f64 and rounded once to x's float dtype (ints give f32).
pub fn polygamma(n: i64, x: &Tensor) -> Result<Tensor> {
    match n {
        0 => unary(UnaryOp::Digamma, x),
        1 => unary(UnaryOp::Trigamma, x),
        _ => {
            let Ok(order) = u32::try_from(n) else {
                return Err(TensorError::value(
                    "polygamma",
                    format!("n must be 0 or more, got {n}"),
                ));
            };
            // n! overflows f64 past 170: every value would be ±inf or NaN.
            if order > 170 {
                return Err(TensorError::value(
                    "polygamma",
                    format!("n must be at most 170 (n! overflows beyond), got {n}"),
                ));
            }
            let dtype = x.dtype().float_result();
            let values: Vec<f64> = x
                .to_vec::<f64>()
                .into_iter()
                .map(|v| special::polygamma(order, v))
                .collect();
            Ok(Tensor::from_vec(values, x.shape())?.to_dtype(dtype))
        }
    }
}

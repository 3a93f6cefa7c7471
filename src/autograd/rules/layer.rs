//! Layers: linear, embedding and dropout, as compositions of recorded ops.

use super::{add, index, matmul, mul, transpose};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::tensor::{Tensor, TensorError};

/// x @ weightᵀ + bias (weight [out, in]), as torch.
pub fn linear(x: &Var, weight: &Var, bias: Option<&Var>) -> Result<Var> {
    if weight.ndim() != 2 {
        return Err(GradError::Tensor(TensorError::shape(
            "linear",
            format!(
                "weight must be [out_features, in_features], got a {}-d tensor",
                weight.ndim()
            ),
        )));
    }
    let y = matmul(x, &transpose(weight, 0, 1)?)?;
    match bias {
        Some(b) => add(&y, b),
        None => Ok(y),
    }
}

/// The rows of `weight` [num, dim] that the integer `indices` pick, shaped
/// indices.shape + \[dim\]; a repeated index accumulates its rows' gradients.
pub fn embedding(indices: &Tensor, weight: &Var) -> Result<Var> {
    if !indices.dtype().is_int() {
        return Err(GradError::Tensor(TensorError::dtype(
            "embedding",
            indices.dtype(),
            "indices must be integers",
        )));
    }
    if weight.ndim() != 2 {
        return Err(GradError::Tensor(TensorError::shape(
            "embedding",
            format!(
                "weight must be [num_embeddings, embedding_dim], got a {}-d tensor",
                weight.ndim()
            ),
        )));
    }
    index(weight, &[Index::Tensor(indices.clone())]).map_err(|e| GradError::Tensor(e.error))
}

/// x·mask/(1 − p), where `keep` is the mask (true with probability 1 − p); p = 1
/// gives zeros.
pub fn dropout(x: &Var, keep: &Tensor, p: f64) -> Result<Var> {
    let scale = if p >= 1.0 { 0.0 } else { 1.0 / (1.0 - p) };
    let mask = crate::ops::binary(
        crate::ops::BinaryOp::Mul,
        crate::ops::Operand::Tensor(&keep.to_dtype(x.dtype())),
        crate::ops::Operand::Scalar(crate::tensor::Scalar::Float(scale)),
    )?;
    mul(x, &Var::constant(mask))
}

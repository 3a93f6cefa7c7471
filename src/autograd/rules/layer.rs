//! Layers: linear, embedding and dropout, as compositions of recorded ops.

use super::{index, matmul, mul, reshape, sum_to, transpose};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::record;
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::tensor::{Tensor, TensorError};

/// x @ weightᵀ + bias (weight [out, in]), as torch. One node: g_x = g @ weight,
/// g_weight = gᵀ @ x over the rows of every batch dim (row-major, [out, in], as
/// the weight), g_bias = Σ g over them.
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
    let product = crate::ops::matmul(x, &weight.transpose(0, 1)?)?;
    let y = match bias {
        Some(b) => crate::ops::binary(
            crate::ops::BinaryOp::Add,
            crate::ops::Operand::Tensor(&product),
            crate::ops::Operand::Tensor(b),
        )?,
        None => product,
    };
    let inputs: Vec<&Var> = [Some(x), Some(weight), bias]
        .into_iter()
        .flatten()
        .collect();
    let (sx, sw, sb) = (x.clone(), weight.clone(), bias.cloned());
    Ok(record("linear", &inputs, y, move |g, _| {
        let (out, inp) = (sw.shape()[0] as i64, sw.shape()[1] as i64);
        let mut grads = Vec::with_capacity(3);
        grads.push(match sx.is_tracked() {
            true => Some(matmul(g, &sw)?),
            false => None,
        });
        grads.push(match sw.is_tracked() {
            true => {
                let rows = reshape(g, &[-1, out])?;
                Some(matmul(
                    &transpose(&rows, 0, 1)?,
                    &reshape(&sx, &[-1, inp])?,
                )?)
            }
            false => None,
        });
        if let Some(b) = &sb {
            grads.push(Some(sum_to(g, b.shape())?));
        }
        Ok(grads)
    }))
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

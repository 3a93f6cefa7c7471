//! scaled_dot_product_attention, torch's math definition written in recorded
//! ops: softmax(q·kᵀ·scale + mask)·v, so its gradients come from their rules.

use super::{add, dropout, matmul, scale as times, softmax, transpose, where_, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::{self, BinaryOp, Operand};
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{DType, Scalar, Tensor, TensorError};

/// What masks the scores: a bool mask (true takes part), a float mask (added),
/// or the causal mask (position i sees positions up to i).
pub enum Mask<'a> {
    None,
    Bool(&'a Tensor),
    Add(&'a Var),
    Causal,
}

/// Dropout of the attention weights: the kept positions and the probability.
pub struct AttentionDropout<'a> {
    pub keep: &'a Tensor,
    pub p: f64,
}

fn shape_error(msg: String) -> GradError {
    GradError::Tensor(TensorError::shape("scaled_dot_product_attention", msg))
}

/// The shape of the scores: the batch dims of q, k and v broadcast, then [L, S].
pub fn scores_shape(q: &Tensor, k: &Tensor, v: &Tensor) -> Result<Vec<usize>> {
    if q.ndim() < 2 || k.ndim() < 2 || v.ndim() < 2 {
        return Err(shape_error(format!(
            "q, k and v must be [..., L, E], [..., S, E] and [..., S, Ev], got {:?}, {:?} and {:?}",
            q.shape(),
            k.shape(),
            v.shape()
        )));
    }
    let (e, ek) = (q.shape()[q.ndim() - 1], k.shape()[k.ndim() - 1]);
    let (s, sv) = (k.shape()[k.ndim() - 2], v.shape()[v.ndim() - 2]);
    if e != ek || s != sv {
        return Err(shape_error(format!(
            "q, k and v must be [..., L, E], [..., S, E] and [..., S, Ev], got {:?}, {:?} and {:?}",
            q.shape(),
            k.shape(),
            v.shape()
        )));
    }
    let op = "scaled_dot_product_attention";
    let batch = broadcast_shapes(op, &q.shape()[..q.ndim() - 2], &k.shape()[..k.ndim() - 2])?;
    let mut shape = broadcast_shapes(op, &batch, &v.shape()[..v.ndim() - 2])?;
    shape.extend([q.shape()[q.ndim() - 2], s]);
    Ok(shape)
}

/// softmax(q·kᵀ·scale + mask)·v; `scale` none is 1/sqrt(E). A row that is masked
/// out entirely gives zeros (torch's math path).
pub fn scaled_dot_product_attention(
    q: &Var,
    k: &Var,
    v: &Var,
    mask: Mask,
    dropped: Option<AttentionDropout>,
    scale: Option<f64>,
) -> Result<Var> {
    let shape = scores_shape(q, k, v)?;
    let e = q.shape()[q.ndim() - 1];
    let scale = scale.unwrap_or_else(|| 1.0 / (e as f64).sqrt());
    let scores = times(&matmul(q, &transpose(k, -2, -1)?)?, scale)?;
    let allowed = match mask {
        Mask::None => None,
        Mask::Bool(m) => Some(m.clone()),
        Mask::Causal => {
            let (l, s) = (shape[shape.len() - 2], shape[shape.len() - 1]);
            let rows = Tensor::from_vec((0..l as i64).collect(), &[l, 1])?;
            let cols = Tensor::from_vec((0..s as i64).collect(), &[1, s])?;
            Some(ops::binary(
                BinaryOp::Le,
                Operand::Tensor(&cols),
                Operand::Tensor(&rows),
            )?)
        }
        Mask::Add(_) => None,
    };
    let scores = match (&mask, &allowed) {
        (Mask::Add(m), _) => add(&scores, m)?,
        (_, Some(allowed)) => {
            if allowed.dtype() != DType::Bool {
                return Err(GradError::Tensor(TensorError::dtype(
                    "scaled_dot_product_attention",
                    allowed.dtype(),
                    "a mask is bool (true takes part) or a float tensor to add",
                )));
            }
            where_(
                &Var::constant(allowed.clone()),
                VarOperand::Var(&scores),
                VarOperand::Scalar(Scalar::Float(f64::NEG_INFINITY)),
            )?
        }
        _ => scores,
    };
    let weights = softmax(&scores, -1)?;
    // A row with every score -inf: softmax gives NaN; torch's math path gives 0.
    let weights = match allowed {
        Some(allowed) => {
            let any = ops::reduce(crate::ops::ReduceOp::Any, &allowed, Some(&[-1]), true)?;
            where_(
                &Var::constant(any),
                VarOperand::Var(&weights),
                VarOperand::Scalar(Scalar::Int(0)),
            )?
        }
        None => weights,
    };
    let weights = match dropped {
        Some(d) => dropout(&weights, d.keep, d.p)?,
        None => weights,
    };
    matmul(&weights, v)
}

//! The tensor operands of a convolution: the batch dim, the checks of the weight,
//! groups and bias against the input, and the dtype the work is done in.

use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Result, Tensor, TensorError};

/// `x` with a batch dim: as it is when it has `spatial + 2` dims, with a size-1 batch
/// dim added (and `true`) when it has `spatial + 1`.
pub(in crate::ops) fn batched(op: &str, x: &Tensor, spatial: usize) -> Result<(Tensor, bool)> {
    if x.ndim() == spatial + 2 {
        Ok((x.clone(), false))
    } else if x.ndim() == spatial + 1 {
        Ok((x.unsqueeze(0)?, true))
    } else {
        let msg = format!(
            "expected x of rank {} (unbatched [C, spatial...]) or {} (batched [N, C, spatial...]), got shape {}",
            spatial + 1,
            spatial + 2,
            shape_str(x.shape())
        );
        Err(TensorError::shape(op, msg))
    }
}

/// Drops the batch dim `batched` added.
pub(in crate::ops) fn unbatch(t: Tensor, unbatched: bool) -> Result<Tensor> {
    if unbatched {
        t.squeeze(Some(&[0]))
    } else {
        Ok(t)
    }
}

/// Checks groups against the channel counts; `mismatch` says whether the weight's
/// input-channel dim disagrees with x.
pub(super) fn check_groups(
    op: &str,
    groups: usize,
    c_in: usize,
    c_out: usize,
    x: &Tensor,
    weight: &Tensor,
    mismatch: bool,
) -> Result<()> {
    let shapes = format!(
        "x of shape {}, weight of shape {}",
        shape_str(x.shape()),
        shape_str(weight.shape())
    );
    let msg = if groups == 0 {
        format!("groups must be positive, got 0 ({shapes})")
    } else if !c_in.is_multiple_of(groups) {
        format!("groups={groups} must divide the {c_in} input channels ({shapes})")
    } else if !c_out.is_multiple_of(groups) {
        format!("groups={groups} must divide the {c_out} output channels ({shapes})")
    } else if mismatch {
        format!(
            "the weight does not match the {c_in} input channels with groups={groups} ({shapes})"
        )
    } else {
        return Ok(());
    };
    Err(TensorError::shape(op, msg))
}

/// The weight has one axis per spatial dim plus two (laid out as `layout` says) and a
/// valid kernel.
pub(super) fn check_weight(op: &str, ws: &[usize], spatial: usize, layout: &str) -> Result<()> {
    if ws.len() != spatial + 2 {
        let msg = format!(
            "weight must be {}-D {layout}, got shape {}",
            spatial + 2,
            shape_str(ws)
        );
        return Err(TensorError::shape(op, msg));
    }
    check_kernel(op, ws)
}

/// Rejects a weight with an empty kernel dim.
pub(super) fn check_kernel(op: &str, weight_shape: &[usize]) -> Result<()> {
    if weight_shape[2..].contains(&0) {
        let msg = format!(
            "weight of shape {} has an empty kernel",
            shape_str(weight_shape)
        );
        return Err(TensorError::shape(op, msg));
    }
    Ok(())
}

pub(super) fn check_bias(op: &str, bias: Option<&Tensor>, c_out: usize) -> Result<()> {
    match bias {
        Some(b) if b.shape() != [c_out] => {
            let msg = format!(
                "bias must have shape [{c_out}] (one value per output channel), got {}",
                shape_str(b.shape())
            );
            Err(TensorError::shape(op, msg))
        }
        _ => Ok(()),
    }
}

/// The result dtype: the operands promoted.
pub(super) fn promoted(tensors: &[&Tensor], bias: Option<&Tensor>) -> DType {
    tensors
        .iter()
        .copied()
        .chain(bias)
        .map(Tensor::dtype)
        .reduce(DType::promote)
        .unwrap_or(DType::DEFAULT_FLOAT)
}

/// The type to compute in: f32 for f16/bf16 (rounded once at the end), else the dtype.
pub(super) fn compute_dtype(dtype: DType) -> DType {
    match dtype {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    }
}

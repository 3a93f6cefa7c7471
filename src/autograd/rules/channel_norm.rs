//! batch_norm, group_norm and instance_norm (x is [N, C, *]): each standardizes
//! x over some axes and applies a per-channel affine map. Written in recorded
//! ops, so their gradients (and gradients of those) come from the ops' rules.

use super::{add, cast, mul, reduce, reshape, shift, sub, unary};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::{ReduceOp, UnaryOp};
use crate::tensor::{DType, TensorError};

/// Statistics given by the caller (a batch_norm in evaluation mode, an
/// instance_norm with `use_input_stats=false`): per-channel mean and variance.
pub struct Running<'a> {
    pub mean: &'a Var,
    pub var: &'a Var,
}

/// The per-channel affine map applied after standardizing.
pub struct Affine<'a> {
    pub weight: Option<&'a Var>,
    pub bias: Option<&'a Var>,
}

fn shape_error(op: &str, msg: String) -> GradError {
    GradError::Tensor(TensorError::shape(op, msg))
}

/// x as a float ([N, C, *] checked): ints become f32, as the other norms.
fn float_input(op: &str, x: &Var) -> Result<Var> {
    if x.ndim() < 2 {
        return Err(shape_error(
            op,
            format!("input must be [N, C, *] (2-d or more), got {}-d", x.ndim()),
        ));
    }
    if x.dtype().is_float() {
        Ok(x.clone())
    } else {
        cast(x, DType::F32)
    }
}

/// `v` ([C]) shaped to broadcast along axis 1 of an `ndim`-d tensor.
fn per_channel(op: &str, name: &str, v: &Var, channels: usize, ndim: usize) -> Result<Var> {
    if v.shape() != [channels] {
        return Err(shape_error(
            op,
            format!(
                "{name} must have shape [{channels}] (one per channel), got {:?}",
                v.shape()
            ),
        ));
    }
    let mut dims = vec![1i64; ndim];
    dims[1] = channels as i64;
    reshape(v, &dims)
}

/// (x − mean) / sqrt(var + eps) over `axes`, with the biased variance.
fn standardize(x: &Var, axes: &[i64], eps: f64) -> Result<Var> {
    let centered = sub(x, &reduce(ReduceOp::Mean, x, Some(axes), true)?)?;
    let var = reduce(
        ReduceOp::Mean,
        &mul(&centered, &centered)?,
        Some(axes),
        true,
    )?;
    let std = unary(UnaryOp::Sqrt, &shift(&var, eps)?)?;
    super::div(&centered, &std)
}

/// [`standardize`] over `axes`, which must hold more than one element (torch:
/// "expected more than 1 {what}").
fn standardize_counted(op: &str, x: &Var, axes: &[i64], what: &str, eps: f64) -> Result<Var> {
    let count: usize = axes.iter().map(|&a| x.shape()[a as usize]).product();
    if count == 1 {
        return Err(shape_error(
            op,
            format!(
                "expected more than 1 {what}, got input of shape {:?}",
                x.shape()
            ),
        ));
    }
    standardize(x, axes, eps)
}

/// (x − mean) / sqrt(var + eps) with given per-channel statistics (differentiable
/// too: a gradient asked of them is theirs, never a silent zero).
fn standardize_with(op: &str, x: &Var, stats: &Running, eps: f64) -> Result<Var> {
    let (c, n) = (x.shape()[1], x.ndim());
    let mean = per_channel(op, "running_mean", stats.mean, c, n)?;
    let var = per_channel(op, "running_var", stats.var, c, n)?;
    let std = unary(UnaryOp::Sqrt, &shift(&var, eps)?)?;
    super::div(&sub(x, &mean)?, &std)
}

fn apply_affine(op: &str, y: Var, affine: &Affine) -> Result<Var> {
    let (c, n) = (y.shape()[1], y.ndim());
    let y = match affine.weight {
        Some(w) => mul(&y, &per_channel(op, "weight", w, c, n)?)?,
        None => y,
    };
    match affine.bias {
        Some(b) => add(&y, &per_channel(op, "bias", b, c, n)?),
        None => Ok(y),
    }
}

/// The axes of every dim but the channels (batch statistics).
fn all_but_channels(ndim: usize) -> Vec<i64> {
    (0..ndim as i64).filter(|&a| a != 1).collect()
}

/// The spatial axes (per-sample, per-channel statistics).
fn spatial(ndim: usize) -> Vec<i64> {
    (2..ndim as i64).collect()
}

/// torch's batch_norm: batch statistics when `stats` is none or in training,
/// else the given ones. The running statistics are never written (values are
/// values): `nn.batch_norm_stats` gives their update.
pub fn batch_norm(
    x: &Var,
    stats: Option<Running>,
    affine: Affine,
    training: bool,
    eps: f64,
) -> Result<Var> {
    let op = "batch_norm";
    let x = float_input(op, x)?;
    let y = match stats {
        Some(stats) if !training => standardize_with(op, &x, &stats, eps)?,
        _ => standardize_counted(
            op,
            &x,
            &all_but_channels(x.ndim()),
            "value per channel",
            eps,
        )?,
    };
    apply_affine(op, y, &affine)
}

/// torch's instance_norm: each sample's channel standardized over its spatial
/// dims (or with the given statistics when `use_input_stats` is false).
pub fn instance_norm(
    x: &Var,
    stats: Option<Running>,
    affine: Affine,
    use_input_stats: bool,
    eps: f64,
) -> Result<Var> {
    let op = "instance_norm";
    let x = float_input(op, x)?;
    let y = match stats {
        Some(stats) if !use_input_stats => standardize_with(op, &x, &stats, eps)?,
        None if !use_input_stats => {
            return Err(GradError::Tensor(TensorError::value(
                op,
                "use_input_stats=false needs running_mean and running_var",
            )))
        }
        _ => standardize_counted(
            op,
            &x,
            &spatial(x.ndim()),
            "spatial element per channel",
            eps,
        )?,
    };
    apply_affine(op, y, &affine)
}

/// torch's group_norm: the channels split into `groups` groups, each sample's
/// group standardized over its channels and spatial dims.
pub fn group_norm(x: &Var, groups: usize, affine: Affine, eps: f64) -> Result<Var> {
    let op = "group_norm";
    let x = float_input(op, x)?;
    let c = x.shape()[1];
    if groups == 0 || c % groups != 0 {
        return Err(shape_error(
            op,
            format!("the {c} channels do not split into num_groups={groups} groups"),
        ));
    }
    let shape: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    let grouped = reshape(&x, &[shape[0], groups as i64, -1])?;
    let y = reshape(&standardize(&grouped, &[-1], eps)?, &shape)?;
    apply_affine(op, y, &affine)
}

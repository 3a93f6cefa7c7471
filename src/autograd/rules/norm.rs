//! layer_norm and rms_norm: the forward is the fused kernel; the backward is
//! written in recorded ops (so it differentiates again).

use super::{broadcast_to, mul, reduce, shift, sub, sum_to, unary};
use crate::autograd::error::Result;
use crate::autograd::record::record;
use crate::autograd::var::Var;
use crate::ops::{self, ReduceOp, UnaryOp};

/// The trailing axes a norm over `normalized` dims covers.
fn trailing(normalized: usize) -> Vec<i64> {
    (1..=normalized as i64).rev().map(|k| -k).collect()
}

fn rsqrt(x: &Var) -> Result<Var> {
    unary(UnaryOp::Reciprocal, &unary(UnaryOp::Sqrt, x)?)
}

/// The mean over `axes`, kept and broadcast back over `x`.
fn mean_over(x: &Var, axes: &[i64]) -> Result<Var> {
    broadcast_to(&reduce(ReduceOp::Mean, x, Some(axes), true)?, x.shape())
}

pub fn layer_norm(
    x: &Var,
    normalized_shape: &[usize],
    weight: Option<&Var>,
    bias: Option<&Var>,
    eps: f64,
) -> Result<Var> {
    let y = ops::nn::layer_norm(
        x,
        normalized_shape,
        weight.map(Var::tensor),
        bias.map(Var::tensor),
        eps,
    )?;
    let inputs: Vec<&Var> = [Some(x), weight, bias].into_iter().flatten().collect();
    let (sx, sw, has_bias) = (x.clone(), weight.cloned(), bias.is_some());
    let axes = trailing(normalized_shape.len());
    Ok(record("layer_norm", &inputs, y, move |g, _| {
        let x = &sx;
        let centered = sub(x, &mean_over(x, &axes)?)?;
        let var = mean_over(&mul(&centered, &centered)?, &axes)?;
        let rstd = rsqrt(&shift(&var, eps)?)?;
        let xhat = mul(&centered, &rstd)?;
        let gh = match &sw {
            Some(w) => mul(g, w)?,
            None => g.clone(),
        };
        let inner = sub(
            &sub(&gh, &mean_over(&gh, &axes)?)?,
            &mul(&xhat, &mean_over(&mul(&gh, &xhat)?, &axes)?)?,
        )?;
        let mut grads = vec![Some(mul(&rstd, &inner)?)];
        if let Some(w) = &sw {
            grads.push(Some(sum_to(&mul(g, &xhat)?, w.shape())?));
        }
        if has_bias {
            let b_shape: Vec<usize> = x.shape()[x.ndim() - axes.len()..].to_vec();
            grads.push(Some(sum_to(g, &b_shape)?));
        }
        Ok(grads)
    }))
}

pub fn rms_norm(
    x: &Var,
    normalized_shape: &[usize],
    weight: Option<&Var>,
    eps: Option<f64>,
) -> Result<Var> {
    let y = ops::nn::rms_norm(x, normalized_shape, weight.map(Var::tensor), eps)?;
    let eps = eps.unwrap_or_else(|| y.dtype().machine_epsilon());
    let inputs: Vec<&Var> = [Some(x), weight].into_iter().flatten().collect();
    let (sx, sw) = (x.clone(), weight.cloned());
    let axes = trailing(normalized_shape.len());
    Ok(record("rms_norm", &inputs, y, move |g, _| {
        let x = &sx;
        let r = rsqrt(&shift(&mean_over(&mul(x, x)?, &axes)?, eps)?)?;
        let gw = match &sw {
            Some(w) => mul(g, w)?,
            None => g.clone(),
        };
        // d(x·r) = r·(gw − x·r²·mean(gw·x))
        let r3 = mul(&mul(&r, &r)?, &r)?;
        let dx = sub(
            &mul(&r, &gw)?,
            &mul(&mul(x, &r3)?, &mean_over(&mul(&gw, x)?, &axes)?)?,
        )?;
        let mut grads = vec![Some(dx)];
        if let Some(w) = &sw {
            grads.push(Some(sum_to(&mul(g, &mul(x, &r)?)?, w.shape())?));
        }
        Ok(grads)
    }))
}

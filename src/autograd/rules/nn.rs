//! Activations and softmax, with their derivatives.

use std::f64::consts::PI;

use super::{broadcast_to, mul, reduce, rsub, scale, shift, sub, zeros_from};
use crate::autograd::error::Result;
use crate::autograd::record::{output_of, record};
use crate::autograd::var::Var;
use crate::ops::nn::Activation;
use crate::ops::{self, BinaryOp, Operand, ReduceOp, UnaryOp};
use crate::tensor::Scalar;

/// `max(x, 0)`: the gradient passes where x > 0.
pub fn relu(x: &Var) -> Result<Var> {
    let y = ops::nn::relu(x)?;
    let saved = x.clone();
    Ok(record("relu", &[x], y, move |g, _| {
        let pass = ops::binary(
            BinaryOp::Gt,
            saved.operand_of(),
            Operand::Scalar(Scalar::Int(0)),
        )?;
        Ok(vec![Some(mul(
            g,
            &Var::constant(pass.to_dtype(g.dtype())),
        )?)])
    }))
}

pub fn activation(act: Activation, x: &Var) -> Result<Var> {
    let y = ops::nn::activation(act, x)?;
    let (saved_x, saved_y) = (x.clone(), y.clone());
    Ok(record(act.name(), &[x], y, move |g, node| {
        let x = &saved_x;
        let un = |op, v: &Var| super::unary(op, v);
        let d = match act {
            Activation::Sigmoid => {
                let y = output_of(node, &saved_y);
                mul(&y, &rsub(1.0, &y)?)?
            }
            // σ(x)·(1 + x·(1 − σ(x)))
            Activation::Silu => {
                let s = activation(Activation::Sigmoid, x)?;
                mul(&s, &shift(&mul(x, &rsub(1.0, &s)?)?, 1.0)?)?
            }
            // Φ(x) + x·φ(x)
            Activation::Gelu => {
                let cdf = scale(
                    &shift(&un(UnaryOp::Erf, &scale(x, 1.0 / 2f64.sqrt())?)?, 1.0)?,
                    0.5,
                )?;
                let pdf = scale(
                    &un(UnaryOp::Exp, &scale(&mul(x, x)?, -0.5)?)?,
                    1.0 / (2.0 * PI).sqrt(),
                )?;
                super::add(&cdf, &mul(x, &pdf)?)?
            }
            // y = x/2·(1 + tanh u), u = √(2/π)(x + 0.044715x³)
            Activation::GeluTanh => {
                let c = (2.0 / PI).sqrt();
                let x2 = mul(x, x)?;
                let u = scale(&mul(x, &shift(&scale(&x2, 0.044715)?, 1.0)?)?, c)?;
                let t = un(UnaryOp::Tanh, &u)?;
                let du = scale(&shift(&scale(&x2, 3.0 * 0.044715)?, 1.0)?, c)?;
                let left = scale(&shift(&t, 1.0)?, 0.5)?;
                let right = mul(&scale(x, 0.5)?, &mul(&rsub(1.0, &mul(&t, &t)?)?, &du)?)?;
                super::add(&left, &right)?
            }
        };
        Ok(vec![Some(mul(g, &d)?)])
    }))
}

/// softmax along `axis`: dx = y·(g − Σ g·y).
pub fn softmax(x: &Var, axis: i64) -> Result<Var> {
    let y = ops::nn::softmax(x, axis)?;
    let saved_y = y.clone();
    Ok(record("softmax", &[x], y, move |g, node| {
        if g.ndim() == 0 {
            return Ok(vec![Some(zeros_from(g)?)]);
        }
        let y = output_of(node, &saved_y);
        let gy = mul(g, &y)?;
        let total = reduce(ReduceOp::Sum, &gy, Some(&[axis]), true)?;
        Ok(vec![Some(mul(
            &y,
            &sub(g, &broadcast_to(&total, g.shape())?)?,
        )?)])
    }))
}

/// log_softmax along `axis`: dx = g − exp(y)·Σ g.
pub fn log_softmax(x: &Var, axis: i64) -> Result<Var> {
    let y = ops::nn::log_softmax(x, axis)?;
    let saved_y = y.clone();
    Ok(record("log_softmax", &[x], y, move |g, node| {
        if g.ndim() == 0 {
            return Ok(vec![Some(zeros_from(g)?)]);
        }
        let p = super::unary(UnaryOp::Exp, &output_of(node, &saved_y))?;
        let total = reduce(ReduceOp::Sum, g, Some(&[axis]), true)?;
        Ok(vec![Some(sub(
            g,
            &mul(&p, &broadcast_to(&total, g.shape())?)?,
        )?)])
    }))
}

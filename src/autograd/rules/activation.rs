//! The activations torch has beyond relu/sigmoid/silu/gelu, as compositions of
//! recorded ops (their gradients, to any order, come from those).

use super::shape::ALL;
use super::{binary, mul, number, scale, unary, where_, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::{BinaryOp, UnaryOp};
use crate::tensor::TensorError;

/// torch's SELU constants.
const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// Where `x > t`, as a bool constant.
fn above(x: &Var, t: f64) -> Result<Var> {
    Ok(Var::constant(crate::ops::binary(
        BinaryOp::Gt,
        x.operand_of(),
        number(t).operand(),
    )?))
}

/// x where x > 0, else slope·x.
pub fn leaky_relu(x: &Var, slope: f64) -> Result<Var> {
    where_(
        &above(x, 0.0)?,
        VarOperand::Var(x),
        VarOperand::Var(&scale(x, slope)?),
    )
}

/// x where x > 0, else α·(eˣ − 1).
pub fn elu(x: &Var, alpha: f64) -> Result<Var> {
    let neg = scale(&unary(UnaryOp::Expm1, x)?, alpha)?;
    where_(&above(x, 0.0)?, VarOperand::Var(x), VarOperand::Var(&neg))
}

pub fn selu(x: &Var) -> Result<Var> {
    scale(&elu(x, SELU_ALPHA)?, SELU_SCALE)
}

/// log(1 + e^(βx))/β, and x itself where βx > threshold (torch).
pub fn softplus(x: &Var, beta: f64, threshold: f64) -> Result<Var> {
    let bx = scale(x, beta)?;
    // log1p(e^(βx)) computed as max(βx, 0) + log1p(e^(−|βx|)), which never overflows.
    let tail = unary(
        UnaryOp::Log1p,
        &unary(
            UnaryOp::Exp,
            &unary(UnaryOp::Neg, &unary(UnaryOp::Abs, &bx)?)?,
        )?,
    )?;
    let smooth = scale(&super::add(&super::relu(&bx)?, &tail)?, 1.0 / beta)?;
    where_(
        &above(&bx, threshold)?,
        VarOperand::Var(x),
        VarOperand::Var(&smooth),
    )
}

/// x·tanh(softplus(x)).
pub fn mish(x: &Var) -> Result<Var> {
    mul(x, &unary(UnaryOp::Tanh, &softplus(x, 1.0, 20.0)?)?)
}

/// min(max(x, 0), 6): the gradient passes where 0 < x < 6.
pub fn relu6(x: &Var) -> Result<Var> {
    let inside = crate::ops::binary(
        BinaryOp::LogicalAnd,
        above(x, 0.0)?.operand_of(),
        crate::ops::Operand::Tensor(&crate::ops::binary(
            BinaryOp::Lt,
            x.operand_of(),
            number(6.0).operand(),
        )?),
    )?;
    let capped = binary(
        BinaryOp::Minimum,
        VarOperand::Var(&super::relu(x)?),
        number(6.0),
    )?;
    // Recorded through `where` so that the gradient is exactly torch's at 0 and 6.
    where_(
        &Var::constant(inside),
        VarOperand::Var(x),
        VarOperand::Var(&capped.detach()),
    )
}

/// x·relu6(x + 3)/6.
pub fn hardswish(x: &Var) -> Result<Var> {
    let gate = scale(&relu6(&super::shift(x, 3.0)?)?, 1.0 / 6.0)?;
    mul(x, &gate)
}

/// log σ(x) = −softplus(−x).
pub fn logsigmoid(x: &Var) -> Result<Var> {
    let s = softplus(&unary(UnaryOp::Neg, x)?, 1.0, f64::INFINITY)?;
    unary(UnaryOp::Neg, &s)
}

/// The first half of x along `dim` times σ of the second half.
pub fn glu(x: &Var, dim: i64) -> Result<Var> {
    let axis = crate::tensor::shape::normalize_axis("glu", dim, x.ndim())?;
    let n = x.shape()[axis];
    if !n.is_multiple_of(2) {
        return Err(GradError::Tensor(TensorError::shape(
            "glu",
            format!("the size along dim {dim} must be even, got {n}"),
        )));
    }
    let half = |start: usize| {
        let mut items = vec![crate::ops::index::Index::Slice(ALL); axis];
        items.push(crate::ops::index::Index::Slice(crate::tensor::SliceSpec {
            start: Some(start as i64),
            stop: Some((start + n / 2) as i64),
            step: 1,
        }));
        super::index(x, &items).map_err(|e| GradError::Tensor(e.error))
    };
    let gate = super::activation(crate::ops::nn::Activation::Sigmoid, &half(n / 2)?)?;
    mul(&half(0)?, &gate)
}

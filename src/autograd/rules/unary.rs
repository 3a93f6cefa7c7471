//! Elementwise unary ops and their derivatives.

use std::f64::consts::{LN_10, LN_2, PI};

use super::binary::ZERO;
use super::{div, mul, neg, rsub, scale, shift, sub, zeros_from, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{output_of, record};
use crate::autograd::var::Var;
use crate::ops::{self, UnaryOp};

/// `op(x)` elementwise.
pub fn unary(op: UnaryOp, x: &Var) -> Result<Var> {
    let y = ops::unary(op, x)?;
    let saved_x = x.clone();
    let saved_y = y.clone();
    Ok(record(op.name(), &[x], y, move |g, node| {
        let y = || output_of(node, &saved_y);
        Ok(vec![Some(derivative(op, g, &saved_x, y)?)])
    }))
}

/// ψ⁽ⁿ⁾(x) elementwise; its derivative is ψ⁽ⁿ⁺¹⁾(x).
pub fn polygamma(n: i64, x: &Var) -> Result<Var> {
    let y = ops::polygamma::polygamma(n, x)?;
    let saved = x.clone();
    Ok(record("polygamma", &[x], y, move |g, _| {
        Ok(vec![Some(mul(g, &polygamma(n + 1, &saved)?)?)])
    }))
}

/// g · op′(x); `y` gives the op's output, tracked.
fn derivative(op: UnaryOp, g: &Var, x: &Var, y: impl Fn() -> Var) -> Result<Var> {
    use UnaryOp::*;
    let sq = |v: &Var| mul(v, v);
    let un = |op, v: &Var| super::unary(op, v);
    match op {
        Neg => neg(g),
        Abs => mul(g, &un(Sign, x)?),
        Square => mul(g, &scale(x, 2.0)?),
        Sqrt => div(g, &scale(&y(), 2.0)?),
        Reciprocal => neg(&mul(g, &sq(&y())?)?),
        Exp => mul(g, &y()),
        Exp2 => mul(g, &scale(&y(), LN_2)?),
        Expm1 => mul(g, &shift(&y(), 1.0)?),
        Log => div(g, x),
        Log2 => div(g, &scale(x, LN_2)?),
        Log10 => div(g, &scale(x, LN_10)?),
        Log1p => div(g, &shift(x, 1.0)?),
        Sin => mul(g, &un(Cos, x)?),
        Cos => neg(&mul(g, &un(Sin, x)?)?),
        Tan => mul(g, &shift(&sq(&y())?, 1.0)?),
        Asin => div(g, &un(Sqrt, &rsub(1.0, &sq(x)?)?)?),
        Acos => neg(&div(g, &un(Sqrt, &rsub(1.0, &sq(x)?)?)?)?),
        Atan => div(g, &shift(&sq(x)?, 1.0)?),
        Sinh => mul(g, &un(Cosh, x)?),
        Cosh => mul(g, &un(Sinh, x)?),
        Tanh => mul(g, &rsub(1.0, &sq(&y())?)?),
        Asinh => div(g, &un(Sqrt, &shift(&sq(x)?, 1.0)?)?),
        Acosh => div(g, &un(Sqrt, &shift(&sq(x)?, -1.0)?)?),
        Atanh => div(g, &rsub(1.0, &sq(x)?)?),
        Erf | Erfc => {
            let d = scale(&un(Exp, &neg(&sq(x)?)?)?, 2.0 / PI.sqrt())?;
            let d = if op == Erfc { neg(&d)? } else { d };
            mul(g, &d)
        }
        // d/dx sin(πx)/(πx) = (cos(πx) − sinc(x)) / x, and 0 at x = 0.
        Sinc => {
            let d = div(&sub(&un(Cos, &scale(x, PI)?)?, &y())?, x)?;
            let zero = super::binary::is_zero(x)?;
            mul(g, &super::where_(&zero, ZERO, VarOperand::Var(&d))?)
        }
        Deg2rad => scale(g, PI / 180.0),
        Rad2deg => scale(g, 180.0 / PI),
        // Zero almost everywhere (torch).
        Sign | Floor | Ceil | Trunc | Round(_) => zeros_from(g),
        Lgamma => mul(g, &un(Digamma, x)?),
        Digamma => mul(g, &un(Trigamma, x)?),
        Trigamma => mul(g, &polygamma(2, x)?),
        // Integer and bool results: never recorded.
        BitNot | IsNan | IsInf | IsFinite | LogicalNot => Err(GradError::NotDifferentiable {
            op: op.name().into(),
        }),
    }
}

/// `y`, numpy.nan_to_num of x: the gradient passes where x is finite (a
/// replaced value is a constant).
pub fn nan_to_num(x: &Var, y: crate::tensor::Tensor) -> Result<Var> {
    let finite = Var::constant(ops::unary(UnaryOp::IsFinite, x)?);
    Ok(record("nan_to_num", &[x], y, move |g, _| {
        Ok(vec![Some(super::where_(
            &finite,
            super::VarOperand::Var(g),
            ZERO,
        )?)])
    }))
}

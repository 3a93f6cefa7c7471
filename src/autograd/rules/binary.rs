//! Elementwise binary ops (broadcasting, weak scalars) and `where`, with their
//! derivatives; each gradient is summed back to its operand's shape.

use super::{div, mul, neg, rsub, sub, sum_to, zeros_from, VarOperand};
use crate::autograd::error::Result;
use crate::autograd::record::{output_of, record};
use crate::autograd::var::Var;
use crate::ops::{self, BinaryOp, Operand};
use crate::tensor::{Scalar, Tensor};

/// The weak number 0, as an operand.
pub(super) const ZERO: VarOperand<'static> = VarOperand::Scalar(Scalar::Int(0));

/// A saved operand: a tensor or a number.
#[derive(Clone)]
enum Saved {
    Var(Var),
    Scalar(Scalar),
}

impl Saved {
    fn of(x: VarOperand) -> Saved {
        match x {
            VarOperand::Var(v) => Saved::Var(v.clone()),
            VarOperand::Scalar(s) => Saved::Scalar(s),
        }
    }

    fn operand(&self) -> VarOperand<'_> {
        match self {
            Saved::Var(v) => VarOperand::Var(v),
            Saved::Scalar(s) => VarOperand::Scalar(*s),
        }
    }
}

/// `a op b`, broadcasting.
pub fn binary(op: BinaryOp, a: VarOperand, b: VarOperand) -> Result<Var> {
    let y = ops::binary(op, a.operand(), b.operand())?;
    let inputs: Vec<&Var> = [a.var(), b.var()].into_iter().flatten().collect();
    let (sa, sb, saved_y) = (Saved::of(a), Saved::of(b), y.clone());
    Ok(record(op.name(), &inputs, y, move |g, node| {
        let y = output_of(node, &saved_y);
        let (ga, gb) = derivatives(op, g, sa.operand(), sb.operand(), &y)?;
        let mut grads = Vec::with_capacity(2);
        for (side, gs) in [(&sa, ga), (&sb, gb)] {
            if let Saved::Var(v) = side {
                grads.push(gs.map(|gs| sum_to(&gs, v.shape())).transpose()?);
            }
        }
        Ok(grads)
    }))
}

/// `b`'s operand as a Var (a number becomes a 0-d constant of `like`'s dtype).
fn var_of(x: VarOperand, like: &Var) -> Result<Var> {
    Ok(match x {
        VarOperand::Var(v) => v.clone(),
        VarOperand::Scalar(s) => Var::constant(ops::full("grad", &[], s, like.dtype())?),
    })
}

/// (g·∂y/∂a, g·∂y/∂b), before summing back to the operands' shapes.
fn derivatives(
    op: BinaryOp,
    g: &Var,
    a: VarOperand,
    b: VarOperand,
    y: &Var,
) -> Result<(Option<Var>, Option<Var>)> {
    use BinaryOp::*;
    let (av, bv) = (var_of(a, y)?, var_of(b, y)?);
    let both = |x: Var, z: Var| Ok((Some(x), Some(z)));
    match op {
        Add => both(g.clone(), g.clone()),
        Sub => both(g.clone(), neg(g)?),
        Mul => both(mul(g, &bv)?, mul(g, &av)?),
        Div => {
            let ga = div(g, &bv)?;
            // ∂(a/b)/∂b = −a/b² = −(1/b)·y
            both(ga.clone(), neg(&mul(&ga, y)?)?)
        }
        Pow => {
            // b·a^(b−1), 0 where b = 0; y·ln a, 0 where a = 0 and b ≥ 0 (torch).
            let b1 = super::shift(&bv, -1.0)?;
            let p = super::binary(Pow, VarOperand::Var(&av), VarOperand::Var(&b1))?;
            let da = mul(&bv, &p)?;
            let da = super::where_(&is_zero(&bv)?, ZERO, VarOperand::Var(&da))?;
            let db = mul(y, &super::unary(crate::ops::UnaryOp::Log, &av)?)?;
            let a0 = ops::binary(
                LogicalAnd,
                is_zero(&av)?.operand_of(),
                Operand::Tensor(&compare(Ge, &bv, 0.0)?),
            )?;
            let db = super::where_(&Var::constant(a0), ZERO, VarOperand::Var(&db))?;
            both(mul(g, &da)?, mul(g, &db)?)
        }
        Maximum | Minimum => {
            // The winner takes g; a tie gives each half (torch).
            let wins = ops::binary(
                if op == Maximum { Gt } else { Lt },
                av.operand_of(),
                bv.operand_of(),
            )?;
            let ties = ops::binary(Eq, av.operand_of(), bv.operand_of())?;
            let number = |n: f64| Operand::Scalar(Scalar::Float(n));
            let half = ops::shape::where_(&ties, number(0.5), number(0.0))?;
            let share = ops::shape::where_(&wins, number(1.0), Operand::Tensor(&half))?;
            let share = Var::constant(share.to_dtype(y.dtype()));
            both(mul(g, &share)?, mul(g, &rsub(1.0, &share)?)?)
        }
        Atan2 => {
            let r2 = super::add(&mul(&av, &av)?, &mul(&bv, &bv)?)?;
            let gr = div(g, &r2)?;
            both(mul(&gr, &bv)?, neg(&mul(&gr, &av)?)?)
        }
        Hypot => both(mul(g, &div(&av, y)?)?, mul(g, &div(&bv, y)?)?),
        LogAddExp => {
            let exp = |x: &Var| super::unary(crate::ops::UnaryOp::Exp, &sub(x, y)?);
            both(mul(g, &exp(&av)?)?, mul(g, &exp(&bv)?)?)
        }
        CopySign => {
            let sign = |x: &Var| super::unary(crate::ops::UnaryOp::Sign, x);
            both(mul(g, &mul(&sign(&av)?, &sign(y)?)?)?, zeros_from(g)?)
        }
        Fmod | Rem => {
            let q = ops::binary(Div, av.operand_of(), bv.operand_of())?;
            let round = if op == Fmod {
                crate::ops::UnaryOp::Trunc
            } else {
                crate::ops::UnaryOp::Floor
            };
            let q = Var::constant(ops::unary(round, &q)?);
            both(g.clone(), neg(&mul(g, &q)?)?)
        }
        FloorDiv => both(zeros_from(g)?, zeros_from(g)?),
        // Bool and integer results are never recorded.
        Eq | Ne | Lt | Le | Gt | Ge | BitAnd | BitOr | BitXor | LogicalAnd | LogicalOr
        | LogicalXor => Ok((None, None)),
    }
}

/// `x op n` for a comparison with a number, as a bool tensor.
fn compare(op: BinaryOp, x: &Var, n: f64) -> Result<Tensor> {
    Ok(ops::binary(
        op,
        x.operand_of(),
        Operand::Scalar(Scalar::Float(n)),
    )?)
}

/// x limited to [min, max] (either may be absent; max wins where min > max), as
/// minimum(maximum(x, min), max). Each element's gradient goes to what it took:
/// x where it lies within the bounds, else the bound that won (torch's clamp).
pub fn clip(x: &Var, min: Option<VarOperand>, max: Option<VarOperand>) -> Result<Var> {
    let y = ops::binary::clip(
        x,
        min.map(VarOperand::operand),
        max.map(VarOperand::operand),
    )?;
    let compare = |op, a: Operand, b: Operand| ops::binary(op, a, b);
    let and = |a: &Tensor, b: &Tensor| {
        compare(BinaryOp::LogicalAnd, Operand::Tensor(a), Operand::Tensor(b))
    };
    let or = |a: &Tensor, b: &Tensor| {
        compare(BinaryOp::LogicalOr, Operand::Tensor(a), Operand::Tensor(b))
    };
    let never = Tensor::scalar(false);
    // Where max wins over x (x above it, or max below min), and where min does.
    let max_wins = match max {
        Some(hi) => {
            let above = compare(BinaryOp::Gt, x.operand_of(), hi.operand())?;
            match min {
                Some(lo) => or(&above, &compare(BinaryOp::Lt, hi.operand(), lo.operand())?)?,
                None => above,
            }
        }
        None => never.clone(),
    };
    let min_wins = match min {
        Some(lo) => {
            let below = compare(BinaryOp::Lt, x.operand_of(), lo.operand())?;
            let not_max = compare(
                BinaryOp::Eq,
                Operand::Tensor(&max_wins),
                Operand::Scalar(Scalar::Bool(false)),
            )?;
            and(&below, &not_max)?
        }
        None => never,
    };
    // x keeps its gradient where it is neither NaN nor clipped.
    let mut inside = ops::binary(BinaryOp::Eq, x.operand_of(), x.operand_of())?;
    for clipped in [&max_wins, &min_wins] {
        let kept = compare(
            BinaryOp::Eq,
            Operand::Tensor(clipped),
            Operand::Scalar(Scalar::Bool(false)),
        )?;
        inside = and(&inside, &kept)?;
    }
    let bounds = [min, max].map(|b| b.and_then(VarOperand::var).cloned());
    let mut inputs = vec![x];
    inputs.extend(bounds.iter().flatten());
    let tracked_bounds = bounds.clone();
    Ok(record("clip", &inputs, y, move |g, _| {
        let pass =
            |mask: &Tensor| super::where_(&Var::constant(mask.clone()), VarOperand::Var(g), ZERO);
        let mut grads = vec![Some(pass(&inside)?)];
        for (bound, won) in tracked_bounds.iter().zip([&min_wins, &max_wins]) {
            if let Some(b) = bound {
                grads.push(Some(sum_to(&pass(won)?, b.shape())?));
            }
        }
        Ok(grads)
    }))
}

/// Where `x` is zero, as a bool constant.
pub(super) fn is_zero(x: &Var) -> Result<Var> {
    Ok(Var::constant(ops::binary(
        BinaryOp::Eq,
        x.operand_of(),
        Operand::Scalar(Scalar::Int(0)),
    )?))
}

/// `where(cond, a, b)`: `a` where `cond` is nonzero, else `b`, all three broadcast
/// (numbers weak); `cond` takes no gradient.
pub fn where_(cond: &Var, a: VarOperand, b: VarOperand) -> Result<Var> {
    let y = ops::shape::where_(cond, a.operand(), b.operand())?;
    let inputs: Vec<&Var> = [a.var(), b.var()].into_iter().flatten().collect();
    let shapes: Vec<Vec<usize>> = inputs.iter().map(|v| v.shape().to_vec()).collect();
    let picks: Vec<bool> = [a.var().map(|_| true), b.var().map(|_| false)]
        .into_iter()
        .flatten()
        .collect();
    let c = cond.clone();
    Ok(record("where", &inputs, y, move |g, _| {
        let mut grads = Vec::with_capacity(2);
        for (&first, shape) in picks.iter().zip(&shapes) {
            let (x, z) = if first {
                (VarOperand::Var(g), ZERO)
            } else {
                (ZERO, VarOperand::Var(g))
            };
            grads.push(Some(sum_to(&where_(&c, x, z)?, shape)?));
        }
        Ok(grads)
    }))
}

impl Var {
    /// This tensor as an operand of a tensor op.
    pub fn operand_of(&self) -> Operand<'_> {
        Operand::Tensor(self.tensor())
    }
}

//! The losses of torch.nn.functional, as compositions of recorded ops: their
//! gradients (to any order) come from those.

use super::{
    binary, index, log_softmax, mul, number, reduce, reshape, rsub, scale, sub, unary, where_,
    VarOperand,
};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::{self, BinaryOp, ReduceOp, UnaryOp};
use crate::tensor::shape::shape_str;
use crate::tensor::{Tensor, TensorError};

/// How a loss's elements are combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    None,
    Mean,
    Sum,
    /// kl_div's: the sum divided by the batch size.
    BatchMean,
}

impl Reduction {
    /// The reduction a name gives; `batchmean` only where `batch_mean` allows it.
    pub fn from_name(name: &str, batch_mean: bool) -> Option<Reduction> {
        match name {
            "none" => Some(Reduction::None),
            "mean" => Some(Reduction::Mean),
            "sum" => Some(Reduction::Sum),
            "batchmean" if batch_mean => Some(Reduction::BatchMean),
            _ => None,
        }
    }
}

fn err(op: &str, msg: String) -> GradError {
    GradError::Tensor(TensorError::value(op, msg))
}

/// Combines the per-element losses `l`.
fn reduced(l: &Var, r: Reduction) -> Result<Var> {
    match r {
        Reduction::None => Ok(l.clone()),
        Reduction::Sum => reduce(ReduceOp::Sum, l, None, false),
        Reduction::Mean => reduce(ReduceOp::Mean, l, None, false),
        Reduction::BatchMean => {
            let n = l.shape().first().copied().unwrap_or(1).max(1);
            scale(&reduce(ReduceOp::Sum, l, None, false)?, 1.0 / n as f64)
        }
    }
}

/// input − target, broadcasting as torch (with a shape check that names the loss).
fn difference(op: &str, x: &Var, t: &Var) -> Result<Var> {
    crate::tensor::shape::broadcast_shapes(op, x.shape(), t.shape())?;
    sub(x, t)
}

pub fn mse_loss(x: &Var, t: &Var, r: Reduction) -> Result<Var> {
    let d = difference("mse_loss", x, t)?;
    reduced(&mul(&d, &d)?, r)
}

pub fn l1_loss(x: &Var, t: &Var, r: Reduction) -> Result<Var> {
    reduced(&unary(UnaryOp::Abs, &difference("l1_loss", x, t)?)?, r)
}

/// 0.5·d²/β where |d| < β, else |d| − β/2; β = 0 is the L1 loss.
pub fn smooth_l1_loss(x: &Var, t: &Var, r: Reduction, beta: f64) -> Result<Var> {
    let d = difference("smooth_l1_loss", x, t)?;
    let a = unary(UnaryOp::Abs, &d)?;
    if beta == 0.0 {
        return reduced(&a, r);
    }
    let near = scale(&mul(&d, &d)?, 0.5 / beta)?;
    let far = super::shift(&a, -0.5 * beta)?;
    let small = Var::constant(ops::binary(
        BinaryOp::Lt,
        a.operand_of(),
        number(beta).operand(),
    )?);
    reduced(
        &where_(&small, VarOperand::Var(&near), VarOperand::Var(&far))?,
        r,
    )
}

/// 0.5·d² where |d| ≤ δ, else δ·(|d| − δ/2).
pub fn huber_loss(x: &Var, t: &Var, r: Reduction, delta: f64) -> Result<Var> {
    let d = difference("huber_loss", x, t)?;
    let a = unary(UnaryOp::Abs, &d)?;
    let near = scale(&mul(&d, &d)?, 0.5)?;
    let far = scale(&super::shift(&a, -0.5 * delta)?, delta)?;
    let small = Var::constant(ops::binary(
        BinaryOp::Le,
        a.operand_of(),
        number(delta).operand(),
    )?);
    reduced(
        &where_(&small, VarOperand::Var(&near), VarOperand::Var(&far))?,
        r,
    )
}

/// −w·(t·log x + (1 − t)·log(1 − x)), each log clamped at −100 (torch); x must be
/// in [0, 1].
pub fn binary_cross_entropy(x: &Var, t: &Var, w: Option<&Var>, r: Reduction) -> Result<Var> {
    let below = ops::binary(BinaryOp::Lt, x.operand_of(), number(0.0).operand())?;
    let above = ops::binary(BinaryOp::Gt, x.operand_of(), number(1.0).operand())?;
    let outside = ops::binary(
        BinaryOp::LogicalOr,
        ops::Operand::Tensor(&below),
        ops::Operand::Tensor(&above),
    )?;
    if ops::reduce(ReduceOp::Any, &outside, None, false)?.item_f64() == Some(1.0) {
        return Err(err(
            "binary_cross_entropy",
            "all elements of input should be between 0 and 1".into(),
        ));
    }
    difference("binary_cross_entropy", x, t)?;
    let clamped_log = |v: &Var| {
        binary(
            BinaryOp::Maximum,
            VarOperand::Var(&unary(UnaryOp::Log, v)?),
            number(-100.0),
        )
    };
    let pos = mul(t, &clamped_log(x)?)?;
    let neg = mul(&rsub(1.0, t)?, &clamped_log(&rsub(1.0, x)?)?)?;
    let l = unary(UnaryOp::Neg, &super::add(&pos, &neg)?)?;
    reduced(&weighted(&l, w)?, r)
}

/// The stable form (1 − t)·x + (1 + (pw − 1)·t)·(log1p(e^(−|x|)) + max(−x, 0)).
pub fn binary_cross_entropy_with_logits(
    x: &Var,
    t: &Var,
    w: Option<&Var>,
    r: Reduction,
    pos_weight: Option<&Var>,
) -> Result<Var> {
    difference("binary_cross_entropy_with_logits", x, t)?;
    let soft = super::add(
        &unary(
            UnaryOp::Log1p,
            &unary(
                UnaryOp::Exp,
                &unary(UnaryOp::Neg, &unary(UnaryOp::Abs, x)?)?,
            )?,
        )?,
        &super::relu(&unary(UnaryOp::Neg, x)?)?,
    )?;
    let factor = match pos_weight {
        Some(pw) => super::shift(&mul(&super::shift(pw, -1.0)?, t)?, 1.0)?,
        None => Var::constant(Tensor::scalar(1.0f32).to_dtype(x.dtype())),
    };
    let l = super::add(&mul(&rsub(1.0, t)?, x)?, &mul(&factor, &soft)?)?;
    reduced(&weighted(&l, w)?, r)
}

/// t·(log t − x) (0 where t = 0), or e^t·(t − x) with `log_target`.
pub fn kl_div(x: &Var, t: &Var, r: Reduction, log_target: bool) -> Result<Var> {
    difference("kl_div", x, t)?;
    let l = if log_target {
        mul(&unary(UnaryOp::Exp, t)?, &sub(t, x)?)?
    } else {
        let positive = Var::constant(ops::binary(
            BinaryOp::Gt,
            t.operand_of(),
            number(0.0).operand(),
        )?);
        // log of 1 where t is 0, so that no NaN reaches the gradient.
        let safe = where_(&positive, VarOperand::Var(t), number(1.0))?;
        let xlogy = mul(t, &unary(UnaryOp::Log, &safe)?)?;
        sub(&xlogy, &mul(t, x)?)?
    };
    reduced(&l, r)
}

fn weighted(l: &Var, w: Option<&Var>) -> Result<Var> {
    match w {
        Some(w) => mul(l, w),
        None => Ok(l.clone()),
    }
}

/// Class scores moved to rows: a [C] input is one row; [N, C, d...] becomes
/// [N·∏d, C] (and the target [N, d...] the matching [N·∏d]).
fn rows(op: &str, x: &Var, target_shape: &[usize]) -> Result<(Var, usize)> {
    if x.ndim() == 0 {
        return Err(GradError::Tensor(TensorError::shape(
            op,
            "input must have a class dim, got a 0-d tensor",
        )));
    }
    let class_dim = usize::from(x.ndim() > 1);
    let c = x.shape()[class_dim];
    let mut expected: Vec<usize> = x.shape().to_vec();
    expected.remove(class_dim);
    if expected != target_shape {
        return Err(GradError::Tensor(TensorError::shape(
            op,
            format!(
                "input of shape {} needs a target of shape {}, got {}",
                shape_str(x.shape()),
                shape_str(&expected),
                shape_str(target_shape)
            ),
        )));
    }
    let moved = if x.ndim() > 2 {
        let mut order: Vec<i64> = vec![0];
        order.extend(2..x.ndim() as i64);
        order.push(1);
        super::permute(x, &order)?
    } else {
        x.clone()
    };
    Ok((reshape(&moved, &[-1, c as i64])?, c))
}

/// Class-index targets as i64 with the ignored ones at 0, and which are kept.
fn class_targets(
    op: &str,
    target: &Tensor,
    c: usize,
    ignore_index: i64,
) -> Result<(Tensor, Tensor)> {
    if !target.dtype().is_int() {
        return Err(GradError::Tensor(TensorError::dtype(
            op,
            target.dtype(),
            "class targets must be integers (or, for cross_entropy, probabilities of the input's shape)",
        )));
    }
    let t = target.to_vec::<i64>();
    if let Some(bad) = t
        .iter()
        .find(|&&v| v != ignore_index && !(0..c as i64).contains(&v))
    {
        return Err(err(
            op,
            format!("target {bad} is out of bounds for {c} classes"),
        ));
    }
    let keep: Vec<bool> = t.iter().map(|&v| v != ignore_index).collect();
    let safe: Vec<i64> = t
        .iter()
        .map(|&v| if v == ignore_index { 0 } else { v })
        .collect();
    let n = t.len();
    Ok((Tensor::from_vec(safe, &[n])?, Tensor::from_vec(keep, &[n])?))
}

/// nll with class indices: −w\[t\]·input\[t\] per position, ignored positions 0;
/// the mean divides by Σ w\[t\] over the positions kept (NaN when none is, as
/// torch).
pub fn nll_loss(
    input: &Var,
    target: &Tensor,
    weight: Option<&Var>,
    ignore_index: i64,
    r: Reduction,
) -> Result<Var> {
    nll("nll_loss", input, target, weight, ignore_index, r, 0.0)
}

#[allow(clippy::too_many_arguments)]
fn nll(
    op: &str,
    logp: &Var,
    target: &Tensor,
    weight: Option<&Var>,
    ignore_index: i64,
    r: Reduction,
    smoothing: f64,
) -> Result<Var> {
    let (lp, c) = rows(op, logp, target.shape())?;
    if let Some(w) = weight {
        if w.shape() != [c] {
            return Err(GradError::Tensor(TensorError::shape(
                op,
                format!(
                    "weight must have shape [{c}], one per class, got {}",
                    shape_str(w.shape())
                ),
            )));
        }
    }
    let (safe, keep) = class_targets(op, target, c, ignore_index)?;
    let m = safe.numel();
    let at = Tensor::from_vec((0..m as i64).collect(), &[m])?;
    let picked = index(&lp, &[Index::Tensor(at), Index::Tensor(safe.clone())])
        .map_err(|e| GradError::Tensor(e.error))?;
    let kept = Var::constant(keep.to_dtype(lp.dtype()));
    let w_t = match weight {
        Some(w) => mul(
            &index(w, &[Index::Tensor(safe)]).map_err(|e| GradError::Tensor(e.error))?,
            &kept,
        )?,
        None => kept.clone(),
    };
    let per = unary(UnaryOp::Neg, &mul(&picked, &w_t)?)?;
    let total = |per: &Var| -> Result<Var> {
        match r {
            Reduction::None => reshape(per, &dims(target.shape())),
            Reduction::Sum => reduce(ReduceOp::Sum, per, None, false),
            _ => super::div(
                &reduce(ReduceOp::Sum, per, None, false)?,
                &reduce(ReduceOp::Sum, &w_t, None, false)?,
            ),
        }
    };
    let main = total(&per)?;
    if smoothing == 0.0 {
        return Ok(main);
    }
    // ε spread over the classes: −Σ_c w_c·log p_c per position.
    let spread = match weight {
        Some(w) => mul(&lp, w)?,
        None => lp.clone(),
    };
    let smooth = mul(
        &unary(
            UnaryOp::Neg,
            &reduce(ReduceOp::Sum, &spread, Some(&[1]), false)?,
        )?,
        &kept,
    )?;
    super::add(
        &scale(&main, 1.0 - smoothing)?,
        &scale(&total(&smooth)?, smoothing / c as f64)?,
    )
}

fn dims(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

/// torch's cross_entropy: log_softmax over the class dim (1, or 0 for a \[C\]
/// input), then nll with class indices, or, for float targets of the input's shape,
/// −Σ_c w_c·t_c·log p_c with the mean over the positions.
pub fn cross_entropy(
    x: &Var,
    target: &Var,
    weight: Option<&Var>,
    ignore_index: i64,
    r: Reduction,
    smoothing: f64,
) -> Result<Var> {
    let op = "cross_entropy";
    if !(0.0..=1.0).contains(&smoothing) {
        return Err(err(
            op,
            format!("label_smoothing must be in [0, 1], got {smoothing}"),
        ));
    }
    if x.ndim() == 0 {
        return Err(GradError::Tensor(TensorError::shape(
            op,
            "input must have a class dim, got a 0-d tensor",
        )));
    }
    let class_dim: i64 = if x.ndim() == 1 { 0 } else { 1 };
    let logp = log_softmax(x, class_dim)?;
    if !target.dtype().is_float() {
        return nll(
            op,
            &logp,
            target.tensor(),
            weight,
            ignore_index,
            r,
            smoothing,
        );
    }
    if target.shape() != x.shape() {
        return Err(GradError::Tensor(TensorError::shape(
            op,
            format!(
                "probability targets must have the input's shape {}, got {}",
                shape_str(x.shape()),
                shape_str(target.shape())
            ),
        )));
    }
    let c = x.shape()[class_dim as usize];
    let t = if smoothing > 0.0 {
        super::shift(&scale(target, 1.0 - smoothing)?, smoothing / c as f64)?
    } else {
        target.clone()
    };
    let mut terms = mul(&logp, &t)?;
    if let Some(w) = weight {
        let mut shape = vec![1i64; x.ndim()];
        shape[class_dim as usize] = c as i64;
        terms = mul(&terms, &reshape(w, &shape)?)?;
    }
    let per = unary(
        UnaryOp::Neg,
        &reduce(ReduceOp::Sum, &terms, Some(&[class_dim]), false)?,
    )?;
    reduced(
        &per,
        if r == Reduction::BatchMean {
            Reduction::Mean
        } else {
            r
        },
    )
}

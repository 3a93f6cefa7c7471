//! The differentiable ops: each runs its forward through `crate::ops` and, when
//! recording, keeps a backward rule written in these same ops, so a gradient can
//! itself be differentiated (`grad` of `grad`). One file per family.

mod activation;
mod algebra;
mod attention;
mod binary;
mod channel_norm;
mod conv;
mod factorization;
mod index;
mod interpolate;
mod layer;
mod linalg;
mod loss;
mod matmul;
mod nn;
mod norm;
mod order_stat;
mod polynomial;
mod pool;
mod positions;
mod pseudo_inverse;
mod reduce;
mod shape;
mod unary;
mod vector_norm;

pub use activation::{elu, glu, hardswish, leaky_relu, logsigmoid, mish, relu6, selu, softplus};
pub use attention::{scaled_dot_product_attention, scores_shape, AttentionDropout, Mask};
pub use binary::{binary, clip, where_};
pub use channel_norm::{batch_norm, group_norm, instance_norm, Affine, Running};
pub use conv::{col2im, conv, conv_transpose};
pub use factorization::{qr, svd, svdvals};
pub use index::{diff, gather, index, index_add, row, scatter_add, stacked};
pub use interpolate::interpolate;
pub use layer::{dropout, embedding, linear};
pub use linalg::{
    cholesky, det, eigh, eigvalsh, inv, matrix_power, norm as linalg_norm, slogdet, solve,
    solve_triangular,
};
pub use loss::{
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, kl_div,
    l1_loss, mse_loss, nll_loss, smooth_l1_loss, Reduction,
};
pub use matmul::{matmul, matmul_weight};
pub use nn::{activation, log_softmax, relu, softmax};
pub use norm::{layer_norm, rms_norm};
pub use order_stat::order_stat;
pub use polynomial::{interp, polyfit};
pub use pool::{
    adaptive_avg_pool2d, adaptive_max_pool2d, avg_pool2d, max_pool2d, max_pool3d, pool1d, Pool,
};
pub use positions::{moved, moved_many, moved_parts, taken, Positions};
pub use pseudo_inverse::{lstsq, pinv};
pub use reduce::{cumprod, cumsum, reduce};
pub use shape::{
    broadcast_to, cast, concat, identity, permute, reshape, reshaped, reverse_axes, stack, sum_to,
    transpose,
};
pub use unary::{nan_to_num, polygamma, unary};
pub use vector_norm::{normalize, vector_norm};

use super::error::Result;
use super::var::Var;
pub use crate::ops::index::IndexError;
use crate::ops::{BinaryOp, Operand, UnaryOp};
use crate::tensor::Scalar;

/// One side of a binary op: a tensor, or a weak scalar (no gradient).
#[derive(Clone, Copy)]
pub enum VarOperand<'a> {
    Var(&'a Var),
    Scalar(Scalar),
}

impl<'a> VarOperand<'a> {
    pub fn operand(self) -> Operand<'a> {
        match self {
            VarOperand::Var(v) => Operand::Tensor(v.tensor()),
            VarOperand::Scalar(s) => Operand::Scalar(s),
        }
    }

    fn var(self) -> Option<&'a Var> {
        match self {
            VarOperand::Var(v) => Some(v),
            VarOperand::Scalar(_) => None,
        }
    }
}

// Shorthands the rules are written in.

pub(crate) fn add(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Add, VarOperand::Var(a), VarOperand::Var(b))
}

fn sub(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Sub, VarOperand::Var(a), VarOperand::Var(b))
}

fn mul(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Mul, VarOperand::Var(a), VarOperand::Var(b))
}

fn div(a: &Var, b: &Var) -> Result<Var> {
    binary(BinaryOp::Div, VarOperand::Var(a), VarOperand::Var(b))
}

/// The weak number `x`, as an operand.
fn number(x: f64) -> VarOperand<'static> {
    VarOperand::Scalar(Scalar::Float(x))
}

/// `a * s` for a number `s`.
fn scale(a: &Var, s: f64) -> Result<Var> {
    binary(BinaryOp::Mul, VarOperand::Var(a), number(s))
}

/// `a + s` for a number `s`.
fn shift(a: &Var, s: f64) -> Result<Var> {
    binary(BinaryOp::Add, VarOperand::Var(a), number(s))
}

/// `s - a` for a number `s`.
fn rsub(s: f64, a: &Var) -> Result<Var> {
    binary(BinaryOp::Sub, number(s), VarOperand::Var(a))
}

fn neg(a: &Var) -> Result<Var> {
    unary(UnaryOp::Neg, a)
}

/// Zeros shaped like `g`, still recorded as made from `g`: a derivative that is zero
/// (floor's, sign's) differentiates again to zero rather than to nothing.
fn zeros_from(g: &Var) -> Result<Var> {
    let never = Var::constant(crate::tensor::Tensor::scalar(false));
    where_(
        &never,
        VarOperand::Var(g),
        VarOperand::Scalar(Scalar::Int(0)),
    )
}

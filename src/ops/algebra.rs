//! The few tensor operations that compositions such as kron, cross, polyval, the
//! contractions (tensordot, vdot, inner, einsum), dot and the statistics cov,
//! corrcoef and average are written in, as a trait:
//! `Tensor` computes them; autograd's `Var` computes and records them. One
//! definition serves both, so a recorded result has the bits of the plain one.

use super::{binary, matmul, BinaryOp, Operand, ReduceOp, UnaryOp};
use crate::tensor::{DType, Scalar, Tensor, TensorError};

pub trait Algebra: Sized + Clone {
    type Error: From<TensorError>;

    fn dims(&self) -> &[usize];
    /// The numbers (to read a dtype, or check a value).
    fn values(&self) -> &Tensor;
    fn reshape_to(&self, dims: &[i64]) -> Result<Self, Self::Error>;
    fn permute_to(&self, dims: &[i64]) -> Result<Self, Self::Error>;
    fn broadcast_as(&self, shape: &[usize]) -> Result<Self, Self::Error>;
    /// Index `i` along `axis`, the axis removed (a view).
    fn pick(&self, axis: i64, i: i64) -> Result<Self, Self::Error>;
    fn combine(op: BinaryOp, a: &Self, b: &Self) -> Result<Self, Self::Error>;
    fn negate(&self) -> Result<Self, Self::Error>;
    fn matrix_product(a: &Self, b: &Self) -> Result<Self, Self::Error>;
    fn stack_along(parts: &[Self], axis: i64) -> Result<Self, Self::Error>;
    /// `t` as a constant.
    fn constant(t: Tensor) -> Self;
    /// Zeros of this shape and dtype (a constant).
    fn zeros_as(&self) -> Result<Self, Self::Error>;
    /// The diagonal `offset` of the planes of axes `a1` and `a2`, as the last axis.
    fn diagonal_of(&self, offset: i64, a1: i64, a2: i64) -> Result<Self, Self::Error>;
    /// The sum over `axes`, which are removed.
    fn sum_over(&self, axes: &[i64]) -> Result<Self, Self::Error>;
    /// The same values in a row-major buffer of their own.
    fn contiguous_copy(&self) -> Result<Self, Self::Error>;
    fn cast_to(&self, dtype: DType) -> Result<Self, Self::Error>;
    fn concat_along(parts: &[Self], axis: i64) -> Result<Self, Self::Error>;
    /// The reduction over `axes` (all when none).
    fn reduce_over(
        &self,
        op: ReduceOp,
        axes: Option<&[i64]>,
        keepdim: bool,
    ) -> Result<Self, Self::Error>;
    fn apply(&self, op: UnaryOp) -> Result<Self, Self::Error>;
    /// Each element times the number `s`.
    fn scaled(&self, s: f64) -> Result<Self, Self::Error>;
    /// Each element limited to [lo, hi] (NaN stays).
    fn clipped(&self, lo: f64, hi: f64) -> Result<Self, Self::Error>;
}

impl Algebra for Tensor {
    type Error = TensorError;

    fn dims(&self) -> &[usize] {
        self.shape()
    }
    fn values(&self) -> &Tensor {
        self
    }
    fn reshape_to(&self, dims: &[i64]) -> Result<Self, TensorError> {
        self.reshape(dims)
    }
    fn permute_to(&self, dims: &[i64]) -> Result<Self, TensorError> {
        self.permute(dims)
    }
    fn broadcast_as(&self, shape: &[usize]) -> Result<Self, TensorError> {
        self.broadcast_to(shape)
    }
    fn pick(&self, axis: i64, i: i64) -> Result<Self, TensorError> {
        self.select(axis, i)
    }
    fn combine(op: BinaryOp, a: &Self, b: &Self) -> Result<Self, TensorError> {
        binary(op, Operand::Tensor(a), Operand::Tensor(b))
    }
    fn negate(&self) -> Result<Self, TensorError> {
        super::unary(UnaryOp::Neg, self)
    }
    fn matrix_product(a: &Self, b: &Self) -> Result<Self, TensorError> {
        matmul(a, b)
    }
    fn stack_along(parts: &[Self], axis: i64) -> Result<Self, TensorError> {
        super::shape::stack(parts, axis)
    }
    fn constant(t: Tensor) -> Self {
        t
    }
    fn zeros_as(&self) -> Result<Self, TensorError> {
        Tensor::zeros(self.dtype(), self.shape())
    }
    fn diagonal_of(&self, offset: i64, a1: i64, a2: i64) -> Result<Self, TensorError> {
        super::rearrange::diagonal(self, offset, a1, a2)
    }
    fn sum_over(&self, axes: &[i64]) -> Result<Self, TensorError> {
        super::reduce(super::ReduceOp::Sum, self, Some(axes), false)
    }
    fn contiguous_copy(&self) -> Result<Self, TensorError> {
        Ok(self.contiguous())
    }
    fn cast_to(&self, dtype: DType) -> Result<Self, TensorError> {
        Ok(self.to_dtype(dtype))
    }
    fn concat_along(parts: &[Self], axis: i64) -> Result<Self, TensorError> {
        super::shape::concat(parts, axis)
    }
    fn reduce_over(
        &self,
        op: ReduceOp,
        axes: Option<&[i64]>,
        keepdim: bool,
    ) -> Result<Self, TensorError> {
        super::reduce(op, self, axes, keepdim)
    }
    fn apply(&self, op: UnaryOp) -> Result<Self, TensorError> {
        super::unary(op, self)
    }
    fn scaled(&self, s: f64) -> Result<Self, TensorError> {
        binary(
            BinaryOp::Mul,
            Operand::Tensor(self),
            Operand::Scalar(Scalar::Float(s)),
        )
    }
    fn clipped(&self, lo: f64, hi: f64) -> Result<Self, TensorError> {
        super::binary::clip(
            self,
            Some(Operand::Scalar(Scalar::Float(lo))),
            Some(Operand::Scalar(Scalar::Float(hi))),
        )
    }
}

//! `Var` as an `ops::algebra::Algebra`: each operation recorded, so the
//! compositions written once over that trait (kron, cross, polyval, tensordot,
//! vdot, inner, einsum, dot) record their gradients.

use super::shape::ALL;
use super::{binary, index, matmul, number, permute, reshape, stack, unary, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::algebra::Algebra;
use crate::ops::index::Index;
use crate::ops::{BinaryOp, ReduceOp, UnaryOp};
use crate::tensor::{DType, Tensor};

impl Algebra for Var {
    type Error = GradError;

    fn dims(&self) -> &[usize] {
        self.shape()
    }
    fn values(&self) -> &Tensor {
        self.tensor()
    }
    fn reshape_to(&self, dims: &[i64]) -> Result<Self> {
        reshape(self, dims)
    }
    fn permute_to(&self, dims: &[i64]) -> Result<Self> {
        permute(self, dims)
    }
    fn broadcast_as(&self, shape: &[usize]) -> Result<Self> {
        super::broadcast_to(self, shape)
    }
    fn pick(&self, axis: i64, i: i64) -> Result<Self> {
        let at = crate::tensor::shape::normalize_axis("select", axis, self.ndim())?;
        let mut items = vec![Index::Slice(ALL); at];
        items.push(Index::Int(i));
        index(self, &items).map_err(|e| GradError::Tensor(e.error))
    }
    fn combine(op: BinaryOp, a: &Self, b: &Self) -> Result<Self> {
        binary(op, VarOperand::Var(a), VarOperand::Var(b))
    }
    fn negate(&self) -> Result<Self> {
        unary(UnaryOp::Neg, self)
    }
    fn matrix_product(a: &Self, b: &Self) -> Result<Self> {
        matmul(a, b)
    }
    fn stack_along(parts: &[Self], axis: i64) -> Result<Self> {
        stack(parts, axis)
    }
    fn constant(t: Tensor) -> Self {
        Var::constant(t)
    }
    fn zeros_as(&self) -> Result<Self> {
        Ok(Var::constant(Tensor::zeros(self.dtype(), self.shape())?))
    }
    fn diagonal_of(&self, offset: i64, a1: i64, a2: i64) -> Result<Self> {
        super::moved("diagonal", self, |t| {
            crate::ops::rearrange::diagonal(t, offset, a1, a2)
        })
    }
    fn sum_over(&self, axes: &[i64]) -> Result<Self> {
        super::reduce(crate::ops::ReduceOp::Sum, self, Some(axes), false)
    }
    fn contiguous_copy(&self) -> Result<Self> {
        Ok(super::reshaped(
            "contiguous",
            self,
            self.tensor().contiguous(),
        ))
    }
    fn cast_to(&self, dtype: DType) -> Result<Self> {
        super::cast(self, dtype)
    }
    fn concat_along(parts: &[Self], axis: i64) -> Result<Self> {
        super::concat(parts, axis)
    }
    fn reduce_over(&self, op: ReduceOp, axes: Option<&[i64]>, keepdim: bool) -> Result<Self> {
        super::reduce(op, self, axes, keepdim)
    }
    fn apply(&self, op: UnaryOp) -> Result<Self> {
        unary(op, self)
    }
    fn scaled(&self, s: f64) -> Result<Self> {
        super::scale(self, s)
    }
    fn clipped(&self, lo: f64, hi: f64) -> Result<Self> {
        super::clip(self, Some(number(lo)), Some(number(hi)))
    }
}

//! Tensor operations: validate arguments, compute result shape and dtype, allocate,
//! and hand raw slices to `kernels`. One file per family.

pub mod binary;
pub mod create;
pub mod linalg;
pub mod reduce;
pub mod unary;

use crate::tensor::{Scalar, Tensor};

/// One side of a binary op: a tensor, or a weak scalar that adopts the tensor's dtype.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

pub use binary::{binary, BinaryOp};
pub use create::{arange, eye, full, linspace};
pub use linalg::matmul;
pub use reduce::{reduce, ReduceOp};
pub use unary::{unary, UnaryOp};

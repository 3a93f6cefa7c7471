//! Elementwise unary ops.

use crate::tensor::{Result, Tensor, TensorError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    /// Bitwise not on ints, logical not on bool.
    BitNot,
    Abs,
    Sqrt,
    Exp,
    Log,
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::BitNot => "bitwise_not",
            UnaryOp::Abs => "abs",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
        }
    }
}

pub fn unary(op: UnaryOp, a: &Tensor) -> Result<Tensor> {
    let _ = a;
    Err(TensorError::value(op.name(), "not implemented yet"))
}

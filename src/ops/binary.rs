//! Elementwise binary ops with NumPy broadcasting and PyTorch promotion.

use super::Operand;
use crate::tensor::{Result, Tensor, TensorError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// True division: integer inputs give the default float dtype.
    Div,
    /// Floors (NumPy `//`); integer division by zero is an error.
    FloorDiv,
    /// Result takes the divisor's sign (NumPy `%`).
    Rem,
    Pow,
    Maximum,
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Bitwise on ints, logical on bool.
    BitAnd,
    BitOr,
    BitXor,
}

impl BinaryOp {
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::FloorDiv => "floor_divide",
            BinaryOp::Rem => "remainder",
            BinaryOp::Pow => "pow",
            BinaryOp::Maximum => "maximum",
            BinaryOp::Minimum => "minimum",
            BinaryOp::Eq => "eq",
            BinaryOp::Ne => "ne",
            BinaryOp::Lt => "lt",
            BinaryOp::Le => "le",
            BinaryOp::Gt => "gt",
            BinaryOp::Ge => "ge",
            BinaryOp::BitAnd => "bitwise_and",
            BinaryOp::BitOr => "bitwise_or",
            BinaryOp::BitXor => "bitwise_xor",
        }
    }
}

/// `a op b`, broadcasting. At least one operand should be a tensor; two scalars
/// give a 0-d tensor of the scalars' default dtype.
pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Tensor> {
    let _ = (a, b);
    Err(TensorError::value(op.name(), "not implemented yet"))
}

//! Reductions over all elements or the given axes.

use crate::tensor::{Result, Tensor, TensorError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Mean,
    Max,
    Min,
    /// Index (i64) of the first maximum; one axis or the flattened tensor.
    ArgMax,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
        }
    }
}

/// `axes = None` reduces everything (a 0-d result unless `keepdim`).
pub fn reduce(op: ReduceOp, a: &Tensor, axes: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let _ = (a, axes, keepdim);
    Err(TensorError::value(op.name(), "not implemented yet"))
}

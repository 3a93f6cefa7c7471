//! Structured tensor errors: which op failed and the shapes/dtypes involved.
//! The interpreter turns these into diagnostics with spans and labels.

use std::fmt;

use super::dtype::DType;
use super::shape::shape_str;

#[derive(Clone, Debug, PartialEq)]
pub enum TensorError {
    /// Two shapes that do not broadcast together.
    Broadcast {
        op: String,
        lhs: Vec<usize>,
        rhs: Vec<usize>,
    },
    /// Shapes that are incompatible for a reason other than broadcasting (matmul, reshape, ...).
    Shape { op: String, msg: String },
    /// An axis outside `-ndim..ndim`.
    Axis { op: String, axis: i64, ndim: usize },
    /// An index outside a dimension.
    Index {
        op: String,
        index: i64,
        axis: usize,
        size: usize,
    },
    /// An op that does not accept this dtype.
    DType {
        op: String,
        dtype: DType,
        msg: String,
    },
    /// Anything else, e.g. integer division by zero.
    Value { op: String, msg: String },
}

impl TensorError {
    pub fn shape(op: &str, msg: impl Into<String>) -> Self {
        TensorError::Shape {
            op: op.to_string(),
            msg: msg.into(),
        }
    }

    pub fn dtype(op: &str, dtype: DType, msg: impl Into<String>) -> Self {
        TensorError::DType {
            op: op.to_string(),
            dtype,
            msg: msg.into(),
        }
    }

    pub fn value(op: &str, msg: impl Into<String>) -> Self {
        TensorError::Value {
            op: op.to_string(),
            msg: msg.into(),
        }
    }

    pub fn op(&self) -> &str {
        match self {
            TensorError::Broadcast { op, .. }
            | TensorError::Shape { op, .. }
            | TensorError::Axis { op, .. }
            | TensorError::Index { op, .. }
            | TensorError::DType { op, .. }
            | TensorError::Value { op, .. } => op,
        }
    }
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorError::Broadcast { op, lhs, rhs } => write!(
                f,
                "{op}: shapes {} and {} cannot be broadcast together",
                shape_str(lhs),
                shape_str(rhs)
            ),
            TensorError::Shape { op, msg } => write!(f, "{op}: {msg}"),
            TensorError::Axis { op, axis, ndim } => write!(
                f,
                "{op}: axis {axis} is out of bounds for a tensor of {ndim} dimension{}",
                if *ndim == 1 { "" } else { "s" }
            ),
            TensorError::Index {
                op,
                index,
                axis,
                size,
            } => write!(
                f,
                "{op}: index {index} is out of bounds for axis {axis} with size {size}"
            ),
            TensorError::DType { op, dtype, msg } => write!(f, "{op}: {msg} (dtype {dtype})"),
            TensorError::Value { op, msg } => write!(f, "{op}: {msg}"),
        }
    }
}

impl std::error::Error for TensorError {}

pub type Result<T> = std::result::Result<T, TensorError>;

//! The bridge from structured tensor errors to diagnostics with spans.

use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::tensor::shape::shape_str;
use crate::tensor::{budget, TensorError};

/// Turns a tensor error into a diagnostic at `span`; for broadcast errors the
/// operands' spans (when known) get labels naming their shapes.
pub fn tensor_diag(e: TensorError, span: Span, operands: &[Span]) -> Diagnostic {
    let kind = match &e {
        TensorError::Broadcast { .. } | TensorError::Shape { .. } | TensorError::Axis { .. } => {
            ErrorKind::Shape
        }
        TensorError::Index { .. } => ErrorKind::Index,
        TensorError::DType { .. } => ErrorKind::Type,
        TensorError::Value { msg, .. } if msg.contains(budget::LIMIT_HINT) => ErrorKind::Limit,
        TensorError::Value { .. } => ErrorKind::Value,
    };
    let d = match &e {
        TensorError::Broadcast { op, lhs, rhs } if operands.len() >= 2 => Diagnostic::new(
            span,
            format!(
                "{op}: shapes {} and {} cannot be broadcast together",
                shape_str(lhs),
                shape_str(rhs)
            ),
        )
        .with_label(
            operands[0],
            format!("left operand has shape {}", shape_str(lhs)),
        )
        .with_label(
            operands[1],
            format!("right operand has shape {}", shape_str(rhs)),
        )
        .with_note(
            "hint: shapes broadcast when their trailing dimensions are equal or one of them is 1",
        ),
        _ => Diagnostic::new(span, e.to_string()),
    };
    d.with_kind(kind)
}

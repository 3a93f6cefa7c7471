//! The bridge from structured tensor errors to diagnostics with spans.

use crate::diag::Diagnostic;
use crate::span::Span;
use crate::tensor::shape::shape_str;
use crate::tensor::TensorError;

/// Turns a tensor error into a diagnostic at `span`; for broadcast errors the
/// operands' spans (when known) get labels naming their shapes.
pub fn tensor_diag(e: TensorError, span: Span, operands: &[Span]) -> Diagnostic {
    match &e {
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
    }
}

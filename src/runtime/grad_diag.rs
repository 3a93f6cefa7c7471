//! The bridge from gradient errors to diagnostics with spans.

use crate::autograd::GradError;
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;

use super::tensor_diag::tensor_diag;

/// Turns a gradient error into a diagnostic at `span` (kind `grad`; a tensor error
/// inside a rule keeps its own kind).
pub fn grad_diag(e: GradError, span: Span) -> Diagnostic {
    match e {
        GradError::Tensor(e) => tensor_diag(e, span, &[]),
        other => Diagnostic::new(span, other.to_string()).with_kind(ErrorKind::Grad),
    }
}

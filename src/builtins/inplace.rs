//! In-place method forms: `x.exp_()`, `x.clip_(0, 1)`-style unary ops and `x.fill_(v)`
//! write into x's own storage (no new tensor when the storage is not shared).

use crate::diag::Diagnostic;
use crate::ops::shape::fill_inplace;
use crate::ops::unary::unary_inplace;
use crate::runtime::{tensor_diag, CallArgs};
use crate::tensor::Tensor;

use super::math::inplace_op;

/// True for method names that update their receiver in place.
pub fn is_inplace(method: &str) -> bool {
    method == "fill_" || inplace_op(method).is_some()
}

/// Applies the in-place method `method` with `args` (not including the receiver) to `t`.
pub fn apply(method: &str, t: &mut Tensor, args: CallArgs) -> Result<(), Diagnostic> {
    if let Some((name, span, _)) = args.keyword.first() {
        return Err(Diagnostic::new(
            *span,
            format!("{method}() has no parameter named `{name}`"),
        ));
    }
    if method == "fill_" {
        let [value] = args.positional.as_slice() else {
            return Err(Diagnostic::new(
                args.span,
                "fill_ takes one value: x.fill_(v)",
            ));
        };
        let scalar = value.value.as_scalar().ok_or_else(|| {
            Diagnostic::new(
                value.span,
                format!("fill_ needs a number, got {}", value.value.describe()),
            )
        })?;
        return fill_inplace(t, scalar).map_err(|e| tensor_diag(e, args.span, &[]));
    }
    if let Some(extra) = args.positional.first() {
        return Err(Diagnostic::new(
            extra.span,
            format!("{method}() takes no arguments"),
        ));
    }
    match inplace_op(method) {
        Some(op) => unary_inplace(op, t).map_err(|e| tensor_diag(e, args.span, &[])),
        None => Err(Diagnostic::new(
            args.span,
            format!("`{method}` is not an in-place method"),
        )),
    }
}

//! In-place method forms: `x.exp_()`, `x.clip_(0, 1)`-style unary ops and `x.fill_(v)`
//! write into x's own storage (no new tensor when the storage is not shared).

use crate::autograd::Var;
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::shape::fill_inplace;
use crate::ops::unary::unary_inplace;
use crate::runtime::{grad_diag, tensor_diag, CallArgs, Value};

use super::math::inplace_op;

/// True for method names that update their receiver in place.
pub fn is_inplace(method: &str) -> bool {
    method == "fill_" || method == "requires_grad_" || inplace_op(method).is_some()
}

/// Applies the in-place method `method` with `args` (not including the receiver) to `t`.
pub fn apply(method: &str, v: &mut Var, args: CallArgs) -> Result<(), Diagnostic> {
    if method == "requires_grad_" {
        return requires_grad(v, args);
    }
    let t = v.writable().map_err(|e| grad_diag(e, args.span))?;
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

/// `x.requires_grad_(requires_grad=true)`: x becomes a leaf that gradients flow to
/// (or, with false, a constant); torch's rule: only a leaf can be switched.
fn requires_grad(v: &mut Var, args: CallArgs) -> Result<(), Diagnostic> {
    let given = match (args.positional.as_slice(), args.keyword.as_slice()) {
        ([], []) => None,
        ([a], []) => Some(&a.value),
        ([], [(name, _, a)]) if name == "requires_grad" => Some(&a.value),
        _ => {
            return Err(Diagnostic::new(
                args.span,
                "requires_grad_ takes one argument: x.requires_grad_(requires_grad=true)",
            ))
        }
    };
    let on = match given {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(Diagnostic::new(
                args.span,
                format!(
                    "requires_grad_ needs true or false, got {}",
                    other.describe()
                ),
            ))
        }
    };
    if !v.is_leaf() {
        return Err(Diagnostic::new(
            args.span,
            format!(
                "requires_grad_ applies to leaves; this tensor was made by {} (use detach() first)",
                v.grad_fn().unwrap_or("an op")
            ),
        )
        .with_kind(ErrorKind::Grad));
    }
    *v = match (on, v.requires_grad()) {
        (true, true) => return Ok(()),
        (true, false) => Var::leaf(v.tensor().clone()).map_err(|e| grad_diag(e, args.span))?,
        (false, _) => v.detach(),
    };
    Ok(())
}

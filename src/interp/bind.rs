//! Binding `let` and `for` patterns.

use std::rc::Rc;

use crate::diag::{Diagnostic, ErrorKind};
use crate::runtime::value::Value;
use crate::runtime::{tensor_diag, Scope};
use crate::span::Span;
use crate::syntax::ast::Pattern;

use super::Interp;

impl Interp {
    /// Binds a `let`/`for` pattern in `scope`.
    pub(super) fn bind(
        &mut self,
        pattern: &Pattern,
        v: Value,
        span: Span,
        scope: &Rc<Scope>,
    ) -> Result<(), Diagnostic> {
        match pattern {
            Pattern::Name(id) => {
                scope.bind(id, v);
                Ok(())
            }
            Pattern::Tuple(pats, pspan) => {
                let items = unpack(&v, pats.len(), span, *pspan)?;
                for (p, item) in pats.iter().zip(items) {
                    self.bind(p, item, span, scope)?;
                }
                Ok(())
            }
        }
    }
}

/// The `n` items of `v` that a tuple of `n` names (written at `names`) takes: a
/// tuple's items or a tensor's rows.
pub(super) fn unpack(
    v: &Value,
    n: usize,
    span: Span,
    names: Span,
) -> Result<Vec<Value>, Diagnostic> {
    let items: Vec<Value> = match v {
        Value::Tuple(items) => items.to_vec(),
        Value::Tensor(t) if t.ndim() > 0 => (0..t.shape()[0] as i64)
            .map(|i| crate::autograd::rules::row(t, i).map(Value::from))
            .collect::<Result<_, _>>()
            .map_err(|e| tensor_diag(e, span, &[]))?,
        other => {
            return Err(Diagnostic::new(
                span,
                format!("cannot unpack {} into {n} names", other.describe()),
            )
            .with_label(names, "these names")
            .with_kind(ErrorKind::Type))
        }
    };
    if items.len() != n {
        return Err(Diagnostic::new(
            span,
            format!("cannot unpack {} values into {n} names", items.len()),
        )
        .with_label(names, format!("{n} names here"))
        .with_kind(ErrorKind::Value));
    }
    Ok(items)
}

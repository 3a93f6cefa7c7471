//! Binding `let` and `for` patterns.

use std::rc::Rc;

use crate::diag::Diagnostic;
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
                let items: Vec<Value> = match &v {
                    Value::Tuple(items) => items.to_vec(),
                    Value::Tensor(t) if t.ndim() > 0 => (0..t.shape()[0] as i64)
                        .map(|i| t.select(0, i).map(Value::from))
                        .collect::<Result<_, _>>()
                        .map_err(|e| tensor_diag(e, span, &[]))?,
                    other => {
                        return Err(Diagnostic::new(
                            span,
                            format!(
                                "cannot unpack {} into {} names",
                                other.describe(),
                                pats.len()
                            ),
                        )
                        .with_label(*pspan, "these names"))
                    }
                };
                if items.len() != pats.len() {
                    return Err(Diagnostic::new(
                        span,
                        format!(
                            "cannot unpack {} values into {} names",
                            items.len(),
                            pats.len()
                        ),
                    )
                    .with_label(*pspan, format!("{} names here", pats.len())));
                }
                for (p, item) in pats.iter().zip(items) {
                    self.bind(p, item, span, scope)?;
                }
                Ok(())
            }
        }
    }
}

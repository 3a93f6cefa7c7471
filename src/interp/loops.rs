//! `while` and `for` loops and their bodies.

use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::runtime::value::Value;
use crate::runtime::{tensor_diag, Scope};
use crate::span::Span;
use crate::syntax::ast::{Block, Expr, Pattern};

use super::eval::{Eval, Flow};
use super::Interp;

impl Interp {
    /// Runs a loop body; Ok(true) means it ran `break`. Each run counts a step, so
    /// even a loop with an empty body stops for the limits and Ctrl-C.
    #[inline(always)]
    pub(super) fn run_body(&mut self, body: &Block, scope: &Rc<Scope>) -> Result<bool, Flow> {
        self.step(body.span)?;
        match self.run_stmts(&body.stmts, scope) {
            Ok(()) | Err(Flow::Continue(_)) => Ok(false),
            Err(Flow::Break(_)) => Ok(true),
            Err(other) => Err(other),
        }
    }

    pub(super) fn while_loop(&mut self, cond: &Expr, body: &Block, scope: &Rc<Scope>) -> Eval {
        while self.truth(cond, scope)? {
            if self.in_block(body, scope, |this, _, inner| this.run_body(body, inner))? {
                break;
            }
        }
        Ok(Value::None)
    }

    pub(super) fn for_loop(
        &mut self,
        pattern: &Pattern,
        it: &Value,
        it_span: Span,
        body: &Block,
        scope: &Rc<Scope>,
    ) -> Eval {
        // Each iteration gets a fresh scope; the previous one is reused (cleared) unless
        // a closure made in the body still holds it.
        let mut inner = Scope::local(scope, &body.frame);
        if let (Value::Range(start, stop, by), Pattern::Name(var)) = (it, pattern) {
            // The common loop: the counter goes straight into the variable's slot.
            for i in range_values(*start, *stop, *by) {
                if Rc::strong_count(&inner) != 1 {
                    inner = Scope::local(scope, &body.frame);
                }
                inner.restart(var, i);
                if self.run_body(body, &inner)? {
                    break;
                }
            }
            return Ok(Value::None);
        }
        // Runs the body once with `item` bound; Ok(true) means `break`.
        let mut step = |this: &mut Interp, item: Value| -> Result<bool, Flow> {
            if Rc::strong_count(&inner) == 1 {
                inner.clear();
            } else {
                inner = Scope::local(scope, &body.frame);
            }
            this.bind(pattern, item, it_span, &inner)?;
            this.run_body(body, &inner)
        };
        match it {
            Value::Range(start, stop, by) => {
                for i in range_values(*start, *stop, *by) {
                    if step(self, Value::Int(i))? {
                        break;
                    }
                }
            }
            Value::Tensor(t) => {
                if t.ndim() == 0 {
                    return Err(Diagnostic::new(it_span, "cannot iterate over a 0-d tensor").into());
                }
                for i in 0..t.shape()[0] as i64 {
                    let row = t.select(0, i).map_err(|e| tensor_diag(e, it_span, &[]))?;
                    if step(self, Value::from(row))? {
                        break;
                    }
                }
            }
            Value::Tuple(items) => {
                for item in items.iter() {
                    if step(self, item.clone())? {
                        break;
                    }
                }
            }
            Value::Dict(d) => {
                for (k, _) in d.entries.iter() {
                    if step(self, k.to_value())? {
                        break;
                    }
                }
            }
            Value::Str(s) => {
                for c in s.chars() {
                    if step(self, Value::str(&c.to_string()))? {
                        break;
                    }
                }
            }
            other => {
                return Err(Diagnostic::new(
                    it_span,
                    format!("cannot iterate over {}", other.describe()),
                )
                .into())
            }
        }
        Ok(Value::None)
    }
}

/// The values of `range(start, stop, by)`, in order.
fn range_values(start: i64, stop: i64, by: i64) -> impl Iterator<Item = i64> {
    std::iter::successors(Some(start), move |i| i.checked_add(by))
        .take_while(move |&i| (by > 0 && i < stop) || (by < 0 && i > stop))
}

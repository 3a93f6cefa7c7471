//! `while` and `for` loops and their bodies.

use std::rc::Rc;

use crate::diag::{Diagnostic, ErrorKind};
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
        self.each_item(it, it_span, &mut step)?;
        Ok(Value::None)
    }

    /// Calls `f` with each item of `it` in `for`'s order (a range's ints, a tensor's
    /// rows, a tuple's items, a dict's keys, a string's characters) until it returns
    /// true (`break`). Items are made one at a time: a long range costs no memory.
    pub(super) fn each_item(
        &mut self,
        it: &Value,
        it_span: Span,
        f: &mut dyn FnMut(&mut Interp, Value) -> Result<bool, Flow>,
    ) -> Result<(), Flow> {
        match it {
            Value::Range(start, stop, by) => {
                for i in range_values(*start, *stop, *by) {
                    if f(self, Value::Int(i))? {
                        break;
                    }
                }
            }
            Value::Tensor(t) => {
                if t.ndim() == 0 {
                    return Err(Diagnostic::new(it_span, "cannot iterate over a 0-d tensor").into());
                }
                for i in 0..t.shape()[0] as i64 {
                    let row = crate::autograd::rules::row(t, i)
                        .map_err(|e| tensor_diag(e, it_span, &[]))?;
                    if f(self, Value::from(row))? {
                        break;
                    }
                }
            }
            Value::Tuple(items) => {
                for item in items.iter() {
                    if f(self, item.clone())? {
                        break;
                    }
                }
            }
            Value::Dict(d) => {
                for (k, _) in d.entries.iter() {
                    if f(self, k.to_value())? {
                        break;
                    }
                }
            }
            Value::Str(s) => {
                for c in s.chars() {
                    if f(self, Value::str(&c.to_string()))? {
                        break;
                    }
                }
            }
            other => {
                return Err(Diagnostic::new(
                    it_span,
                    format!("cannot iterate over {}", other.describe()),
                )
                .with_kind(ErrorKind::Type)
                .into())
            }
        }
        Ok(())
    }
}

/// The values of `range(start, stop, by)`, in order.
fn range_values(start: i64, stop: i64, by: i64) -> impl Iterator<Item = i64> {
    std::iter::successors(Some(start), move |i| i.checked_add(by))
        .take_while(move |&i| (by > 0 && i < stop) || (by < 0 && i > stop))
}

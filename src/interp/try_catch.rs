//! `try { ... } catch e { ... }`: a runtime error in the body runs the handler with
//! `e` bound to a dict of the error's `message` and `kind` (read as `e.message`,
//! `e.kind`). Ctrl-C, `--timeout`, the session's limits, syntax errors and
//! `exit()` are not caught: they must end the run.

use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::runtime::value::{Dict, Key, Value};
use crate::runtime::Scope;
use crate::syntax::ast::TryCatch;
use crate::tensor::budget;

use super::eval::{Eval, Flow};
use super::Interp;

impl Interp {
    pub(super) fn try_catch(&mut self, t: &TryCatch, scope: &Rc<Scope>) -> Eval {
        match self.eval_block(&t.body, scope) {
            Err(Flow::Error(d)) if catchable(&d) => {
                let inner = Scope::local(scope, &t.handler.frame);
                inner.bind(&t.name, caught(&d));
                self.eval_stmts(&t.handler.stmts, &inner)
            }
            other => other,
        }
    }
}

/// Whether `try` may catch `d`: its kind allows it, and it is not the memory limit
/// (which files and tensors both report, by the limit's own words).
fn catchable(d: &Diagnostic) -> bool {
    d.kind.catchable() && !d.message.contains(budget::LIMIT_HINT)
}

/// The caught error as the handler sees it: `{"message": ..., "kind": ...}`.
fn caught(d: &Diagnostic) -> Value {
    let mut e = Dict::default();
    e.insert(Key::Str(Rc::from("message")), Value::str(&d.message));
    e.insert(Key::Str(Rc::from("kind")), Value::str(d.kind.name()));
    Value::Dict(Rc::new(e))
}

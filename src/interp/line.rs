//! A REPL line as one unit: a line that Ctrl-C (or the clock) stops leaves the
//! session's variables as they were before it. The globals are snapshotted before
//! the line (values are shared, so this copies no data) and put back when the line is
//! stopped. A tensor the line changed in place (`x[i] = v`, `x += y`, `x.fill_(v)`)
//! keeps its changes: holding its old value would make every such write copy the
//! whole tensor first.

use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::runtime::Value;
use crate::syntax::ast::Ident;

use super::Interp;

/// The session before the running line.
pub(super) struct LineStart {
    globals: Vec<(Rc<str>, Option<Value>)>,
    /// Variables changed in place: kept as they are when the line is undone.
    in_place: Vec<Rc<str>>,
}

impl Interp {
    /// Parses and runs one REPL line like [`Interp::run`]; when the line is stopped
    /// by Ctrl-C or a time limit, every variable is put back to its value from before
    /// the line (names it defined are gone), except tensors changed in place.
    pub fn run_line(&mut self, name: &str, text: &str) -> Result<Value, Vec<Diagnostic>> {
        self.line = Some(LineStart {
            globals: self.globals.snapshot(),
            in_place: Vec::new(),
        });
        self.stopped = false;
        let result = self.run(name, text, None);
        if let (Some(start), true) = (self.line.take(), self.stopped) {
            self.undo_line(start);
        }
        result
    }

    /// Notes that `var` is about to change in place (see the module docs).
    pub(super) fn changing_in_place(&mut self, var: &Ident) {
        if let Some(start) = &mut self.line {
            // Once is enough: a loop writing `x[i] = v` would otherwise grow the list.
            if !start
                .in_place
                .iter()
                .any(|n| Rc::ptr_eq(n, &var.name) || *n == var.name)
            {
                start.in_place.push(var.name.clone());
            }
        }
    }

    fn undo_line(&mut self, mut start: LineStart) {
        for name in &start.in_place {
            let now = self.globals.lookup(name);
            if let Some(slot) = start.globals.iter_mut().find(|(n, _)| n == name) {
                if matches!(now, Some(Value::Tensor(_))) {
                    slot.1 = now;
                }
            }
        }
        self.globals.restore(start.globals);
    }
}

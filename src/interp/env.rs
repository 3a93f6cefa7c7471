//! Lexical scopes: a chain from the innermost block to the module's globals.

use std::cell::RefCell;
use std::rc::Rc;

use super::value::Value;

#[derive(Debug, Default)]
pub struct Scope {
    // A short Vec beats a hash map for the handful of names a block defines.
    vars: RefCell<Vec<(Rc<str>, Value)>>,
    parent: Option<Rc<Scope>>,
}

impl Scope {
    pub fn new(parent: Option<Rc<Scope>>) -> Rc<Scope> {
        Rc::new(Scope {
            vars: RefCell::new(Vec::new()),
            parent,
        })
    }

    /// `let`: binds in this scope, shadowing any outer binding.
    pub fn define(&self, name: &str, value: Value) {
        let mut vars = self.vars.borrow_mut();
        match vars.iter_mut().find(|(n, _)| &**n == name) {
            Some(slot) => slot.1 = value,
            None => vars.push((Rc::from(name), value)),
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Value> {
        let mut scope = self;
        loop {
            if let Some((_, v)) = scope.vars.borrow().iter().find(|(n, _)| &**n == name) {
                return Some(v.clone());
            }
            scope = scope.parent.as_deref()?;
        }
    }

    /// Runs `f` on the nearest binding of `name`, if there is one.
    fn with_binding<R>(&self, name: &str, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let mut scope = self;
        loop {
            if let Some(slot) = scope
                .vars
                .borrow_mut()
                .iter_mut()
                .find(|(n, _)| &**n == name)
            {
                return Some(f(&mut slot.1));
            }
            scope = scope.parent.as_deref()?;
        }
    }

    /// Assignment: replaces the nearest binding. Returns false when the name is unbound.
    pub fn set(&self, name: &str, value: Value) -> bool {
        self.with_binding(name, |slot| *slot = value).is_some()
    }

    /// Moves a value out of its binding (leaving `none`) so it can be updated in
    /// place without a second reference forcing a copy-on-write. Put it back with `set`.
    pub fn take(&self, name: &str) -> Option<Value> {
        self.with_binding(name, std::mem::take)
    }

    pub fn parent(&self) -> Option<Rc<Scope>> {
        self.parent.clone()
    }

    /// Names bound in this scope (not its parents), in definition order.
    pub fn entries(&self) -> Vec<(Rc<str>, Value)> {
        self.vars.borrow().clone()
    }
}

//! Lexical scopes: a chain from the innermost block to the module's globals.

use std::cell::RefCell;
use std::rc::Rc;

use super::value::Value;

#[derive(Debug, Default)]
pub struct Scope {
    // A short Vec beats a hash map for the handful of names a block defines. `None`
    // marks a name a reused loop scope had bound in an earlier iteration (see `clear`).
    vars: RefCell<Vec<(Rc<str>, Option<Value>)>>,
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
    pub fn define(&self, name: &Rc<str>, value: Value) {
        let mut vars = self.vars.borrow_mut();
        match vars.iter_mut().find(|(n, _)| **n == **name) {
            Some(slot) => slot.1 = Some(value),
            None => vars.push((name.clone(), Some(value))),
        }
    }

    /// Unbinds every name but keeps the slots, so a loop body that runs again in this
    /// scope binds its names without allocating.
    pub fn clear(&self) {
        for slot in self.vars.borrow_mut().iter_mut() {
            slot.1 = None;
        }
    }

    pub fn lookup(&self, name: &str) -> Option<Value> {
        self.with_value(name, Value::clone)
    }

    /// Runs `f` on the value of the nearest binding of `name` without cloning it (an
    /// operand of `a + b` need not be copied). `f` must not touch the scopes.
    pub fn with_value<R>(&self, name: &str, f: impl FnOnce(&Value) -> R) -> Option<R> {
        let mut scope = self;
        loop {
            let vars = scope.vars.borrow();
            if let Some((_, Some(v))) = vars.iter().find(|(n, v)| v.is_some() && &**n == name) {
                return Some(f(v));
            }
            scope = scope.parent.as_deref()?;
        }
    }

    /// Runs `f` on the nearest binding of `name`, if there is one. `f` must not touch
    /// the scopes.
    pub fn with_binding<R>(&self, name: &str, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let mut scope = self;
        loop {
            if let Some(slot) = scope
                .vars
                .borrow_mut()
                .iter_mut()
                .find(|(n, v)| v.is_some() && &**n == name)
            {
                return slot.1.as_mut().map(f);
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
        let vars = self.vars.borrow();
        vars.iter()
            .filter_map(|(n, v)| Some((n.clone(), v.clone()?)))
            .collect()
    }
}

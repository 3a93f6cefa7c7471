//! Lexical scopes: a chain from the innermost block to the module's globals.
//!
//! A local scope starts with a slot for each name its block binds (its [`Frame`]),
//! unbound until the binding runs, so a resolved variable ([`Binding`]) is found by
//! index; the globals grow as names are defined and are searched by name.

use std::cell::RefCell;
use std::rc::Rc;

use crate::syntax::ast::{Binding, Frame, Ident};

use super::value::Value;

#[derive(Debug, Default)]
pub struct Scope {
    // A short Vec beats a hash map for the handful of names a block defines. `None`
    // marks a name not bound (yet, or again: see `clear`).
    vars: RefCell<Vec<(Rc<str>, Option<Value>)>>,
    parent: Option<Rc<Scope>>,
}

impl Scope {
    /// A global scope: a session's or a module's.
    pub fn globals() -> Rc<Scope> {
        Rc::new(Scope::default())
    }

    /// A local scope inside `parent` with the slots of `frame`, all unbound.
    pub fn local(parent: &Rc<Scope>, frame: &Frame) -> Rc<Scope> {
        Rc::new(Scope {
            vars: RefCell::new(frame.iter().map(|n| (n.clone(), None)).collect()),
            parent: Some(parent.clone()),
        })
    }

    /// `let`: binds in this scope, shadowing any outer binding.
    pub fn define(&self, name: &Rc<str>, value: Value) {
        let mut vars = self.vars.borrow_mut();
        match vars
            .iter_mut()
            .find(|(n, _)| Rc::ptr_eq(n, name) || **n == **name)
        {
            Some(slot) => slot.1 = Some(value),
            None => vars.push((name.clone(), Some(value))),
        }
    }

    /// Binds a name a statement of this scope's block binds: in its slot, or by name
    /// in the globals.
    #[inline]
    pub fn bind(&self, id: &Ident, value: Value) {
        match id.at.locals.first() {
            Some(slot) => self.vars.borrow_mut()[slot.index].1 = Some(value),
            None => self.define(&id.name, value),
        }
    }

    /// Unbinds every name but keeps the slots, so a loop body that runs again in this
    /// scope binds its names without allocating.
    pub fn clear(&self) {
        for slot in self.vars.borrow_mut().iter_mut() {
            slot.1 = None;
        }
    }

    /// The nearest binding of `name`, searched by name (module members, the REPL's
    /// commands, a method's function).
    pub fn lookup(&self, name: &str) -> Option<Value> {
        let mut scope = self;
        loop {
            let vars = scope.vars.borrow();
            if let Some((_, Some(v))) = vars.iter().find(|(n, v)| v.is_some() && &**n == name) {
                return Some(v.clone());
            }
            scope = scope.parent.as_deref()?;
        }
    }

    /// The value of a variable.
    #[inline]
    pub fn get(&self, var: &Ident) -> Option<Value> {
        self.with_value(var, Value::clone)
    }

    /// Runs `f` on the value of a variable without cloning it (an operand of `a + b`
    /// need not be copied). `f` must not touch the scopes.
    #[inline]
    pub fn with_value<R>(&self, var: &Ident, f: impl FnOnce(&Value) -> R) -> Option<R> {
        let (scope, i) = self.locate(var)?;
        let vars = scope.vars.borrow();
        vars[i].1.as_ref().map(f)
    }

    /// Runs `f` on a variable's binding, if it is bound. `f` must not touch the scopes.
    #[inline]
    pub fn with_binding<R>(&self, var: &Ident, f: impl FnOnce(&mut Value) -> R) -> Option<R> {
        let (scope, i) = self.locate(var)?;
        let mut vars = scope.vars.borrow_mut();
        vars[i].1.as_mut().map(f)
    }

    /// Assignment: replaces the nearest binding. Returns false when the name is unbound.
    pub fn set(&self, var: &Ident, value: Value) -> bool {
        self.with_binding(var, |slot| *slot = value).is_some()
    }

    /// Moves a value out of its binding (leaving `none`) so it can be updated in
    /// place without a second reference forcing a copy-on-write. Put it back with `set`.
    pub fn take(&self, var: &Ident) -> Option<Value> {
        self.with_binding(var, std::mem::take)
    }

    /// The scope and slot index of a variable's nearest binding: the first of its
    /// local slots that is bound, else the global of its name.
    #[inline]
    fn locate(&self, var: &Ident) -> Option<(&Scope, usize)> {
        for slot in &var.at.locals {
            let mut scope = self;
            for _ in 0..slot.hops {
                scope = scope.parent.as_deref()?;
            }
            if matches!(scope.vars.borrow().get(slot.index), Some((_, Some(_)))) {
                return Some((scope, slot.index));
            }
        }
        let mut root = self;
        while let Some(p) = root.parent.as_deref() {
            root = p;
        }
        root.global_index(&var.name, &var.at)
    }

    /// Where a bound global is among the globals, trying the binding's hint first.
    #[inline]
    fn global_index(&self, name: &Rc<str>, at: &Binding) -> Option<(&Scope, usize)> {
        let vars = self.vars.borrow();
        let hint = at.global_hint.get();
        if let Some((n, Some(_))) = vars.get(hint) {
            if Rc::ptr_eq(n, name) || **n == **name {
                return Some((self, hint));
            }
        }
        let i = vars
            .iter()
            .position(|(n, v)| v.is_some() && **n == **name)?;
        at.global_hint.set(i);
        Some((self, i))
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

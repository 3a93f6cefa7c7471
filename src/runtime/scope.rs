//! Lexical scopes: a chain from the innermost block to the module's globals.
//!
//! A local scope starts with a slot for each name its block binds (its [`Frame`]),
//! unbound until the binding runs, so a resolved variable (its
//! [`Binding`](crate::syntax::ast::Binding)) is found by index; the globals grow as
//! names are defined and are searched by name.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

use crate::syntax::ast::{Frame, Ident};

use super::value::Value;

/// A name of a scope and its value. `None` marks a name not bound (yet, or again: see
/// `clear`).
type Var = (Rc<str>, Option<Value>);

#[derive(Debug, Default)]
pub struct Scope {
    // A short Vec beats a hash map for the handful of names a block defines.
    vars: RefCell<Vec<Var>>,
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
    #[inline]
    pub fn clear(&self) {
        for slot in self.vars.borrow_mut().iter_mut() {
            slot.1 = None;
        }
    }

    /// Starts another run of a `for` body over a range in this scope, kept from the
    /// previous run: every name unbound but the loop variable `var`, bound to `value`.
    #[inline]
    pub fn restart(&self, var: &Ident, value: i64) {
        let at = var.at.locals.first().map(|s| s.index);
        for (i, slot) in self.vars.borrow_mut().iter_mut().enumerate() {
            match &mut slot.1 {
                // Still the int of the previous run: only the number changes.
                Some(Value::Int(n)) if Some(i) == at => *n = value,
                binding if Some(i) == at => *binding = Some(Value::Int(value)),
                binding => *binding = None,
            }
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
        self.value(var).map(|v| v.clone())
    }

    /// The value of a variable, borrowed rather than cloned (an operand of `a + b`
    /// need not be copied). No scope may be changed while it is held.
    #[inline(always)]
    pub fn value(&self, var: &Ident) -> Option<Ref<'_, Value>> {
        self.nearest(var, |scope, slot| {
            Ref::filter_map(scope.vars.borrow(), |vars| {
                vars.get(slot.or_else(|| global_index(vars, var))?)?
                    .1
                    .as_ref()
            })
            .ok()
        })
    }

    /// A variable's binding, to update in place (`s += 1`). No scope may be read or
    /// changed while it is held.
    #[inline(always)]
    pub fn binding(&self, var: &Ident) -> Option<RefMut<'_, Value>> {
        self.nearest(var, |scope, slot| {
            RefMut::filter_map(scope.vars.borrow_mut(), |vars| {
                let i = slot.or_else(|| global_index(vars, var))?;
                vars.get_mut(i)?.1.as_mut()
            })
            .ok()
        })
    }

    /// Opens a variable's nearest binding with `open`: the first of its local slots
    /// that is bound (`open` gets the slot's scope and index), else the global of its
    /// name (`open` gets the globals and no index).
    #[inline(always)]
    fn nearest<'a, G>(
        &'a self,
        var: &Ident,
        open: impl Fn(&'a Scope, Option<usize>) -> Option<G>,
    ) -> Option<G> {
        for slot in &var.at.locals {
            if let Some(found) = open(self.up(slot.hops)?, Some(slot.index)) {
                return Some(found);
            }
        }
        open(self.root(), None)
    }

    /// Assignment: replaces the nearest binding. Returns false when the name is unbound.
    pub fn set(&self, var: &Ident, value: Value) -> bool {
        self.binding(var).map(|mut slot| *slot = value).is_some()
    }

    /// Moves a value out of its binding (leaving `none`) so it can be updated in
    /// place without a second reference forcing a copy-on-write. Put it back with `set`.
    pub fn take(&self, var: &Ident) -> Option<Value> {
        self.binding(var).map(|mut slot| std::mem::take(&mut *slot))
    }

    /// The scope `hops` up the chain.
    #[inline(always)]
    fn up(&self, hops: usize) -> Option<&Scope> {
        let mut scope = self;
        for _ in 0..hops {
            scope = scope.parent.as_deref()?;
        }
        Some(scope)
    }

    /// The global scope at the end of the chain.
    #[inline]
    fn root(&self) -> &Scope {
        let mut root = self;
        while let Some(p) = root.parent.as_deref() {
            root = p;
        }
        root
    }

    pub fn parent(&self) -> Option<Rc<Scope>> {
        self.parent.clone()
    }

    /// Every name of this scope with its binding, to put back with [`Scope::restore`].
    /// Values are shared, not copied.
    pub fn snapshot(&self) -> Vec<(Rc<str>, Option<Value>)> {
        self.vars.borrow().clone()
    }

    /// Puts back the names and bindings of a [`Scope::snapshot`]: names bound since
    /// are gone, names changed since have their old values.
    pub fn restore(&self, vars: Vec<(Rc<str>, Option<Value>)>) {
        *self.vars.borrow_mut() = vars;
    }

    /// Moves the bound values that `which` picks out, leaving their names unbound.
    pub(super) fn take_values(&mut self, which: impl Fn(&Value) -> bool) -> Vec<Value> {
        let vars = self.vars.get_mut();
        vars.iter_mut()
            .filter_map(|(_, v)| v.take_if(|v| which(v)))
            .collect()
    }

    /// Names bound in this scope (not its parents), in definition order.
    pub fn entries(&self) -> Vec<(Rc<str>, Value)> {
        let vars = self.vars.borrow();
        vars.iter()
            .filter_map(|(n, v)| Some((n.clone(), v.clone()?)))
            .collect()
    }
}

/// Where a variable's bound global is among the globals `vars`, trying the binding's
/// hint first. (A variable none of whose local slots is bound is a global.)
#[inline]
fn global_index(vars: &[Var], var: &Ident) -> Option<usize> {
    let (name, hint) = (&var.name, var.at.global_hint.get());
    if let Some((n, Some(_))) = vars.get(hint) {
        if Rc::ptr_eq(n, name) || **n == **name {
            return Some(hint);
        }
    }
    let i = vars
        .iter()
        .position(|(n, v)| v.is_some() && **n == **name)?;
    var.at.global_hint.set(i);
    Some(i)
}

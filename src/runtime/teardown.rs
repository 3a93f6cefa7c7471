//! Dropping values nested as deep as memory allows (`t = (t,)` or `d = {"a": d}` in a
//! loop, closures wrapping closures) without recursing as deep: a tuple, dict or scope
//! being dropped hands its contents to a queue that the outermost drop empties in a
//! loop, so the native stack holds at most a few drops at a time, however deep the
//! value.

use std::cell::{Cell, RefCell};

use super::scope::Scope;
use super::value::{Dict, Items, Value};

thread_local! {
    /// Whether a drop on this thread is emptying the queue.
    static EMPTYING: Cell<bool> = const { Cell::new(false) };
    /// Values whose drop was put off by a drop further up the stack.
    static QUEUE: RefCell<Vec<Value>> = const { RefCell::new(Vec::new()) };
}

/// Drops `values`, the contents of a container being dropped: at once when no other
/// drop is emptying the queue (each value's own contents then join the queue),
/// otherwise later, by that drop.
fn drop_flat(values: Vec<Value>) {
    if values.is_empty() {
        return;
    }
    if EMPTYING.with(|e| e.replace(true)) {
        QUEUE.with(|q| q.borrow_mut().extend(values));
        return;
    }
    let mut work = values;
    while let Some(v) = work.pop() {
        drop(v);
        QUEUE.with(|q| work.append(&mut q.borrow_mut()));
    }
    EMPTYING.with(|e| e.set(false));
}

impl Drop for Items {
    fn drop(&mut self) {
        drop_flat(self.take_all());
    }
}

impl Drop for Dict {
    fn drop(&mut self) {
        let entries = std::mem::take(&mut self.entries);
        drop_flat(entries.into_values().collect());
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        // A call's scope is dropped at every return: only what can nest is queued, so
        // the common scope of numbers and tensors allocates nothing here.
        drop_flat(self.take_values(nests));
    }
}

/// Whether dropping `v` can drop further values that nest (a closure holds its scope,
/// a module its globals).
fn nests(v: &Value) -> bool {
    matches!(
        v,
        Value::Tuple(_) | Value::Dict(_) | Value::Func(_) | Value::Module(_)
    )
}

#[cfg(test)]
mod tests {
    use std::rc::Rc;

    use super::*;
    use crate::runtime::value::Key;

    #[test]
    fn a_million_nested_tuples_and_dicts_drop_on_a_small_stack() {
        let deep = || {
            let mut t = Value::Int(0);
            for _ in 0..1_000_000 {
                t = Value::Tuple(Rc::new(vec![t, Value::Int(1)].into()));
            }
            drop(t);
            let mut d = Value::None;
            for i in 0..1_000_000 {
                let mut dict = Dict::default();
                dict.insert(Key::Int(i), d);
                d = Value::Dict(Rc::new(dict));
            }
            drop(d);
        };
        let thread = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(deep);
        thread.unwrap().join().unwrap();
    }
}

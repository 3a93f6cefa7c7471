//! Reading a dict as Python's dict methods do (`d.keys()` is `keys(d)`): keys,
//! values, items and get, in insertion order. (The methods that change a dict,
//! `pop` and `update`, are the evaluator's: they update the variable.)

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::runtime::builtin;
use crate::runtime::value::{Dict, Key, Value};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "keys",
        doc: "A dict's keys, as a tuple in insertion order.",
        fn(_, _a; d: &Dict) {
            Ok(tuple(d.iter().map(|(k, _)| k.to_value()).collect()))
        }
    },
    builtin! {
        name: "values",
        doc: "A dict's values, as a tuple in insertion order.",
        fn(_, a; d: &Dict) {
            let values = d.iter().map(|(_, v)| taken_out(&a, v)).collect::<Result<_, _>>()?;
            Ok(tuple(values))
        }
    },
    builtin! {
        name: "items",
        doc: "A dict's (key, value) pairs, as a tuple of 2-tuples in insertion order.",
        fn(_, a; d: &Dict) {
            let pairs = d
                .iter()
                .map(|(k, v)| Ok(tuple(vec![k.to_value(), taken_out(&a, v)?])))
                .collect::<Result<_, Diagnostic>>()?;
            Ok(tuple(pairs))
        }
    },
    builtin! {
        name: "get",
        doc: "The value of key in d, or default (none) when d has no such key.",
        fn(_, a; d: &Dict, key: &Value, default: Option<&Value> = none) {
            let k = Key::from_value(key).ok_or_else(|| {
                let got = key.describe();
                a.arg_err("key", format!("get: dict keys are strings, ints or bools, not {got}"))
            })?;
            match d.get(&k) {
                Some(v) => taken_out(&a, v),
                None => Ok(default.cloned().unwrap_or_default()),
            }
        }
    },
];

fn tuple(items: Vec<Value>) -> Value {
    Value::Tuple(Rc::new(items.into()))
}

/// A value as it comes out of its dict: a tensor of a mapped file is read now, as
/// `d[k]` reads it.
fn taken_out(a: &Bound, v: &Value) -> Result<Value, Diagnostic> {
    match v {
        Value::Lazy(l) => l.force().map_err(|e| a.err(e)),
        other => Ok(other.clone()),
    }
}

//! The safety net under every builtin: when an argument is tracked for gradients,
//! a float tensor the builtin returns untracked is a constant only if the builtin
//! says so; otherwise it is marked as made by an op without a gradient, so that a
//! gradient reaching it is an error naming the builtin, never a silent zero.

use std::rc::Rc;

use crate::autograd::{self, Var};

use super::args::CallArgs;
use super::native::{Builtin, Grad};
use super::value::{deeper, Dict, Items, Value};

/// The tracked tensors among the arguments (inside tuples and dicts too); empty
/// when grad mode is off or nothing on this thread is tracked.
pub fn tracked_args(args: &CallArgs) -> Vec<Var> {
    let mut found = Vec::new();
    if autograd::enabled() && autograd::any_alive() {
        let values = args
            .positional
            .iter()
            .chain(args.keyword.iter().map(|(_, _, a)| a));
        for a in values {
            collect(&a.value, &mut found);
        }
    }
    found
}

fn collect(v: &Value, found: &mut Vec<Var>) {
    match v {
        Value::Tensor(t) if t.is_tracked() => found.push((**t).clone()),
        Value::Tuple(items) => deeper(|| items.iter().for_each(|v| collect(v, found))),
        Value::Dict(d) => deeper(|| d.iter().for_each(|(_, v)| collect(v, found))),
        _ => {}
    }
}

/// `out` with each untracked float tensor in it made by `b` from `tracked`.
pub fn mark_untracked(b: &'static Builtin, tracked: &[Var], out: Value) -> Value {
    if tracked.is_empty() || b.grad == Grad::Constant {
        return out;
    }
    let inputs: Vec<&Var> = tracked.iter().collect();
    mark(b.name, &inputs, out)
}

fn mark(name: &'static str, inputs: &[&Var], v: Value) -> Value {
    match v {
        Value::Tensor(t) if !t.is_tracked() && t.dtype().is_float() => {
            Value::from(autograd::opaque(name, inputs, t.into_tensor()))
        }
        Value::Tuple(items) => {
            let items: Items = items
                .iter()
                .map(|v| deeper(|| mark(name, inputs, v.clone())))
                .collect();
            Value::Tuple(Rc::new(items))
        }
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                out.insert(k.clone(), deeper(|| mark(name, inputs, v.clone())));
            }
            Value::Dict(Rc::new(out))
        }
        other => other,
    }
}

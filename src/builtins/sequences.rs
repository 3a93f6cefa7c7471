//! Python's sequence builtins over anything `for` iterates (tuples, ranges, tensor
//! rows, strings, dict keys): `sorted reversed enumerate zip map filter`, each giving
//! a tuple; and the sequence forms of `sum min max any all` (a tuple or a range;
//! a tensor still reduces).

use std::cmp::Ordering;
use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::iterate::{items, NotIterable};
use crate::runtime::order::{compare, sort_by};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Ctx, Rest};
use crate::syntax::ast::BinOp;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "sorted",
        doc: "The items of xs as a tuple in ascending order (stable; numbers by value with NaN last, strings by code point, tuples item by item); key= maps each item first, reverse=true sorts descending (still stable).",
        fn(ctx, a; xs: &Value, key: Option<&Value> = none, reverse: bool = false) {
            let items = items_of(&a, "xs", xs)?;
            let keys = match key {
                Some(f) => items.iter().map(|x| ctx.call(f, vec![x.clone()], a.span)).collect::<Result<Vec<_>, _>>()?,
                None => items.clone(),
            };
            let mut order: Vec<usize> = (0..items.len()).collect();
            let mut cmp = |i: &usize, j: &usize| {
                let o = compare(&keys[*i], &keys[*j])?;
                Ok(if reverse { o.reverse() } else { o })
            };
            sort_by(&mut order, &mut cmp).map_err(|m| a.arg_err("xs", format!("sorted: {m}")))?;
            Ok(tuple(order.into_iter().map(|i| items[i].clone()).collect()))
        }
    },
    builtin! {
        name: "reversed",
        doc: "The items of xs as a tuple, last first.",
        fn(_, a; xs: &Value) {
            let mut items = items_of(&a, "xs", xs)?;
            items.reverse();
            Ok(tuple(items))
        }
    },
    builtin! {
        name: "enumerate",
        doc: "The pairs (i, item) of xs as a tuple, i counting from start.",
        fn(_, a; xs: &Value, start: i64 = 0) {
            let items = items_of(&a, "xs", xs)?;
            let pairs = items.into_iter().zip(start..).map(|(x, i)| tuple(vec![Value::Int(i), x]));
            Ok(tuple(pairs.collect()))
        }
    },
    builtin! {
        name: "zip",
        doc: "Tuples of the i-th items of each sequence, as many as the shortest has: `zip(xs, ys)`.",
        fn(_, a; seqs: Rest) {
            let columns = seqs.0.iter().map(|s| items_at(&a, s)).collect::<Result<Vec<_>, _>>()?;
            let n = columns.iter().map(Vec::len).min().unwrap_or(0);
            let rows = (0..n).map(|i| tuple(columns.iter().map(|c| c[i].clone()).collect()));
            Ok(tuple(rows.collect()))
        }
    },
    builtin! {
        name: "map",
        doc: "f applied to each item of a sequence, as a tuple; with several sequences, f(x, y, ...) of their i-th items, as many as the shortest has.",
        fn(ctx, a; f: &Value, seqs: Rest) {
            if seqs.0.is_empty() {
                return Err(a.err("map: give a function and at least one sequence"));
            }
            let columns = seqs.0.iter().map(|s| items_at(&a, s)).collect::<Result<Vec<_>, _>>()?;
            let n = columns.iter().map(Vec::len).min().unwrap_or(0);
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                let args = columns.iter().map(|c| c[i].clone()).collect();
                out.push(ctx.call(f, args, a.span)?);
            }
            Ok(tuple(out))
        }
    },
    builtin! {
        name: "filter",
        doc: "The items x of xs for which f(x) is true, as a tuple; f none keeps the true items.",
        fn(ctx, a; f: Option<&Value> = none, xs: &Value) {
            let mut out = Vec::new();
            for x in items_of(&a, "xs", xs)? {
                let keep = match f {
                    None => x.clone(),
                    Some(f) => ctx.call(f, vec![x.clone()], a.span)?,
                };
                if keep.truthy().map_err(|m| a.arg_err("f", format!("filter: {m}")))? {
                    out.push(x);
                }
            }
            Ok(tuple(out))
        }
    },
];

/// Whether `sum min max any all` take `v` as a sequence (a tuple or a range) rather
/// than reduce it as a tensor.
pub(super) fn is_sequence(v: &Value) -> bool {
    matches!(v, Value::Tuple(_) | Value::Range(..))
}

/// `sum(xs)` of a sequence: `0 + x0 + x1 + ...` with the `+` of the language, so
/// tensors add elementwise and ints stay ints.
pub(super) fn sum(a: &Bound, xs: &Value) -> Result<Value, Diagnostic> {
    let at = OperandSpans {
        lhs: a.span,
        rhs: a.span,
        whole: a.span,
    };
    let mut total = Value::Int(0);
    for x in items_of(a, "x", xs)? {
        total = arith::binary(BinOp::Add, &total, &x, at)?;
    }
    Ok(total)
}

/// `min(xs)` / `max(xs)` of a sequence: the first smallest (largest) item by
/// `key(item)` or the item itself.
pub(super) fn extreme(
    ctx: &mut dyn Ctx,
    a: &Bound,
    xs: &Value,
    key: Option<&Value>,
    want: Ordering,
) -> Result<Value, Diagnostic> {
    let name = a.builtin.name;
    let mut best: Option<(Value, Value)> = None;
    for x in items_of(a, "x", xs)? {
        let k = match key {
            Some(f) => ctx.call(f, vec![x.clone()], a.span)?,
            None => x.clone(),
        };
        best = Some(match best {
            Some((bk, bx)) => {
                let o = compare(&k, &bk).map_err(|m| a.arg_err("x", format!("{name}: {m}")))?;
                if o == want {
                    (k, x)
                } else {
                    (bk, bx)
                }
            }
            None => (k, x),
        });
    }
    best.map(|(_, x)| x)
        .ok_or_else(|| a.arg_err("x", format!("{name}: the sequence is empty")))
}

/// `any(xs)` / `all(xs)` of a sequence, by each item's truth value.
pub(super) fn truth(a: &Bound, xs: &Value, all: bool) -> Result<Value, Diagnostic> {
    let name = a.builtin.name;
    for x in items_of(a, "x", xs)? {
        let t = x
            .truthy()
            .map_err(|m| a.arg_err("x", format!("{name}: {m}")))?;
        if t != all {
            return Ok(Value::Bool(!all));
        }
    }
    Ok(Value::Bool(all))
}

/// The items of the argument for parameter `name`, or an error pointing at it.
fn items_of(a: &Bound, name: &str, v: &Value) -> Result<Vec<Value>, Diagnostic> {
    items_or(a, v, |m| a.arg_err(name, m))
}

/// The items of one of several sequences (`zip`, `map`), an error pointing at it.
fn items_at(a: &Bound, arg: &crate::runtime::ArgVal) -> Result<Vec<Value>, Diagnostic> {
    items_or(a, &arg.value, |m| Diagnostic::new(arg.span, m))
}

/// The items of `v`; `at` places the error when `v` is not iterable.
fn items_or(
    a: &Bound,
    v: &Value,
    at: impl FnOnce(String) -> Diagnostic,
) -> Result<Vec<Value>, Diagnostic> {
    items(v).map_err(|e| match e {
        NotIterable::Kind(what) => at(format!("{}: cannot iterate over {what}", a.builtin.name)),
        NotIterable::Tensor(e) => a.tensor_err(e),
    })
}

fn tuple(items: Vec<Value>) -> Value {
    Value::Tuple(Rc::new(items.into()))
}

//! The methods that change a tuple or dict held by a variable (or by a dict entry,
//! `d["k"].append(x)`): `t.append(x) t.extend(xs) t.insert(i, x) t.pop(i=-1)`,
//! `d.pop(k, default) d.update(other)`, and `del d[k]` / `del t[i]`. Values keep
//! their semantics: a copy made earlier (`let u = t`) does not change.

use std::rc::Rc;

use crate::diag::{Diagnostic, ErrorKind};
use crate::runtime::iterate::{items, NotIterable};
use crate::runtime::value::{Items, Key, Value};
use crate::runtime::{tensor_diag, ArgVal, CallArgs, Scope};
use crate::span::Span;
use crate::syntax::ast::{Arg, Expr, ExprKind, Ident, IndexItem};
use crate::tensor::budget;

use super::eval::Flow;
use super::Interp;

/// The method names that change a tuple or a dict in place.
const METHODS: &[&str] = &["append", "extend", "insert", "pop", "update"];

impl Interp {
    /// `target.name(args)` when it is one of the methods above on a tuple or dict
    /// held by a variable or a dict entry; `None` to call it as any other method.
    pub(super) fn sequence_method(
        &mut self,
        target: &Expr,
        name: &Ident,
        args: &[Arg],
        span: Span,
        scope: &Rc<Scope>,
    ) -> Result<Option<Value>, Flow> {
        if !METHODS.contains(&&*name.name) {
            return Ok(None);
        }
        match &target.kind {
            ExprKind::Ident(var) => {
                if !scope.value(var).is_some_and(|v| applies(&v, name)) {
                    return Ok(None);
                }
                let call = self.eval_args(args, span, scope)?;
                let Some(mut held) = scope.take(var) else {
                    return Ok(None);
                };
                let result = apply(&mut held, name, call);
                scope.set(var, held);
                Ok(Some(result?))
            }
            ExprKind::Index {
                target: base,
                items,
            } => {
                let (ExprKind::Ident(var), [IndexItem::Expr(key_expr)]) = (&base.kind, &items[..])
                else {
                    return Ok(None);
                };
                if !matches!(scope.value(var).as_deref(), Some(Value::Dict(_))) {
                    return Ok(None);
                }
                let key_value = self.eval(key_expr, scope)?;
                let call = self.eval_args(args, span, scope)?;
                let key = Key::of(&key_value, key_expr.span)?;
                let Some(Value::Dict(mut d)) = scope.take(var) else {
                    return Ok(None);
                };
                let result = match Rc::make_mut(&mut d).entries.get_mut(&key) {
                    Some(entry) if applies(entry, name) => apply(entry, name, call),
                    Some(entry) => Err(not_a_container(name, entry, target.span)),
                    None => Err(Diagnostic::new(key_expr.span, "key not found in the dict")
                        .with_kind(ErrorKind::Key)),
                };
                scope.set(var, Value::Dict(d));
                Ok(Some(result?))
            }
            _ => Ok(None),
        }
    }

    /// `del d[k]`, `del t[i]`.
    pub(super) fn delete(&mut self, target: &Expr, scope: &Rc<Scope>) -> Result<(), Flow> {
        let ExprKind::Index {
            target: base,
            items,
        } = &target.kind
        else {
            return Err(
                Diagnostic::new(target.span, "`del` removes an entry: `del d[key]`").into(),
            );
        };
        let ExprKind::Ident(var) = &base.kind else {
            return Err(Diagnostic::new(
                base.span,
                "`del` removes an entry of a variable's dict or tuple: `del d[key]`",
            )
            .into());
        };
        let [IndexItem::Expr(key_expr)] = &items[..] else {
            return Err(Diagnostic::new(target.span, "`del` takes one key or index").into());
        };
        let key = self.eval(key_expr, scope)?;
        let Some(mut held) = scope.take(var) else {
            // Not a variable of this scope chain: a builtin's name, or undefined.
            let v = self.lookup(var, scope)?;
            return Err(Diagnostic::new(
                base.span,
                format!(
                    "`del` removes an entry of a variable's dict or tuple, not of {}",
                    v.describe()
                ),
            )
            .into());
        };
        let result = match &mut held {
            Value::Dict(d) => Key::of(&key, key_expr.span).and_then(|k| {
                Rc::make_mut(d)
                    .entries
                    .shift_remove(&k)
                    .map(drop)
                    .ok_or_else(|| missing_key(&key, key_expr.span))
            }),
            Value::Tuple(t) => {
                let at = position(&key, t.len(), key_expr.span)?;
                Rc::make_mut(t).remove(at);
                Ok(())
            }
            other => Err(Diagnostic::new(
                base.span,
                format!(
                    "`del` removes a dict entry or a tuple item, not an item of {}",
                    other.describe()
                ),
            )
            .with_kind(ErrorKind::Type)),
        };
        scope.set(var, held);
        Ok(result?)
    }
}

/// Whether `name` is a method that changes `v` in place.
fn applies(v: &Value, name: &Ident) -> bool {
    match v {
        Value::Tuple(_) => matches!(&*name.name, "append" | "extend" | "insert" | "pop"),
        Value::Dict(_) => matches!(&*name.name, "pop" | "update"),
        _ => false,
    }
}

fn not_a_container(name: &Ident, v: &Value, at: Span) -> Diagnostic {
    Diagnostic::new(
        at,
        format!(
            "`{}` changes a tuple or dict, not {}",
            name.name,
            v.describe()
        ),
    )
    .with_kind(ErrorKind::Type)
}

/// Runs method `name` on the tuple or dict `held`, which [`applies`] accepted.
fn apply(held: &mut Value, name: &Ident, call: CallArgs) -> Result<Value, Diagnostic> {
    if let Some((k, at, _)) = call.keyword.first() {
        return Err(Diagnostic::new(
            *at,
            format!("`{}` takes no keyword arguments, got `{k}`", name.name),
        ));
    }
    let args = &call.positional;
    let arity = |min: usize, max: usize| {
        if args.len() < min || args.len() > max {
            let want = if min == max {
                format!("{min}")
            } else {
                format!("{min} to {max}")
            };
            return Err(Diagnostic::new(
                call.span,
                format!("`{}` takes {want} arguments, got {}", name.name, args.len()),
            ));
        }
        Ok(())
    };
    match held {
        Value::Tuple(t) => {
            let t = Rc::make_mut(t);
            match &*name.name {
                "append" => {
                    arity(1, 1)?;
                    grow(t, 1, call.span)?;
                    t.push(args[0].value.clone());
                }
                "extend" => {
                    arity(1, 1)?;
                    let more = items(&args[0].value).map_err(|e| not_iterable(e, &args[0]))?;
                    grow(t, more.len(), call.span)?;
                    t.extend(more);
                }
                "insert" => {
                    arity(2, 2)?;
                    let i = int_arg(&args[0])?;
                    // Python's rule: an index past either end inserts at that end.
                    let len = t.len() as i64;
                    let at = if i < 0 { (len + i).max(0) } else { i.min(len) };
                    grow(t, 1, call.span)?;
                    t.insert(at as usize, args[1].value.clone());
                }
                _ => {
                    arity(0, 1)?;
                    if t.is_empty() {
                        return Err(Diagnostic::new(call.span, "pop from an empty tuple")
                            .with_kind(ErrorKind::Index));
                    }
                    let at = match args.first() {
                        Some(a) => position(&a.value, t.len(), a.span)?,
                        None => t.len() - 1,
                    };
                    return Ok(t.remove(at));
                }
            }
            Ok(Value::None)
        }
        Value::Dict(d) => {
            let d = Rc::make_mut(d);
            if &*name.name == "update" {
                arity(1, 1)?;
                let Value::Dict(other) = &args[0].value else {
                    return Err(Diagnostic::new(
                        args[0].span,
                        format!("`update` takes a dict, not {}", args[0].value.describe()),
                    )
                    .with_kind(ErrorKind::Type));
                };
                for (k, v) in other.iter() {
                    d.grow(k.clone(), v.clone())
                        .map_err(|e| tensor_diag(e, call.span, &[]))?;
                }
                return Ok(Value::None);
            }
            arity(1, 2)?;
            let key = Key::of(&args[0].value, args[0].span)?;
            match (d.entries.shift_remove(&key), args.get(1)) {
                (Some(v), _) => Ok(v),
                (None, Some(default)) => Ok(default.value.clone()),
                (None, None) => Err(missing_key(&args[0].value, args[0].span)),
            }
        }
        other => Err(not_a_container(name, other, call.span)),
    }
}

/// Room for `more` items in tuple `t`, within the memory limit.
fn grow(t: &Items, more: usize, at: Span) -> Result<(), Diagnostic> {
    let n = t.len().saturating_add(more);
    budget::check_items("tuple", "a tuple", n, std::mem::size_of::<Value>())
        .map_err(|e| tensor_diag(e, at, &[]))
}

fn int_arg(a: &ArgVal) -> Result<i64, Diagnostic> {
    a.value.as_int().ok_or_else(|| {
        Diagnostic::new(
            a.span,
            format!("an index must be an int, not {}", a.value.describe()),
        )
        .with_kind(ErrorKind::Type)
    })
}

/// Index `i` (negative from the end) of a sequence of `len` items.
fn position(i: &Value, len: usize, at: Span) -> Result<usize, Diagnostic> {
    let Some(i) = i.as_int() else {
        return Err(
            Diagnostic::new(at, format!("an index must be an int, not {}", i.describe()))
                .with_kind(ErrorKind::Type),
        );
    };
    let from_start = if i < 0 { i + len as i64 } else { i };
    usize::try_from(from_start)
        .ok()
        .filter(|&p| p < len)
        .ok_or_else(|| {
            Diagnostic::new(
                at,
                format!("index {i} is out of range for a tuple of {len} items"),
            )
            .with_kind(ErrorKind::Index)
        })
}

fn missing_key(key: &Value, at: Span) -> Diagnostic {
    let shown = match key {
        Value::Str(s) => format!("{s:?}"),
        other => other.repr(&Default::default()),
    };
    Diagnostic::new(at, format!("key {shown} not found")).with_kind(ErrorKind::Key)
}

fn not_iterable(e: NotIterable, a: &ArgVal) -> Diagnostic {
    match e {
        NotIterable::Kind(what) => Diagnostic::new(a.span, format!("cannot iterate over {what}"))
            .with_kind(ErrorKind::Type),
        NotIterable::Tensor(e) => tensor_diag(e, a.span, &[]),
    }
}

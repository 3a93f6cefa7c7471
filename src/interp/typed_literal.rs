//! `tensor([0.1, 0.2], dtype=f64)`: a `[...]` literal written as the data of
//! `tensor` with a dtype is read with f64 floats, so each number converts once, to
//! that dtype, and keeps all 53 bits in f64. Elsewhere (and without a dtype) a
//! literal's floats are f32.

use std::rc::Rc;

use crate::runtime::value::Value;
use crate::runtime::{ArgVal, CallArgs, Scope};
use crate::span::Span;
use crate::syntax::ast::{Arg, Expr, ExprKind};
use crate::tensor::Tensor;

use super::eval::Flow;
use super::literal::{self, Floats};
use super::Interp;

impl Interp {
    /// The evaluated arguments of a call of `f`, left to right.
    pub(super) fn call_args(
        &mut self,
        f: &Value,
        args: &[Arg],
        span: Span,
        scope: &Rc<Scope>,
    ) -> Result<CallArgs, Flow> {
        let literal = match (f, args.split_first()) {
            (Value::Builtin(b), Some((first, rest))) if b.name == "tensor" => match &first
                .value
                .kind
            {
                ExprKind::List(items) if first.name.as_ref().is_none_or(|n| &*n.name == "data") => {
                    Some((first, items, rest))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((first, items, rest)) = literal else {
            return self.eval_args(args, span, scope);
        };
        let (default, wide) = self.literal_both(items, first.value.span, scope)?;
        let mut call = self.eval_args(rest, span, scope)?;
        let dtype = call
            .keyword
            .iter()
            .find(|(name, ..)| name == "dtype")
            .map(|(.., v)| v)
            .or(call.positional.first());
        let value = match dtype {
            Some(ArgVal {
                value: Value::DType(_),
                ..
            }) => wide,
            _ => default,
        };
        let data = ArgVal {
            value: Value::from(value),
            span: first.value.span,
        };
        match &first.name {
            Some(n) => call.keyword.insert(0, (n.name.to_string(), n.span, data)),
            None => call.positional.insert(0, data),
        }
        Ok(call)
    }

    /// A literal built both ways: with f32 and with f64 floats (its items are
    /// evaluated once).
    fn literal_both(
        &mut self,
        items: &[Expr],
        span: Span,
        scope: &Rc<Scope>,
    ) -> Result<(Tensor, Tensor), Flow> {
        let mut default = Vec::with_capacity(items.len());
        let mut wide = Vec::with_capacity(items.len());
        for it in items {
            let (d, w) = match &it.kind {
                ExprKind::List(inner) => {
                    let (d, w) = self.literal_both(inner, it.span, scope)?;
                    (Value::from(d), Value::from(w))
                }
                _ => {
                    let v = self.eval(it, scope)?;
                    (v.clone(), v)
                }
            };
            default.push((d, it.span));
            wide.push((w, it.span));
        }
        Ok((
            literal::build(default, span, Floats::Default)?,
            literal::build(wide, span, Floats::Wide)?,
        ))
    }
}

//! Reading through an index: tensors, tuples, strings and dicts.

use std::rc::Rc;

use crate::autograd;
use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::index::{self as ix, Index, IndexError};
use crate::runtime::value::{Dict, Key, Value};
use crate::runtime::{tensor_diag, Scope};
use crate::span::Span;
use crate::syntax::ast::{Expr, ExprKind, IndexItem};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Scalar, SliceSpec, Tensor};

use super::binary::scalar_operand;
use super::eval::{Eval, Flow};
use super::Interp;

/// The index of one element written with an int per axis (`s[i]`, `m[i, j]`), each a
/// literal or a variable: the loop case, read and written without building a selection.
/// Filled in place (`read`): built and returned by value, its 8-byte stores were copied
/// out by 16-byte loads that had to wait for them (a store-forwarding stall, about an
/// eighth of the profile of `s[j] = v` in a loop on the Zen 4 here).
pub(super) struct IntIndex {
    ints: [i64; IntIndex::MAX_AXES],
    len: usize,
}

impl IntIndex {
    const MAX_AXES: usize = 8;

    /// An index of no ints, for `read` to fill.
    pub(super) fn new() -> IntIndex {
        IntIndex {
            ints: [0; Self::MAX_AXES],
            len: 0,
        }
    }

    /// Takes the ints of `items`: true when every item is an int literal or an int
    /// variable; false otherwise, and the index is then not to be used.
    pub(super) fn read(&mut self, items: &[IndexItem], scope: &Scope) -> bool {
        self.len = 0;
        if items.len() > Self::MAX_AXES {
            return false;
        }
        for (slot, item) in self.ints.iter_mut().zip(items) {
            let IndexItem::Expr(e) = item else {
                return false;
            };
            let Some(Scalar::Int(i)) = scalar_operand(e, scope) else {
                return false;
            };
            *slot = i;
        }
        self.len = items.len();
        true
    }

    pub(super) fn ints(&self) -> &[i64] {
        &self.ints[..self.len]
    }
}

impl Interp {
    /// `target[items]`: a dict lookup or an index into a tensor, tuple or string.
    pub(super) fn index_expr(
        &mut self,
        target: &Expr,
        items: &[IndexItem],
        whole: Span,
        scope: &Rc<Scope>,
    ) -> Eval {
        let mut at = IntIndex::new();
        if let (ExprKind::Ident(var), true) = (&target.kind, at.read(items, scope)) {
            if let Some(Value::Tensor(t)) = scope.value(var).as_deref() {
                if let Some(element) = ix::read_element(t, at.ints()).filter(|_| !t.is_tracked()) {
                    return Ok(Value::from(element));
                }
            }
        }
        let v = self.eval(target, scope)?;
        if let Value::Dict(d) = &v {
            return self.dict_get(d, items, whole, scope);
        }
        let idx = self.eval_index(items, scope)?;
        Ok(self.index(&v, &idx, target.span, whole)?)
    }

    pub(super) fn eval_index(
        &mut self,
        items: &[IndexItem],
        scope: &Rc<Scope>,
    ) -> Result<Vec<(Index, Span)>, Flow> {
        let mut out = Vec::with_capacity(items.len());
        for it in items {
            match it {
                IndexItem::Ellipsis(s) => out.push((Index::Ellipsis, *s)),
                IndexItem::Expr(e) => match self.eval(e, scope)? {
                    // A tuple indexes like its items written out (NumPy): x[nonzero(m)].
                    Value::Tuple(parts) => {
                        for p in parts.iter() {
                            out.push((index_item(p, e.span)?, e.span));
                        }
                    }
                    v => out.push((index_item(&v, e.span)?, e.span)),
                },
                IndexItem::Slice {
                    start,
                    stop,
                    step,
                    span,
                } => {
                    let mut part = |p: &Option<Expr>| -> Result<Option<i64>, Flow> {
                        match p {
                            None => Ok(None),
                            Some(e) => {
                                let v = self.eval(e, scope)?;
                                match v {
                                    Value::None => Ok(None),
                                    ref other => Ok(Some(other.as_int().ok_or_else(|| {
                                        Diagnostic::new(
                                            e.span,
                                            format!(
                                                "slice bounds must be integers, not {}",
                                                other.describe()
                                            ),
                                        )
                                    })?)),
                                }
                            }
                        }
                    };
                    let spec = SliceSpec {
                        start: part(start)?,
                        stop: part(stop)?,
                        step: part(step)?.unwrap_or(1),
                    };
                    if spec.step == 0 {
                        return Err(Diagnostic::new(*span, "slice step cannot be zero").into());
                    }
                    out.push((Index::Slice(spec), *span));
                }
            }
        }
        Ok(out)
    }

    pub(super) fn index(
        &self,
        v: &Value,
        idx: &[(Index, Span)],
        target: Span,
        whole: Span,
    ) -> Result<Value, Diagnostic> {
        match v {
            Value::Tensor(t) => {
                let items: Vec<Index> = idx.iter().map(|(i, _)| i.clone()).collect();
                let picked = autograd::rules::index(t, &items)
                    .map_err(|e| index_diag(e, t, idx, target, whole))?;
                Ok(Value::from(picked))
            }
            Value::Tuple(items) => match idx {
                [(Index::Int(i), s)] => {
                    let n = items.len() as i64;
                    let j = if *i < 0 { i + n } else { *i };
                    usize::try_from(j)
                        .ok()
                        .and_then(|j| items.get(j))
                        .cloned()
                        .ok_or_else(|| {
                            Diagnostic::new(
                                *s,
                                format!("index {i} is out of range for a tuple of {n}"),
                            )
                            .with_kind(ErrorKind::Index)
                        })
                }
                [(Index::Slice(spec), _)] => {
                    let (start, step, len) = spec.resolve(items.len());
                    let picked = (0..len as i64)
                        .filter_map(|k| items.get((start + k * step) as usize).cloned())
                        .collect();
                    Ok(Value::Tuple(Rc::new(picked)))
                }
                _ => Err(Diagnostic::new(
                    whole,
                    "a tuple takes one integer index or a slice",
                )),
            },
            Value::Str(text) => match idx {
                [(Index::Int(i), s)] => {
                    let n = text.chars().count() as i64;
                    let j = if *i < 0 { i + n } else { *i };
                    usize::try_from(j)
                        .ok()
                        .and_then(|j| text.chars().nth(j))
                        .map(|c| Value::str(&c.to_string()))
                        .ok_or_else(|| {
                            Diagnostic::new(
                                *s,
                                format!(
                                    "index {i} is out of range for a string of {n} character{}",
                                    if n == 1 { "" } else { "s" }
                                ),
                            )
                            .with_kind(ErrorKind::Index)
                        })
                }
                [(Index::Slice(spec), _)] => {
                    let chars: Vec<char> = text.chars().collect();
                    let (start, step, len) = spec.resolve(chars.len());
                    let picked: String = (0..len as i64)
                        .filter_map(|k| chars.get((start + k * step) as usize))
                        .collect();
                    Ok(Value::str(&picked))
                }
                _ => Err(Diagnostic::new(
                    whole,
                    "a string takes one integer index or a slice",
                )),
            },
            other => Err(Diagnostic::new(
                target,
                format!("{} cannot be indexed", other.describe()),
            )
            .with_kind(ErrorKind::Type)),
        }
    }

    pub(super) fn dict_get(
        &mut self,
        d: &Dict,
        items: &[IndexItem],
        whole: Span,
        scope: &Rc<Scope>,
    ) -> Eval {
        let [IndexItem::Expr(ke)] = items else {
            return Err(Diagnostic::new(whole, "a dict takes one key").into());
        };
        let kv = self.eval(ke, scope)?;
        let found = Key::from_value(&kv).and_then(|k| d.get(&k).cloned());
        if let Some(Value::Lazy(l)) = &found {
            return Ok(l.force().map_err(|e| Diagnostic::new(ke.span, e))?);
        }
        found.ok_or_else(|| {
            let keys: Vec<String> = d
                .entries
                .iter()
                .map(|(k, _)| k.to_value().repr(&self.print_opts))
                .collect();
            Diagnostic::new(
                ke.span,
                format!("key {} not found", kv.repr(&self.print_opts)),
            )
            .with_note(format!("keys: {}", keys.join(", ")))
            .with_kind(ErrorKind::Key)
            .into()
        })
    }
}

/// An indexing error, labelled at the offending index when it can be told apart.
pub(super) fn index_diag(
    e: IndexError,
    t: &Tensor,
    idx: &[(Index, Span)],
    target: Span,
    whole: Span,
) -> Diagnostic {
    let d = tensor_diag(e.error, whole, &[])
        .with_label(target, format!("this has shape {}", shape_str(t.shape())));
    match e.item.and_then(|i| idx.get(i)) {
        Some((Index::Tensor(m), s)) if m.dtype() == DType::Bool => {
            d.with_label(*s, format!("this mask has shape {}", shape_str(m.shape())))
        }
        Some((Index::Tensor(i), s)) => {
            d.with_label(*s, format!("this index has shape {}", shape_str(i.shape())))
        }
        Some((_, s)) => d.with_label(*s, "this index"),
        None => d,
    }
}

/// One index item from a value: `none`, an int (a 0-d integer tensor counts), or a
/// bool tensor (a mask) or integer tensor (fancy indexing); `true`/`false` are 0-d masks.
fn index_item(v: &Value, span: Span) -> Result<Index, Diagnostic> {
    match v {
        Value::None => Ok(Index::NewAxis),
        Value::Bool(b) => Ok(Index::Tensor(Tensor::scalar(*b))),
        Value::Tensor(t) if t.dtype().is_int() && t.ndim() == 0 => {
            Ok(Index::Int(t.item_i64().unwrap_or(0)))
        }
        Value::Tensor(t) if t.dtype().is_int() || t.dtype() == DType::Bool => {
            Ok(Index::Tensor(t.tensor().clone()))
        }
        // `x[[]]`: an empty literal is f32, but NumPy reads it as an empty index list.
        Value::Tensor(t) if t.numel() == 0 && t.ndim() == 1 => {
            Ok(Index::Tensor(t.to_dtype(DType::I64)))
        }
        Value::Tensor(_) => Err(Diagnostic::new(
            span,
            format!("indices must be integers or booleans, got {}", v.describe()),
        )
        .with_note("hint: convert with .to(i64)")),
        other => other.as_int().map(Index::Int).ok_or_else(|| {
            Diagnostic::new(
                span,
                format!(
                    "an index must be an integer, a slice, `...`, `none` or a bool or integer tensor, not {}",
                    other.describe()
                ),
            )
        }),
    }
}

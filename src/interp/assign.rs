//! Assignment: `x = v`, `x op= v`, through an index and into a dict.

use std::rc::Rc;

use crate::diag::{Diagnostic, ErrorKind};
use crate::ops::index::{self as ix, Index, Selection};
use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::value::{Key, Value};
use crate::runtime::{grad_diag, tensor_diag, Scope};
use crate::span::Span;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Ident, IndexItem};
use crate::tensor::shape::shape_str;
use crate::tensor::{Scalar, Tensor};

use super::binary::scalar_operand;
use super::bind::unpack;
use super::compound::{compound_dtype_diag, write_diag};
use super::eval::Flow;
use super::index::{index_diag, IntIndex};
use super::Interp;

impl Interp {
    /// `target = value`, `target op= value`. A scalar variable updated by a scalar
    /// (`s += i`, the loop case) is done here; the rest out of line.
    #[inline(always)]
    pub(super) fn assign(
        &mut self,
        target: &Expr,
        op: Option<BinOp>,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        if let (ExprKind::Ident(name), Some(op)) = (&target.kind, op) {
            if let Some(b) = scalar_operand(value, scope) {
                if let Some(done) = update_scalar(scope, name, op, b, value.span) {
                    return done;
                }
            }
        }
        self.assign_any(target, op, value, scope)
    }

    /// Any assignment: to a variable, through an index, into a dict.
    #[inline(never)]
    pub(super) fn assign_any(
        &mut self,
        target: &Expr,
        op: Option<BinOp>,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        match &target.kind {
            ExprKind::Ident(name) => self.assign_var(name, target.span, op, value, scope),
            ExprKind::Index {
                target: base,
                items,
            } => self.assign_through_index(target.span, base, items, op, value, scope),
            ExprKind::Tuple(names) if op.is_none() => {
                let v = self.eval(value, scope)?;
                self.assign_names(names, target.span, v, value.span, scope)
            }
            ExprKind::Attr { target: base, name } if &*name.name == "grad" && op.is_none() => {
                self.assign_grad(base, target.span, value, scope)
            }
            ExprKind::Attr { name, .. } => Err(Diagnostic::new(
                target.span,
                format!("cannot assign to the attribute `{}`", name.name),
            )
            .with_note(
                "attributes are read-only (but a leaf's `.grad`); a dict entry is set with `d[\"key\"] = value`",
            )
            .into()),
            _ => Err(Diagnostic::new(target.span, "cannot assign to this expression").into()),
        }
    }

    /// `x.grad = g` (or `none`, torch's way of zeroing it) for a leaf that requires
    /// grad; `g` must have x's shape and is kept in x's dtype.
    fn assign_grad(
        &mut self,
        base: &Expr,
        target: Span,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        let x = self.eval(base, scope)?;
        let g = self.eval(value, scope)?;
        let Value::Tensor(x) = &x else {
            return Err(Diagnostic::new(
                base.span,
                format!("`.grad` belongs to tensors, not {}", x.describe()),
            )
            .into());
        };
        let g = match g {
            Value::None => None,
            Value::Tensor(g) if g.shape() == x.shape() => Some(g.detach().to_dtype(x.dtype())),
            other => {
                return Err(Diagnostic::new(
                    value.span,
                    format!(
                        "`.grad` must be none or a tensor of shape {}, got {}",
                        shape_str(x.shape()),
                        other.describe()
                    ),
                )
                .into())
            }
        };
        if !x.set_grad(g.map(crate::autograd::Var::constant)) {
            return Err(Diagnostic::new(
                target,
                "only a leaf that requires grad has a `.grad` to set (see x.requires_grad_())",
            )
            .with_kind(ErrorKind::Grad)
            .into());
        }
        Ok(())
    }

    /// `(a, (b, c)) = v`: each name, already a variable, takes its item of `v`.
    fn assign_names(
        &mut self,
        names: &[Expr],
        names_span: Span,
        v: Value,
        value: Span,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        let items = unpack(&v, names.len(), value, names_span)?;
        for (target, item) in names.iter().zip(items) {
            match &target.kind {
                ExprKind::Ident(name) => {
                    if !scope.set(name, item) {
                        return Err(undefined_variable(name, target.span).into());
                    }
                }
                ExprKind::Tuple(inner) => {
                    self.assign_names(inner, target.span, item, value, scope)?
                }
                // The parser accepts only names and tuples of names here.
                _ => {
                    return Err(
                        Diagnostic::new(target.span, "cannot assign to this expression").into(),
                    )
                }
            }
        }
        Ok(())
    }

    /// `name = value`, `name op= value`.
    fn assign_var(
        &mut self,
        name: &Ident,
        target: Span,
        op: Option<BinOp>,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        if let Some(op) = op {
            if self.update_from_element(name, op, value, scope).is_some() {
                return Ok(());
            }
        }
        let scalar = scalar_operand(value, scope);
        let rhs = match scalar {
            Some(b) => Value::from_scalar(b),
            None => self.eval(value, scope)?,
        };
        let new = match op {
            None => rhs,
            Some(op) => {
                let updated = rhs
                    .as_scalar()
                    .and_then(|b| update_scalar(scope, name, op, b, value.span));
                if let Some(done) = updated {
                    return done;
                }
                match self.compound_var(name, target, op, rhs, value.span, scope)? {
                    Some(result) => result,
                    None => return Ok(()),
                }
            }
        };
        if !scope.set(name, new) {
            return Err(undefined_variable(name, target).into());
        }
        Ok(())
    }

    /// `base[items] = value`, `base[items] op= value`.
    fn assign_through_index(
        &mut self,
        target: Span,
        base: &Expr,
        items: &[IndexItem],
        op: Option<BinOp>,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        let ExprKind::Ident(name) = &base.kind else {
            return Err(Diagnostic::new(
                base.span,
                "can only assign through an index of a variable (`x[i] = v`)",
            )
            .into());
        };
        // Keyed containers: d["k"] = v
        // Looked at in a statement of its own: a clone held through the call would
        // make every `d[k] = v` copy the whole dict.
        let is_dict = matches!(scope.value(name).as_deref(), Some(Value::Dict(_)));
        if is_dict {
            return self.assign_dict(name, base.span, items, op, value, scope);
        }
        if op.is_none() {
            let mut at = IntIndex::new();
            if let (true, Some(v)) = (at.read(items, scope), scalar_operand(value, scope)) {
                self.changing_in_place(name);
                let written = match scope.binding(name).as_deref_mut() {
                    Some(Value::Tensor(t)) => match t.untracked_mut() {
                        Some(t) => ix::write_element(t, at.ints(), v),
                        None => false,
                    },
                    _ => false,
                };
                if written {
                    return Ok(());
                }
            }
        }
        let idx = self.eval_index(items, scope)?;
        let rhs = self.eval(value, scope)?;
        self.changing_in_place(name);
        let Some(mut cur) = scope.take(name) else {
            return Err(
                Diagnostic::new(base.span, format!("undefined name `{}`", name.name))
                    .with_kind(ErrorKind::Name)
                    .into(),
            );
        };
        let result = self.assign_index(&mut cur, &idx, rhs, op, base.span, target, value.span);
        scope.set(name, cur);
        Ok(result?)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn assign_index(
        &mut self,
        cur: &mut Value,
        idx: &[(Index, Span)],
        rhs: Value,
        op: Option<BinOp>,
        base: Span,
        target: Span,
        value: Span,
    ) -> Result<(), Diagnostic> {
        let Value::Tensor(t) = cur else {
            return Err(Diagnostic::new(
                base,
                format!("cannot assign through an index of {}", cur.describe()),
            ));
        };
        let t = t.writable().map_err(|e| grad_diag(e, target))?;
        if matches!(&rhs, Value::Tensor(v) if v.is_tracked()) && crate::autograd::enabled() {
            return Err(grad_diag(crate::autograd::GradError::WriteTracked, value));
        }
        // The selection is computed after make_writable, which may move the elements.
        t.make_writable();
        let items: Vec<Index> = idx.iter().map(|(i, _)| i.clone()).collect();
        let at = OperandSpans {
            lhs: target,
            rhs: value,
            whole: target.to(value),
        };
        // `x[mask] = v`, the common masked write: one pass, no offsets.
        if let (None, [Index::Tensor(mask)], Some(src)) =
            (op, items.as_slice(), rhs.to_tensor_exact())
        {
            if let Some(done) = ix::fill_masked(t, mask, &src) {
                return done.map_err(|e| write_diag(e, &rhs, at));
            }
        }
        let region =
            ix::select(t.layout(), &items).map_err(|e| index_diag(e, t, idx, base, target))?;
        let new = match op {
            None => rhs,
            Some(op) => {
                // Read-modify-write; with repeated indices the last write wins (NumPy).
                let old = ix::read(t, &region).map_err(|e| tensor_diag(e, target, &[]))?;
                arith::binary(op, &Value::from(old), &rhs, at)?
            }
        };
        self.store(t, &region, &new, op, at)
    }

    /// Writes `new` into `region` of `t`, checking the dtype rule of compound
    /// assignment (a float result cannot go into an integer tensor).
    pub(super) fn store(
        &mut self,
        t: &mut Tensor,
        region: &Selection,
        new: &Value,
        op: Option<BinOp>,
        at: OperandSpans,
    ) -> Result<(), Diagnostic> {
        // A float scalar converts once, from its f64 value, to the tensor's dtype.
        let src = new.to_tensor_exact().ok_or_else(|| {
            Diagnostic::new(
                at.rhs,
                format!("cannot store {} in a tensor", new.describe()),
            )
        })?;
        if let Some(op) = op {
            if src.dtype().category() > t.dtype().category() {
                return Err(compound_dtype_diag(op, src.dtype(), t.dtype(), at.whole));
            }
        }
        ix::write(t, region, &src).map_err(|e| write_diag(e, new, at))
    }

    pub(super) fn assign_dict(
        &mut self,
        name: &Ident,
        base: Span,
        items: &[IndexItem],
        op: Option<BinOp>,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        let [IndexItem::Expr(ke)] = items else {
            return Err(Diagnostic::new(base, "a dict takes one key").into());
        };
        let kv = self.eval(ke, scope)?;
        let key = Key::of(&kv, ke.span)?;
        let mut rhs = self.eval(value, scope)?;
        let Some(Value::Dict(mut d)) = scope.take(name) else {
            return Err(Diagnostic::new(base, "internal: dict changed").into());
        };
        if let Some(op) = op {
            let cur = d.get(&key).cloned();
            let Some(cur) = cur else {
                scope.set(name, Value::Dict(d));
                return Err(Diagnostic::new(
                    ke.span,
                    format!("key {} not found", kv.repr(&self.print_opts)),
                )
                .with_kind(ErrorKind::Key)
                .into());
            };
            let at = OperandSpans {
                lhs: ke.span,
                rhs: value.span,
                whole: base.to(value.span),
            };
            match arith::binary(op, &cur, &rhs, at) {
                Ok(v) => rhs = v,
                Err(e) => {
                    scope.set(name, Value::Dict(d));
                    return Err(e.into());
                }
            }
        }
        let grown = Rc::make_mut(&mut d).grow(key, rhs);
        scope.set(name, Value::Dict(d));
        grown.map_err(|e| tensor_diag(e, base.to(value.span), &[]).into())
    }
}

/// `x op= b` when `x` holds a scalar: computed and stored in its slot, nothing cloned.
/// (The error's span is only worked out on an error: this is the loop's hot path.)
#[inline(always)]
fn update_scalar(
    scope: &Scope,
    var: &Ident,
    op: BinOp,
    b: Scalar,
    value: Span,
) -> Option<Result<(), Flow>> {
    if op == BinOp::MatMul {
        return None;
    }
    let mut slot = scope.binding(var)?;
    if let (Value::Int(x), Scalar::Int(y)) = (&mut *slot, b) {
        if let Some(v) = arith::int_binary(op, *x, y) {
            *x = v;
            return Some(Ok(()));
        }
    }
    Some(match arith::scalar_binary(op, slot.as_scalar()?, b) {
        Ok(v) => {
            *slot = v;
            Ok(())
        }
        Err(m) => Err(update_error(var, value, m)),
    })
}

/// The error of `x op= b` (out of line, to keep the loop's path short).
#[cold]
fn update_error(var: &Ident, value: Span, message: String) -> Flow {
    Diagnostic::new(var.span.to(value), message).into()
}

fn undefined_variable(name: &Ident, at: Span) -> Diagnostic {
    Diagnostic::new(
        at,
        format!("assignment to undefined variable `{}`", name.name),
    )
    .with_note(format!(
        "hint: declare it first with `let {} = ...`",
        name.name
    ))
    .with_kind(ErrorKind::Name)
}

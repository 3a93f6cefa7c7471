//! `x op= y` on a variable that holds no scalar: a tensor is updated in its own
//! storage by `ops::binary_inplace`, other values are recomputed and stored.

use std::rc::Rc;

use crate::autograd::{self, GradError};
use crate::diag::Diagnostic;
use crate::ops::binary_inplace::{binary_inplace, compound_dtype_error, update_0d};
use crate::ops::index::{element, Selection};
use crate::ops::{BinaryOp, Operand};
use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::value::Value;
use crate::runtime::{grad_diag, tensor_diag, Scope};
use crate::span::Span;
use crate::syntax::ast::{BinOp, Expr, ExprKind, Ident};
use crate::tensor::{DType, TensorError};

use super::eval::Flow;
use super::index::IntIndex;
use super::Interp;

/// An element read for `acc op= t[i, ...]`, in t's own float type.
#[derive(Clone, Copy)]
enum FloatElement {
    F32(f32),
    F64(f64),
}

impl FloatElement {
    fn dtype(self) -> DType {
        match self {
            FloatElement::F32(_) => DType::F32,
            FloatElement::F64(_) => DType::F64,
        }
    }
}

impl Interp {
    /// `acc op= t[i, j, ...]` for a 0-d float tensor `acc` and an int per axis of an
    /// untracked tensor `t` of acc's dtype, the element-read loop: the element is read
    /// straight from t's storage and combined into acc's own (`update_0d`), without the
    /// 0-d view the index expression would make. None, with nothing changed, when this
    /// does not apply or the update fails (the general path then runs and reports it).
    pub(super) fn update_from_element(
        &mut self,
        name: &Ident,
        op: BinOp,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Option<()> {
        let ExprKind::Index { target, items } = &value.kind else {
            return None;
        };
        let ExprKind::Ident(source) = &target.kind else {
            return None;
        };
        let top = BinaryOp::from_symbol(op.symbol())?;
        let mut at = IntIndex::new();
        if !at.read(items, scope) {
            return None;
        }
        let y = match scope.value(source).as_deref() {
            Some(Value::Tensor(t)) if !t.is_tracked() => match t.dtype() {
                DType::F32 => FloatElement::F32(element(t, at.ints())?),
                DType::F64 => FloatElement::F64(element(t, at.ints())?),
                _ => return None,
            },
            _ => return None,
        };
        let dtype = y.dtype();
        let fits = |v: &Value| matches!(v, Value::Tensor(t) if !t.is_tracked() && t.ndim() == 0 && t.dtype() == dtype);
        if !scope.value(name).as_deref().is_some_and(fits) {
            return None;
        }
        self.changing_in_place(name);
        let mut slot = scope.binding(name)?;
        let Value::Tensor(t) = &mut *slot else {
            return None;
        };
        let t = t.untracked_mut()?;
        match y {
            FloatElement::F32(y) => update_0d(top, t, y),
            FloatElement::F64(y) => update_0d(top, t, y),
        }
        .ok()
    }

    /// `name op= rhs` for a non-scalar update: a tensor variable is updated in its own
    /// storage (`None`); any other value gives the new value to store.
    pub(super) fn compound_var(
        &mut self,
        name: &Ident,
        target: Span,
        op: BinOp,
        rhs: Value,
        value: Span,
        scope: &Rc<Scope>,
    ) -> Result<Option<Value>, Flow> {
        let at = OperandSpans {
            lhs: target,
            rhs: value,
            whole: target.to(value),
        };
        if let Some(recorded) = self.compound_recorded(name, op, &rhs, at, scope) {
            return recorded.map(Some);
        }
        // `@` has no elementwise op: its product is computed whole and stored below.
        let top = BinaryOp::from_symbol(op.symbol());
        // Looked at, not cloned: a second reference would make the update copy.
        let holds_tensor = matches!(scope.value(name).as_deref(), Some(Value::Tensor(_)));
        if let (true, Some(top), Some(operand)) = (holds_tensor, top, rhs.as_operand()) {
            return self
                .update_tensor(name, op, top, operand, &rhs, at, scope)
                .map(|()| None);
        }
        let cur = self.lookup(name, scope)?;
        let result = arith::binary(op, &cur, &rhs, at)?;
        if !matches!(cur, Value::Tensor(_)) {
            return Ok(Some(result));
        }
        // In place: the result is written back into the tensor's own storage.
        self.changing_in_place(name);
        let mut t = match scope.take(name) {
            Some(Value::Tensor(t)) => t,
            _ => return Err(Diagnostic::new(target, "internal: variable changed").into()),
        };
        let written = match t.writable() {
            Ok(data) => {
                data.make_writable();
                let region = Selection::from(data.layout().clone());
                self.store(data, &region, &result, Some(op), at)
            }
            Err(e) => Err(grad_diag(e, target)),
        };
        scope.set(name, Value::Tensor(t));
        written?;
        Ok(None)
    }

    /// `name op= rhs` while gradients are recorded and either side is tracked: the
    /// update is recorded as `name = name op rhs` (keeping the variable's float
    /// dtype, as in place); a leaf that requires grad cannot be updated. `None`: the
    /// update is not recorded (an integer tensor keeps the in-place rules).
    fn compound_recorded(
        &mut self,
        name: &Ident,
        op: BinOp,
        rhs: &Value,
        at: OperandSpans,
        scope: &Rc<Scope>,
    ) -> Option<Result<Value, Flow>> {
        if !autograd::enabled() {
            return None;
        }
        let (tracked, float, leaf) = match scope.value(name).as_deref() {
            Some(Value::Tensor(t)) => (
                t.is_tracked(),
                t.dtype().is_float(),
                t.is_tracked() && t.is_leaf(),
            ),
            _ => return None,
        };
        let rhs_tracked = matches!(rhs, Value::Tensor(t) if t.is_tracked());
        if !(tracked || rhs_tracked) || !float {
            return None;
        }
        if leaf {
            return Some(Err(
                grad_diag(GradError::InPlace { leaf: true }, at.lhs).into()
            ));
        }
        Some((|| {
            let cur = self.lookup(name, scope)?;
            let dtype = match &cur {
                Value::Tensor(t) => t.dtype(),
                _ => return Err(Diagnostic::new(at.lhs, "internal: variable changed").into()),
            };
            let result = arith::binary(op, &cur, rhs, at)?;
            Ok(match result {
                Value::Tensor(r) => Value::from(
                    autograd::rules::cast(&r, dtype).map_err(|e| grad_diag(e, at.whole))?,
                ),
                other => other,
            })
        })())
    }

    /// `name op= operand` computed in the storage of the tensor `name` holds.
    #[allow(clippy::too_many_arguments)]
    fn update_tensor(
        &mut self,
        name: &Ident,
        op: BinOp,
        top: BinaryOp,
        operand: Operand,
        rhs: &Value,
        at: OperandSpans,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        // Moved out of the scope so no second reference forces a copy.
        self.changing_in_place(name);
        let Some(Value::Tensor(mut t)) = scope.take(name) else {
            return Err(Diagnostic::new(at.lhs, "internal: variable changed").into());
        };
        let failed = match t.writable() {
            Ok(data) => binary_inplace(top, data, operand)
                .err()
                .map(|e| compound_diag(e, (op, top), &Value::Tensor(t.clone()), rhs, at)),
            Err(e) => Some(grad_diag(e, at.lhs)),
        };
        let cur = Value::Tensor(t);
        scope.set(name, cur);
        match failed {
            Some(d) => Err(d.into()),
            None => Ok(()),
        }
    }
}

/// The diagnostic of a failed in-place `cur op= rhs`, worded as when the result was
/// computed first and then stored (`cur` is unchanged).
fn compound_diag(
    e: TensorError,
    (op, top): (BinOp, BinaryOp),
    cur: &Value,
    rhs: &Value,
    at: OperandSpans,
) -> Diagnostic {
    match (&e, cur) {
        (TensorError::DType { dtype, .. }, Value::Tensor(t))
            if e == compound_dtype_error(top, *dtype, t.dtype()) =>
        {
            compound_dtype_diag(op, *dtype, t.dtype(), at.whole)
        }
        // The result would not fit the target: that store's error names the result.
        (TensorError::Shape { op: what, .. }, _) if what == "assign" => {
            match arith::binary(op, cur, rhs, at) {
                Ok(result) => write_diag(e, &result, at),
                Err(d) => d,
            }
        }
        _ => arith::operand_diag(e, cur, rhs, at),
    }
}

/// `x op= y` whose `result` dtype is of a higher category than the `target` tensor's.
pub(super) fn compound_dtype_diag(
    op: BinOp,
    result: DType,
    target: DType,
    whole: Span,
) -> Diagnostic {
    Diagnostic::new(
        whole,
        format!(
            "`{}=` would store a {} result in a {} tensor",
            op.symbol(),
            result,
            target
        ),
    )
    .with_note(format!(
        "hint: write `x = x {} ...` to get a new {} tensor instead",
        op.symbol(),
        result
    ))
}

/// A failed write of `new` into a tensor.
pub(super) fn write_diag(e: TensorError, new: &Value, at: OperandSpans) -> Diagnostic {
    tensor_diag(e, at.whole, &[]).with_label(at.rhs, format!("this is {}", new.describe()))
}

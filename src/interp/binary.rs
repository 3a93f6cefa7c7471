//! Binary operators on expressions, reading variable operands in place.

use std::rc::Rc;

use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::value::Value;
use crate::runtime::Scope;
use crate::syntax::ast::{BinOp, Expr, ExprKind};
use crate::tensor::Scalar;

use super::eval::Eval;
use super::Interp;

impl Interp {
    /// `lhs op rhs`. Operands that are variables are read in place rather than cloned
    /// (a tensor clone copies its shape and strides), keeping left-to-right order: a
    /// variable on the left is only borrowed when the right side has no effects.
    pub(super) fn binary(
        &mut self,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
        at: OperandSpans,
        scope: &Rc<Scope>,
    ) -> Eval {
        // Scalar operands (the arithmetic of loops) go straight to scalar arithmetic.
        if let Some(a) = scalar_operand(lhs, scope) {
            if let Some(result) =
                scalar_operand(rhs, scope).and_then(|b| arith::scalars(op, a, b, at.whole))
            {
                return Ok(result?);
            }
        }
        let value = self.operands(op, lhs, rhs, at, scope)?;
        // A kernel interrupted half-way returns an unfinished result: Ctrl-C is taken here,
        // and the deadline is read.
        self.check_stop(at.whole)?;
        Ok(value)
    }

    /// `lhs op rhs` past the scalar fast path, the operands evaluated or borrowed.
    fn operands(
        &mut self,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
        at: OperandSpans,
        scope: &Rc<Scope>,
    ) -> Eval {
        // Variables are borrowed, not cloned: computing touches no scope.
        let compute = |l: &Value, r: &Value| -> Eval { Ok(arith::binary(op, l, r, at)?) };
        match (&lhs.kind, &rhs.kind) {
            (ExprKind::Ident(a), ExprKind::Ident(b)) => {
                if let (Some(l), Some(r)) = (scope.value(a), scope.value(b)) {
                    return compute(&l, &r);
                }
            }
            (ExprKind::Ident(a), ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_)) => {
                let r = self.eval(rhs, scope)?;
                if let Some(l) = scope.value(a) {
                    return compute(&l, &r);
                }
            }
            (_, ExprKind::Ident(b)) => {
                let l = self.eval(lhs, scope)?;
                return match scope.value(b) {
                    Some(r) => compute(&l, &r),
                    None => {
                        let r = self.eval(rhs, scope)?;
                        compute(&l, &r)
                    }
                };
            }
            _ => {}
        }
        let l = self.eval(lhs, scope)?;
        let r = self.eval(rhs, scope)?;
        compute(&l, &r)
    }
}

/// A literal, or a variable holding a scalar, read without evaluating it as an
/// expression (no `Value` cloned or moved): the operands of scalar loops.
#[inline(always)]
pub(super) fn scalar_operand(e: &Expr, scope: &Scope) -> Option<Scalar> {
    match &e.kind {
        ExprKind::Int(i) => Some(Scalar::Int(*i)),
        ExprKind::Float(f) => Some(Scalar::Float(*f)),
        ExprKind::Bool(b) => Some(Scalar::Bool(*b)),
        ExprKind::Ident(var) => scope.value(var)?.as_scalar(),
        _ => None,
    }
}

//! Chained comparisons, as Python reads them: `a < b <= c` is `a < b and b <= c`
//! with `b` evaluated once. Numbers give a bool, and the chain stops at the first
//! comparison that is `false` (the operands after it are not evaluated); tensors
//! combine elementwise with `&` (broadcasting), every operand evaluated.

use std::rc::Rc;

use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::value::Value;
use crate::runtime::Scope;
use crate::syntax::ast::{BinOp, Expr};

use super::eval::Eval;
use super::Interp;

impl Interp {
    pub(super) fn compare_chain(
        &mut self,
        first: &Expr,
        rest: &[(BinOp, Expr)],
        scope: &Rc<Scope>,
    ) -> Eval {
        let mut lhs = (self.eval(first, scope)?, first.span);
        // The links so far, combined, and where they were written.
        let mut all: Option<(Value, crate::span::Span)> = None;
        for (op, rhs_expr) in rest {
            let rhs = (self.eval(rhs_expr, scope)?, rhs_expr.span);
            let link = lhs.1.to(rhs.1);
            let at = OperandSpans {
                lhs: lhs.1,
                rhs: rhs.1,
                whole: link,
            };
            let value = arith::binary(*op, &lhs.0, &rhs.0, at)?;
            self.check_stop(link)?;
            let combined = match all {
                None => (value, link),
                Some((prev, span)) => {
                    let at = OperandSpans {
                        lhs: span,
                        rhs: link,
                        whole: span.to(link),
                    };
                    (arith::binary(BinOp::BitAnd, &prev, &value, at)?, at.whole)
                }
            };
            if matches!(combined.0, Value::Bool(false)) {
                return Ok(Value::Bool(false));
            }
            all = Some(combined);
            lhs = rhs;
        }
        Ok(all.map_or(Value::Bool(true), |(v, _)| v))
    }
}

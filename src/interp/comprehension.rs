//! Comprehensions: `[e for x in xs if c]` stacks the values of `e` into a tensor
//! (numbers or equal-shape tensors, as a list literal does); `(e for ...)` collects
//! them in a tuple. Clauses run left to right, each `for` nested in the previous.

use std::rc::Rc;

use crate::runtime::value::Value;
use crate::runtime::{tensor_diag, Scope};
use crate::span::Span;
use crate::syntax::ast::{Clause, Collect, Expr, Frame};
use crate::tensor::budget;

use super::eval::{Eval, Flow};
use super::literal::{self, Floats};
use super::Interp;

impl Interp {
    pub(super) fn comprehension(
        &mut self,
        kind: Collect,
        elem: &Expr,
        clauses: &[Clause],
        frame: &Frame,
        span: Span,
        scope: &Rc<Scope>,
    ) -> Eval {
        let inner = Scope::local(scope, frame);
        let mut items = Vec::new();
        self.clauses(elem, clauses, &inner, &mut items)?;
        Ok(match kind {
            Collect::Tensor => literal::build_value(items, span, Floats::Default)?,
            Collect::Tuple => Value::Tuple(Rc::new(items.into_iter().map(|(v, _)| v).collect())),
        })
    }

    /// Runs `clauses` from the first, adding `elem`'s value for each binding that
    /// passes them all.
    fn clauses(
        &mut self,
        elem: &Expr,
        clauses: &[Clause],
        inner: &Rc<Scope>,
        items: &mut Vec<(Value, Span)>,
    ) -> Result<(), Flow> {
        let Some((first, rest)) = clauses.split_first() else {
            budget::check_items(
                "comprehension",
                "a sequence",
                items.len() + 1,
                std::mem::size_of::<(Value, Span)>(),
            )
            .map_err(|e| tensor_diag(e, elem.span, &[]))?;
            let v = self.eval(elem, inner)?;
            items.push((v, elem.span));
            return Ok(());
        };
        match first {
            Clause::If(cond) => {
                if self.truth(cond, inner)? {
                    self.clauses(elem, rest, inner, items)?;
                }
                Ok(())
            }
            Clause::For { pattern, iter } => {
                let it = self.eval(iter, inner)?;
                self.each_item(&it, iter.span, &mut |me: &mut Interp, item| {
                    me.step(iter.span)?;
                    me.bind(pattern, item, iter.span, inner)?;
                    me.clauses(elem, rest, inner, items)?;
                    Ok(false)
                })
            }
        }
    }
}

//! The tree-walking evaluator. Tensor and builtin errors become diagnostics at the
//! span of the expression that caused them.

use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{BinOp, Block, Expr, ExprKind, FStrPart, Frame, Param};

use super::format_spec::format_value;
use super::literal::{self, Floats};
use super::Interp;
use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::tensor_diag;
use crate::runtime::value::{Body, Closure, Dict, Key, Value};
use crate::runtime::Scope;
use crate::tensor::budget;

/// Why evaluation stopped early: an error, or a jump to an enclosing loop or function.
#[derive(Debug)]
pub enum Flow {
    Error(Box<Diagnostic>),
    Break(Span),
    Continue(Span),
    Return(Value, Span),
    /// `exit(code)`: ends the program; nothing catches it.
    Exit(u8, Span),
}

impl From<Diagnostic> for Flow {
    fn from(d: Diagnostic) -> Flow {
        Flow::Error(Box::new(d))
    }
}

impl Flow {
    /// A jump that escaped everything that could catch it becomes an error.
    pub fn into_diagnostic(self) -> Diagnostic {
        match self {
            Flow::Error(d) => *d,
            Flow::Break(s) => Diagnostic::new(s, "`break` outside of a loop"),
            Flow::Continue(s) => Diagnostic::new(s, "`continue` outside of a loop"),
            Flow::Return(_, s) => Diagnostic::new(s, "`return` outside of a function"),
            Flow::Exit(code, s) => Diagnostic::new(
                s,
                format!("exit({code}) cannot end the program while a module is being imported"),
            ),
        }
    }
}

pub type Eval = Result<Value, Flow>;

/// Deepest chain of user function calls before a call is refused.
pub const MAX_CALL_DEPTH: usize = 1000;

impl Interp {
    /// Evaluates statements in `scope`; the value is the last statement's.
    pub(crate) fn eval_stmts(&mut self, stmts: &[Expr], scope: &Rc<Scope>) -> Eval {
        let Some((last, init)) = stmts.split_last() else {
            return Ok(Value::None);
        };
        self.run_stmts(init, scope)?;
        self.eval(last, scope)
    }

    /// Runs statements whose values are not used (a loop body): an assignment, the
    /// common case, makes no value to drop.
    pub(super) fn run_stmts(&mut self, stmts: &[Expr], scope: &Rc<Scope>) -> Result<(), Flow> {
        for s in stmts {
            match &s.kind {
                ExprKind::Assign { target, op, value } => {
                    self.step(s.span)?;
                    self.assign(target, *op, value, scope)?;
                }
                _ => drop(self.eval(s, scope)?),
            }
        }
        Ok(())
    }

    pub(super) fn eval_block(&mut self, b: &Block, scope: &Rc<Scope>) -> Eval {
        self.in_block(b, scope, Self::eval_stmts)
    }

    /// Runs `f` on a block's statements in the block's own scope, or in `scope` when
    /// the block binds nothing and so needs no scope.
    pub(super) fn in_block<R>(
        &mut self,
        b: &Block,
        scope: &Rc<Scope>,
        f: impl FnOnce(&mut Self, &[Expr], &Rc<Scope>) -> R,
    ) -> R {
        if b.frame.is_empty() {
            return f(self, &b.stmts, scope);
        }
        let inner = Scope::local(scope, &b.frame);
        f(self, &b.stmts, &inner)
    }

    pub(crate) fn eval(&mut self, e: &Expr, scope: &Rc<Scope>) -> Eval {
        self.step(e.span)?;
        self.nested(e.span, |me| me.eval_kind(e, scope))
    }

    /// One expression node's evaluation; every recursion of the evaluator (nested
    /// expressions, blocks, calls, imports) comes back through [`Interp::eval`].
    fn eval_kind(&mut self, e: &Expr, scope: &Rc<Scope>) -> Eval {
        Ok(match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(f) => Value::Float(*f),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Str(s) => Value::str(s),
            ExprKind::None => Value::None,
            ExprKind::FStr(parts) => self.fstring(parts, scope)?,
            ExprKind::Ident(var) => self.lookup(var, scope)?,
            ExprKind::List(items) => self.list(items, e.span, scope)?,
            ExprKind::Tuple(items) => self.tuple(items, scope)?,
            ExprKind::Dict(pairs) => self.dict(pairs, scope)?,
            ExprKind::Unary { op, expr } => {
                let v = self.eval(expr, scope)?;
                arith::unary(*op, &v, e.span)?
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary_expr(*op, lhs, rhs, e.span, scope)?,
            ExprKind::Compare { first, rest } => self.compare_chain(first, rest, scope)?,
            ExprKind::Call { callee, args } => self.call(callee, args, e.span, scope)?,
            ExprKind::Attr { target, name } => {
                let v = self.eval(target, scope)?;
                self.attr(&v, name)?
            }
            ExprKind::Index { target, items } => {
                return self.index_expr(target, items, e.span, scope)
            }
            ExprKind::Block(b) => self.eval_block(b, scope)?,
            ExprKind::NoGrad(b) => {
                let _off = crate::autograd::GradMode::off();
                self.eval_block(b, scope)?
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => self.if_expr(cond, then, otherwise.as_deref(), scope)?,
            ExprKind::While { cond, body } => self.while_loop(cond, body, scope)?,
            ExprKind::For {
                pattern,
                iter,
                body,
            } => {
                let it = self.eval(iter, scope)?;
                self.for_loop(pattern, &it, iter.span, body, scope)?
            }
            ExprKind::Lambda {
                params,
                body,
                frame,
            } => {
                let body = Body::Expr((**body).clone());
                self.closure(Rc::from("<lambda>"), params, body, frame.clone(), scope)?
            }
            ExprKind::Fn { name, params, body } => {
                let (body, frame) = (Body::Block(body.clone()), body.frame.clone());
                let f = self.closure(name.name.clone(), params, body, frame, scope)?;
                scope.bind(name, f);
                Value::None
            }
            ExprKind::Let { pattern, value } => {
                let v = self.eval(value, scope)?;
                self.bind(pattern, v, value.span, scope)?;
                Value::None
            }
            ExprKind::Assign { target, op, value } => {
                self.assign(target, *op, value, scope)?;
                Value::None
            }
            ExprKind::Return(v) => {
                let v = match v {
                    Some(x) => self.eval(x, scope)?,
                    None => Value::None,
                };
                return Err(Flow::Return(v, e.span));
            }
            ExprKind::Break => return Err(Flow::Break(e.span)),
            ExprKind::Continue => return Err(Flow::Continue(e.span)),
            ExprKind::Try(t) => self.try_catch(t, scope)?,
            ExprKind::Comprehension {
                kind,
                elem,
                clauses,
                frame,
            } => self.comprehension(*kind, elem, clauses, frame, e.span, scope)?,
            ExprKind::Del(target) => {
                self.delete(target, scope)?;
                Value::None
            }
            ExprKind::Import { path, alias } => {
                let m = self.import(path, e.span)?;
                scope.bind(alias, Value::Module(m));
                Value::None
            }
            ExprKind::Use { module } => {
                let m = self.use_stdlib(&module.name, module.span)?;
                scope.bind(module, Value::Module(m));
                Value::None
            }
        })
    }

    /// `f"...{expr:spec}..."`.
    fn fstring(&mut self, parts: &[FStrPart], scope: &Rc<Scope>) -> Eval {
        let mut out = String::new();
        for part in parts {
            match part {
                FStrPart::Text(t) => out.push_str(t),
                FStrPart::Expr { expr, spec } => {
                    let v = self.eval(expr, scope)?;
                    let text = format_value(&v, spec.as_deref(), &self.print_opts)
                        .map_err(|m| Diagnostic::new(expr.span, m))?;
                    budget::check_items("f-string", "a string", out.len() + text.len(), 1)
                        .map_err(|e| tensor_diag(e, expr.span, &[]))?;
                    out.push_str(&text);
                }
            }
        }
        Ok(Value::str(&out))
    }

    /// `[a, b, ...]`: a tensor literal.
    fn list(&mut self, items: &[Expr], span: Span, scope: &Rc<Scope>) -> Eval {
        let mut vals = Vec::with_capacity(items.len());
        for it in items {
            vals.push((self.eval(it, scope)?, it.span));
        }
        Ok(literal::build_value(vals, span, Floats::Default)?)
    }

    fn tuple(&mut self, items: &[Expr], scope: &Rc<Scope>) -> Eval {
        let mut vals = Vec::with_capacity(items.len());
        for it in items {
            vals.push(self.eval(it, scope)?);
        }
        Ok(Value::Tuple(Rc::new(vals.into())))
    }

    fn dict(&mut self, pairs: &[(Expr, Expr)], scope: &Rc<Scope>) -> Eval {
        let mut d = Dict::default();
        for (k, v) in pairs {
            let kv = self.eval(k, scope)?;
            let key = Key::of(&kv, k.span)?;
            let vv = self.eval(v, scope)?;
            d.insert(key, vv);
        }
        Ok(Value::Dict(Rc::new(d)))
    }

    /// `lhs op rhs`; `and` and `or` evaluate `rhs` only when it decides the result.
    fn binary_expr(
        &mut self,
        op: BinOp,
        lhs: &Expr,
        rhs: &Expr,
        whole: Span,
        scope: &Rc<Scope>,
    ) -> Eval {
        if matches!(op, BinOp::And | BinOp::Or) {
            let l = self.eval(lhs, scope)?;
            let l = l.truthy().map_err(|m| Diagnostic::new(lhs.span, m))?;
            return Ok(Value::Bool(if op == BinOp::And {
                l && self.truth(rhs, scope)?
            } else {
                l || self.truth(rhs, scope)?
            }));
        }
        let at = OperandSpans {
            lhs: lhs.span,
            rhs: rhs.span,
            whole,
        };
        self.binary(op, lhs, rhs, at, scope)
    }

    fn if_expr(
        &mut self,
        cond: &Expr,
        then: &Block,
        otherwise: Option<&Expr>,
        scope: &Rc<Scope>,
    ) -> Eval {
        if self.truth(cond, scope)? {
            self.eval_block(then, scope)
        } else if let Some(o) = otherwise {
            self.eval(o, scope)
        } else {
            Ok(Value::None)
        }
    }

    /// A function value closing over `scope`: a lambda or a `fn` definition.
    fn closure(
        &mut self,
        name: Rc<str>,
        params: &[Param],
        body: Body,
        frame: Frame,
        scope: &Rc<Scope>,
    ) -> Eval {
        let params = self.eval_params(params, scope)?;
        Ok(Value::Func(Rc::new(Closure {
            name,
            params,
            body,
            frame,
            scope: scope.clone(),
        })))
    }

    pub(super) fn truth(&mut self, e: &Expr, scope: &Rc<Scope>) -> Result<bool, Flow> {
        let v = self.eval(e, scope)?;
        Ok(v.truthy().map_err(|m| Diagnostic::new(e.span, m))?)
    }
}

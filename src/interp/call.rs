//! Calls: arguments, methods, in-place methods, closures and dtype conversions.

use std::rc::Rc;

use crate::builtins;
use crate::diag::{Diagnostic, ErrorKind};
use crate::runtime::value::{Body, Closure, Params, Value};
use crate::runtime::{ArgVal, CallArgs, Scope};
use crate::span::Span;
use crate::syntax::ast::{Arg, Expr, ExprKind, Ident, Param};
use crate::tensor::DType;

use super::eval::{Eval, Flow, MAX_CALL_DEPTH};
use super::Interp;

impl Interp {
    pub(super) fn eval_params(
        &mut self,
        params: &[Param],
        scope: &Rc<Scope>,
    ) -> Result<Params, Flow> {
        let mut out = Vec::with_capacity(params.len());
        for p in params {
            let default = match &p.default {
                Some(d) => Some(self.eval(d, scope)?),
                None => None,
            };
            out.push((p.name.name.clone(), default));
        }
        Ok(out)
    }

    pub(super) fn eval_args(
        &mut self,
        args: &[Arg],
        span: Span,
        scope: &Rc<Scope>,
    ) -> Result<CallArgs, Flow> {
        let mut call = CallArgs {
            span,
            positional: Vec::with_capacity(args.len()),
            keyword: Vec::new(),
        };
        for a in args {
            let value = self.eval(&a.value, scope)?;
            let arg = ArgVal {
                value,
                span: a.value.span,
            };
            match &a.name {
                Some(n) => call.keyword.push((n.name.to_string(), n.span, arg)),
                None => call.positional.push(arg),
            }
        }
        Ok(call)
    }

    pub(super) fn call(
        &mut self,
        callee: &Expr,
        args: &[Arg],
        span: Span,
        scope: &Rc<Scope>,
    ) -> Eval {
        if let ExprKind::Attr { target, name } = &callee.kind {
            if builtins::inplace::is_inplace(&name.name) {
                return self.call_inplace(target, name, args, span, scope);
            }
            if let Some(done) = self.sequence_method(target, name, args, span, scope)? {
                return Ok(done);
            }
            let recv = self.eval(target, scope)?;
            if let Value::Module(m) = &recv {
                let f = m.scope.lookup(&name.name).ok_or_else(|| {
                    Diagnostic::new(
                        name.span,
                        format!("module `{}` has no member `{}`", m.name, name.name),
                    )
                })?;
                let call = self.eval_args(args, span, scope)?;
                return self.call_value(&f, call, callee.span);
            }
            // Method form: x.f(a) is f(x, a), for builtins and user functions alike.
            let f = match builtins::lookup(&name.name) {
                Some(b) => Value::Builtin(b),
                None => match scope.lookup(&name.name) {
                    Some(f @ Value::Func(_)) => f,
                    _ => {
                        return Err(Diagnostic::new(
                            name.span,
                            format!(
                                "no function `{}` to call as a method of {}",
                                name.name,
                                recv.describe()
                            ),
                        )
                        .into())
                    }
                },
            };
            let mut call = self.eval_args(args, span, scope)?;
            call.positional.insert(
                0,
                ArgVal {
                    value: recv,
                    span: target.span,
                },
            );
            return self.call_value(&f, call, callee.span);
        }
        let f = self.eval(callee, scope)?;
        let call = self.call_args(&f, args, span, scope)?;
        self.call_value(&f, call, callee.span)
    }

    /// `x.exp_()`, `x.fill_(v)`: updates the variable's tensor in place (a temporary
    /// receiver is updated and returned). The value is the updated tensor.
    pub(super) fn call_inplace(
        &mut self,
        target: &Expr,
        name: &Ident,
        args: &[Arg],
        span: Span,
        scope: &Rc<Scope>,
    ) -> Eval {
        let call = self.eval_args(args, span, scope)?;
        let not_tensor = |v: &Value| {
            Diagnostic::new(
                target.span,
                format!(
                    "`{}` updates a tensor in place, not {}",
                    name.name,
                    v.describe()
                ),
            )
        };
        if let ExprKind::Ident(var) = &target.kind {
            // Moved out of the scope so no second reference forces a copy.
            self.changing_in_place(var);
            let taken = scope.take(var);
            let result = match taken {
                Some(Value::Tensor(mut t)) => {
                    let r = builtins::inplace::apply(&name.name, &mut t, call);
                    scope.set(var, Value::Tensor(t.clone()));
                    r.map(|()| Value::Tensor(t))
                }
                Some(other) => {
                    let d = not_tensor(&other);
                    scope.set(var, other);
                    Err(d)
                }
                None => Err(match self.lookup(var, scope) {
                    Ok(v) => not_tensor(&v),
                    Err(d) => d,
                }),
            };
            return Ok(result?);
        }
        match self.eval(target, scope)? {
            Value::Tensor(mut t) => {
                builtins::inplace::apply(&name.name, &mut t, call)?;
                Ok(Value::Tensor(t))
            }
            other => Err(not_tensor(&other).into()),
        }
    }

    /// Calls a function value (builtin, closure, or a dtype used as a converter).
    pub(crate) fn call_value(&mut self, f: &Value, args: CallArgs, callee_span: Span) -> Eval {
        match f {
            Value::Builtin(b) => {
                let value = builtins::call(b, self, args);
                if let Some(code) = self.exit_request.take() {
                    return Err(Flow::Exit(code, callee_span));
                }
                let value = value?;
                // A kernel interrupted half-way returns an unfinished result: drop it.
                self.check_stop(callee_span)?;
                Ok(value)
            }
            Value::Func(c) => self.call_closure(c, args),
            Value::Grad(g) => {
                let value = builtins::autograd::call_grad_fn(g, self, args);
                if let Some(code) = self.exit_request.take() {
                    return Err(Flow::Exit(code, callee_span));
                }
                Ok(value?)
            }
            // `bool(x)` is Python's truth value, a builtin.
            Value::DType(DType::Bool) => match builtins::lookup("bool") {
                Some(b) => self.call_value(&Value::Builtin(b), args, callee_span),
                None => Err(Diagnostic::new(callee_span, "internal: no builtin `bool`").into()),
            },
            Value::DType(d) if args.positional.len() == 1 && args.keyword.is_empty() => {
                let a = &args.positional[0];
                let t = a.value.to_tensor_exact().ok_or_else(|| {
                    Diagnostic::new(
                        a.span,
                        format!("cannot convert {} to {d}", a.value.describe()),
                    )
                })?;
                match &a.value {
                    Value::Tensor(v) => crate::autograd::rules::cast(v, *d)
                        .map(Value::from)
                        .map_err(|e| crate::runtime::grad_diag(e, a.span).into()),
                    _ => Ok(Value::from(t.to_dtype(*d))),
                }
            }
            Value::DType(d) => {
                let message = match (args.positional.len(), args.keyword.first()) {
                    (_, Some((name, ..))) => {
                        format!("`{d}(...)` takes no keyword arguments, got `{name}`")
                    }
                    // One positional argument without keywords is the conversion above.
                    (n, None) => format!("`{d}(...)` converts one value, got {n} arguments"),
                };
                Err(Diagnostic::new(args.span, message)
                    .with_note(format!("write `{d}(x)` or `x.to({d})`"))
                    .into())
            }
            other => Err(Diagnostic::new(
                callee_span,
                format!("{} is not callable", other.describe()),
            )
            .into()),
        }
    }

    pub(super) fn call_closure(&mut self, c: &Rc<Closure>, args: CallArgs) -> Eval {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                args.span,
                format!(
                    "maximum call depth ({MAX_CALL_DEPTH}) exceeded in `{}`",
                    c.name
                ),
            )
            .with_note("hint: check the recursion's base case")
            .with_kind(ErrorKind::Recursion)
            .into());
        }
        let site = args.span;
        let values = c.bind(args)?;
        let scope = Scope::local(&c.scope, &c.frame);
        for ((name, _), value) in c.params.iter().zip(values) {
            scope.define(name, value);
        }
        self.depth += 1;
        let result = match &c.body {
            Body::Block(b) => self.eval_stmts(&b.stmts, &scope),
            Body::Expr(e) => self.eval(e, &scope),
        };
        self.depth -= 1;
        match result {
            Err(Flow::Return(v, _)) => Ok(v),
            Err(f @ (Flow::Break(_) | Flow::Continue(_))) => Err(f.into_diagnostic().into()),
            // The diagnostic shows how the program got here: each call site on the way out.
            Err(Flow::Error(mut d)) => {
                d.add_call(site);
                Err(Flow::Error(d))
            }
            other => other,
        }
    }
}

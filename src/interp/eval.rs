//! The tree-walking evaluator. Tensor and builtin errors become diagnostics at the
//! span of the expression that caused them.

use std::rc::Rc;

use crate::builtins;
use crate::diag::Diagnostic;
use crate::ops::index::{self as ix, Index, IndexError, Selection};
use crate::quant::{QType, QUANTIZABLE};
use crate::runtime::{tensor_diag, ArgVal, CallArgs, Ctx};
use crate::span::Span;
use crate::syntax::ast::{Arg, BinOp, Block, Expr, ExprKind, Ident, IndexItem, Param, Pattern};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Scalar, SliceSpec, Tensor};

use super::format_spec::format_value;
use super::literal;
use super::Interp;
use crate::runtime::arith::{self, OperandSpans};
use crate::runtime::value::{Body, Closure, Dict, Key, Params, Value};
use crate::runtime::Scope;

/// Why evaluation stopped early: an error, or a jump to an enclosing loop or function.
#[derive(Debug)]
pub enum Flow {
    Error(Box<Diagnostic>),
    Break(Span),
    Continue(Span),
    Return(Value, Span),
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
        }
    }
}

pub type Eval = Result<Value, Flow>;

/// Deepest chain of user function calls before a call is refused.
pub const MAX_CALL_DEPTH: usize = 1000;

const CONSTANTS: &[(&str, f64)] = &[
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("inf", f64::INFINITY),
    ("nan", f64::NAN),
];

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
    fn run_stmts(&mut self, stmts: &[Expr], scope: &Rc<Scope>) -> Result<(), Flow> {
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

    /// Runs a loop body; Ok(true) means it ran `break`. Each run counts a step, so
    /// even a loop with an empty body stops for the limits and Ctrl-C.
    #[inline(always)]
    fn run_body(&mut self, body: &Block, scope: &Rc<Scope>) -> Result<bool, Flow> {
        self.step(body.span)?;
        match self.run_stmts(&body.stmts, scope) {
            Ok(()) | Err(Flow::Continue(_)) => Ok(false),
            Err(Flow::Break(_)) => Ok(true),
            Err(other) => Err(other),
        }
    }

    /// `lhs op rhs`. Operands that are variables are read in place rather than cloned
    /// (a tensor clone copies its shape and strides), keeping left-to-right order: a
    /// variable on the left is only borrowed when the right side has no effects.
    fn binary(
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
        // Variables are borrowed, not cloned: computing touches no scope.
        let compute = |l: &Value, r: &Value| arith::binary(op, l, r, at);
        match (&lhs.kind, &rhs.kind) {
            (ExprKind::Ident(a), ExprKind::Ident(b)) => {
                if let (Some(l), Some(r)) = (scope.value(a), scope.value(b)) {
                    return Ok(compute(&l, &r)?);
                }
            }
            (ExprKind::Ident(a), ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_)) => {
                let r = self.eval(rhs, scope)?;
                if let Some(l) = scope.value(a) {
                    return Ok(compute(&l, &r)?);
                }
            }
            (_, ExprKind::Ident(b)) => {
                let l = self.eval(lhs, scope)?;
                return match scope.value(b) {
                    Some(r) => Ok(compute(&l, &r)?),
                    None => {
                        let r = self.eval(rhs, scope)?;
                        Ok(compute(&l, &r)?)
                    }
                };
            }
            _ => {}
        }
        let l = self.eval(lhs, scope)?;
        let r = self.eval(rhs, scope)?;
        Ok(compute(&l, &r)?)
    }

    fn eval_block(&mut self, b: &Block, scope: &Rc<Scope>) -> Eval {
        self.in_block(b, scope, Self::eval_stmts)
    }

    /// Runs `f` on a block's statements in the block's own scope, or in `scope` when
    /// the block binds nothing and so needs no scope.
    fn in_block<R>(
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
        Ok(match &e.kind {
            ExprKind::Int(i) => Value::Int(*i),
            ExprKind::Float(f) => Value::Float(*f),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Str(s) => Value::str(s),
            ExprKind::None => Value::None,
            ExprKind::FStr(parts) => {
                let mut out = String::new();
                for part in parts {
                    match part {
                        crate::syntax::ast::FStrPart::Text(t) => out.push_str(t),
                        crate::syntax::ast::FStrPart::Expr { expr, spec } => {
                            let v = self.eval(expr, scope)?;
                            let text = format_value(&v, spec.as_deref(), &self.print_opts)
                                .map_err(|m| Diagnostic::new(expr.span, m))?;
                            out.push_str(&text);
                        }
                    }
                }
                Value::str(&out)
            }
            ExprKind::Ident(var) => self.lookup(var, scope)?,
            ExprKind::List(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for it in items {
                    vals.push((self.eval(it, scope)?, it.span));
                }
                Value::from(literal::build(vals, e.span)?)
            }
            ExprKind::Tuple(items) => {
                let mut vals = Vec::with_capacity(items.len());
                for it in items {
                    vals.push(self.eval(it, scope)?);
                }
                Value::Tuple(Rc::new(vals))
            }
            ExprKind::Dict(pairs) => {
                let mut d = Dict::default();
                for (k, v) in pairs {
                    let kv = self.eval(k, scope)?;
                    let key = Key::from_value(&kv).ok_or_else(|| {
                        Diagnostic::new(
                            k.span,
                            format!(
                                "dict keys must be strings, ints or bools, not {}",
                                kv.describe()
                            ),
                        )
                    })?;
                    let vv = self.eval(v, scope)?;
                    d.insert(key, vv);
                }
                Value::Dict(Rc::new(d))
            }
            ExprKind::Unary { op, expr } => {
                let v = self.eval(expr, scope)?;
                arith::unary(*op, &v, e.span)?
            }
            ExprKind::Binary {
                op: BinOp::And,
                lhs,
                rhs,
            } => {
                let l = self.eval(lhs, scope)?;
                let l = l.truthy().map_err(|m| Diagnostic::new(lhs.span, m))?;
                Value::Bool(l && self.truth(rhs, scope)?)
            }
            ExprKind::Binary {
                op: BinOp::Or,
                lhs,
                rhs,
            } => {
                let l = self.eval(lhs, scope)?;
                let l = l.truthy().map_err(|m| Diagnostic::new(lhs.span, m))?;
                Value::Bool(l || self.truth(rhs, scope)?)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let at = OperandSpans {
                    lhs: lhs.span,
                    rhs: rhs.span,
                    whole: e.span,
                };
                self.binary(*op, lhs, rhs, at, scope)?
            }
            ExprKind::Call { callee, args } => self.call(callee, args, e.span, scope)?,
            ExprKind::Attr { target, name } => {
                let v = self.eval(target, scope)?;
                self.attr(&v, name)?
            }
            ExprKind::Index { target, items } => {
                let v = self.eval(target, scope)?;
                if let Value::Dict(d) = &v {
                    return self.dict_get(d, items, e.span, scope);
                }
                let idx = self.eval_index(items, scope)?;
                self.index(&v, &idx, target.span, e.span)?
            }
            ExprKind::Block(b) => self.eval_block(b, scope)?,
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.truth(cond, scope)? {
                    self.eval_block(then, scope)?
                } else if let Some(o) = otherwise {
                    self.eval(o, scope)?
                } else {
                    Value::None
                }
            }
            ExprKind::While { cond, body } => {
                while self.truth(cond, scope)? {
                    if self.in_block(body, scope, |this, _, inner| this.run_body(body, inner))? {
                        break;
                    }
                }
                Value::None
            }
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
                let params = self.eval_params(params, scope)?;
                Value::Func(Rc::new(Closure {
                    name: Rc::from("<lambda>"),
                    params,
                    body: Body::Expr((**body).clone()),
                    frame: frame.clone(),
                    scope: scope.clone(),
                }))
            }
            ExprKind::Fn { name, params, body } => {
                let params = self.eval_params(params, scope)?;
                let f = Value::Func(Rc::new(Closure {
                    name: name.name.clone(),
                    params,
                    body: Body::Block(body.clone()),
                    frame: body.frame.clone(),
                    scope: scope.clone(),
                }));
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

    fn truth(&mut self, e: &Expr, scope: &Rc<Scope>) -> Result<bool, Flow> {
        let v = self.eval(e, scope)?;
        Ok(v.truthy().map_err(|m| Diagnostic::new(e.span, m))?)
    }

    fn lookup(&self, var: &Ident, scope: &Rc<Scope>) -> Result<Value, Diagnostic> {
        if let Some(v) = scope.get(var) {
            return Ok(v);
        }
        let name = &*var.name;
        if let Some(b) = builtins::lookup(name) {
            return Ok(Value::Builtin(b));
        }
        if let Some(d) = crate::tensor::DType::from_name(name) {
            return Ok(Value::DType(d));
        }
        if let Some((_, c)) = CONSTANTS.iter().find(|(n, _)| *n == name) {
            return Ok(Value::Float(*c));
        }
        // Quantized type names (`quantize(x, q4_k)`) stand for their string names.
        if let Some(q) = QType::from_name(name).filter(|q| QUANTIZABLE.contains(q)) {
            return Ok(Value::str(q.name()));
        }
        let mut d = Diagnostic::new(var.span, format!("undefined name `{name}`"));
        if let Some(s) = self.suggest(name, scope) {
            d = d.with_note(format!("hint: did you mean `{s}`?"));
        }
        Err(d)
    }

    /// The closest known name, for "did you mean" hints.
    fn suggest(&self, name: &str, scope: &Rc<Scope>) -> Option<String> {
        let mut candidates: Vec<String> =
            builtins::all().iter().map(|b| b.name.to_string()).collect();
        let mut s = Some(scope.clone());
        while let Some(sc) = s {
            candidates.extend(sc.entries().into_iter().map(|(n, _)| n.to_string()));
            s = sc.parent();
        }
        candidates
            .into_iter()
            .map(|c| (edit_distance(name, &c), c))
            .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
            .min()
            .map(|(_, c)| c)
    }

    fn eval_params(&mut self, params: &[Param], scope: &Rc<Scope>) -> Result<Params, Flow> {
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

    /// Binds a `let`/`for` pattern in `scope`.
    fn bind(
        &mut self,
        pattern: &Pattern,
        v: Value,
        span: Span,
        scope: &Rc<Scope>,
    ) -> Result<(), Diagnostic> {
        match pattern {
            Pattern::Name(id) => {
                scope.bind(id, v);
                Ok(())
            }
            Pattern::Tuple(pats, pspan) => {
                let items: Vec<Value> = match &v {
                    Value::Tuple(items) => items.to_vec(),
                    Value::Tensor(t) if t.ndim() > 0 => (0..t.shape()[0] as i64)
                        .map(|i| t.select(0, i).map(Value::from))
                        .collect::<Result<_, _>>()
                        .map_err(|e| tensor_diag(e, span, &[]))?,
                    other => {
                        return Err(Diagnostic::new(
                            span,
                            format!(
                                "cannot unpack {} into {} names",
                                other.describe(),
                                pats.len()
                            ),
                        )
                        .with_label(*pspan, "these names"))
                    }
                };
                if items.len() != pats.len() {
                    return Err(Diagnostic::new(
                        span,
                        format!(
                            "cannot unpack {} values into {} names",
                            items.len(),
                            pats.len()
                        ),
                    )
                    .with_label(*pspan, format!("{} names here", pats.len())));
                }
                for (p, item) in pats.iter().zip(items) {
                    self.bind(p, item, span, scope)?;
                }
                Ok(())
            }
        }
    }

    fn for_loop(
        &mut self,
        pattern: &Pattern,
        it: &Value,
        it_span: Span,
        body: &Block,
        scope: &Rc<Scope>,
    ) -> Eval {
        // Each iteration gets a fresh scope; the previous one is reused (cleared) unless
        // a closure made in the body still holds it.
        let mut inner = Scope::local(scope, &body.frame);
        if let (Value::Range(start, stop, by), Pattern::Name(var)) = (it, pattern) {
            // The common loop: the counter goes straight into the variable's slot.
            for i in range_values(*start, *stop, *by) {
                if Rc::strong_count(&inner) != 1 {
                    inner = Scope::local(scope, &body.frame);
                }
                inner.restart(var, i);
                if self.run_body(body, &inner)? {
                    break;
                }
            }
            return Ok(Value::None);
        }
        // Runs the body once with `item` bound; Ok(true) means `break`.
        let mut step = |this: &mut Interp, item: Value| -> Result<bool, Flow> {
            if Rc::strong_count(&inner) == 1 {
                inner.clear();
            } else {
                inner = Scope::local(scope, &body.frame);
            }
            this.bind(pattern, item, it_span, &inner)?;
            this.run_body(body, &inner)
        };
        match it {
            Value::Range(start, stop, by) => {
                for i in range_values(*start, *stop, *by) {
                    if step(self, Value::Int(i))? {
                        break;
                    }
                }
            }
            Value::Tensor(t) => {
                if t.ndim() == 0 {
                    return Err(Diagnostic::new(it_span, "cannot iterate over a 0-d tensor").into());
                }
                for i in 0..t.shape()[0] as i64 {
                    let row = t.select(0, i).map_err(|e| tensor_diag(e, it_span, &[]))?;
                    if step(self, Value::from(row))? {
                        break;
                    }
                }
            }
            Value::Tuple(items) => {
                for item in items.iter() {
                    if step(self, item.clone())? {
                        break;
                    }
                }
            }
            Value::Dict(d) => {
                for (k, _) in d.entries.iter() {
                    if step(self, k.to_value())? {
                        break;
                    }
                }
            }
            Value::Str(s) => {
                for c in s.chars() {
                    if step(self, Value::str(&c.to_string()))? {
                        break;
                    }
                }
            }
            other => {
                return Err(Diagnostic::new(
                    it_span,
                    format!("cannot iterate over {}", other.describe()),
                )
                .into())
            }
        }
        Ok(Value::None)
    }

    fn eval_args(&mut self, args: &[Arg], span: Span, scope: &Rc<Scope>) -> Result<CallArgs, Flow> {
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

    fn call(&mut self, callee: &Expr, args: &[Arg], span: Span, scope: &Rc<Scope>) -> Eval {
        if let ExprKind::Attr { target, name } = &callee.kind {
            if builtins::inplace::is_inplace(&name.name) {
                return self.call_inplace(target, name, args, span, scope);
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
        let call = self.eval_args(args, span, scope)?;
        self.call_value(&f, call, callee.span)
    }

    /// `x.exp_()`, `x.fill_(v)`: updates the variable's tensor in place (a temporary
    /// receiver is updated and returned). The value is the updated tensor.
    fn call_inplace(
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
                let mut ctx = Ctx {
                    out: &mut *self.out,
                    print: &mut self.print_opts,
                    script_args: &self.script_args,
                    rng: &mut self.rng,
                    figure: &mut self.figure,
                };
                let value = builtins::call(b, &mut ctx, args)?;
                // A kernel interrupted half-way returns an unfinished result: drop it.
                Self::check_interrupt(callee_span)?;
                Ok(value)
            }
            Value::Func(c) => self.call_closure(c, args),
            Value::DType(d) if args.positional.len() == 1 && args.keyword.is_empty() => {
                let a = &args.positional[0];
                let t = a.value.to_tensor().ok_or_else(|| {
                    Diagnostic::new(
                        a.span,
                        format!("cannot convert {} to {d}", a.value.describe()),
                    )
                })?;
                Ok(Value::from(t.to_dtype(*d)))
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

    fn call_closure(&mut self, c: &Rc<Closure>, args: CallArgs) -> Eval {
        if self.depth >= MAX_CALL_DEPTH {
            return Err(Diagnostic::new(
                args.span,
                format!(
                    "maximum call depth ({MAX_CALL_DEPTH}) exceeded in `{}`",
                    c.name
                ),
            )
            .with_note("hint: check the recursion's base case")
            .into());
        }
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
            other => other,
        }
    }

    fn attr(&self, v: &Value, name: &Ident) -> Result<Value, Diagnostic> {
        let ints = |xs: Vec<i64>| Value::Tuple(Rc::new(xs.into_iter().map(Value::Int).collect()));
        let found = match v {
            Value::Tensor(t) => match &*name.name {
                "shape" => Some(ints(t.shape().iter().map(|&d| d as i64).collect())),
                "strides" => Some(ints(t.strides().iter().map(|&s| s as i64).collect())),
                "dtype" => Some(Value::DType(t.dtype())),
                "ndim" => Some(Value::Int(t.ndim() as i64)),
                "numel" => Some(Value::Int(t.numel() as i64)),
                "nbytes" => Some(Value::Int(t.nbytes() as i64)),
                "is_contiguous" => Some(Value::Bool(t.is_contiguous())),
                "owns_data" => Some(Value::Bool(t.owns_data())),
                "T" if t.ndim() < 2 => Some(Value::Tensor(t.clone())),
                "T" => Some(Value::from(
                    t.transpose(-2, -1)
                        .map_err(|e| tensor_diag(e, name.span, &[]))?,
                )),
                _ => None,
            },
            Value::Module(m) => m.scope.lookup(&name.name),
            // `model.metadata`: string keys of a dict read as attributes.
            Value::Dict(d) => match d.get(&Key::Str(name.name.clone())) {
                Some(Value::Lazy(l)) => Some(l.force().map_err(|e| Diagnostic::new(name.span, e))?),
                other => other.cloned(),
            },
            Value::Quant(q) => {
                let shape = q.shape();
                match &*name.name {
                    "shape" => Some(ints(shape.iter().map(|&d| d as i64).collect())),
                    "dtype" => Some(Value::str(q.q.qtype.name())),
                    "ndim" => Some(Value::Int(shape.len() as i64)),
                    "numel" => Some(Value::Int(shape.iter().product::<usize>() as i64)),
                    "nbytes" => Some(Value::Int(q.q.nbytes() as i64)),
                    "T" => Some(Value::Quant(crate::runtime::value::QuantValue {
                        q: q.q.clone(),
                        transposed: !q.transposed,
                    })),
                    _ => None,
                }
            }
            _ => None,
        };
        found.ok_or_else(|| {
            let mut d = Diagnostic::new(name.span, format!("{} has no attribute `{}`", v.describe(), name.name));
            if matches!(v, Value::Tensor(_)) {
                d = d.with_note("tensor attributes: shape dtype ndim numel nbytes strides is_contiguous owns_data T");
            }
            d
        })
    }

    fn eval_index(
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

    fn index(
        &self,
        v: &Value,
        idx: &[(Index, Span)],
        target: Span,
        whole: Span,
    ) -> Result<Value, Diagnostic> {
        match v {
            Value::Tensor(t) => {
                let items: Vec<Index> = idx.iter().map(|(i, _)| i.clone()).collect();
                let picked =
                    ix::index_get(t, &items).map_err(|e| index_diag(e, t, idx, target, whole))?;
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
                        })
                }
                _ => Err(Diagnostic::new(whole, "a string takes one integer index")),
            },
            other => Err(Diagnostic::new(
                target,
                format!("{} cannot be indexed", other.describe()),
            )),
        }
    }

    fn dict_get(&mut self, d: &Dict, items: &[IndexItem], whole: Span, scope: &Rc<Scope>) -> Eval {
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
            .into()
        })
    }

    /// `target = value`, `target op= value`. A scalar variable updated by a scalar
    /// (`s += i`, the loop case) is done here; the rest out of line.
    #[inline(always)]
    fn assign(
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
    fn assign_any(
        &mut self,
        target: &Expr,
        op: Option<BinOp>,
        value: &Expr,
        scope: &Rc<Scope>,
    ) -> Result<(), Flow> {
        match &target.kind {
            ExprKind::Ident(name) => {
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
                        let at = OperandSpans {
                            lhs: target.span,
                            rhs: value.span,
                            whole: target.span.to(value.span),
                        };
                        let cur = self.lookup(name, scope)?;
                        let result = arith::binary(op, &cur, &rhs, at)?;
                        match cur {
                            // In place: the result is written back into the tensor's own storage.
                            Value::Tensor(_) => {
                                let mut t = match scope.take(name) {
                                    Some(Value::Tensor(t)) => t,
                                    _ => {
                                        return Err(Diagnostic::new(
                                            target.span,
                                            "internal: variable changed",
                                        )
                                        .into())
                                    }
                                };
                                t.make_writable();
                                let region = Selection::from(t.layout().clone());
                                let written = self.store(&mut t, &region, &result, Some(op), at);
                                scope.set(name, Value::Tensor(t));
                                written?;
                                return Ok(());
                            }
                            _ => result,
                        }
                    }
                };
                if !scope.set(name, new) {
                    return Err(Diagnostic::new(
                        target.span,
                        format!("assignment to undefined variable `{}`", name.name),
                    )
                    .with_note(format!(
                        "hint: declare it first with `let {} = ...`",
                        name.name
                    ))
                    .into());
                }
                Ok(())
            }
            ExprKind::Index {
                target: base,
                items,
            } => {
                let ExprKind::Ident(name) = &base.kind else {
                    return Err(Diagnostic::new(
                        base.span,
                        "can only assign through an index of a variable (`x[i] = v`)",
                    )
                    .into());
                };
                // Keyed containers: d["k"] = v
                if let Some(Value::Dict(_)) = scope.get(name) {
                    return self.assign_dict(name, base.span, items, op, value, scope);
                }
                let idx = self.eval_index(items, scope)?;
                let rhs = self.eval(value, scope)?;
                let Some(mut cur) = scope.take(name) else {
                    return Err(Diagnostic::new(
                        base.span,
                        format!("undefined name `{}`", name.name),
                    )
                    .into());
                };
                let result =
                    self.assign_index(&mut cur, &idx, rhs, op, base.span, target.span, value.span);
                scope.set(name, cur);
                Ok(result?)
            }
            ExprKind::Attr { name, .. } => Err(Diagnostic::new(
                target.span,
                format!("cannot assign to the attribute `{}`", name.name),
            )
            .with_note("attributes are read-only; a dict entry is set with `d[\"key\"] = value`")
            .into()),
            _ => Err(Diagnostic::new(target.span, "cannot assign to this expression").into()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn assign_index(
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
        // The selection is computed after make_writable, which may move the elements.
        t.make_writable();
        let items: Vec<Index> = idx.iter().map(|(i, _)| i.clone()).collect();
        let region =
            ix::select(t.layout(), &items).map_err(|e| index_diag(e, t, idx, base, target))?;
        let at = OperandSpans {
            lhs: target,
            rhs: value,
            whole: target.to(value),
        };
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
    fn store(
        &mut self,
        t: &mut Tensor,
        region: &Selection,
        new: &Value,
        op: Option<BinOp>,
        at: OperandSpans,
    ) -> Result<(), Diagnostic> {
        let src = new.to_tensor().ok_or_else(|| {
            Diagnostic::new(
                at.rhs,
                format!("cannot store {} in a tensor", new.describe()),
            )
        })?;
        if let Some(op) = op {
            if src.dtype().category() > t.dtype().category() {
                return Err(Diagnostic::new(
                    at.whole,
                    format!(
                        "`{}=` would store a {} result in a {} tensor",
                        op.symbol(),
                        src.dtype(),
                        t.dtype()
                    ),
                )
                .with_note(format!(
                    "hint: write `x = x {} ...` to get a new {} tensor instead",
                    op.symbol(),
                    src.dtype()
                )));
            }
        }
        ix::write(t, region, &src).map_err(|e| {
            tensor_diag(e, at.whole, &[]).with_label(at.rhs, format!("this is {}", new.describe()))
        })
    }

    fn assign_dict(
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
        let key = Key::from_value(&kv).ok_or_else(|| {
            Diagnostic::new(
                ke.span,
                format!(
                    "dict keys must be strings, ints or bools, not {}",
                    kv.describe()
                ),
            )
        })?;
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
        Rc::make_mut(&mut d).insert(key, rhs);
        scope.set(name, Value::Dict(d));
        Ok(())
    }
}

/// The values of `range(start, stop, by)`, in order.
fn range_values(start: i64, stop: i64, by: i64) -> impl Iterator<Item = i64> {
    std::iter::successors(Some(start), move |i| i.checked_add(by))
        .take_while(move |&i| (by > 0 && i < stop) || (by < 0 && i > stop))
}

/// A literal, or a variable holding a scalar, read without evaluating it as an
/// expression (no `Value` cloned or moved): the operands of scalar loops.
#[inline(always)]
fn scalar_operand(e: &Expr, scope: &Scope) -> Option<Scalar> {
    match &e.kind {
        ExprKind::Int(i) => Some(Scalar::Int(*i)),
        ExprKind::Float(f) => Some(Scalar::Float(*f)),
        ExprKind::Bool(b) => Some(Scalar::Bool(*b)),
        ExprKind::Ident(var) => scope.value(var)?.as_scalar(),
        _ => None,
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

/// An indexing error, labelled at the offending index when it can be told apart.
fn index_diag(
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
            Ok(Index::Tensor((**t).clone()))
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

/// Levenshtein distance, for "did you mean" hints.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

//! Name resolution, once per parse: each block learns the names its scope will hold
//! and each variable the slots that may hold it, so the evaluator reads and writes a
//! variable by index instead of searching the scope chain by name.
//!
//! Lookup keeps its dynamic meaning: a scope binds a name only once the `let` (`fn`,
//! `import`, `use`) has run, and a closure sees names its scope binds later. So a
//! variable lists every enclosing scope that binds its name anywhere, and the evaluator
//! takes the innermost of them bound at that moment, else the global. Top-level names
//! are globals, found by name: the REPL and modules add them as they run.
//!
//! The scopes modelled here are the ones the evaluator makes: one per call (the
//! parameters and the body's names), one per `for` loop (the pattern's names and the
//! body's), one per comprehension (its clauses' names), one per `catch` block (the
//! error's name and the block's), and one per other block that binds a name.

use std::collections::HashSet;
use std::rc::Rc;

use super::ast::{
    Binding, Block, Clause, Expr, ExprKind, FStrPart, Frame, Ident, IndexItem, Param, Pattern,
    Slot, TryCatch,
};

/// Resolves a program's statements (run in the global scope).
pub fn resolve(stmts: &mut [Expr]) {
    let mut r = Resolver::default();
    for s in stmts {
        r.expr(s);
    }
}

#[derive(Default)]
struct Resolver {
    /// The local scopes around the current point, innermost last.
    frames: Vec<Frame>,
    /// One `Rc` per distinct name, so slots are matched by pointer.
    names: HashSet<Rc<str>>,
}

impl Resolver {
    fn intern(&mut self, name: &mut Rc<str>) {
        match self.names.get(name) {
            Some(n) => *name = n.clone(),
            None => {
                self.names.insert(name.clone());
            }
        }
    }

    /// A variable read or assigned: the slots of every enclosing scope binding it.
    fn var(&mut self, id: &mut Ident) {
        self.intern(&mut id.name);
        let name = &id.name;
        id.at = Binding {
            locals: self
                .frames
                .iter()
                .rev()
                .enumerate()
                .filter_map(|(hops, f)| {
                    let index = f.iter().position(|n| Rc::ptr_eq(n, name))?;
                    Some(Slot { hops, index })
                })
                .collect(),
            ..Binding::default()
        };
    }

    /// A name bound in the scope holding `frame` (a global when there is none).
    fn binder(&mut self, id: &mut Ident, frame: Option<&Frame>) {
        self.intern(&mut id.name);
        let name = &id.name;
        let index = frame.and_then(|f| f.iter().position(|n| Rc::ptr_eq(n, name)));
        id.at.locals = index
            .map(|index| Slot { hops: 0, index })
            .into_iter()
            .collect();
    }

    fn add(&mut self, id: &mut Ident, names: &mut Vec<Rc<str>>) {
        self.intern(&mut id.name);
        if !names.iter().any(|n| Rc::ptr_eq(n, &id.name)) {
            names.push(id.name.clone());
        }
    }

    fn pattern_names(&mut self, p: &mut Pattern, names: &mut Vec<Rc<str>>) {
        match p {
            Pattern::Name(id) => self.add(id, names),
            Pattern::Tuple(items, _) => {
                for item in items {
                    self.pattern_names(item, names);
                }
            }
        }
    }

    fn bind_pattern(&mut self, p: &mut Pattern, frame: Option<&Frame>) {
        match p {
            Pattern::Name(id) => self.binder(id, frame),
            Pattern::Tuple(items, _) => {
                for item in items {
                    self.bind_pattern(item, frame);
                }
            }
        }
    }

    /// Resolves a block whose scope holds `names` (a `for` pattern's or a function's
    /// parameters) and the names its statements bind. `scoped`: the evaluator makes
    /// the scope even when it holds nothing.
    fn block(&mut self, b: &mut Block, mut names: Vec<Rc<str>>, scoped: bool) {
        for s in &mut b.stmts {
            match &mut s.kind {
                ExprKind::Let { pattern, .. } => self.pattern_names(pattern, &mut names),
                ExprKind::Fn { name: id, .. }
                | ExprKind::Import { alias: id, .. }
                | ExprKind::Use { module: id } => self.add(id, &mut names),
                _ => {}
            }
        }
        b.frame = Rc::from(names);
        let pushed = scoped || !b.frame.is_empty();
        if pushed {
            self.frames.push(b.frame.clone());
        }
        for s in &mut b.stmts {
            self.expr(s);
        }
        if pushed {
            self.frames.pop();
        }
    }

    /// Resolves the parameter defaults (evaluated where the function is defined) and
    /// returns the parameter names, which a call binds by name.
    fn defaults(&mut self, params: &mut [Param]) -> Vec<Rc<str>> {
        let mut names = Vec::with_capacity(params.len());
        for p in params {
            if let Some(d) = &mut p.default {
                self.expr(d);
            }
            self.add(&mut p.name, &mut names);
        }
        names
    }

    fn expr(&mut self, e: &mut Expr) {
        match &mut e.kind {
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::None
            | ExprKind::Break
            | ExprKind::Continue => {}
            ExprKind::FStr(parts) => {
                for part in parts {
                    if let FStrPart::Expr { expr, .. } = part {
                        self.expr(expr);
                    }
                }
            }
            ExprKind::Ident(id) => self.var(id),
            ExprKind::List(items) | ExprKind::Tuple(items) => {
                for it in items {
                    self.expr(it);
                }
            }
            ExprKind::Dict(pairs) => {
                for (k, v) in pairs {
                    self.expr(k);
                    self.expr(v);
                }
            }
            ExprKind::Unary { expr, .. } => self.expr(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Compare { first, rest } => {
                self.expr(first);
                rest.iter_mut().for_each(|(_, e)| self.expr(e));
            }
            ExprKind::Call { callee, args } => {
                self.expr(callee);
                for a in args {
                    self.expr(&mut a.value);
                }
            }
            ExprKind::Attr { target, .. } => self.expr(target),
            ExprKind::Index { target, items } => {
                self.expr(target);
                items.iter_mut().for_each(|it| self.index_item(it));
            }
            ExprKind::Block(b) | ExprKind::NoGrad(b) => self.block(b, Vec::new(), false),
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.block(then, Vec::new(), false);
                if let Some(o) = otherwise {
                    self.expr(o);
                }
            }
            ExprKind::While { cond, body } => {
                self.expr(cond);
                self.block(body, Vec::new(), false);
            }
            ExprKind::For {
                pattern,
                iter,
                body,
            } => self.for_loop(pattern, iter, body),
            ExprKind::Lambda {
                params,
                body,
                frame,
            } => self.lambda(params, body, frame),
            ExprKind::Fn { name, params, body } => {
                let outer = self.frames.last().cloned();
                self.binder(name, outer.as_ref());
                let names = self.defaults(params);
                self.block(body, names, true);
            }
            ExprKind::Let { pattern, value } => {
                self.expr(value);
                let frame = self.frames.last().cloned();
                self.bind_pattern(pattern, frame.as_ref());
            }
            ExprKind::Assign { target, value, .. } => {
                self.expr(target);
                self.expr(value);
            }
            ExprKind::Return(v) => {
                if let Some(v) = v {
                    self.expr(v);
                }
            }
            ExprKind::Try(t) => {
                let TryCatch {
                    body,
                    name,
                    handler,
                } = &mut **t;
                self.block(body, Vec::new(), false);
                let mut names = Vec::new();
                self.add(name, &mut names);
                self.block(handler, names, true);
                self.binder(name, Some(&handler.frame));
            }
            ExprKind::Comprehension {
                elem,
                clauses,
                frame,
                ..
            } => self.comprehension(elem, clauses, frame),
            ExprKind::Del(target) => self.expr(target),
            ExprKind::Import { alias: id, .. } | ExprKind::Use { module: id } => {
                let frame = self.frames.last().cloned();
                self.binder(id, frame.as_ref());
            }
        }
    }

    fn index_item(&mut self, item: &mut IndexItem) {
        match item {
            IndexItem::Expr(x) => self.expr(x),
            IndexItem::Slice {
                start, stop, step, ..
            } => {
                for x in [start, stop, step].into_iter().flatten() {
                    self.expr(x);
                }
            }
            IndexItem::Ellipsis(_) => {}
        }
    }

    /// `for pattern in iter body`: the pattern's names live in the body's frame.
    fn for_loop(&mut self, pattern: &mut Pattern, iter: &mut Expr, body: &mut Block) {
        self.expr(iter);
        let mut names = Vec::new();
        self.pattern_names(pattern, &mut names);
        self.block(body, names, true);
        self.bind_pattern(pattern, Some(&body.frame));
    }

    /// A comprehension's scope holds the names of all its `for` clauses. Its first
    /// iterable is read before any of them is bound, so it sees the outer names.
    fn comprehension(&mut self, elem: &mut Expr, clauses: &mut [Clause], frame: &mut Frame) {
        let mut names = Vec::new();
        for c in clauses.iter_mut() {
            if let Clause::For { pattern, .. } = c {
                self.pattern_names(pattern, &mut names);
            }
        }
        *frame = Rc::from(names);
        self.frames.push(frame.clone());
        for c in clauses.iter_mut() {
            match c {
                Clause::For { pattern, iter } => {
                    self.expr(iter);
                    self.bind_pattern(pattern, Some(frame));
                }
                Clause::If(cond) => self.expr(cond),
            }
        }
        self.expr(elem);
        self.frames.pop();
    }

    /// A lambda's parameters (after their defaults) form the frame of its body.
    fn lambda(&mut self, params: &mut [Param], body: &mut Expr, frame: &mut Frame) {
        *frame = Rc::from(self.defaults(params));
        self.frames.push(frame.clone());
        self.expr(body);
        self.frames.pop();
    }
}

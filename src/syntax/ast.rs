//! The syntax tree: data only. Every node carries the span it was parsed from.

use crate::span::Span;
use std::cell::Cell;
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub stmts: Vec<Expr>,
    pub span: Span,
}

/// A name as written: a variable read or assigned, a name a statement binds, or an
/// attribute or keyword name (for which `at` stays empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    // Rc: scopes keep the name without copying it on every binding.
    pub name: Rc<str>,
    pub span: Span,
    /// Where the variable lives, filled in by the resolver.
    pub at: Binding,
}

impl Ident {
    pub fn new(name: &str, span: Span) -> Ident {
        Ident {
            name: name.into(),
            span,
            at: Binding::default(),
        }
    }
}

/// Where a variable may be stored (see `syntax::resolve`): the slots of the enclosing
/// local scopes that bind its name, innermost first. None of them bound yet (or no
/// such scope) means the global of that name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Binding {
    pub locals: Vec<Slot>,
    /// Where the global was last found among the globals, tried first next time.
    pub global_hint: Cell<usize>,
}

/// A slot of a local scope: `hops` scopes up the chain from where the name is used,
/// at `index` in that scope's [`Frame`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slot {
    pub hops: usize,
    pub index: usize,
}

/// The names a local scope holds, in slot order.
pub type Frame = Rc<[Rc<str>]>;

/// A `{ ... }` body: statements separated by newlines or `;`. Its value is the value
/// of the last statement when that statement is an expression, else `none`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Expr>,
    pub span: Span,
    /// The names its scope holds (a `for` pattern's or a function's parameters first),
    /// filled in by the resolver. A plain block that binds nothing gets no scope.
    pub frame: Frame,
}

impl Block {
    pub fn new(stmts: Vec<Expr>, span: Span) -> Block {
        Block {
            stmts,
            span,
            frame: Frame::default(),
        }
    }
}

/// A binding target of `let` and `for`: a name or a (nested) tuple of names.
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    Name(Ident),
    Tuple(Vec<Pattern>, Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub default: Option<Expr>,
}

/// A call argument: positional (`name` is None) or keyword (`axis=1`).
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<Ident>,
    pub value: Expr,
}

// Slices are rare next to plain indices; boxing them would only add indirection.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum IndexItem {
    /// `x[i]`, also `x[none]` (new axis) and tensors (mask / fancy) — decided at run time.
    Expr(Expr),
    /// `x[a:b:c]`, each part optional.
    Slice {
        start: Option<Expr>,
        stop: Option<Expr>,
        step: Option<Expr>,
        span: Span,
    },
    /// `x[...]`
    Ellipsis(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum FStrPart {
    Text(String),
    /// `{expr}` or `{expr:spec}`; spec as written after the colon (e.g. `.3f`).
    Expr {
        expr: Expr,
        spec: Option<String>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `~x` (bitwise / logical not on bool and int tensors)
    BitNot,
    /// `not x` (scalar truth)
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Rem,
    Pow,
    MatMul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    /// `and` (short-circuit)
    And,
    /// `or` (short-circuit)
    Or,
    /// `x in xs`: membership (an item of a tuple, a key of a dict, a substring, an
    /// element of a tensor).
    In,
    /// `x not in xs`
    NotIn,
}

impl BinOp {
    /// The operator as written in source, for diagnostics.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Rem => "%",
            BinOp::Pow => "**",
            BinOp::MatMul => "@",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::In => "in",
            BinOp::NotIn => "not in",
        }
    }
}

/// `try { body } catch name { handler }`: the handler runs with `name` bound to the
/// error when the body raises one it may catch; the handler's frame holds the name.
#[derive(Clone, Debug, PartialEq)]
pub struct TryCatch {
    pub body: Block,
    pub name: Ident,
    pub handler: Block,
}

/// What a comprehension builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collect {
    /// `[...]`: the items stacked into a tensor, as a list literal would be.
    Tensor,
    /// `(...)`: a tuple of the items.
    Tuple,
}

/// A clause of a comprehension, applied left to right.
#[derive(Clone, Debug, PartialEq)]
pub enum Clause {
    /// `for pattern in iter`
    For { pattern: Pattern, iter: Expr },
    /// `if cond`
    If(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

// A plain tag byte: the evaluator matches on the kind of every node it visits, and
// a tag hidden in a field's spare values takes several instructions to decode.
#[repr(u8)]
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(Rc<str>),
    FStr(Vec<FStrPart>),
    None,
    Ident(Ident),
    /// `[a, b, ...]`: a tensor literal (nested lists make higher ranks).
    List(Vec<Expr>),
    /// `(a, b)`, `(a,)`, `()`
    Tuple(Vec<Expr>),
    /// `{"k": v, ...}`; `{}` in expression position is an empty dict.
    Dict(Vec<(Expr, Expr)>),
    Unary {
        op: UnOp,
        expr: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a < b <= c`: two or more comparisons chained as in Python, meaning
    /// `a < b and b <= c` with `b` evaluated once (elementwise `&` for tensors). A
    /// single comparison is a `Binary`.
    Compare {
        first: Box<Expr>,
        rest: Vec<(BinOp, Expr)>,
    },
    /// `f(args)`; when `callee` is an `Attr`, this is the method form `x.f(args)`.
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
    },
    /// `x.name` (attributes like `.shape`, `.T`, module members)
    Attr {
        target: Box<Expr>,
        name: Ident,
    },
    /// `x[i, a:b, ..., none]`
    Index {
        target: Box<Expr>,
        items: Vec<IndexItem>,
    },
    Block(Block),
    If {
        cond: Box<Expr>,
        then: Block,
        /// A `Block` expression or another `If` (for `else if`).
        otherwise: Option<Box<Expr>>,
    },
    While {
        cond: Box<Expr>,
        body: Block,
    },
    For {
        pattern: Pattern,
        iter: Box<Expr>,
        body: Block,
    },
    /// `|a, b = 1| expr`; `frame` holds the parameters (filled in by the resolver).
    Lambda {
        params: Vec<Param>,
        body: Box<Expr>,
        frame: Frame,
    },
    /// `fn name(params) { body }`: binds `name` in the current scope.
    Fn {
        name: Ident,
        params: Vec<Param>,
        body: Block,
    },
    Let {
        pattern: Pattern,
        value: Box<Expr>,
    },
    /// `target = value` or `target op= value`; target is an Ident, Index or Attr expr.
    Assign {
        target: Box<Expr>,
        op: Option<BinOp>,
        value: Box<Expr>,
    },
    Return(Option<Box<Expr>>),
    Break,
    Continue,
    /// `try { body } catch name { handler }` (boxed: rare, and large).
    Try(Box<TryCatch>),
    /// `no_grad { ... }`: the block runs without recording gradients.
    NoGrad(Block),
    /// `[e for x in xs if c]` (a tensor) or `(e for x in xs if c)` (a tuple); the
    /// clauses' names live in `frame` (filled in by the resolver).
    Comprehension {
        kind: Collect,
        elem: Box<Expr>,
        clauses: Vec<Clause>,
        frame: Frame,
    },
    /// `del d[k]`, `del t[i]`: removes an entry of a dict or an item of a tuple
    /// held by a variable.
    Del(Box<Expr>),
    /// `import "path.tsr" as name`
    Import {
        path: String,
        alias: Ident,
    },
    /// `use name` (a stdlib module)
    Use {
        module: Ident,
    },
}

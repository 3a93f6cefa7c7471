//! The grammar (chumsky 0.12) over the tokens prepared by `layout`. Each rule's doc
//! comment gives its EBNF; `lang/grammar.md` has the whole grammar in one page.

mod atoms;
mod expressions;
mod statements;

use chumsky::{
    input::{Checkpoint, Cursor, InputRef, ValueInput},
    inspector::Inspector,
    prelude::*,
    recursive::{Direct, Indirect},
};

use crate::span::{Span, SrcId};
use crate::syntax::ast::{
    Arg, BinOp, Block, Clause, Collect, Expr, ExprKind, FStrPart, Frame, Ident, IndexItem, Param,
    Pattern, TryCatch, UnOp,
};
use crate::syntax::token::{self, Token};

pub(super) type ParseError<'tok, 'src> = Rich<'tok, Token<'src>, SimpleSpan>;
type Extra<'tok, 'src> = extra::Full<ParseError<'tok, 'src>, State, ()>;

/// The token streams the grammar reads: every rule is generic over one.
trait Tokens<'tok, 'src: 'tok>: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan> {}

impl<'tok, 'src: 'tok, I> Tokens<'tok, 'src> for I where
    I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>
{
}

/// A boxed rule of the grammar producing `O`.
type Rule<'tok, 'src, I, O> = Boxed<'tok, 'tok, I, O, Extra<'tok, 'src>>;

/// The limit on nested brackets, blocks, lambdas, `**` and `else if`: bounds the
/// parser's recursion (so deep nesting is an error, not a stack overflow).
pub(super) const MAX_NESTING: usize = 100;
/// The limit on the depth of the syntax tree (nesting plus operator chains such as
/// `a + b + ...`), so that later passes can walk the tree recursively.
pub(super) const MAX_DEPTH: usize = 1000;

/// How deep the parser is.
#[derive(Clone, Copy, Debug, Default)]
struct Depth {
    nesting: usize,
    depth: usize,
}

/// The parser's state: its depth, rolled back when the parser backtracks, and the
/// first nesting limit hit, which is kept (backtracking and labels would lose it as
/// an ordinary error).
#[derive(Default)]
struct State {
    depth: Depth,
    limit: Option<(SimpleSpan, String)>,
}

impl<'tok, I: Input<'tok>> Inspector<'tok, I> for State {
    type Checkpoint = Depth;

    fn on_token(&mut self, _: &I::Token) {}

    fn on_save<'parse>(&self, _: &Cursor<'tok, 'parse, I>) -> Depth {
        self.depth
    }

    fn on_rewind<'parse>(&mut self, checkpoint: &Checkpoint<'tok, 'parse, I, Depth>) {
        self.depth = *checkpoint.inspector();
    }
}

/// What [`enter`] counts.
#[derive(Clone, Copy, PartialEq)]
enum Step {
    /// One level of recursion (and of tree depth).
    Nest,
    /// One more link of an operator chain (tree depth only).
    Link,
}

/// One level of the operator table.
enum Level {
    /// Left-associative binary operators.
    Infix(&'static [(Token<'static>, BinOp)]),
    /// Comparisons: two or more in a row make one chain (`a < b < c`); `not in`
    /// is one of them too.
    Chain(&'static [(Token<'static>, BinOp)]),
    /// Prefix operators (they may repeat: `not not x`).
    Prefix(&'static [(Token<'static>, UnOp)]),
}

/// The operator precedence table, loosest first. Tighter than every level here come,
/// in order: prefix `-` and `~` ([`UNARY`]), then `**` (right-associative; its right
/// operand is again a prefix-level expression, so `-2 ** 2` is `-(2 ** 2)` and
/// `2 ** -1` works), then the postfix call `f(..)`, index `x[..]` and attribute `x.name`.
const PRECEDENCE: [Level; 9] = [
    Level::Infix(&[(Token::Or, BinOp::Or)]),
    Level::Infix(&[(Token::And, BinOp::And)]),
    Level::Prefix(&[(Token::Not, UnOp::Not)]),
    Level::Chain(&[
        (Token::EqEq, BinOp::Eq),
        (Token::NotEq, BinOp::Ne),
        (Token::Lt, BinOp::Lt),
        (Token::Le, BinOp::Le),
        (Token::Gt, BinOp::Gt),
        (Token::Ge, BinOp::Ge),
        (Token::In, BinOp::In),
    ]),
    Level::Infix(&[(Token::Pipe, BinOp::BitOr)]),
    Level::Infix(&[(Token::Caret, BinOp::BitXor)]),
    Level::Infix(&[(Token::Amp, BinOp::BitAnd)]),
    Level::Infix(&[(Token::Plus, BinOp::Add), (Token::Minus, BinOp::Sub)]),
    Level::Infix(&[
        (Token::Star, BinOp::Mul),
        (Token::Slash, BinOp::Div),
        (Token::SlashSlash, BinOp::FloorDiv),
        (Token::Percent, BinOp::Rem),
        (Token::At, BinOp::MatMul),
    ]),
];

/// The prefix operators just above `**` (see [`PRECEDENCE`]).
const UNARY: &[(Token<'static>, UnOp)] = &[(Token::Minus, UnOp::Neg), (Token::Tilde, UnOp::BitNot)];

/// The assignment operators of an assignment statement.
const ASSIGN: &[(Token<'static>, Option<BinOp>)] = &[
    (Token::Assign, None),
    (Token::PlusAssign, Some(BinOp::Add)),
    (Token::MinusAssign, Some(BinOp::Sub)),
    (Token::StarAssign, Some(BinOp::Mul)),
    (Token::SlashAssign, Some(BinOp::Div)),
];

/// Where a statement sits, which decides what may end it and where recovery stops.
#[derive(Clone, Copy)]
enum Ctx {
    Top,
    Block,
}

/// A suffix of a postfix expression.
enum Postfix {
    Call(Vec<Arg>),
    Index(Vec<IndexItem>),
    Attr(Ident),
}

/// What follows the first item inside `[` or `(`.
enum Items {
    /// More items, and whether a trailing comma ends them (`(a,)` is a tuple).
    List(Vec<Expr>, bool),
    /// `for` and `if` clauses: a comprehension.
    Comprehension(Vec<Clause>),
}

/// What follows `{` in expression position.
#[derive(Clone)]
enum Brace {
    /// `{ k: v, ... }` or `{}`
    Dict(Vec<(Expr, Expr)>),
    /// `{ stmts }`
    Block(Vec<Expr>),
}

/// What the grammar made of the tokens.
pub(super) struct Parsed<'tok, 'src> {
    pub stmts: Option<Vec<Expr>>,
    pub errors: Vec<ParseError<'tok, 'src>>,
    /// Where a nesting limit was hit, and the message; the other errors are then noise.
    pub limit: Option<(SimpleSpan, String)>,
}

/// Parses the statements of a program from its tokens; `eoi` is the end of the source.
pub(super) fn parse_program<'tok, 'src>(
    tokens: &'tok [(Token<'src>, SimpleSpan)],
    eoi: SimpleSpan,
    id: SrcId,
) -> Parsed<'tok, 'src> {
    let input = tokens.map(eoi, |(t, s)| (t, s));
    let mut state = State::default();
    let (stmts, errors) = program(id)
        .parse_with_state(input, &mut state)
        .into_output_errors();
    Parsed {
        stmts,
        errors,
        limit: state.limit,
    }
}

/// `program = sep* (stmt (sep+ stmt)*)? sep* EOF`, where `sep = newline | ";"`.
fn program<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
    id: SrcId,
) -> impl Parser<'tok, I, Vec<Expr>, Extra<'tok, 'src>> {
    let g = Grammar { id };
    g.statements(Ctx::Top).then_ignore(end())
}

/// Builds the rules; `id` goes into every span.
#[derive(Clone, Copy)]
struct Grammar {
    id: SrcId,
}

impl Grammar {
    fn span(self, s: SimpleSpan) -> Span {
        Span::new(self.id, s.start..s.end)
    }

    fn expr_at(self, kind: ExprKind, s: SimpleSpan) -> Expr {
        Expr {
            kind,
            span: self.span(s),
        }
    }
}

/// A parser that may be used before it is defined.
type Rec<'tok, 'src, I, O> = Recursive<Indirect<'tok, 'tok, I, O, Extra<'tok, 'src>>>;

/// Counts one step into the tree ([`Step`]); fails past [`MAX_NESTING`] or [`MAX_DEPTH`].
fn enter<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
    step: Step,
) -> impl Parser<'tok, I, (), Extra<'tok, 'src>> + Clone {
    custom(move |inp: &mut InputRef<'tok, '_, I, Extra<'tok, 'src>>| {
        let before = inp.cursor();
        let d: &mut Depth = &mut inp.state().depth;
        let message = if d.depth >= MAX_DEPTH {
            format!("expression is too deeply nested or too long (the limit is {MAX_DEPTH} levels)")
        } else if step == Step::Nest && d.nesting >= MAX_NESTING {
            format!("too many nested brackets, blocks or operators (the limit is {MAX_NESTING})")
        } else {
            d.depth += 1;
            if step == Step::Nest {
                d.nesting += 1;
            }
            return Ok(());
        };
        inp.skip();
        let span = inp.span_since(&before);
        let state: &mut State = inp.state();
        state.limit.get_or_insert((span, message.clone()));
        Err(Rich::custom(span, message))
    })
}

/// Undoes `count` steps of [`enter`] once the rule that took them is complete.
fn leave(d: &mut Depth, step: Step, count: usize) {
    d.depth = d.depth.saturating_sub(count);
    if step == Step::Nest {
        d.nesting = d.nesting.saturating_sub(count);
    }
}

/// `p` one level deeper ([`Step::Nest`]), with a stack check.
fn nested<'tok, 'src: 'tok, I: Tokens<'tok, 'src>, O, P>(
    p: P,
) -> impl Parser<'tok, I, O, Extra<'tok, 'src>> + Clone
where
    P: Parser<'tok, I, O, Extra<'tok, 'src>> + Clone + 'tok,
    O: 'tok,
{
    checked(enter(Step::Nest).ignore_then(p).map_with(|out, e| {
        leave(&mut e.state().depth, Step::Nest, 1);
        out
    }))
}

/// `p` behind a recursion point, which checks the stack and grows it when it runs
/// low (chumsky's `stacker` feature). Every level of the expression grammar takes
/// one, so no chain of rules between two checks uses much stack.
fn checked<'tok, 'src: 'tok, I: Tokens<'tok, 'src>, O, P>(
    p: P,
) -> Recursive<Direct<'tok, 'tok, I, O, Extra<'tok, 'src>>>
where
    P: Parser<'tok, I, O, Extra<'tok, 'src>> + Clone + 'tok,
{
    recursive(|_| p)
}

/// A token of one of the `const` tables, at the input's lifetime.
fn tok<'src>(t: &Token<'static>) -> Token<'src> {
    *t
}

/// A statement separator: a newline or `;`.
fn sep<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
) -> impl Parser<'tok, I, (), Extra<'tok, 'src>> + Clone {
    one_of([Token::Newline, Token::Semi]).ignored()
}

/// `lhs op rhs`, spanning both operands.
fn binary(lhs: Expr, op: BinOp, rhs: Expr) -> Expr {
    Expr {
        span: lhs.span.to(rhs.span),
        kind: ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
    }
}

/// `first op1 e1 op2 e2 ...`: one comparison is a `Binary`, more a `Compare` chain.
fn comparison(first: Expr, mut rest: Vec<(BinOp, Expr)>) -> Expr {
    if rest.len() == 1 {
        if let Some((op, rhs)) = rest.pop() {
            return binary(first, op, rhs);
        }
    }
    Expr {
        span: rest
            .last()
            .map_or(first.span, |(_, e)| first.span.to(e.span)),
        kind: ExprKind::Compare {
            first: Box::new(first),
            rest,
        },
    }
}

/// A comprehension over `clauses` building `elem` for each item.
fn comprehension(kind: Collect, elem: Expr, clauses: Vec<Clause>) -> ExprKind {
    ExprKind::Comprehension {
        kind,
        elem: Box::new(elem),
        clauses,
        frame: Frame::default(),
    }
}

/// Statement-only forms (not valid as a dict key or other value).
fn is_statement(kind: &ExprKind) -> bool {
    matches!(
        kind,
        ExprKind::Let { .. }
            | ExprKind::Fn { .. }
            | ExprKind::Assign { .. }
            | ExprKind::Return(_)
            | ExprKind::Break
            | ExprKind::Continue
            | ExprKind::Import { .. }
            | ExprKind::Use { .. }
            | ExprKind::Del(_)
    )
}

fn simple(span: Span) -> SimpleSpan {
    SimpleSpan::from(span.start..span.end)
}

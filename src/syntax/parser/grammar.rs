//! The grammar (chumsky 0.12) over the tokens prepared by `layout`. Each rule's doc
//! comment gives its EBNF; `lang/grammar.md` has the whole grammar in one page.

use chumsky::{
    input::{Checkpoint, Cursor, InputRef, ValueInput},
    inspector::Inspector,
    prelude::*,
    recursive::{Direct, Indirect},
};

use crate::syntax::ast::{
    Arg, BinOp, Block, Expr, ExprKind, FStrPart, Frame, Ident, IndexItem, Param, Pattern, UnOp,
};
use crate::syntax::span::{Span, SrcId};
use crate::syntax::token::{self, Token};

pub(super) type ParseError<'tok, 'src> = Rich<'tok, Token<'src>, SimpleSpan>;
type Extra<'tok, 'src> = extra::Full<ParseError<'tok, 'src>, State, ()>;

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
    Level::Infix(&[
        (Token::EqEq, BinOp::Eq),
        (Token::NotEq, BinOp::Ne),
        (Token::Lt, BinOp::Lt),
        (Token::Le, BinOp::Le),
        (Token::Gt, BinOp::Gt),
        (Token::Ge, BinOp::Ge),
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
fn program<'tok, 'src: 'tok, I>(id: SrcId) -> impl Parser<'tok, I, Vec<Expr>, Extra<'tok, 'src>>
where
    I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
{
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

    /// The statement list of a program or block body, with statement-level recovery:
    /// a statement that fails to parse is skipped up to the end of its line.
    fn statements<'tok, 'src: 'tok, I>(
        self,
        ctx: Ctx,
    ) -> Boxed<'tok, 'tok, I, Vec<Expr>, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let line = self.stmt_line(self.stmt(), ctx);
        let seps = sep().repeated();
        seps.clone()
            .ignore_then(line.then_ignore(seps).repeated().collect())
            .boxed()
    }

    /// `stmt` followed by the end of the statement, or a skipped line on error.
    fn stmt_line<'tok, 'src: 'tok, I>(
        self,
        stmt: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        ctx: Ctx,
    ) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let end_of_stmt = match ctx {
            Ctx::Top => one_of([Token::Newline, Token::Semi])
                .ignored()
                .rewind()
                .or(end())
                .boxed(),
            Ctx::Block => one_of([Token::Newline, Token::Semi, Token::RBrace])
                .ignored()
                .rewind()
                .boxed(),
        };
        stmt.then_ignore(end_of_stmt.labelled("end of statement"))
            .recover_with(via_parser(self.skip_line(ctx)))
            .boxed()
    }

    /// Error recovery: skips tokens up to the end of the line (a newline or `;`, and in
    /// a block the closing `}`), taking `{...}` groups whole. Yields a placeholder.
    /// A loop with a counter rather than a recursive rule, so it stays linear and
    /// shallow on deeply nested, unclosed input.
    fn skip_line<'tok, 'src: 'tok, I>(
        self,
        ctx: Ctx,
    ) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        custom(move |inp| {
            let start = inp.cursor();
            let mut braces = 0usize;
            let mut skipped = 0usize;
            loop {
                let before = inp.save();
                let Some(tok) = inp.next() else { break };
                match tok {
                    Token::LBrace => braces += 1,
                    Token::RBrace if braces > 0 => braces -= 1,
                    Token::RBrace if matches!(ctx, Ctx::Block) => {
                        inp.rewind(before);
                        break;
                    }
                    Token::Newline | Token::Semi if braces == 0 => {
                        inp.rewind(before);
                        break;
                    }
                    _ => {}
                }
                skipped += 1;
            }
            let span: SimpleSpan = inp.span_since(&start);
            if skipped == 0 {
                // Nothing to skip: let the original error stand.
                return Err(Rich::custom(span, "nothing to skip"));
            }
            Ok(self.expr_at(ExprKind::None, span))
        })
        .boxed()
    }

    /// The statement rule, built with every rule of the recursion between statements
    /// and expressions. Each cycle of that recursion passes through [`nested`].
    fn stmt<'tok, 'src: 'tok, I>(self) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let mut expr: Rec<'tok, 'src, I, Expr> = Recursive::declare();
        let mut stmt: Rec<'tok, 'src, I, Expr> = Recursive::declare();
        let mut unary: Rec<'tok, 'src, I, Expr> = Recursive::declare();

        let block = nested(self.block(stmt.clone().boxed())).boxed();
        let atom = self.atom(
            expr.clone().boxed(),
            unary.clone().boxed(),
            stmt.clone().boxed(),
            block.clone(),
        );
        let postfix = self.postfix(atom, expr.clone().boxed());

        // power = postfix ("**" unary)?
        let power = postfix
            .then(
                just(Token::StarStar)
                    .labelled("operator")
                    .ignore_then(nested(unary.clone()))
                    .or_not(),
            )
            .map(|(lhs, rhs): (Expr, Option<Expr>)| match rhs {
                None => lhs,
                Some(rhs) => binary(lhs, BinOp::Pow, rhs),
            });
        // unary = ("-" | "~")* power
        unary.define(self.prefix_ops(UNARY, power.boxed()).labelled("expression"));
        let mut level: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>> = unary.clone().boxed();
        for lvl in PRECEDENCE.iter().rev() {
            level = match lvl {
                Level::Infix(ops) => {
                    let op = choice(
                        ops.iter()
                            .map(|(t, op)| just(tok(t)).to(*op))
                            .collect::<Vec<_>>(),
                    )
                    .labelled("operator");
                    let link = enter(Step::Link).ignore_then(op.then(level.clone()));
                    checked(level.then(link.repeated().collect::<Vec<_>>()).map_with(
                        |(first, rest), e| {
                            leave(&mut e.state().depth, Step::Link, rest.len());
                            rest.into_iter()
                                .fold(first, |lhs, (op, rhs)| binary(lhs, op, rhs))
                        },
                    ))
                    .boxed()
                }
                Level::Prefix(ops) => self.prefix_ops(ops, level).labelled("expression").boxed(),
            };
        }
        // The nesting check comes first: a label would hide its error.
        expr.define(nested(level.labelled("expression")));
        stmt.define(self.statement(expr.clone().boxed(), block));
        stmt.boxed()
    }

    /// `prefix = op* operand`; each node spans from its operator.
    fn prefix_ops<'tok, 'src: 'tok, I>(
        self,
        ops: &'static [(Token<'static>, UnOp)],
        operand: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let op = choice(
            ops.iter()
                .map(|(t, op)| just(tok(t)).to(*op))
                .collect::<Vec<_>>(),
        )
        .map_with(move |op, e| (op, self.span(e.span())));
        checked(
            enter(Step::Link)
                .ignore_then(op)
                .repeated()
                .collect::<Vec<_>>()
                .then(operand)
                .map_with(|(ops, operand), e| {
                    leave(&mut e.state().depth, Step::Link, ops.len());
                    ops.into_iter().rev().fold(operand, |expr, (op, at)| Expr {
                        span: at.to(expr.span),
                        kind: ExprKind::Unary {
                            op,
                            expr: Box::new(expr),
                        },
                    })
                }),
        )
        .boxed()
    }

    /// `postfix = atom ( "(" args ")" | "[" index_items "]" | "." attr_name )*`
    fn postfix<'tok, 'src: 'tok, I>(
        self,
        atom: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let call = self
            .arg(expr.clone())
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect()
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map(Postfix::Call);
        let index = self
            .index_item(expr)
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .at_least(1)
            .collect()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map(Postfix::Index);
        let attr = just(Token::Dot)
            .ignore_then(self.attr_name())
            .map(Postfix::Attr);
        let suffix = enter(Step::Link).ignore_then(
            choice(vec![call.boxed(), index.boxed(), attr.boxed()])
                .labelled("operator")
                .map_with(move |p, e| (p, self.span(e.span()))),
        );
        checked(
            atom.then(suffix.repeated().collect::<Vec<_>>())
                .map_with(|(atom, suffixes), e| {
                    leave(&mut e.state().depth, Step::Link, suffixes.len());
                    suffixes.into_iter().fold(atom, |target, (suffix, at)| {
                        let span = target.span.to(at);
                        let target = Box::new(target);
                        let kind = match suffix {
                            Postfix::Call(args) => ExprKind::Call {
                                callee: target,
                                args,
                            },
                            Postfix::Index(items) => ExprKind::Index { target, items },
                            Postfix::Attr(name) => ExprKind::Attr { target, name },
                        };
                        Expr { kind, span }
                    })
                }),
        )
        .boxed()
    }

    /// `arg = (name "=")? expr`: a keyword argument is a name followed by a single `=`.
    fn arg<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Arg, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        self.ident()
            .then_ignore(just(Token::Assign))
            .then(expr.clone())
            .map(|(name, value)| Arg {
                name: Some(name),
                value,
            })
            .or(expr.map(|value| Arg { name: None, value }))
            .labelled("expression")
    }

    /// `index_item = "..." | expr? ":" expr? (":" expr?)? | expr`
    fn index_item<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, IndexItem, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let tail = just(Token::Colon)
            .ignore_then(expr.clone().or_not())
            .then(
                just(Token::Colon)
                    .ignore_then(expr.clone().or_not())
                    .or_not(),
            )
            .map(|(stop, step)| (stop, step.flatten()));
        choice((
            just(Token::Ellipsis).map_with(move |_, e| IndexItem::Ellipsis(self.span(e.span()))),
            expr.then(tail.clone().or_not())
                .map_with(move |(start, tail), e| match tail {
                    None => IndexItem::Expr(start),
                    Some((stop, step)) => IndexItem::Slice {
                        start: Some(start),
                        stop,
                        step,
                        span: self.span(e.span()),
                    },
                }),
            tail.map_with(move |(stop, step), e| IndexItem::Slice {
                start: None,
                stop,
                step,
                span: self.span(e.span()),
            }),
        ))
    }

    /// An attribute name: any identifier, keywords included (`x.T`, `m.in`).
    fn attr_name<'tok, 'src: 'tok, I>(
        self,
    ) -> impl Parser<'tok, I, Ident, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        select! {
            Token::Ident(name) = e => (name, e.span()),
            t = e if t.keyword().is_some() => (t.keyword().unwrap_or_default(), e.span()),
        }
        .map(move |(name, s)| Ident::new(name, self.span(s)))
        .labelled("attribute name")
    }

    /// A name (not a keyword).
    fn ident<'tok, 'src: 'tok, I>(self) -> impl Parser<'tok, I, Ident, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        select! { Token::Ident(name) = e => Ident::new(name, self.span(e.span())) }.labelled("name")
    }

    /// `atom = literal | name | fstring | paren | list | brace | if | while | for | lambda`
    fn atom<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        unary: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        stmt: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        block: Boxed<'tok, 'tok, I, Block, Extra<'tok, 'src>>,
    ) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        // Literal values and names. An error token (already reported by the lexical
        // checks) stands for a value so that it causes no further errors.
        let literal = select! {
            Token::Int(raw) => ExprKind::Int(token::int_value(raw).unwrap_or_default()),
            Token::Float(raw) => ExprKind::Float(token::float_value(raw)),
            Token::Str(raw) => ExprKind::Str(token::unescape(raw, false).0.into()),
            Token::True => ExprKind::Bool(true),
            Token::False => ExprKind::Bool(false),
            Token::NoneLit => ExprKind::None,
            Token::Ident(name) = e => ExprKind::Ident(Ident::new(name, self.span(e.span()))),
            Token::Error => ExprKind::None,
        }
        .map_with(move |kind, e| self.expr_at(kind, e.span()));

        // Boxed alternatives keep the stack frames of this rule small (see `checked`).
        choice(vec![
            literal.boxed(),
            self.fstring(expr.clone()).boxed(),
            self.paren(expr.clone()).boxed(),
            self.list(expr.clone()).boxed(),
            checked(self.brace(expr.clone(), stmt)).boxed(),
            checked(self.if_expr(expr.clone(), block.clone())).boxed(),
            checked(self.loops(expr.clone(), block)).boxed(),
            checked(self.lambda(expr, unary)).boxed(),
        ])
        .labelled("expression")
        .boxed()
    }

    /// `fstring = FSTR_START (TEXT | "{" expr (":" SPEC)? "}")* FSTR_END`
    fn fstring<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let text = select! { Token::FStrText(raw) => FStrPart::Text(token::unescape(raw, true).0) };
        let spec = select! { Token::FStrSpec(raw) => raw.to_string() };
        let hole = expr
            .then(spec.or_not())
            .delimited_by(just(Token::FStrOpen), just(Token::FStrClose))
            .map(|(expr, spec)| FStrPart::Expr { expr, spec });
        text.or(hole)
            .repeated()
            .collect()
            .delimited_by(just(Token::FStrStart), just(Token::FStrEnd))
            .map_with(move |parts, e| self.expr_at(ExprKind::FStr(parts), e.span()))
    }

    /// `paren = "(" ")" | "(" expr ")" | "(" expr "," (expr ("," expr)* ","?)? ")"`
    fn paren<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let items = expr
            .clone()
            .then(
                just(Token::Comma)
                    .ignore_then(expr)
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .then(just(Token::Comma).or_not())
            .or_not();
        items
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(move |items, e| {
                let kind = match items {
                    None => ExprKind::Tuple(vec![]),
                    // `(a)` is `a` itself; its span grows to take in the parentheses.
                    Some(((first, rest), None)) if rest.is_empty() => first.kind,
                    Some(((first, mut rest), _)) => {
                        rest.insert(0, first);
                        ExprKind::Tuple(rest)
                    }
                };
                self.expr_at(kind, e.span())
            })
    }

    /// `list = "[" (expr ("," expr)* ","?)? "]"`
    fn list<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        expr.separated_by(just(Token::Comma))
            .allow_trailing()
            .collect()
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map_with(move |items, e| self.expr_at(ExprKind::List(items), e.span()))
    }

    /// A `{` in expression position:
    /// `brace = "{" "}"                                        (empty dict)
    ///        | "{" expr ":" expr ("," expr ":" expr)* ","? "}" (dict)
    ///        | block`
    /// Decided after the first item: a dict when it is followed by `:`.
    fn brace<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        stmt: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let newlines = just(Token::Newline).repeated();
        // The first item: a statement that may be followed by `:` (then it is a key).
        let first = stmt
            .clone()
            .then_ignore(
                one_of([Token::Colon, Token::Newline, Token::Semi, Token::RBrace])
                    .rewind()
                    .labelled("end of statement"),
            )
            .recover_with(via_parser(self.skip_line(Ctx::Block)))
            .boxed();
        let entry = expr
            .clone()
            .then_ignore(just(Token::Colon))
            .then(expr.clone());
        let dict_rest = just(Token::Colon)
            .ignore_then(expr)
            .then(
                just(Token::Comma)
                    .ignore_then(entry)
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .then_ignore(just(Token::Comma).or_not())
            .then_ignore(newlines)
            .then_ignore(just(Token::RBrace));
        let seps = sep().repeated();
        let block_rest = seps
            .clone()
            .ignore_then(
                self.stmt_line(stmt, Ctx::Block)
                    .then_ignore(seps)
                    .repeated()
                    .collect::<Vec<_>>(),
            )
            .then_ignore(just(Token::RBrace));
        let body = first
            .then(dict_rest.map(Ok).or(block_rest.map(Err)))
            .validate(|(first, rest), _, emitter| match rest {
                Ok((value, mut entries)) => {
                    if is_statement(&first.kind) {
                        emitter.emit(Rich::custom(
                            simple(first.span),
                            "expected an expression as dict key",
                        ));
                    }
                    entries.insert(0, (first, value));
                    Brace::Dict(entries)
                }
                Err(mut stmts) => {
                    stmts.insert(0, first);
                    Brace::Block(stmts)
                }
            });
        just(Token::LBrace)
            .ignore_then(newlines)
            .ignore_then(just(Token::RBrace).to(Brace::Dict(vec![])).or(body))
            .map_with(move |brace, e| {
                let span = self.span(e.span());
                let kind = match brace {
                    Brace::Dict(entries) => ExprKind::Dict(entries),
                    Brace::Block(stmts) => ExprKind::Block(Block::new(stmts, span)),
                };
                Expr { kind, span }
            })
    }

    /// `block = "{" sep* (stmt (sep+ stmt)*)? sep* "}"`
    fn block<'tok, 'src: 'tok, I>(
        self,
        stmt: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> Boxed<'tok, 'tok, I, Block, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let seps = sep().repeated();
        seps.clone()
            .ignore_then(
                self.stmt_line(stmt, Ctx::Block)
                    .then_ignore(seps)
                    .repeated()
                    .collect(),
            )
            .delimited_by(just(Token::LBrace), just(Token::RBrace))
            .map_with(move |stmts, e| Block::new(stmts, self.span(e.span())))
            .boxed()
    }

    /// `if = "if" expr block ("else" (if | block))?`
    fn if_expr<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        block: Boxed<'tok, 'tok, I, Block, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        recursive(move |if_expr| {
            let else_block = block.clone().map(|b: Block| Expr {
                span: b.span,
                kind: ExprKind::Block(b),
            });
            just(Token::If)
                .ignore_then(expr.clone())
                .then(block.clone())
                .then(
                    just(Token::Else)
                        .ignore_then(nested(if_expr).or(else_block))
                        .or_not(),
                )
                .map_with(move |((cond, then), otherwise), e| {
                    self.expr_at(
                        ExprKind::If {
                            cond: Box::new(cond),
                            then,
                            otherwise: otherwise.map(Box::new),
                        },
                        e.span(),
                    )
                })
        })
    }

    /// `while = "while" expr block` and `for = "for" pattern "in" expr block`
    fn loops<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        block: Boxed<'tok, 'tok, I, Block, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let while_loop = just(Token::While)
            .ignore_then(expr.clone())
            .then(block.clone())
            .map(|(cond, body)| ExprKind::While {
                cond: Box::new(cond),
                body,
            });
        let for_loop = just(Token::For)
            .ignore_then(self.pattern())
            .then_ignore(just(Token::In))
            .then(expr)
            .then(block)
            .map(|((pattern, iter), body)| ExprKind::For {
                pattern,
                iter: Box::new(iter),
                body,
            });
        while_loop
            .or(for_loop)
            .map_with(move |kind, e| self.expr_at(kind, e.span()))
    }

    /// `lambda = "|" (name ("=" unary)? ("," name ("=" unary)?)* ","?)? "|" expr`.
    /// Defaults are prefix-level expressions (so `|` ends them); parenthesize others.
    fn lambda<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        unary: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        self.params(nested(unary).boxed())
            .delimited_by(just(Token::Pipe), just(Token::Pipe))
            .then(expr)
            .map_with(move |(params, body), e| {
                self.expr_at(
                    ExprKind::Lambda {
                        params,
                        body: Box::new(body),
                        frame: Frame::default(),
                    },
                    e.span(),
                )
            })
    }

    /// `params = (name ("=" default)? ("," name ("=" default)?)* ","?)?`
    fn params<'tok, 'src: 'tok, I>(
        self,
        default: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
    ) -> impl Parser<'tok, I, Vec<Param>, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        self.ident()
            .then(just(Token::Assign).ignore_then(default).or_not())
            .map(|(name, default)| Param { name, default })
            .separated_by(just(Token::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .validate(|params, _, emitter| {
                for (i, p) in params.iter().enumerate() {
                    let before = &params[..i];
                    let message = if before.iter().any(|q| q.name.name == p.name.name) {
                        format!("duplicate parameter `{}`", p.name.name)
                    } else if p.default.is_none() && before.iter().any(|q| q.default.is_some()) {
                        format!(
                            "parameter `{}` without a default follows one with a default",
                            p.name.name
                        )
                    } else {
                        continue;
                    };
                    emitter.emit(Rich::custom(simple(p.name.span), message));
                }
                params
            })
    }

    /// `pattern = name | "(" (pattern ("," pattern)* ","?)? ")"`; `(p)` is `p`.
    fn pattern<'tok, 'src: 'tok, I>(
        self,
    ) -> impl Parser<'tok, I, Pattern, Extra<'tok, 'src>> + Clone
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        recursive(move |pattern| {
            let pattern = nested(pattern);
            let items = pattern
                .clone()
                .then(
                    just(Token::Comma)
                        .ignore_then(pattern)
                        .repeated()
                        .collect::<Vec<_>>(),
                )
                .then(just(Token::Comma).or_not())
                .or_not()
                .delimited_by(just(Token::LParen), just(Token::RParen))
                .map_with(move |items, e| match items {
                    None => Pattern::Tuple(vec![], self.span(e.span())),
                    Some(((first, rest), None)) if rest.is_empty() => first,
                    Some(((first, mut rest), _)) => {
                        rest.insert(0, first);
                        Pattern::Tuple(rest, self.span(e.span()))
                    }
                });
            self.ident().map(Pattern::Name).or(items)
        })
        .labelled("variable name")
    }

    /// ```text
    /// stmt = "let" pattern "=" expr
    ///      | "fn" name "(" params ")" block
    ///      | "return" expr? | "break" | "continue"
    ///      | "import" STRING "as" name | "use" name
    ///      | expr (("=" | "+=" | "-=" | "*=" | "/=") expr)?
    /// ```
    fn statement<'tok, 'src: 'tok, I>(
        self,
        expr: Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>,
        block: Boxed<'tok, 'tok, I, Block, Extra<'tok, 'src>>,
    ) -> Boxed<'tok, 'tok, I, Expr, Extra<'tok, 'src>>
    where
        I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    {
        let let_stmt = just(Token::Let)
            .ignore_then(self.pattern())
            .then_ignore(just(Token::Assign))
            .then(expr.clone())
            .map(|(pattern, value)| ExprKind::Let {
                pattern,
                value: Box::new(value),
            });
        let fn_stmt = just(Token::Fn)
            .ignore_then(self.ident().labelled("function name"))
            .then(
                self.params(expr.clone())
                    .delimited_by(just(Token::LParen), just(Token::RParen)),
            )
            .then(block)
            .map(|((name, params), body)| ExprKind::Fn { name, params, body });
        let return_stmt = just(Token::Return)
            .ignore_then(expr.clone().or_not())
            .map(|value| ExprKind::Return(value.map(Box::new)));
        let import = just(Token::Import)
            .ignore_then(
                select! { Token::Str(raw) => token::unescape(raw, false).0 }
                    .labelled("path string"),
            )
            .then_ignore(just(Token::As))
            .then(self.ident())
            .map(|(path, alias)| ExprKind::Import { path, alias });
        let use_stmt = just(Token::Use)
            .ignore_then(self.ident().labelled("module name"))
            .map(|module| ExprKind::Use { module });
        let keyword_stmt = choice(vec![
            let_stmt.boxed(),
            fn_stmt.boxed(),
            return_stmt.boxed(),
            just(Token::Break).to(ExprKind::Break).boxed(),
            just(Token::Continue).to(ExprKind::Continue).boxed(),
            import.boxed(),
            use_stmt.boxed(),
        ])
        .map_with(move |kind, e| self.expr_at(kind, e.span()));

        let assign_op = choice(
            ASSIGN
                .iter()
                .map(|(t, op)| just(tok(t)).to(*op))
                .collect::<Vec<_>>(),
        )
        .labelled("operator");
        let assign_or_expr = expr.clone().then(assign_op.then(expr).or_not()).validate(
            |(target, assign), _, emitter| match assign {
                None => target,
                Some((op, value)) => {
                    if !matches!(
                        target.kind,
                        ExprKind::Ident(_) | ExprKind::Index { .. } | ExprKind::Attr { .. }
                    ) {
                        emitter.emit(Rich::custom(
                            simple(target.span),
                            "cannot assign to this expression",
                        ));
                    }
                    Expr {
                        span: target.span.to(value.span),
                        kind: ExprKind::Assign {
                            target: Box::new(target),
                            op,
                            value: Box::new(value),
                        },
                    }
                }
            },
        );
        keyword_stmt
            .or(assign_or_expr)
            .labelled("statement")
            .boxed()
    }
}

/// A parser that may be used before it is defined.
type Rec<'tok, 'src, I, O> = Recursive<Indirect<'tok, 'tok, I, O, Extra<'tok, 'src>>>;

/// Counts one step into the tree ([`Step`]); fails past [`MAX_NESTING`] or [`MAX_DEPTH`].
fn enter<'tok, 'src: 'tok, I>(step: Step) -> impl Parser<'tok, I, (), Extra<'tok, 'src>> + Clone
where
    I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
{
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
fn nested<'tok, 'src: 'tok, I, O, P>(p: P) -> impl Parser<'tok, I, O, Extra<'tok, 'src>> + Clone
where
    I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
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
fn checked<'tok, 'src: 'tok, I, O, P>(
    p: P,
) -> Recursive<Direct<'tok, 'tok, I, O, Extra<'tok, 'src>>>
where
    I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
    P: Parser<'tok, I, O, Extra<'tok, 'src>> + Clone + 'tok,
{
    recursive(|_| p)
}

/// A token of one of the `const` tables, at the input's lifetime.
fn tok<'src>(t: &Token<'static>) -> Token<'src> {
    *t
}

/// A statement separator: a newline or `;`.
fn sep<'tok, 'src: 'tok, I>() -> impl Parser<'tok, I, (), Extra<'tok, 'src>> + Clone
where
    I: ValueInput<'tok, Token = Token<'src>, Span = SimpleSpan>,
{
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
    )
}

fn simple(span: Span) -> SimpleSpan {
    SimpleSpan::from(span.start..span.end)
}

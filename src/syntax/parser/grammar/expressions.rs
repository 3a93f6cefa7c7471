//! Operator and postfix expressions: prefix operators, calls, indexing, attributes,
//! arguments and names.

use super::*;

impl Grammar {
    /// `prefix = op* operand`; each node spans from its operator.
    pub(super) fn prefix_ops<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        ops: &'static [(Token<'static>, UnOp)],
        operand: Rule<'tok, 'src, I, Expr>,
    ) -> Rule<'tok, 'src, I, Expr> {
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
    pub(super) fn postfix<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        atom: Rule<'tok, 'src, I, Expr>,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> Rule<'tok, 'src, I, Expr> {
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
    pub(super) fn arg<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Arg, Extra<'tok, 'src>> + Clone {
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
    pub(super) fn index_item<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, IndexItem, Extra<'tok, 'src>> + Clone {
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
    pub(super) fn attr_name<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
    ) -> impl Parser<'tok, I, Ident, Extra<'tok, 'src>> + Clone {
        select! {
            Token::Ident(name) = e => (name, e.span()),
            t = e if t.keyword().is_some() => (t.keyword().unwrap_or_default(), e.span()),
        }
        .map(move |(name, s)| Ident::new(name, self.span(s)))
        .labelled("attribute name")
    }

    /// A name (not a keyword).
    pub(super) fn ident<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
    ) -> impl Parser<'tok, I, Ident, Extra<'tok, 'src>> + Clone {
        select! { Token::Ident(name) = e => Ident::new(name, self.span(e.span())) }.labelled("name")
    }
}

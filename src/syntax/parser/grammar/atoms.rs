//! Atoms: literals, f-strings, parentheses and tuples, lists, dicts and blocks in
//! braces, lambdas with their parameters, and `for` patterns.

use super::*;

impl Grammar {
    /// `atom = literal | name | fstring | paren | list | brace | if | while | for | try | no_grad | lambda`
    pub(super) fn atom<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
        unary: Rule<'tok, 'src, I, Expr>,
        stmt: Rule<'tok, 'src, I, Expr>,
        block: Rule<'tok, 'src, I, Block>,
    ) -> Rule<'tok, 'src, I, Expr> {
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
            checked(self.loops(expr.clone(), block.clone())).boxed(),
            checked(self.try_catch(block.clone())).boxed(),
            checked(self.no_grad(block)).boxed(),
            checked(self.lambda(expr, unary)).boxed(),
        ])
        .labelled("expression")
        .boxed()
    }

    /// `fstring = FSTR_START (TEXT | "{" expr (":" SPEC)? "}")* FSTR_END`
    pub(super) fn fstring<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
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

    /// `paren = "(" ")" | "(" expr ")" | "(" expr "," (expr ("," expr)* ","?)? ")"
    ///         | "(" expr comp_clauses ")"`
    pub(super) fn paren<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
        self.items(expr)
            .delimited_by(just(Token::LParen), just(Token::RParen))
            .map_with(move |items, e| {
                let kind = match items {
                    None => ExprKind::Tuple(vec![]),
                    // `(a)` is `a` itself; its span grows to take in the parentheses.
                    Some((first, Items::List(rest, false))) if rest.is_empty() => first.kind,
                    Some((first, Items::List(mut rest, _))) => {
                        rest.insert(0, first);
                        ExprKind::Tuple(rest)
                    }
                    Some((elem, Items::Comprehension(clauses))) => {
                        comprehension(Collect::Tuple, elem, clauses)
                    }
                };
                self.expr_at(kind, e.span())
            })
    }

    /// `list = "[" (expr ("," expr)* ","?)? "]" | "[" expr comp_clauses "]"`
    pub(super) fn list<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
        self.items(expr)
            .delimited_by(just(Token::LBracket), just(Token::RBracket))
            .map_with(move |items, e| {
                let kind = match items {
                    None => ExprKind::List(vec![]),
                    Some((first, Items::List(mut rest, _))) => {
                        rest.insert(0, first);
                        ExprKind::List(rest)
                    }
                    Some((elem, Items::Comprehension(clauses))) => {
                        comprehension(Collect::Tensor, elem, clauses)
                    }
                };
                self.expr_at(kind, e.span())
            })
    }

    /// What is inside the brackets of a list or the parentheses of a tuple: nothing,
    /// or a first item followed by more items or by comprehension clauses. The first
    /// item is parsed once, then decides which form this is: trying one form and
    /// re-parsing for the other would be exponential in nesting.
    fn items<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Option<(Expr, Items)>, Extra<'tok, 'src>> + Clone {
        let more = just(Token::Comma)
            .ignore_then(expr.clone())
            .repeated()
            .collect::<Vec<_>>()
            .then(just(Token::Comma).or_not())
            .map(|(rest, comma)| Items::List(rest, comma.is_some()));
        expr.clone()
            .then(self.comp_clauses(expr).map(Items::Comprehension).or(more))
            .or_not()
    }

    /// `comp_clauses = "for" pattern "in" expr ("for" pattern "in" expr | "if" expr)*`
    fn comp_clauses<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Vec<Clause>, Extra<'tok, 'src>> + Clone {
        let for_clause = just(Token::For)
            .ignore_then(self.pattern())
            .then_ignore(just(Token::In))
            .then(expr.clone())
            .map(|(pattern, iter)| Clause::For { pattern, iter });
        let if_clause = just(Token::If).ignore_then(expr).map(Clause::If);
        for_clause
            .clone()
            .then(for_clause.or(if_clause).repeated().collect::<Vec<_>>())
            .map(|(first, mut rest)| {
                rest.insert(0, first);
                rest
            })
    }

    /// `try = "try" block "catch" name block`
    pub(super) fn try_catch<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        block: Rule<'tok, 'src, I, Block>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
        just(Token::Try)
            .ignore_then(block.clone())
            .then_ignore(just(Token::Catch))
            .then(self.ident().labelled("error name"))
            .then(block)
            .map_with(move |((body, name), handler), e| {
                let t = TryCatch {
                    body,
                    name,
                    handler,
                };
                self.expr_at(ExprKind::Try(Box::new(t)), e.span())
            })
    }

    /// `no_grad = "no_grad" block`
    pub(super) fn no_grad<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        block: Rule<'tok, 'src, I, Block>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
        just(Token::NoGrad)
            .ignore_then(block)
            .map_with(move |body, e| self.expr_at(ExprKind::NoGrad(body), e.span()))
    }

    /// A `{` in expression position:
    /// `brace = "{" "}"                                        (empty dict)
    ///        | "{" expr ":" expr ("," expr ":" expr)* ","? "}" (dict)
    ///        | block`
    /// Decided after the first item: a dict when it is followed by `:`.
    pub(super) fn brace<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
        stmt: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
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

    /// `lambda = "|" (name ("=" unary)? ("," name ("=" unary)?)* ","?)? "|" expr`.
    /// Defaults are prefix-level expressions (so `|` ends them); parenthesize others.
    pub(super) fn lambda<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
        unary: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
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
    pub(super) fn params<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        default: Rule<'tok, 'src, I, Expr>,
    ) -> impl Parser<'tok, I, Vec<Param>, Extra<'tok, 'src>> + Clone {
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
    pub(super) fn pattern<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
    ) -> impl Parser<'tok, I, Pattern, Extra<'tok, 'src>> + Clone {
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
}

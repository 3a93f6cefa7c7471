//! Statements: the statement lists of programs and blocks with their error recovery,
//! the rule that ties the recursion together, blocks, `if`, loops and assignments.

use super::*;

impl Grammar {
    /// The statement list of a program or block body, with statement-level recovery:
    /// a statement that fails to parse is skipped up to the end of its line.
    pub(super) fn statements<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        ctx: Ctx,
    ) -> Rule<'tok, 'src, I, Vec<Expr>> {
        let line = self.stmt_line(self.stmt(), ctx);
        let seps = sep().repeated();
        seps.clone()
            .ignore_then(line.then_ignore(seps).repeated().collect())
            .boxed()
    }

    /// `stmt` followed by the end of the statement, or a skipped line on error.
    pub(super) fn stmt_line<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        stmt: Rule<'tok, 'src, I, Expr>,
        ctx: Ctx,
    ) -> Rule<'tok, 'src, I, Expr> {
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
    pub(super) fn skip_line<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        ctx: Ctx,
    ) -> Rule<'tok, 'src, I, Expr> {
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
    pub(super) fn stmt<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(self) -> Rule<'tok, 'src, I, Expr> {
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
        let mut level: Rule<'tok, 'src, I, Expr> = unary.clone().boxed();
        for lvl in PRECEDENCE.iter().rev() {
            level = match lvl {
                Level::Infix(ops) | Level::Chain(ops) => {
                    let chain = matches!(lvl, Level::Chain(_));
                    let mut alternatives = ops
                        .iter()
                        .map(|(t, op)| just(tok(t)).to(*op).boxed())
                        .collect::<Vec<_>>();
                    if chain {
                        let not_in = just(Token::Not).then(just(Token::In)).to(BinOp::NotIn);
                        alternatives.push(not_in.boxed());
                    }
                    let op = choice(alternatives).labelled("operator");
                    let link = enter(Step::Link).ignore_then(op.then(level.clone()));
                    checked(level.then(link.repeated().collect::<Vec<_>>()).map_with(
                        move |(first, rest), e| {
                            leave(&mut e.state().depth, Step::Link, rest.len());
                            if chain && !rest.is_empty() {
                                return comparison(first, rest);
                            }
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

    /// `block = "{" sep* (stmt (sep+ stmt)*)? sep* "}"`
    pub(super) fn block<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        stmt: Rule<'tok, 'src, I, Expr>,
    ) -> Rule<'tok, 'src, I, Block> {
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
    pub(super) fn if_expr<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
        block: Rule<'tok, 'src, I, Block>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
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
    pub(super) fn loops<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
        block: Rule<'tok, 'src, I, Block>,
    ) -> impl Parser<'tok, I, Expr, Extra<'tok, 'src>> + Clone {
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

    /// ```text
    /// stmt = "let" pattern "=" expr
    ///      | "fn" name "(" params ")" block
    ///      | "return" expr? | "break" | "continue"
    ///      | "import" STRING "as" name | "use" name | "del" expr
    ///      | expr (("=" | "+=" | "-=" | "*=" | "/=") expr)?
    /// ```
    pub(super) fn statement<'tok, 'src: 'tok, I: Tokens<'tok, 'src>>(
        self,
        expr: Rule<'tok, 'src, I, Expr>,
        block: Rule<'tok, 'src, I, Block>,
    ) -> Rule<'tok, 'src, I, Expr> {
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
        let del_stmt = just(Token::Del)
            .ignore_then(expr.clone())
            .validate(|target, _, emitter| {
                if !matches!(target.kind, ExprKind::Index { .. }) {
                    emitter.emit(Rich::custom(
                        simple(target.span),
                        "`del` removes an entry: write `del d[key]` or `del t[i]`",
                    ));
                }
                ExprKind::Del(Box::new(target))
            });
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
            del_stmt.boxed(),
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
                    let destructuring = matches!(target.kind, ExprKind::Tuple(_));
                    if destructuring && op.is_some() {
                        emitter.emit(Rich::custom(
                            simple(target.span),
                            "a tuple of names takes `=`, not an update operator",
                        ));
                    } else if destructuring && !names_only(&target) {
                        emitter.emit(Rich::custom(
                            simple(target.span),
                            "a destructuring assignment assigns to names: `(a, b) = f()`",
                        ));
                    } else if !matches!(
                        target.kind,
                        ExprKind::Ident(_)
                            | ExprKind::Index { .. }
                            | ExprKind::Attr { .. }
                            | ExprKind::Tuple(_)
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

/// A destructuring target: a tuple of names and nested tuples of names.
fn names_only(target: &Expr) -> bool {
    match &target.kind {
        ExprKind::Ident(_) => true,
        ExprKind::Tuple(items) => items.iter().all(names_only),
        _ => false,
    }
}

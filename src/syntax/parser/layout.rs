//! Between the lexer and the grammar: reports lexical errors, expands f-strings into
//! `FStr*` tokens, matches brackets, and drops comments and the newlines that do not
//! end a statement.
//!
//! A newline is dropped when it is inside `(...)`, `[...]` or an f-string hole, when
//! the token before it continues the line (a binary operator, `=`, `,`, `:`, `.`,
//! `else`, ...), or when the next line starts with `.` (a method chain) or `else`.
//! Inside `{...}` newlines separate statements, so they are kept.

use std::ops::Range;

use chumsky::span::SimpleSpan;

use crate::diag::Diagnostic;
use crate::span::{Span, SrcId};
use crate::syntax::token::{self, lex, FStrPiece, Token};

/// Brackets with where they are.
pub(super) type Brackets<'src> = Vec<(Token<'src>, Range<usize>)>;

/// The token stream for the grammar, plus what the lexical checks found.
pub(super) struct Prepared<'src> {
    pub tokens: Vec<(Token<'src>, SimpleSpan)>,
    /// Lexical errors: unexpected characters, unterminated strings, bad escapes, ...
    pub diags: Vec<Diagnostic>,
    /// Opening brackets that are never closed, in source order.
    pub unclosed: Brackets<'src>,
    /// Closing brackets that close nothing.
    pub stray: Vec<Range<usize>>,
}

/// Lexes `src` and prepares the tokens for the grammar.
pub(super) fn prepare(src: &str, id: SrcId) -> Prepared<'_> {
    let mut raw = Vec::new();
    let mut diags = Vec::new();
    expand(src, 0, id, &mut raw, &mut diags);

    let mut tokens = Vec::with_capacity(raw.len());
    let mut brackets = Matcher::default();
    let mut i = 0;
    while i < raw.len() {
        let (tok, span) = raw[i];
        if tok == Token::Newline {
            // Decide once for the whole run of blank lines.
            let next = raw[i..].iter().position(|(t, _)| *t != Token::Newline);
            let run_end = next.map_or(raw.len(), |n| i + n);
            let next_tok = raw.get(run_end).map(|(t, _)| *t);
            let joined = brackets.in_parens()
                || tokens.last().is_some_and(|(t, _)| continues_line(t))
                || matches!(next_tok, Some(Token::Else | Token::Catch | Token::Dot));
            if !joined {
                tokens.push((tok, span));
            }
            i = run_end;
            continue;
        }
        brackets.push(tok, span.into_range());
        tokens.push((tok, span));
        i += 1;
    }
    let (unclosed, stray) = brackets.finish();
    Prepared {
        tokens,
        diags,
        unclosed,
        stray,
    }
}

/// True when `src` ends inside an open bracket or string, or right after a token that
/// continues the line. Input with a stray or mismatched closing bracket, or an
/// unexpected character, is complete (and wrong).
pub(super) fn ends_open(src: &str) -> bool {
    let mut brackets = Matcher::default();
    let mut last = None;
    for (tok, span) in lex(src) {
        match tok {
            Token::Newline | Token::Comment => {}
            Token::Error => {
                // An unterminated string runs to the end of the input.
                let text = src.get(span).unwrap_or_default();
                return is_string_start(text) && !brackets.mismatched;
            }
            _ => {
                brackets.push(tok, span);
                last = Some(tok);
            }
        }
    }
    !brackets.mismatched && (!brackets.stack.is_empty() || last.is_some_and(|t| continues_line(&t)))
}

/// Tokens after which a line break does not end the statement.
fn continues_line(tok: &Token<'_>) -> bool {
    use Token::*;
    matches!(
        tok,
        Plus | Minus
            | Star
            | Slash
            | SlashSlash
            | Percent
            | StarStar
            | At
            | EqEq
            | NotEq
            | Lt
            | Le
            | Gt
            | Ge
            | Amp
            | Pipe
            | Caret
            | Tilde
            | Assign
            | PlusAssign
            | MinusAssign
            | StarAssign
            | SlashAssign
            | Comma
            | Colon
            | Dot
            | And
            | Or
            | Not
            | Else
    )
}

/// Does this error text start like a string literal (so the error is an unterminated string)?
fn is_string_start(text: &str) -> bool {
    text.starts_with(['"', '\'']) || text.starts_with("f\"") || text.starts_with("f'")
}

/// Lexes `text` (found at byte `offset` of the source) into `out`: drops comments,
/// checks literals, and expands f-strings (recursively for their holes).
fn expand<'src>(
    text: &'src str,
    offset: usize,
    id: SrcId,
    out: &mut Vec<(Token<'src>, SimpleSpan)>,
    diags: &mut Vec<Diagnostic>,
) {
    let at = |r: Range<usize>| SimpleSpan::from(r.start + offset..r.end + offset);
    let span = |r: Range<usize>| Span::new(id, r.start + offset..r.end + offset);
    let mut toks = lex(text).into_iter().peekable();
    while let Some((tok, range)) = toks.next() {
        match tok {
            Token::Comment => continue,
            Token::Error => {
                // A run of unreadable characters is one error.
                let run_start = match out.last() {
                    Some((Token::Error, prev)) if prev.end == range.start + offset => prev
                        .start
                        .checked_sub(offset)
                        .filter(|&s| !text.get(s..).is_some_and(is_string_start)),
                    _ => None,
                };
                let start = run_start.unwrap_or(range.start);
                if run_start.is_some() {
                    out.pop();
                    diags.pop();
                }
                diags.push(lex_error(&text[start..range.end], span(start..range.end)));
                out.push((tok, at(start..range.end)));
                continue;
            }
            Token::Int(_) | Token::Float(_)
                if toks
                    .peek()
                    .is_some_and(|(t, r)| r.start == range.end && glues_to_number(t)) =>
            {
                // `0xZZ`, `12abc`, `1e`, `1.2.3`: one bad literal, not a number and a name.
                let mut end = range.end;
                while let Some((_, r)) = toks.next_if(|(t, r)| r.start == end && glues_to_number(t))
                {
                    end = r.end;
                }
                let bad = range.start..end;
                diags.push(
                    Diagnostic::new(
                        span(bad.clone()),
                        format!("invalid number literal `{}`", &text[bad.clone()]),
                    )
                    .with_note(
                        "numbers are written `42`, `1_000`, `0x1F`, `0b101`, `0o17`, `1.5`, `.5` or `1e-3`",
                    ),
                );
                out.push((Token::Error, at(bad)));
                continue;
            }
            Token::Int(raw) => {
                if let Err(msg) = token::int_value(raw) {
                    let mut d = Diagnostic::new(span(range.clone()), msg);
                    if raw.len() > 2 {
                        d = d.with_note(format!(
                            "integers are 64-bit (at most {}); write a float such as `1e20` for larger values",
                            i64::MAX
                        ));
                    }
                    diags.push(d);
                }
            }
            Token::Str(raw) => escape_errors(raw, false, range.start + 1 + offset, id, diags),
            Token::FStr(body) => {
                let quote = if text[range.start..].starts_with("f'") {
                    '\''
                } else {
                    '"'
                };
                let at = range.start + offset;
                expand_fstring(body, quote, at..range.end + offset, id, out, diags);
                continue;
            }
            _ => {}
        }
        out.push((tok, at(range)));
    }
}

/// Tokens that cannot directly follow a number: written right after one, they make
/// a malformed literal (`12abc`, `0b102`, `1.2.3`, `3in`).
fn glues_to_number(tok: &Token<'_>) -> bool {
    matches!(tok, Token::Ident(_) | Token::Int(_) | Token::Float(_)) || tok.keyword().is_some()
}

/// Expands the f-string token `f"body"` found at `range` of the source.
fn expand_fstring<'src>(
    body: &'src str,
    quote: char,
    range: Range<usize>,
    id: SrcId,
    out: &mut Vec<(Token<'src>, SimpleSpan)>,
    diags: &mut Vec<Diagnostic>,
) {
    let body_at = range.start + 2;
    let tok =
        |t: Token<'src>, r: Range<usize>| (t, SimpleSpan::from(r.start + body_at..r.end + body_at));
    out.push((Token::FStrStart, SimpleSpan::from(range.start..body_at)));
    for piece in token::scan_fstring(body, quote).pieces {
        match piece {
            FStrPiece::Text(r) => {
                escape_errors(&body[r.clone()], true, r.start + body_at, id, diags);
                out.push(tok(Token::FStrText(&body[r.clone()]), r));
            }
            FStrPiece::Hole {
                open,
                expr,
                spec,
                close,
            } => {
                out.push(tok(Token::FStrOpen, open..open + 1));
                expand(&body[expr.clone()], expr.start + body_at, id, out, diags);
                if let Some(s) = spec {
                    out.push(tok(Token::FStrSpec(&body[s.clone()]), s));
                }
                if let Some(c) = close {
                    out.push(tok(Token::FStrClose, c..c + 1));
                }
            }
        }
    }
    out.push((Token::FStrEnd, SimpleSpan::from(range.end - 1..range.end)));
}

/// Reports the bad escapes of a string body found at byte `at` of the source.
fn escape_errors(raw: &str, fstring: bool, at: usize, id: SrcId, diags: &mut Vec<Diagnostic>) {
    for (r, msg) in token::unescape(raw, fstring).1 {
        let unknown = msg.starts_with("unknown escape");
        let mut d = Diagnostic::new(Span::new(id, r.start + at..r.end + at), msg);
        if unknown {
            d = d.with_note(r#"valid escapes: \n \t \r \0 \\ \" \' \u{...}"#);
        }
        diags.push(d);
    }
}

/// The diagnostic for an error token: an unterminated string or an unexpected character.
fn lex_error(text: &str, span: Span) -> Diagnostic {
    if is_string_start(text) {
        let quote_len = if text.starts_with('f') { 2 } else { 1 };
        let open = Span {
            end: span.start + quote_len,
            ..span
        };
        let quote = &text[quote_len - 1..quote_len];
        Diagnostic::new(open, "unterminated string")
            .with_label(open, "this string is never closed")
            .with_note(format!("add a closing `{quote}`"))
    } else {
        let shown: String = text.chars().take(20).collect();
        let what = if text.chars().nth(1).is_some() {
            "characters"
        } else {
            "character"
        };
        let more = if text.chars().nth(20).is_some() {
            "..."
        } else {
            ""
        };
        let d = Diagnostic::new(
            span,
            format!("unexpected {what} `{}{more}`", shown.escape_debug()),
        );
        if text == "!" {
            d.with_note(
                "logical not is written `not x` (`~x` inverts a bool tensor); `!=` compares",
            )
        } else {
            d
        }
    }
}

/// Bracket matching: which brackets are open, and which were never closed.
#[derive(Default)]
struct Matcher<'src> {
    stack: Brackets<'src>,
    unclosed: Brackets<'src>,
    /// Closing brackets without a matching opener.
    stray: Vec<Range<usize>>,
    /// A closing bracket had no matching opener, or closed over an unclosed one.
    mismatched: bool,
}

impl<'src> Matcher<'src> {
    /// Records `tok` if it opens or closes a bracket.
    fn push(&mut self, tok: Token<'src>, span: Range<usize>) {
        if let Some(opener) = opener_of(&tok) {
            let Some(at) = self.stack.iter().rposition(|(t, _)| *t == opener) else {
                self.mismatched = true;
                self.stray.push(span);
                return;
            };
            if at + 1 != self.stack.len() {
                self.mismatched = true;
            }
            self.unclosed.extend(self.stack.drain(at + 1..));
            self.stack.pop();
        } else if matches!(
            tok,
            Token::LParen | Token::LBracket | Token::LBrace | Token::FStrStart | Token::FStrOpen
        ) {
            self.stack.push((tok, span));
        }
    }

    /// Inside `(...)`, `[...]` or an f-string, where newlines do not end statements.
    fn in_parens(&self) -> bool {
        self.stack
            .last()
            .is_some_and(|(t, _)| !matches!(t, Token::LBrace))
    }

    /// Every opener never closed, in source order, and every stray closer.
    fn finish(mut self) -> (Brackets<'src>, Vec<Range<usize>>) {
        self.unclosed.append(&mut self.stack);
        self.unclosed.sort_by_key(|(_, r)| r.start);
        (self.unclosed, self.stray)
    }
}

/// The opening bracket matched by a closing one.
fn opener_of(tok: &Token<'_>) -> Option<Token<'static>> {
    Some(match tok {
        Token::RParen => Token::LParen,
        Token::RBracket => Token::LBracket,
        Token::RBrace => Token::LBrace,
        Token::FStrClose => Token::FStrOpen,
        Token::FStrEnd => Token::FStrStart,
        _ => return None,
    })
}

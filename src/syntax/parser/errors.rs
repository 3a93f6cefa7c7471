//! Turns chumsky's errors into diagnostics: readable messages ("expected expression,
//! found `)`"), labels on unclosed brackets, hints for common mistakes, one
//! diagnostic per span.

use std::collections::HashSet;

use chumsky::error::{RichPattern, RichReason};

use super::grammar::ParseError;
use super::layout::Prepared;
use crate::diag::Diagnostic;
use crate::span::{Span, SrcId};
use crate::syntax::token::Token;

/// The syntax errors as diagnostics. Errors at an error token, or at the token right
/// after one, are dropped (the lexical checks reported it, and what follows it is
/// usually fine: `!x`, `12abc def`). The innermost unclosed bracket before an error labels
/// it; at the end of input, the error is reported at that bracket.
pub(super) fn diagnostics(
    errors: Vec<ParseError<'_, '_>>,
    prepared: &Prepared<'_>,
    src_len: usize,
    id: SrcId,
) -> Vec<Diagnostic> {
    let (unclosed, stray) = (&prepared.unclosed, &prepared.stray);
    let mut diags = Vec::new();
    let mut openers = unclosed.iter().peekable();
    let tokens = &prepared.tokens;
    let after_error = |start: usize| {
        let before = tokens.partition_point(|(_, s)| s.start < start);
        before > 0 && tokens[before - 1].0 == Token::Error
    };
    for err in errors {
        if err.found() == Some(&Token::Error) || after_error(err.span().start) {
            continue;
        }
        let at = err.span().start..err.span().end;
        let mut diag = convert(&err, Span::new(id, at.clone()));
        if let Some(tok) = err.found().filter(|_| stray.contains(&at)) {
            diag.message = format!("unexpected closing delimiter {tok}");
        }
        let mut innermost = None;
        while let Some((tok, r)) = openers.next_if(|(_, r)| r.end <= at.start) {
            innermost = Some((tok, Span::new(id, r.clone())));
        }
        if let Some((tok, open)) = innermost {
            if at.start >= src_len {
                // "unexpected end of input, expected `)`" is better said at the bracket.
                diag.notes.insert(0, diag.message.clone());
                diag.message = format!("unclosed {tok}");
                diag.span = open;
            }
            diag = diag.with_label(open, format!("this {tok} is never closed"));
        }
        diags.push(diag);
    }
    // An unclosed bracket that caused no reported syntax error (it was hidden by a
    // lexical error).
    if let Some((tok, r)) = openers.last().filter(|_| diags.is_empty()) {
        let open = Span::new(id, r.clone());
        diags.push(
            Diagnostic::new(open, format!("unclosed {tok}"))
                .with_label(open, format!("this {tok} is never closed")),
        );
    }
    diags
}

/// Sorts diagnostics by position and keeps the first one at each span.
pub(super) fn dedup(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by_key(|d| d.span.start);
    let mut seen = HashSet::new();
    diags.retain(|d| seen.insert((d.span.start, d.span.end)));
    diags
}

/// One chumsky error as a diagnostic at `span`.
fn convert(err: &ParseError<'_, '_>, span: Span) -> Diagnostic {
    let (expected, found) = match err.reason() {
        RichReason::Custom(msg) => return Diagnostic::new(span, msg.clone()),
        RichReason::ExpectedFound { expected, found } => (expected, found.as_deref()),
    };
    let mut wanted: Vec<(u8, String)> = expected.iter().filter_map(describe).collect();
    wanted.sort_by_key(|(rank, _)| *rank);
    let mut seen = HashSet::new();
    let mut wanted: Vec<String> = wanted
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| seen.insert(s.clone()))
        .collect();
    // Where a statement may start, empty statements are allowed too; saying so is noise.
    if seen.contains("statement") {
        wanted.retain(|w| w != "newline" && w != "`;`");
    }
    let list = join_or(&wanted);
    let message = match (found, list.is_empty()) {
        (None, true) => "unexpected end of input".to_string(),
        (None, false) => format!("unexpected end of input, expected {list}"),
        (Some(tok), true) => format!("unexpected {tok}"),
        (Some(tok), false) => format!("expected {list}, found {tok}"),
    };
    let mut diag = Diagnostic::new(span, message);
    if let Some(note) = hint(found, &wanted) {
        diag = diag.with_note(note);
    }
    diag
}

/// A hint for a common mistake, from what was found where.
fn hint(found: Option<&Token<'_>>, wanted: &[String]) -> Option<&'static str> {
    let wants = |s: &str| wanted.iter().any(|w| w == s);
    match found? {
        Token::Colon if wants("`]`") => Some("a slice has at most three parts: `start:stop:step`"),
        Token::Assign if wants("operator") => Some("`=` assigns; use `==` to compare"),
        Token::Else if wants("end of statement") => {
            Some("`else` can only follow the block of an `if`")
        }
        Token::If if wants("end of statement") => {
            Some("a conditional value is written `if c { a } else { b }`")
        }
        Token::Amp if wants("expression") => Some("logical and is written `and`"),
        _ => None,
    }
}

/// How an expected pattern is named, with a rank for a stable, readable order:
/// categories first, then tokens, then the ends of statements and input.
fn describe(pattern: &RichPattern<'_, Token<'_>>) -> Option<(u8, String)> {
    Some(match pattern {
        RichPattern::Label(l) if l == "operator" => (1, l.to_string()),
        RichPattern::Label(l) if l == "end of statement" => (3, l.to_string()),
        RichPattern::Label(l) => (0, l.to_string()),
        RichPattern::Token(t) => (2, t.to_string()),
        RichPattern::Identifier(s) => (2, format!("`{s}`")),
        RichPattern::EndOfInput => (4, "end of input".to_string()),
        RichPattern::Any => (2, "something".to_string()),
        _ => return None,
    })
}

/// `a`, `a or b`, `a, b or c`
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

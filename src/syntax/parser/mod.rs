//! The parser (chumsky 0.12): source text to a `Program`, reporting every syntax
//! error it can find through error recovery.
//!
//! The pipeline: `token::lex` (logos) → `layout` (lexical
//! checks, f-string expansion, newline rules) → `grammar` (chumsky) → `errors`
//! (diagnostics); a program that parses is then resolved (`syntax::resolve`).
//! `lang/grammar.md` is the grammar in EBNF, with the newline rules and the operator
//! precedence table (`grammar::PRECEDENCE`).

mod errors;
mod grammar;
mod layout;
#[cfg(test)]
mod tests;

use chumsky::span::SimpleSpan;

use super::ast::Program;
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::{Span, SrcId};

/// Parses a whole source text; on failure returns every syntax error found.
pub fn parse(src: &str, id: SrcId) -> Result<Program, Vec<Diagnostic>> {
    let mut prepared = layout::prepare(src, id);
    let eoi = SimpleSpan::from(src.len()..src.len());
    let parsed = grammar::parse_program(&prepared.tokens, eoi, id);

    let mut diags = std::mem::take(&mut prepared.diags);
    if let Some((at, message)) = parsed.limit {
        diags.push(Diagnostic::new(Span::new(id, at.start..at.end), message));
    } else {
        diags.extend(errors::diagnostics(parsed.errors, &prepared, src.len(), id));
    }
    match parsed.stmts {
        Some(mut stmts) if diags.is_empty() => {
            super::resolve::resolve(&mut stmts);
            Ok(Program {
                stmts,
                span: Span::new(id, 0..src.len()),
            })
        }
        _ if diags.is_empty() => Err(vec![Diagnostic::new(
            Span::new(id, 0..src.len()),
            "could not parse this input",
        )
        .with_kind(ErrorKind::Syntax)]),
        _ => Err(errors::dedup(diags)
            .into_iter()
            .map(|d| d.with_kind(ErrorKind::Syntax))
            .collect()),
    }
}

/// True when `src` ends inside an open bracket, block or string, so the REPL should
/// keep reading lines. Complete (even erroneous) input is never incomplete.
pub fn is_incomplete(src: &str) -> bool {
    layout::ends_open(src)
}

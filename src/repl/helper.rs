//! The rustyline helper, one struct: completion from the session's names, colours from
//! the lexer, multi-line input while the parser says the text is incomplete, and hints
//! from history.

use std::borrow::Cow;

use rustyline::completion::Completer;
use rustyline::highlight::{CmdKind, Highlighter};
use rustyline::hint::{Hinter, HistoryHinter};
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

use super::complete::{complete, Names};
use super::highlight::highlight;
use crate::syntax::parser::is_incomplete;

pub struct TsrHelper {
    /// The session's variables as of the last evaluation.
    pub names: Names,
    /// Colours only on a terminal that allows them.
    pub color: bool,
    history: HistoryHinter,
}

impl TsrHelper {
    pub fn new(color: bool) -> TsrHelper {
        TsrHelper {
            names: Names::default(),
            color,
            history: HistoryHinter::new(),
        }
    }
}

impl Validator for TsrHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        // A blank line always submits, so a user can escape a mistaken open bracket;
        // meta commands are one line.
        if input.ends_with('\n') || input.starts_with(':') || !is_incomplete(input) {
            Ok(ValidationResult::Valid(None))
        } else {
            Ok(ValidationResult::Incomplete)
        }
    }
}

impl Completer for TsrHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(complete(line, pos, &self.names))
    }
}

impl Hinter for TsrHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, ctx: &Context<'_>) -> Option<String> {
        self.history.hint(line, pos, ctx)
    }
}

impl Highlighter for TsrHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        if self.color && !line.starts_with(':') {
            Cow::Owned(highlight(line))
        } else {
            Cow::Borrowed(line)
        }
    }

    fn highlight_hint<'h>(&self, hint: &'h str) -> Cow<'h, str> {
        if self.color {
            Cow::Owned(format!("\x1b[2m{hint}\x1b[0m"))
        } else {
            Cow::Borrowed(hint)
        }
    }

    fn highlight_char(&self, _line: &str, _pos: usize, _kind: CmdKind) -> bool {
        self.color
    }
}

impl Helper for TsrHelper {}

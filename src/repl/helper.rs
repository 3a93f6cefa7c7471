//! The rustyline helper: multi-line input while the parser says the text is incomplete.

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::Helper;

use crate::syntax::parser::is_incomplete;

pub struct TsrHelper;

impl Validator for TsrHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        // A blank line always submits, so a user can escape a mistaken open bracket.
        if input.ends_with('\n') || !is_incomplete(input) {
            Ok(ValidationResult::Valid(None))
        } else {
            Ok(ValidationResult::Incomplete)
        }
    }
}

impl Completer for TsrHelper {
    type Candidate = String;
}

impl Hinter for TsrHelper {
    type Hint = String;
}

impl Highlighter for TsrHelper {}

impl Helper for TsrHelper {}

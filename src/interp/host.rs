//! The interpreter as the context of a builtin call ([`Ctx`]): the session state
//! builtins touch, and calls back into user functions for `map`, `sorted(key=...)`.

use std::io::Write;

use crate::diag::Diagnostic;
use crate::runtime::value::Value;
use crate::runtime::{ArgVal, CallArgs, Ctx, Display};
use crate::span::Span;
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;

use super::eval::Flow;
use super::Interp;

impl Ctx for Interp {
    fn out(&mut self) -> &mut dyn Write {
        &mut *self.out
    }

    fn err(&mut self) -> &mut dyn Write {
        &mut *self.err
    }

    fn display(&mut self, item: Display<'_>) -> bool {
        match &mut self.display {
            Some(show) => {
                show(item);
                true
            }
            None => false,
        }
    }

    fn print_options(&mut self) -> &mut PrintOptions {
        &mut self.print_opts
    }

    fn script_args(&self) -> &[String] {
        &self.script_args
    }

    fn rng(&mut self) -> &mut RandomState {
        &mut self.rng
    }

    fn figure(&mut self) -> &mut Option<crate::plot::Figure> {
        &mut self.figure
    }

    fn request_exit(&mut self, code: u8) {
        self.exit_request = Some(code);
    }

    fn call(&mut self, f: &Value, args: Vec<Value>, span: Span) -> Result<Value, Diagnostic> {
        let call = CallArgs {
            span,
            positional: args
                .into_iter()
                .map(|value| ArgVal { value, span })
                .collect(),
            keyword: Vec::new(),
        };
        match self.call_value(f, call, span) {
            Ok(v) => Ok(v),
            Err(Flow::Error(d)) => Err(*d),
            // The builtin that called back passes the error on; the interpreter sees
            // the request when the builtin returns and ends the program then.
            Err(Flow::Exit(code, at)) => {
                self.exit_request = Some(code);
                Err(Diagnostic::new(at, format!("exit({code})")))
            }
            Err(other) => Err(other.into_diagnostic()),
        }
    }
}

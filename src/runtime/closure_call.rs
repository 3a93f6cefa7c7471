//! User functions (`fn f(x, y=1)` and `|x| ...`) bind their calls through the
//! same binder as builtins; their errors name them in backticks.

use crate::diag::Diagnostic;

use super::args::{CallArgs, Callee};
use super::value::{Closure, Value};

impl Callee for Closure {
    fn label(&self) -> String {
        format!("`{}`", self.name)
    }

    fn takes(&self, fixed: usize) -> String {
        format!("{fixed} argument{}", if fixed == 1 { "" } else { "s" })
    }

    fn signature_note(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|(n, _)| &**n).collect();
        format!("signature: {}({})", self.name, names.join(", "))
    }

    fn param_count(&self) -> usize {
        self.params.len()
    }

    fn param_name(&self, i: usize) -> &str {
        self.params.get(i).map_or("?", |(n, _)| n)
    }

    fn accepts(&self, i: usize, name: &str) -> bool {
        self.params.get(i).is_some_and(|(n, _)| **n == *name)
    }

    fn has_default(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|(_, d)| d.is_some())
    }

    fn is_variadic(&self, _: usize) -> bool {
        false
    }
}

impl Closure {
    /// The value of each parameter for a call: the argument passed, else the
    /// default evaluated when the function was defined.
    pub fn bind(&self, args: CallArgs) -> Result<Vec<Value>, Diagnostic> {
        let slots = args.bind(self)?;
        Ok(slots
            .slots
            .into_iter()
            .zip(&self.params)
            .map(|(slot, (_, default))| match slot {
                Some(arg) => arg.value,
                // The binder has checked a parameter without a default was given.
                None => default.clone().unwrap_or_default(),
            })
            .collect())
    }
}

//! The native-function interface: what a builtin is, what it may touch, and how
//! its parameters are declared and shown.

use std::io::Write;

use crate::diag::Diagnostic;
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;

use super::args::Callee;
use super::bound::Bound;
use super::value::Value;

/// What a builtin may touch besides its arguments.
pub struct Ctx<'a> {
    pub out: &'a mut dyn Write,
    pub print: &'a mut PrintOptions,
    pub script_args: &'a [String],
    pub rng: &'a mut RandomState,
    /// The session's last figure (plot, hist, imshow), for savefig.
    pub figure: &'a mut Option<crate::plot::Figure>,
    /// Set by `exit(code)`: the interpreter ends the program after the call.
    pub exit: &'a mut Option<u8>,
}

pub type BuiltinFn = fn(&mut Ctx, Bound) -> Result<Value, Diagnostic>;

/// One declared parameter of a builtin (written by `builtin!`).
#[derive(Debug)]
pub struct Param {
    /// The primary name, then accepted aliases (`axis`, `dim`).
    pub names: &'static [&'static str],
    /// The default as a tsr literal (`none`, `1`, `"valid"`): shown in the
    /// signature and converted like a passed argument when none is given.
    pub default: Option<&'static str>,
    /// `*name`: collects the remaining positional arguments.
    pub variadic: bool,
}

impl Param {
    pub fn name(&self) -> &'static str {
        self.names.first().copied().unwrap_or("")
    }

    fn display(&self) -> String {
        match (self.variadic, self.default) {
            (true, _) => format!("*{}", self.name()),
            (false, Some(d)) => format!("{}={d}", self.name()),
            (false, None) => self.name().to_string(),
        }
    }
}

/// A builtin function: its declared parameters, its doc line and its body.
pub struct Builtin {
    pub name: &'static str,
    pub params: &'static [Param],
    pub doc: &'static str,
    pub func: BuiltinFn,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "<builtin {}>", self.name)
    }
}

impl Builtin {
    /// `sum(x, axis=none, keepdim=false)`: the primary names, as documented.
    pub fn signature(&self) -> String {
        let shown: Vec<String> = self.params.iter().map(Param::display).collect();
        format!("{}({})", self.name, shown.join(", "))
    }
}

impl Callee for Builtin {
    fn label(&self) -> String {
        self.name.to_string()
    }

    fn takes(&self, fixed: usize) -> String {
        match fixed {
            0 => "no arguments".to_string(),
            1 => "at most 1 argument".to_string(),
            n => format!("at most {n} arguments"),
        }
    }

    fn signature_note(&self) -> String {
        format!("signature: {}", self.signature())
    }

    fn param_count(&self) -> usize {
        self.params.len()
    }

    fn param_name(&self, i: usize) -> &str {
        self.params.get(i).map_or("?", Param::name)
    }

    fn accepts(&self, i: usize, name: &str) -> bool {
        self.params.get(i).is_some_and(|p| p.names.contains(&name))
    }

    fn has_default(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|p| p.default.is_some())
    }

    fn is_variadic(&self, i: usize) -> bool {
        self.params.get(i).is_some_and(|p| p.variadic)
    }
}

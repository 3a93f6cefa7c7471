//! The native-function interface: what a builtin is, what it may touch, and how
//! its parameters are declared and shown.

use std::io::Write;

use crate::diag::Diagnostic;
use crate::span::Span;
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;

use super::args::Callee;
use super::bound::Bound;
use super::value::Value;

/// What a builtin may touch besides its arguments: the session's output, options and
/// random stream, and the interpreter itself for a builtin that calls a function it
/// was given (`map`, `sorted(key=...)`). The interpreter implements it.
pub trait Ctx {
    fn out(&mut self) -> &mut dyn Write;
    /// Where `eprint` writes: stderr, or a notebook's stderr stream.
    fn err(&mut self) -> &mut dyn Write;
    /// Hands rich output to a front end that shows it itself (a notebook); false
    /// when there is none, and the caller writes the text to `out` as usual.
    fn display(&mut self, item: Display<'_>) -> bool;
    fn print_options(&mut self) -> &mut PrintOptions;
    fn script_args(&self) -> &[String];
    fn rng(&mut self) -> &mut RandomState;
    /// The session's last figure (plot, hist, imshow), for savefig.
    fn figure(&mut self) -> &mut Option<crate::plot::Figure>;
    /// `exit(code)`: the interpreter ends the program after the call.
    fn request_exit(&mut self, code: u8);
    /// Calls a function value (a user function, a builtin, a dtype) with positional
    /// arguments, for an error at `span`.
    fn call(&mut self, f: &Value, args: Vec<Value>, span: Span) -> Result<Value, Diagnostic>;
}

/// Output a notebook shows richer than text.
pub enum Display<'a> {
    /// A figure of plot, hist or imshow (a notebook shows it as an image).
    Figure(&'a crate::plot::Figure),
    /// Tables, as the text `out` would get and as HTML.
    Table { text: &'a str, html: &'a str },
}

pub type BuiltinFn = fn(&mut dyn Ctx, Bound) -> Result<Value, Diagnostic>;

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
    pub grad: Grad,
    pub func: BuiltinFn,
}

/// What a builtin's new float tensors are to gradients when an argument is tracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grad {
    /// The body records its own gradient; a float tensor it returns untracked has
    /// none, and a gradient reaching it is an error naming the builtin.
    Recorded,
    /// Constants, with no gradient and no error (`zeros_like`, `rand_like`).
    Constant,
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

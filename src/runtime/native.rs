//! The native-function interface: what a builtin is, what it may touch, and how
//! its signature is shown.

use std::io::Write;

use crate::diag::Diagnostic;
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;

use super::args::{Bound, ParamSpec};
use super::value::Value;

/// What a builtin may touch besides its arguments.
pub struct Ctx<'a> {
    pub out: &'a mut dyn Write,
    pub print: &'a mut PrintOptions,
    pub script_args: &'a [String],
    pub rng: &'a mut RandomState,
    /// The session's last figure (plot, hist, imshow), for savefig.
    pub figure: &'a mut Option<crate::plot::Figure>,
}

pub type BuiltinFn = fn(&mut Ctx, Bound) -> Result<Value, Diagnostic>;

/// A builtin function. `params` entries: `x` (required), `axis=none` (optional, the
/// default as documented), `axis|dim=none` (with an accepted alias), `*args` (varargs).
pub struct Builtin {
    pub name: &'static str,
    pub params: &'static [&'static str],
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
        let shown: Vec<String> = self
            .params
            .iter()
            .map(|p| ParamSpec::parse(p).display())
            .collect();
        format!("{}({})", self.name, shown.join(", "))
    }
}

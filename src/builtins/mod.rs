//! The builtin function registry: name → function, with a parameter list that is
//! both the binding spec and the documented signature. One file per domain; the
//! functions convert Values to tensor calls and never touch storage.

mod args;
mod conv;
mod core;
mod create;
pub mod gguf_meta;
mod info;
pub mod inplace;
pub mod inspect;
mod io;
mod linalg;
mod math;
mod model;
mod nn;
#[cfg(test)]
mod panic_probe;
mod plot;
mod quant;
mod random;
mod reduce;
mod shape;
mod testing;

use std::collections::HashMap;
use std::io::Write;
use std::sync::OnceLock;

use crate::diag::Diagnostic;
use crate::interp::value::Value;
use crate::syntax::Span;
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;
use crate::tensor::shape::shape_str;
use crate::tensor::TensorError;

pub use args::{ArgVal, Bound, CallArgs};
pub use core::range_len;
pub use quant::quant_matmul;

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
            .map(|p| args::ParamSpec::parse(p).display())
            .collect();
        format!("{}({})", self.name, shown.join(", "))
    }
}

const DOMAINS: &[&[Builtin]] = &[
    core::BUILTINS,
    create::BUILTINS,
    shape::BUILTINS,
    math::BUILTINS,
    reduce::BUILTINS,
    linalg::BUILTINS,
    io::BUILTINS,
    testing::BUILTINS,
    nn::BUILTINS,
    conv::BUILTINS,
    random::BUILTINS,
    quant::BUILTINS,
    model::BUILTINS,
    info::BUILTINS,
    plot::BUILTINS,
    #[cfg(test)]
    panic_probe::BUILTINS,
];

fn registry() -> &'static HashMap<&'static str, &'static Builtin> {
    static REGISTRY: OnceLock<HashMap<&'static str, &'static Builtin>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        DOMAINS
            .iter()
            .flat_map(|d| d.iter())
            .map(|b| (b.name, b))
            .collect()
    })
}

pub fn lookup(name: &str) -> Option<&'static Builtin> {
    registry().get(name).copied()
}

/// Every builtin, sorted by name (for docs and completion).
pub fn all() -> Vec<&'static Builtin> {
    let mut v: Vec<&'static Builtin> = registry().values().copied().collect();
    v.sort_by_key(|b| b.name);
    v
}

/// Calls a builtin: binds the arguments against its parameter list, then runs it.
pub fn call(b: &'static Builtin, ctx: &mut Ctx, args: CallArgs) -> Result<Value, Diagnostic> {
    let bound = args.bind(b)?;
    (b.func)(ctx, bound)
}

/// Turns a tensor error into a diagnostic at `span`; for broadcast errors the
/// operands' spans (when known) get labels naming their shapes.
pub fn tensor_diag(e: TensorError, span: Span, operands: &[Span]) -> Diagnostic {
    match &e {
        TensorError::Broadcast { op, lhs, rhs } if operands.len() >= 2 => Diagnostic::new(
            span,
            format!(
                "{op}: shapes {} and {} cannot be broadcast together",
                shape_str(lhs),
                shape_str(rhs)
            ),
        )
        .with_label(
            operands[0],
            format!("left operand has shape {}", shape_str(lhs)),
        )
        .with_label(
            operands[1],
            format!("right operand has shape {}", shape_str(rhs)),
        )
        .with_note(
            "hint: shapes broadcast when their trailing dimensions are equal or one of them is 1",
        ),
        _ => Diagnostic::new(span, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_signatures_parse() {
        let mut seen = std::collections::HashSet::new();
        for b in DOMAINS.iter().flat_map(|d| d.iter()) {
            assert!(
                seen.insert(b.name),
                "builtin `{}` is registered twice",
                b.name
            );
            assert!(!b.doc.contains('|'), "doc of `{}` has a `|`", b.name);
            assert!(b.signature().starts_with(b.name));
        }
    }
}

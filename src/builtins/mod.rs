//! The builtin function registry: name → function, each declared with
//! `runtime::builtin!` so its parameter list is both the binding
//! spec and the documented signature. One file per domain; the
//! functions convert Values to tensor calls and never touch storage.

mod arrange;
pub(crate) mod autograd;
mod conv;
mod convert;
mod core;
mod create;
mod dicts;
mod files;
pub mod gguf_meta;
mod grid;
mod indexing;
mod info;
pub(crate) mod inplace;
pub mod inspect;
mod io;
mod json;
mod linalg;
mod loss;
mod math;
mod matrix;
mod model;
mod nn;
mod norm_layers;
#[cfg(test)]
mod panic_probe;
mod plot;
mod process;
mod quant;
mod raise;
mod random;
mod reduce;
mod scalar_math;
mod sequences;
mod shape;
mod sort;
mod stats;
mod strings;
mod testing;
mod text;

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::diag::Diagnostic;
use crate::runtime::{grad_net, Bound, Builtin, CallArgs, Ctx, Value};

const DOMAINS: &[&[Builtin]] = &[
    core::BUILTINS,
    autograd::BUILTINS,
    convert::BUILTINS,
    create::BUILTINS,
    shape::BUILTINS,
    arrange::BUILTINS,
    matrix::BUILTINS,
    strings::BUILTINS,
    dicts::BUILTINS,
    math::BUILTINS,
    reduce::BUILTINS,
    sort::BUILTINS,
    indexing::BUILTINS,
    stats::BUILTINS,
    sequences::BUILTINS,
    linalg::BUILTINS,
    io::BUILTINS,
    files::BUILTINS,
    text::BUILTINS,
    json::BUILTINS,
    process::BUILTINS,
    raise::BUILTINS,
    testing::BUILTINS,
    nn::BUILTINS,
    nn::LAYERS,
    norm_layers::BUILTINS,
    loss::BUILTINS,
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

/// Calls a builtin: binds the arguments against its declared parameters, then runs it.
pub fn call(b: &'static Builtin, ctx: &mut dyn Ctx, args: CallArgs) -> Result<Value, Diagnostic> {
    let tracked = grad_net::tracked_args(&args);
    let bound = Bound::new(b, args.bind(b)?)?;
    let out = (b.func)(ctx, bound)?;
    Ok(grad_net::mark_untracked(b, &tracked, out))
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

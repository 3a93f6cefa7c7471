//! Assertions for scripts and golden tests.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::interp::value::Value;

pub const BUILTINS: &[Builtin] = &[Builtin {
    name: "assert",
    params: &["cond", "msg=none"],
    doc: "Fails with msg (or \"assertion failed\") unless cond is true (a one-element tensor counts).",
    func: assert,
}];

fn assert(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let cond = a.req(0)?;
    let ok = cond
        .value
        .truthy()
        .map_err(|msg| Diagnostic::new(cond.span, msg))?;
    if ok {
        return Ok(Value::None);
    }
    let msg = match a.get(1) {
        Some(m) => format!("assertion failed: {}", m.value.display(&Default::default())),
        None => "assertion failed".to_string(),
    };
    Err(Diagnostic::new(cond.span, msg))
}

//! `error(msg)`: raises an error a `try` can catch. Given a caught error (the dict
//! a `catch` binds), raises it again with its message and kind.

use super::{Bound, Builtin};
use crate::diag::{Diagnostic, ErrorKind};
use crate::runtime::builtin;
use crate::runtime::value::{Key, Value};

pub const BUILTINS: &[Builtin] = &[builtin! {
    name: "error",
    doc: "Raises an error with message msg (kind \"error\"), which try/catch catches or which ends the script with exit 1; a caught error e is raised again as it was by error(e).",
    fn(_, a; msg: &Value) {
        Err(match msg {
            Value::Str(s) => a.err(s.to_string()).with_kind(ErrorKind::Error),
            Value::Dict(d) => reraise(&a, d)?,
            other => a.arg_err("msg", format!("error: msg must be a string or a caught error, not {}", other.describe())).with_kind(ErrorKind::Type),
        })
    }
}];

/// The diagnostic of a caught error raised again: its message and kind.
fn reraise(a: &Bound, e: &crate::runtime::value::Dict) -> Result<Diagnostic, Diagnostic> {
    let field = |name: &str| match e.get(&Key::Str(name.into())) {
        Some(Value::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let (Some(message), Some(kind)) = (field("message"), field("kind")) else {
        return Err(a.arg_err("msg", "error: a dict given to error() must be a caught error, with a \"message\" and a \"kind\""));
    };
    // A kind that try never catches is not raised from a script.
    let kind = ErrorKind::from_name(&kind)
        .filter(|k| k.catchable())
        .unwrap_or(ErrorKind::Error);
    Ok(a.err(message.to_string()).with_kind(kind))
}

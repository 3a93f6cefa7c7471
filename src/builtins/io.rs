//! File builtins: `.npy` load and save.

use std::path::Path;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::interp::value::Value;
use crate::io::npy;

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "load",
        params: &["path"],
        doc: "Reads a .npy file (any NumPy dtype tsr has, C or Fortran order) into a tensor.",
        func: load,
    },
    Builtin {
        name: "save",
        params: &["path", "x"],
        doc: "Writes x to a .npy file atomically (a temp file renamed into place).",
        func: save,
    },
];

fn load(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    npy::load_npy(Path::new(&path))
        .map(Value::Tensor)
        .map_err(|e| a.arg_err(0, format!("{e} ({path})")))
}

fn save(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let x = a.tensor(1)?;
    npy::save_npy(Path::new(&path), &x).map_err(|e| a.arg_err(0, format!("{e} ({path})")))?;
    Ok(Value::None)
}

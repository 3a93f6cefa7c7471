//! File builtins: `.npy`, `.npz` and safetensors load and save.

use std::path::Path;
use std::rc::Rc;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::io::{npy, npz, safetensors};
use crate::runtime::value::{Dict, Key, Value};
use crate::tensor::Tensor;

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
    Builtin {
        name: "load_npz",
        params: &["path"],
        doc: "Reads a NumPy .npz archive (stored or deflated) into a dict name -> tensor.",
        func: load_npz,
    },
    Builtin {
        name: "save_npz",
        params: &["path", "arrays", "compressed=false"],
        doc: "Writes a dict name -> tensor as a .npz archive (deflated when compressed=true), atomically.",
        func: save_npz,
    },
    Builtin {
        name: "load_safetensors",
        params: &["path"],
        doc: "Reads a safetensors file (all tsr dtypes incl. f16/bf16) into a dict name -> tensor.",
        func: load_safetensors,
    },
    Builtin {
        name: "save_safetensors",
        params: &["path", "tensors"],
        doc: "Writes a dict name -> tensor as a safetensors file, atomically.",
        func: save_safetensors,
    },
];

fn load(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    npy::load_npy(Path::new(&path))
        .map(Value::from)
        .map_err(|e| a.arg_err(0, format!("{e} ({path})")))
}

fn save(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let x = a.tensor(1)?;
    npy::save_npy(Path::new(&path), &x).map_err(|e| a.arg_err(0, format!("{e} ({path})")))?;
    Ok(Value::None)
}

/// A dict of tensors, in file order.
pub(super) fn tensor_dict(items: Vec<(String, Tensor)>) -> Value {
    let mut d = Dict::default();
    for (name, t) in items {
        d.insert(Key::Str(Rc::from(name.as_str())), Value::from(t));
    }
    Value::Dict(Rc::new(d))
}

/// The (name, tensor) pairs of a dict argument; every key a string, every value a tensor.
fn named_tensors(a: &Bound, i: usize) -> Result<Vec<(String, Tensor)>, Diagnostic> {
    let arg = a.req(i)?;
    let Value::Dict(d) = &arg.value else {
        return Err(a.arg_err(
            i,
            format!(
                "expected a dict name -> tensor, got {}",
                arg.value.describe()
            ),
        ));
    };
    d.entries
        .iter()
        .map(|(k, v)| match (k, v.to_tensor()) {
            (Key::Str(name), Some(t)) => Ok((name.to_string(), t)),
            (Key::Str(name), None) => Err(a.arg_err(
                i,
                format!("entry \"{name}\" is {}, not a tensor", v.describe()),
            )),
            (other, _) => Err(a.arg_err(
                i,
                format!(
                    "tensor names must be strings, got the {} key {}",
                    other.to_value().describe(),
                    other.to_value().repr(&Default::default())
                ),
            )),
        })
        .collect()
}

fn load_npz(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    npz::load_npz(Path::new(&path))
        .map(tensor_dict)
        .map_err(|e| a.arg_err(0, format!("{e} ({path})")))
}

fn save_npz(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let arrays = named_tensors(&a, 1)?;
    let compressed = a.bool_or(2, false)?;
    npz::save_npz(Path::new(&path), &arrays, compressed)
        .map_err(|e| a.arg_err(0, format!("{e} ({path})")))?;
    Ok(Value::None)
}

fn load_safetensors(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    safetensors::load_safetensors(Path::new(&path))
        .map(tensor_dict)
        .map_err(|e| a.arg_err(0, format!("{e} ({path})")))
}

fn save_safetensors(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let tensors = named_tensors(&a, 1)?;
    safetensors::save_safetensors(Path::new(&path), &tensors)
        .map_err(|e| a.arg_err(0, format!("{e} ({path})")))?;
    Ok(Value::None)
}

//! File builtins: `.npy`, `.npz` and safetensors load and save.

use std::path::Path;
use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::io::{npy, npz, safetensors};
use crate::runtime::value::{Dict, Key, Value};
use crate::runtime::{builtin, Arg, FromArg};
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "load",
        doc: "Reads a .npy file (any NumPy dtype tsr has, C or Fortran order) into a tensor.",
        fn(_, a; path: String) {
            npy::load_npy(Path::new(&path))
                .map(Value::from)
                .map_err(|e| path_err(&a, e, &path))
        }
    },
    builtin! {
        name: "save",
        doc: "Writes x to a .npy file atomically (a temp file renamed into place).",
        fn(_, a; path: String, x: Tensor) {
            npy::save_npy(Path::new(&path), &x).map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "load_npz",
        doc: "Reads a NumPy .npz archive (stored or deflated) into a dict name -> tensor.",
        fn(_, a; path: String) {
            npz::load_npz(Path::new(&path))
                .map(tensor_dict)
                .map_err(|e| path_err(&a, e, &path))
        }
    },
    builtin! {
        name: "save_npz",
        doc: "Writes a dict name -> tensor as a .npz archive (deflated when compressed=true), atomically.",
        fn(_, a; path: String, arrays: NamedTensors, compressed: bool = false) {
            npz::save_npz(Path::new(&path), &arrays.0, compressed)
                .map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "load_safetensors",
        doc: "Reads a safetensors file (all tsr dtypes incl. f16/bf16) into a dict name -> tensor.",
        fn(_, a; path: String) {
            safetensors::load_safetensors(Path::new(&path))
                .map(tensor_dict)
                .map_err(|e| path_err(&a, e, &path))
        }
    },
    builtin! {
        name: "save_safetensors",
        doc: "Writes a dict name -> tensor as a safetensors file, atomically.",
        fn(_, a; path: String, tensors: NamedTensors) {
            safetensors::save_safetensors(Path::new(&path), &tensors.0)
                .map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
];

/// A file error, pointing at the path argument.
pub(super) fn path_err(a: &Bound, e: impl std::fmt::Display, path: &str) -> Diagnostic {
    a.arg_err("path", format!("{e} ({path})"))
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
struct NamedTensors(Vec<(String, Tensor)>);

impl<'a> FromArg<'a> for NamedTensors {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let value = arg.value()?;
        let Value::Dict(d) = value else {
            let msg = format!("expected a dict name -> tensor, got {}", value.describe());
            return Err(arg.err(msg));
        };
        d.entries
            .iter()
            .map(|(k, v)| match (k, v.to_tensor()) {
                (Key::Str(name), Some(t)) => Ok((name.to_string(), t)),
                (Key::Str(name), None) => Err(arg.err(format!(
                    "entry \"{name}\" is {}, not a tensor",
                    v.describe()
                ))),
                (other, _) => Err(arg.err(format!(
                    "tensor names must be strings, got the {} key {}",
                    other.to_value().describe(),
                    other.to_value().repr(&Default::default())
                ))),
            })
            .collect::<Result<_, _>>()
            .map(NamedTensors)
    }
}

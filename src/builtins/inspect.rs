//! `tsr inspect FILE`: opens a model or array file by its extension and describes
//! it with the tables of `info` (a GGUF file as `load_gguf` gives it, without
//! reading its tensors).

use std::path::Path;

use super::info::describe;
use super::io::tensor_dict;
use super::model::model_value;
use crate::io::gguf::open_gguf;
use crate::io::{npy, npz, safetensors};
use crate::runtime::value::Value;

/// Why a file could not be described.
#[derive(Debug, PartialEq)]
pub enum InspectError {
    /// The extension is none tsr reads.
    Unsupported(String),
    /// The file could not be read (a message starting with its format).
    File(String),
}

/// The `info` tables of the file at `path` (.gguf, .safetensors, .npz or .npy).
pub fn inspect(path: &Path) -> Result<String, InspectError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let value = match ext.as_str() {
        "gguf" => open_gguf(path).map(model_value),
        "safetensors" => safetensors::load_safetensors(path).map(tensor_dict),
        "npz" => npz::load_npz(path).map(tensor_dict),
        "npy" => npy::load_npy(path).map(Value::from),
        _ => {
            return Err(InspectError::Unsupported(format!(
                "cannot inspect '{}': expected a .gguf, .safetensors, .npz or .npy file",
                path.display()
            )))
        }
    };
    let value = value.map_err(|e| InspectError::File(format!("{e} ({})", path.display())))?;
    describe(&value).map_err(InspectError::File)
}

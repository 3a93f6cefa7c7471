//! `tsr inspect FILE`: opens a model or array file by its extension and describes
//! it with the tables of `info` (a GGUF file as `load_gguf` gives it), from the
//! file's headers alone: no tensor is read or inflated.

use std::path::Path;

use super::info::{array_table, describe, listing_table};
use super::model::model_value;
use crate::io::gguf::open_gguf;
use crate::io::{npy, npz, safetensors};
use crate::tensor::shape::contiguous_strides;
use crate::tensor::DType;

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
    let text = match ext.as_str() {
        "gguf" => open_gguf(path).and_then(|file| describe(&model_value(file))),
        "safetensors" => safetensors::safetensors_headers(path).map(|h| listing(&h)),
        "npz" => npz::npz_headers(path).map(|h| listing(&h)),
        "npy" => npy::npy_header(path).map(|(dtype, shape)| {
            let bytes = nbytes(dtype, &shape);
            array_table(dtype, &shape, &contiguous_strides(&shape), bytes, true).text()
        }),
        _ => {
            return Err(InspectError::Unsupported(format!(
                "cannot inspect '{}': expected a .gguf, .safetensors, .npz or .npy file",
                path.display()
            )))
        }
    };
    text.map_err(|e| InspectError::File(format!("{e} ({})", path.display())))
}

/// The table of arrays described by their headers.
fn listing(headers: &[(String, DType, Vec<usize>)]) -> String {
    let rows: Vec<_> = headers
        .iter()
        .map(|(name, dtype, shape)| {
            let bytes = nbytes(*dtype, shape);
            (name.clone(), dtype.to_string(), shape.clone(), bytes)
        })
        .collect();
    listing_table(&rows).text()
}

/// Bytes an array of `dtype` and `shape` holds (saturating: inspect loads nothing).
fn nbytes(dtype: DType, shape: &[usize]) -> usize {
    shape
        .iter()
        .fold(dtype.size(), |acc, &d| acc.saturating_mul(d))
}

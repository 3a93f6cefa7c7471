//! Hugging Face `.safetensors` files: an 8-byte header length, a JSON header
//! (names, dtypes, shapes, data offsets), then the tensors' little-endian bytes.
//! Header parsing and validation are the `safetensors` crate's (its maintainers'
//! own checks of offsets, sizes and overflow); this module maps dtypes and copies
//! the data out of a memory map.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use safetensors::{Dtype, SafeTensorError, SafeTensors, View};

use super::le::{storage_from_le, tensor_to_le};
use super::mapped::map_file;
use crate::tensor::shape::check_rank;
use crate::tensor::{budget, DType, Tensor};

/// The safetensors dtypes tsr has.
const DTYPES: [(Dtype, DType); 13] = [
    (Dtype::BOOL, DType::Bool),
    (Dtype::U8, DType::U8),
    (Dtype::U16, DType::U16),
    (Dtype::U32, DType::U32),
    (Dtype::U64, DType::U64),
    (Dtype::I8, DType::I8),
    (Dtype::I16, DType::I16),
    (Dtype::I32, DType::I32),
    (Dtype::I64, DType::I64),
    (Dtype::F16, DType::F16),
    (Dtype::BF16, DType::BF16),
    (Dtype::F32, DType::F32),
    (Dtype::F64, DType::F64),
];

/// Reads every tensor of a `.safetensors` file, in the order of their data in the
/// file. Errors start with "safetensors: "; a dtype tsr lacks (U16, U32, U64, the
/// F8 and F4 kinds, C64) is an error naming it. The `__metadata__` map is ignored.
pub fn load_safetensors(path: &Path) -> Result<Vec<(String, Tensor)>, String> {
    decode_safetensors(&map_file(path, "safetensors")?)
}

/// [`load_safetensors`] over the bytes of a whole file. Each tensor is checked
/// against the memory limit before it is copied out.
pub fn decode_safetensors(map: &[u8]) -> Result<Vec<(String, Tensor)>, String> {
    decode(map).map_err(super::escaped)
}

fn decode(map: &[u8]) -> Result<Vec<(String, Tensor)>, String> {
    let mut tensors = Vec::new();
    for entry in entries(map)? {
        let Entry {
            name,
            dtype,
            shape,
            bytes,
        } = entry?;
        budget::check(&format!("safetensors: tensor '{name}'"), &shape, dtype)
            .map_err(|e| e.to_string())?;
        let tensor = Tensor::from_storage(storage_from_le(dtype, bytes), &shape)
            .map_err(|e| format!("safetensors: tensor '{name}': {e}"))?;
        tensors.push((name, tensor));
    }
    Ok(tensors)
}

/// The name, dtype and shape of every tensor of the `.safetensors` file at
/// `path`, in the order of their data, from its header alone.
pub fn safetensors_headers(path: &Path) -> Result<Vec<(String, DType, Vec<usize>)>, String> {
    let map = map_file(path, "safetensors")?;
    let headers: Result<Vec<_>, String> = entries(&map)?
        .map(|entry| entry.map(|e| (e.name, e.dtype, e.shape)))
        .collect();
    headers.map_err(super::escaped)
}

/// One tensor as the header describes it, with its bytes in the file.
struct Entry<'a> {
    name: String,
    dtype: DType,
    shape: Vec<usize>,
    bytes: &'a [u8],
}

/// The tensors of the file `map` in the order of their data; reading them
/// touches only the header.
fn entries(map: &[u8]) -> Result<impl Iterator<Item = Result<Entry<'_>, String>>, String> {
    let (header_len, metadata) = SafeTensors::read_metadata(map)
        .map_err(|e| format!("safetensors: {}", header_error(&e, map)))?;
    // read_metadata checked that the header and data fill the file exactly.
    let data = map.get(8 + header_len..).unwrap_or_default();
    Ok(metadata.offset_keys().into_iter().map(move |name| {
        let info = metadata
            .info(&name)
            .ok_or_else(|| format!("safetensors: tensor '{name}' has no header entry"))?;
        let dtype = DTYPES
            .iter()
            .find(|p| p.0 == info.dtype)
            .map(|p| p.1)
            .ok_or_else(|| {
                format!(
                    "safetensors: tensor '{name}' has dtype {}, which tsr does not support (it \
                     reads BOOL U8 U16 U32 U64 I8 I16 I32 I64 F16 BF16 F32 F64)",
                    info.dtype
                )
            })?;
        check_rank(&format!("safetensors: tensor '{name}'"), info.shape.len())?;
        let (start, end) = info.data_offsets;
        let bytes = data
            .get(start..end)
            .ok_or_else(|| format!("safetensors: tensor '{name}': data out of range"))?;
        Ok(Entry {
            name,
            dtype,
            shape: info.shape.clone(),
            bytes,
        })
    }))
}

/// What is wrong with a file whose header `read_metadata` refused, said with the
/// sizes involved where the crate's message is vague about a truncated file.
fn header_error(e: &SafeTensorError, file: &[u8]) -> String {
    let header_len = file
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes);
    match (e, header_len) {
        (SafeTensorError::HeaderTooSmall, _) => format!(
            "truncated file: {} bytes, shorter than the 8-byte header length",
            file.len()
        ),
        (SafeTensorError::HeaderTooLarge, Some(n)) => {
            format!("header too large: its length field says {n} bytes (the limit is 100 MB)")
        }
        (SafeTensorError::InvalidHeaderLength, Some(n)) => format!(
            "truncated file: the header of {n} bytes does not fit in the {} bytes after the header length",
            file.len() - 8
        ),
        (SafeTensorError::MetadataIncompleteBuffer, _) => format!(
            "incomplete metadata: the tensors' data do not end at the end of the file ({} \
             bytes); it is truncated or has extra bytes",
            file.len()
        ),
        _ => e.to_string(),
    }
}

/// Writes `tensors` to `path` as a `.safetensors` file, atomically (a temp file is
/// renamed over `path`). Every tsr dtype can be saved. As the format prescribes,
/// the data is ordered by dtype alignment then name, whatever the order given.
pub fn save_safetensors(path: &Path, tensors: &[(String, Tensor)]) -> Result<(), String> {
    let mut names = HashSet::new();
    let mut views = Vec::with_capacity(tensors.len());
    for (name, tensor) in tensors {
        if !names.insert(name.as_str()) {
            return Err(format!("safetensors: duplicate tensor name '{name}'"));
        }
        let dtype = DTYPES
            .iter()
            .find(|p| p.1 == tensor.dtype())
            .map(|p| p.0)
            .ok_or_else(|| {
                format!(
                    "safetensors: dtype {} has no safetensors form",
                    tensor.dtype()
                )
            })?;
        views.push((name.as_str(), TensorBytes { tensor, dtype }));
    }
    let bytes = safetensors::serialize(views, None).map_err(|e| format!("safetensors: {e}"))?;
    super::write_atomically(path, |w| w.write_all(&bytes))
        .map_err(|e| format!("safetensors: cannot write '{}': {e}", path.display()))
}

/// A tensor as the safetensors serializer sees it; its bytes are made on demand.
struct TensorBytes<'a> {
    tensor: &'a Tensor,
    dtype: Dtype,
}

impl View for TensorBytes<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }

    fn shape(&self) -> &[usize] {
        self.tensor.shape()
    }

    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Owned(tensor_to_le(self.tensor))
    }

    fn data_len(&self) -> usize {
        self.tensor.nbytes()
    }
}

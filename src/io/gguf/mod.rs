//! GGUF model files (versions 2 and 3), the container of llama.cpp / ggml.
//!
//! [`open_gguf`] memory-maps the file and parses only its header (metadata and
//! tensor infos), validating every count, length, offset and size against the
//! file before any tensor byte is touched; opening a multi-gigabyte model reads a
//! few megabytes at most. [`GgufFile::tensor`] then gives one tensor: dense types
//! are copied out of the map at that moment, quantized ones are zero-copy views of
//! it ([`QBytes::Mapped`]).
//!
//! The map is only as stable as the file: a file truncated or rewritten in place
//! by another process while it is mapped gives undefined contents (typically a
//! SIGBUS on access to a truncated part). tsr's own savers replace files by
//! renaming, which never disturbs an existing map. See `io::mapped`.
//!
//! Layout facts (byte order, value types, alignment, tensor sizes) follow
//! docs/KQUANT.md, "GGUF file layout". Where ggml is stricter than the
//! format needs, tsr follows ggml: at most 4 dimensions, unique keys and names,
//! `general.alignment` a u32 power of two, and every tensor's data padded to the
//! alignment inside the file. Tensor data may come in any order, with gaps.

mod read;
mod value;
mod write;

use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;

use crate::io::le::storage_from_le;
use crate::io::mapped::map_file;
use crate::io::untrusted::escaped;
use crate::quant::{QBytes, QTensor, QType};
use crate::tensor::shape::{checked_numel, shape_str};
use crate::tensor::{budget, DType, Tensor};

pub use value::{GgufArray, GgufType, GgufValue};
pub use write::{save_gguf, save_gguf_reporting};

/// An open GGUF file: its metadata and tensor infos, over a shared memory map.
#[derive(Debug)]
pub struct GgufFile {
    map: Arc<Mmap>,
    header: read::Header,
}

/// Where one tensor lives in the file and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct GgufTensorInfo {
    pub name: String,
    pub qtype: QType,
    /// tsr order: GGML's `ne` reversed, so the row (ne\[0\]) is the last extent.
    pub shape: Vec<usize>,
    /// Byte offset of the data from the start of the data section.
    pub offset: usize,
    /// Bytes of data (without the padding that follows it).
    pub nbytes: usize,
}

/// A tensor read from, or to be written to, a GGUF file.
#[derive(Clone, Debug)]
pub enum GgufTensor {
    /// GGML types F32, F16, BF16, F64, I8, I16, I32 and I64.
    Dense(Tensor),
    /// The block-quantized GGML types, as raw blocks.
    Quantized(QTensor),
}

/// The GGML types that are plain arrays of a tsr dtype.
const DENSE_TYPES: [(QType, DType); 8] = [
    (QType::F32, DType::F32),
    (QType::F16, DType::F16),
    (QType::BF16, DType::BF16),
    (QType::F64, DType::F64),
    (QType::I8, DType::I8),
    (QType::I16, DType::I16),
    (QType::I32, DType::I32),
    (QType::I64, DType::I64),
];

fn dense_dtype(qtype: QType) -> Option<DType> {
    DENSE_TYPES.iter().find(|p| p.0 == qtype).map(|p| p.1)
}

fn ggml_type(dtype: DType) -> Option<QType> {
    DENSE_TYPES.iter().find(|p| p.1 == dtype).map(|p| p.0)
}

/// Bytes of a tensor of `qtype` and tsr `shape`: rows must be whole blocks.
fn tensor_nbytes(name: &str, qtype: QType, shape: &[usize]) -> Result<usize, String> {
    let row = shape.last().copied().unwrap_or(1);
    if !row.is_multiple_of(qtype.block_len()) {
        return Err(format!(
            "gguf: tensor '{name}': rows of {row} elements are not a whole number of {} blocks \
             ({} elements each)",
            qtype.name(),
            qtype.block_len()
        ));
    }
    checked_numel(shape)
        .and_then(|n| (n / qtype.block_len()).checked_mul(qtype.block_bytes()))
        .ok_or_else(|| {
            format!(
                "gguf: tensor '{name}': shape {} is too large",
                shape_str(shape)
            )
        })
}

/// Opens a GGUF file: maps it and parses and validates the header. No tensor
/// data is read. Errors start with "gguf: " and name what is wrong and where
/// (byte offset, key or tensor name).
pub fn open_gguf(path: &Path) -> Result<GgufFile, String> {
    let map = map_file(path, "gguf")?;
    let header = read::parse_header(&map).map_err(escaped)?;
    Ok(GgufFile {
        map: Arc::new(map),
        header,
    })
}

/// [`open_gguf`] over the bytes of a whole file, copied into an anonymous map.
pub fn parse_gguf(bytes: &[u8]) -> Result<GgufFile, String> {
    let header = read::parse_header(bytes).map_err(escaped)?;
    budget::check_bytes("gguf", &[bytes.len()], 1).map_err(|e| e.to_string())?;
    let mut map = memmap2::MmapMut::map_anon(bytes.len())
        .map_err(|e| format!("gguf: cannot allocate {} bytes: {e}", bytes.len()))?;
    map.copy_from_slice(bytes);
    let map = map
        .make_read_only()
        .map_err(|e| format!("gguf: cannot protect the copy: {e}"))?;
    Ok(GgufFile {
        map: Arc::new(map),
        header,
    })
}

impl GgufFile {
    /// The format version (2 or 3).
    pub fn version(&self) -> u32 {
        self.header.version
    }

    /// The alignment of the tensor data, in bytes.
    pub fn alignment(&self) -> usize {
        self.header.alignment
    }

    /// File offset where the data section starts.
    pub fn data_start(&self) -> usize {
        self.header.data_start
    }

    /// The metadata entries in file order.
    pub fn metadata(&self) -> &[(String, GgufValue)] {
        &self.header.metadata
    }

    /// The value of metadata key `key`.
    pub fn get(&self, key: &str) -> Option<&GgufValue> {
        self.header
            .metadata
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
    }

    /// The tensor infos in file order.
    pub fn tensors(&self) -> &[GgufTensorInfo] {
        &self.header.tensors
    }

    /// The info of tensor `name`.
    pub fn info(&self, name: &str) -> Option<&GgufTensorInfo> {
        let &i = self.header.index.get(name)?;
        self.header.tensors.get(i)
    }

    /// Tensor `name`: dense types copied out of the file now, quantized types as a
    /// zero-copy view of the map (which stays alive as long as the view does).
    pub fn tensor(&self, name: &str) -> Result<GgufTensor, String> {
        self.read_tensor(name).map_err(escaped)
    }

    fn read_tensor(&self, name: &str) -> Result<GgufTensor, String> {
        let info = self
            .info(name)
            .ok_or_else(|| format!("gguf: the file has no tensor named '{name}'"))?;
        // The range was checked against the map's length at open.
        let offset = self.header.data_start + info.offset;
        let bytes = self
            .map
            .get(offset..)
            .and_then(|rest| rest.get(..info.nbytes))
            .ok_or_else(|| format!("gguf: tensor '{name}': data out of range"))?;
        match dense_dtype(info.qtype) {
            Some(dtype) => {
                let what = format!("gguf: tensor '{name}'");
                budget::check(&what, &info.shape, dtype).map_err(|e| e.to_string())?;
                Tensor::from_storage(storage_from_le(dtype, bytes), &info.shape)
                    .map(GgufTensor::Dense)
                    .map_err(|e| format!("{what}: {e}"))
            }
            None => Ok(GgufTensor::Quantized(QTensor {
                qtype: info.qtype,
                shape: info.shape.clone(),
                data: QBytes::Mapped {
                    map: Arc::clone(&self.map),
                    offset,
                    len: info.nbytes,
                },
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_types_map_both_ways() {
        for (q, d) in DENSE_TYPES {
            assert_eq!(dense_dtype(q), Some(d));
            assert_eq!(ggml_type(d), Some(q));
        }
        assert_eq!(dense_dtype(QType::Q8_0), None);
        assert_eq!(ggml_type(DType::Bool), None);
        assert_eq!(ggml_type(DType::U8), None);
    }

    #[test]
    fn sizes_need_whole_blocks() {
        assert_eq!(tensor_nbytes("w", QType::Q4K, &[3, 512]), Ok(3 * 288));
        assert_eq!(tensor_nbytes("w", QType::F16, &[]), Ok(2));
        assert_eq!(tensor_nbytes("w", QType::Q8_0, &[0, 64]), Ok(0));
        let err = tensor_nbytes("w", QType::Q8_0, &[2, 33]).unwrap_err();
        assert!(err.contains("rows of 33 elements"), "{err}");
        let err = tensor_nbytes("w", QType::F32, &[usize::MAX, 2]).unwrap_err();
        assert!(err.contains("too large"), "{err}");
    }
}

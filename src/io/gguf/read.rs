//! Parsing and validating everything before a GGUF file's tensor data: magic,
//! version, counts, metadata, tensor infos, alignment and the data ranges. Only
//! the header bytes are read, so opening costs the same for any file size.
//!
//! Every count and length is checked against a fixed limit and against the bytes
//! that remain before anything is allocated for it, so a hostile header cannot
//! make the reader allocate more than a small multiple of the file's size.

use std::collections::{HashMap, HashSet};

use super::value::{GgufArray, GgufType, GgufValue};
use super::{tensor_nbytes, GgufTensorInfo};
use crate::io::le::decode_words;
use crate::quant::QType;

pub(super) const MAGIC: &[u8; 4] = b"GGUF";
/// The metadata key that sets the alignment, and the alignment without it.
const ALIGNMENT_KEY: &str = "general.alignment";
const DEFAULT_ALIGNMENT: usize = 32;
/// GGML_MAX_DIMS: ggml reads no tensor with more dimensions.
pub(super) const MAX_DIMS: usize = 4;
const MAX_TENSORS: u64 = 1 << 20;
const MAX_KEYS: u64 = 1 << 20;
const MAX_STRING_LEN: u64 = 64 << 20;
/// Arrays of arrays deeper than this are rejected (bounds the recursion).
pub(super) const MAX_NESTING: usize = 8;
/// The fewest bytes a tensor info occupies: name length, dimension count, type, offset.
const TENSOR_INFO_MIN: usize = 8 + 4 + 4 + 8;
/// The fewest bytes a metadata entry occupies: key length, one key byte, type, one value byte.
const KEY_VALUE_MIN: usize = 8 + 1 + 4 + 1;

/// The parsed header of a GGUF file.
#[derive(Debug)]
pub(super) struct Header {
    pub version: u32,
    pub alignment: usize,
    pub metadata: Vec<(String, GgufValue)>,
    pub tensors: Vec<GgufTensorInfo>,
    /// Tensor name → index into `tensors`.
    pub index: HashMap<String, usize>,
    /// File offset of the data section (tensor offsets are relative to it).
    pub data_start: usize,
}

/// Parses and validates the header of the GGUF file `bytes`.
pub(super) fn parse_header(bytes: &[u8]) -> Result<Header, String> {
    let mut r = Reader { bytes, pos: 0 };
    let magic: [u8; 4] = r.array("the magic")?;
    if &magic != MAGIC {
        return Err(format!(
            "gguf: bad magic at byte 0: expected \"GGUF\", found \"{}\" (not a GGUF file)",
            String::from_utf8_lossy(&magic).escape_debug()
        ));
    }
    let version = r.u32("the version")?;
    check_version(version)?;
    let n_tensors = r.count("the tensor count", MAX_TENSORS, TENSOR_INFO_MIN)?;
    let n_keys = r.count("the metadata count", MAX_KEYS, KEY_VALUE_MIN)?;
    let metadata = r.metadata(n_keys)?;
    let alignment = alignment(&metadata)?;
    let (tensors, index) = r.tensor_infos(n_tensors)?;
    let data_start = r
        .pos
        .checked_next_multiple_of(alignment)
        .unwrap_or(usize::MAX);
    check_data_ranges(&tensors, data_start, alignment, bytes.len())?;
    Ok(Header {
        version,
        alignment,
        metadata,
        tensors,
        index,
        data_start,
    })
}

fn check_version(version: u32) -> Result<(), String> {
    match version {
        2 | 3 => Ok(()),
        v if v != 0 && v & 0xFFFF == 0 => Err(format!(
            "gguf: version {v:#x} at byte 4 looks byte-swapped: big-endian GGUF files are not \
             supported"
        )),
        v => Err(format!(
            "gguf: unsupported version {v} at byte 4 (tsr reads versions 2 and 3)"
        )),
    }
}

/// The alignment the metadata sets (`general.alignment`, a u32 power of two), or 32.
pub(super) fn alignment(metadata: &[(String, GgufValue)]) -> Result<usize, String> {
    match metadata.iter().find(|(k, _)| k == ALIGNMENT_KEY) {
        None => Ok(DEFAULT_ALIGNMENT),
        Some((_, GgufValue::U32(a))) if a.is_power_of_two() => Ok(*a as usize),
        Some((_, v)) => Err(format!(
            "gguf: {ALIGNMENT_KEY} must be a u32 power of two, not the {} {v:.4}",
            v.value_type()
        )),
    }
}

/// Each tensor's data, padded to the alignment, must lie inside the file.
fn check_data_ranges(
    tensors: &[GgufTensorInfo],
    data_start: usize,
    alignment: usize,
    file_len: usize,
) -> Result<(), String> {
    for t in tensors {
        if !t.offset.is_multiple_of(alignment) {
            return Err(format!(
                "gguf: tensor '{}': data offset {} is not a multiple of the alignment {alignment}",
                t.name, t.offset
            ));
        }
        let start = data_start.checked_add(t.offset);
        let end = t
            .nbytes
            .checked_next_multiple_of(alignment)
            .and_then(|padded| start?.checked_add(padded));
        match (start, end) {
            (Some(_), Some(end)) if end <= file_len => {}
            _ => {
                return Err(format!(
                    "gguf: tensor '{}': {} bytes of data at offset {} of the data section (which \
                     starts at byte {data_start}) extend past the end of the file ({file_len} \
                     bytes) once padded to the alignment {alignment}",
                    t.name, t.nbytes, t.offset
                ))
            }
        }
    }
    Ok(())
}

/// A cursor over the file's bytes; every read is bounds-checked and names what it
/// was reading and where in its error.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let slice = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end))
            .ok_or_else(|| {
                format!(
                    "gguf: truncated file: {what} at byte {} needs {n} bytes but the file ends at \
                     byte {}",
                    self.pos,
                    self.bytes.len()
                )
            })?;
        self.pos += n;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let at = self.pos;
        let slice = self.take(N, what)?;
        slice
            .try_into()
            .map_err(|_| format!("gguf: {what} at byte {at}: short read"))
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64, String> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A 64-bit count of items of at least `min_size` bytes each, at most `limit`
    /// and no more than the remaining bytes can hold.
    fn count(&mut self, what: &str, limit: u64, min_size: usize) -> Result<usize, String> {
        let at = self.pos;
        let n = self.u64(what)?;
        if n > limit {
            return Err(format!(
                "gguf: {what} at byte {at} is {n}, over the limit of {limit}"
            ));
        }
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if n.saturating_mul(min_size) > self.remaining() {
            return Err(format!(
                "gguf: {what} at byte {at} is {n}, more than the remaining {} bytes can hold",
                self.remaining()
            ));
        }
        Ok(n)
    }

    fn string(&mut self, what: &str) -> Result<String, String> {
        let at = self.pos;
        let len = self.u64(what)?;
        if len > MAX_STRING_LEN {
            return Err(format!(
                "gguf: {what} at byte {at} has length {len}, over the limit of {MAX_STRING_LEN}"
            ));
        }
        if len > self.remaining() as u64 {
            return Err(format!(
                "gguf: {what} at byte {at} has length {len}, past the end of the file ({} bytes \
                 remain)",
                self.remaining()
            ));
        }
        let raw = self.take(len as usize, what)?;
        String::from_utf8(raw.to_vec())
            .map_err(|_| format!("gguf: {what} at byte {at} is not valid UTF-8"))
    }

    fn value_type(&mut self, what: &str) -> Result<GgufType, String> {
        let at = self.pos;
        let id = self.u32(what)?;
        GgufType::from_id(id)
            .ok_or_else(|| format!("gguf: {what} at byte {at} has unknown value type {id}"))
    }

    fn metadata(&mut self, count: usize) -> Result<Vec<(String, GgufValue)>, String> {
        let mut seen = HashSet::with_capacity(count);
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            let at = self.pos;
            let key = self.string(&format!("metadata key #{i}"))?;
            if key.is_empty() {
                return Err(format!("gguf: metadata key #{i} at byte {at} is empty"));
            }
            if !seen.insert(key.clone()) {
                return Err(format!("gguf: duplicate metadata key '{key}' at byte {at}"));
            }
            let what = format!("the value of metadata key '{key}'");
            let ty = self.value_type(&what)?;
            let value = self.value(ty, &what)?;
            entries.push((key, value));
        }
        Ok(entries)
    }

    fn value(&mut self, ty: GgufType, what: &str) -> Result<GgufValue, String> {
        Ok(match ty {
            GgufType::U8 => GgufValue::U8(u8::from_le_bytes(self.array(what)?)),
            GgufType::I8 => GgufValue::I8(i8::from_le_bytes(self.array(what)?)),
            GgufType::U16 => GgufValue::U16(u16::from_le_bytes(self.array(what)?)),
            GgufType::I16 => GgufValue::I16(i16::from_le_bytes(self.array(what)?)),
            GgufType::U32 => GgufValue::U32(u32::from_le_bytes(self.array(what)?)),
            GgufType::I32 => GgufValue::I32(i32::from_le_bytes(self.array(what)?)),
            GgufType::F32 => GgufValue::F32(f32::from_le_bytes(self.array(what)?)),
            GgufType::Bool => GgufValue::Bool(u8::from_le_bytes(self.array(what)?) != 0),
            GgufType::String => GgufValue::String(self.string(what)?),
            GgufType::Array => GgufValue::Array(self.gguf_array(what, 0)?),
            GgufType::U64 => GgufValue::U64(u64::from_le_bytes(self.array(what)?)),
            GgufType::I64 => GgufValue::I64(i64::from_le_bytes(self.array(what)?)),
            GgufType::F64 => GgufValue::F64(f64::from_le_bytes(self.array(what)?)),
        })
    }

    /// An array value: element type, count, elements. `depth` counts enclosing arrays.
    fn gguf_array(&mut self, what: &str, depth: usize) -> Result<GgufArray, String> {
        if depth >= MAX_NESTING {
            return Err(format!(
                "gguf: {what} at byte {}: arrays nested more than {MAX_NESTING} deep",
                self.pos
            ));
        }
        let elem = self.value_type(what)?;
        let n = self.count(
            &format!("the element count of {what}"),
            u64::MAX,
            elem.min_size(),
        )?;
        // Fixed-size elements are decoded from one slice of n * size bytes.
        let mut words = |size: usize| self.take(n.saturating_mul(size), what);
        Ok(match elem {
            GgufType::U8 => GgufArray::U8(words(1)?.to_vec()),
            GgufType::I8 => GgufArray::I8(decode_words(words(1)?, i8::from_le_bytes)),
            GgufType::U16 => GgufArray::U16(decode_words(words(2)?, u16::from_le_bytes)),
            GgufType::I16 => GgufArray::I16(decode_words(words(2)?, i16::from_le_bytes)),
            GgufType::U32 => GgufArray::U32(decode_words(words(4)?, u32::from_le_bytes)),
            GgufType::I32 => GgufArray::I32(decode_words(words(4)?, i32::from_le_bytes)),
            GgufType::F32 => GgufArray::F32(decode_words(words(4)?, f32::from_le_bytes)),
            GgufType::Bool => GgufArray::Bool(words(1)?.iter().map(|&b| b != 0).collect()),
            GgufType::U64 => GgufArray::U64(decode_words(words(8)?, u64::from_le_bytes)),
            GgufType::I64 => GgufArray::I64(decode_words(words(8)?, i64::from_le_bytes)),
            GgufType::F64 => GgufArray::F64(decode_words(words(8)?, f64::from_le_bytes)),
            GgufType::String => GgufArray::String(
                (0..n)
                    .map(|_| self.string(what))
                    .collect::<Result<_, _>>()?,
            ),
            GgufType::Array => GgufArray::Array(
                (0..n)
                    .map(|_| self.gguf_array(what, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn tensor_infos(
        &mut self,
        count: usize,
    ) -> Result<(Vec<GgufTensorInfo>, HashMap<String, usize>), String> {
        let mut tensors = Vec::with_capacity(count);
        let mut index = HashMap::with_capacity(count);
        for i in 0..count {
            let at = self.pos;
            let name = self.string(&format!("the name of tensor #{i}"))?;
            if index.insert(name.clone(), i).is_some() {
                return Err(format!("gguf: duplicate tensor name '{name}' at byte {at}"));
            }
            tensors.push(self.tensor_info(name)?);
        }
        Ok((tensors, index))
    }

    /// The rest of a tensor info after its name.
    fn tensor_info(&mut self, name: String) -> Result<GgufTensorInfo, String> {
        let at = self.pos;
        let n_dims = self.u32(&format!("the dimension count of tensor '{name}'"))?;
        if n_dims as usize > MAX_DIMS {
            return Err(format!(
                "gguf: tensor '{name}' at byte {at} has {n_dims} dimensions (GGUF allows at most \
                 {MAX_DIMS})"
            ));
        }
        let what = format!("the extents of tensor '{name}'");
        let mut shape = Vec::with_capacity(n_dims as usize);
        for _ in 0..n_dims {
            let at = self.pos;
            let extent = self.u64(&what)?;
            // ggml stores extents as int64; tsr needs them as usize.
            let extent = i64::try_from(extent)
                .ok()
                .and_then(|e| usize::try_from(e).ok())
                .ok_or_else(|| {
                    format!("gguf: tensor '{name}': extent {extent} at byte {at} is out of range")
                })?;
            shape.push(extent);
        }
        // GGML's ne lists the fastest-varying extent first; tsr's shape lists it last.
        shape.reverse();
        let at = self.pos;
        let type_id = self.u32(&format!("the type of tensor '{name}'"))?;
        let qtype = QType::from_id(type_id).ok_or_else(|| {
            format!("gguf: tensor '{name}': unknown GGML type id {type_id} at byte {at}")
        })?;
        let offset = self.u64(&format!("the data offset of tensor '{name}'"))?;
        let nbytes = tensor_nbytes(&name, qtype, &shape)?;
        Ok(GgufTensorInfo {
            name,
            qtype,
            shape,
            offset: usize::try_from(offset).unwrap_or(usize::MAX),
            nbytes,
        })
    }
}

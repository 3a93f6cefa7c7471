//! Writing GGUF version 3 files: the header is built in memory (and validated
//! completely) before the file is created; tensor data follows in the given order,
//! each padded to the alignment, so offsets are in order and gap-free as ggml
//! requires.

use std::borrow::Cow;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use super::read::{alignment, MAGIC, MAX_DIMS, MAX_NESTING};
use super::value::{GgufArray, GgufValue};
use super::{ggml_type, tensor_nbytes, GgufTensor};
use crate::io::le::{extend_le, tensor_to_le};
use crate::io::write_atomically;
use crate::quant::QType;

const VERSION: u32 = 3;
/// GGML_MAX_NAME: ggml rejects tensor names of this many bytes or more.
const MAX_NAME_LEN: usize = 64;

/// Bytes of tensor data written between two progress reports.
const REPORT_EVERY: usize = 4 << 20;

/// Writes `tensors` and `metadata` to `path` as a GGUF version 3 file, atomically
/// (a temp file renamed over `path`). Tensors and keys are written in the given
/// order; the data alignment is `general.alignment` when the metadata sets it
/// (a u32 power of two), else 32. Dense tensors must be f32, f16, bf16, f64, i8,
/// i16, i32 or i64; every tensor has at most 4 dimensions and whole blocks per row.
pub fn save_gguf(
    path: &Path,
    tensors: &[(String, GgufTensor)],
    metadata: &[(String, GgufValue)],
) -> Result<(), String> {
    save_gguf_reporting(path, tensors, metadata, &|_, _| {})
}

/// [`save_gguf`], calling `progress(done, total)` with the bytes of tensor data
/// written so far as the data is written.
pub fn save_gguf_reporting(
    path: &Path,
    tensors: &[(String, GgufTensor)],
    metadata: &[(String, GgufValue)],
    progress: &dyn Fn(usize, usize),
) -> Result<(), String> {
    let align = alignment(metadata)?;
    let mut header = Vec::new();
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(tensors.len() as u64).to_le_bytes());
    header.extend_from_slice(&(metadata.len() as u64).to_le_bytes());
    put_metadata(&mut header, metadata)?;
    let sizes = put_tensor_infos(&mut header, tensors, align)?;
    pad(&mut header, align);
    let total = sizes.iter().sum();
    write_atomically(path, |w| {
        w.write_all(&header)?;
        let zeros = vec![0u8; align];
        let mut done = 0;
        for ((_, tensor), nbytes) in tensors.iter().zip(sizes) {
            let data = match tensor {
                GgufTensor::Dense(t) => Cow::Owned(tensor_to_le(t)),
                GgufTensor::Quantized(q) => Cow::Borrowed(q.data.as_slice()),
            };
            for part in data.chunks(REPORT_EVERY) {
                w.write_all(part)?;
                done += part.len();
                progress(done, total);
            }
            w.write_all(zeros.get(..padding(nbytes, align)).unwrap_or(&[]))?;
        }
        Ok(())
    })
    .map_err(|e| format!("gguf: cannot write '{}': {e}", path.display()))
}

fn put_metadata(out: &mut Vec<u8>, metadata: &[(String, GgufValue)]) -> Result<(), String> {
    let mut seen = HashSet::new();
    for (key, value) in metadata {
        if key.is_empty() {
            return Err("gguf: a metadata key is empty".to_string());
        }
        if !seen.insert(key.as_str()) {
            return Err(format!("gguf: duplicate metadata key '{key}'"));
        }
        if let GgufValue::Array(a) = value {
            if nesting(a) > MAX_NESTING {
                return Err(format!(
                    "gguf: metadata key '{key}': arrays nested more than {MAX_NESTING} deep"
                ));
            }
        }
        put_string(out, key);
        out.extend_from_slice(&value.value_type().id().to_le_bytes());
        put_value(out, value);
    }
    Ok(())
}

/// Appends the tensor infos; returns each tensor's data size.
fn put_tensor_infos(
    out: &mut Vec<u8>,
    tensors: &[(String, GgufTensor)],
    align: usize,
) -> Result<Vec<usize>, String> {
    let mut seen = HashSet::new();
    let mut sizes = Vec::with_capacity(tensors.len());
    let mut offset = 0usize;
    for (name, tensor) in tensors {
        if name.len() >= MAX_NAME_LEN {
            return Err(format!(
                "gguf: tensor name '{name}' is {} bytes long (ggml allows at most {})",
                name.len(),
                MAX_NAME_LEN - 1
            ));
        }
        if !seen.insert(name.as_str()) {
            return Err(format!("gguf: duplicate tensor name '{name}'"));
        }
        let (qtype, shape) = type_and_shape(name, tensor)?;
        if shape.len() > MAX_DIMS {
            return Err(format!(
                "gguf: tensor '{name}' has {} dimensions (GGUF allows at most {MAX_DIMS})",
                shape.len()
            ));
        }
        let nbytes = tensor_nbytes(name, qtype, shape)?;
        if let GgufTensor::Quantized(q) = tensor {
            let len = q.data.as_slice().len();
            if len != nbytes {
                return Err(format!(
                    "gguf: tensor '{name}': {len} bytes of {} data, but its shape needs {nbytes}",
                    qtype.name()
                ));
            }
        }
        put_string(out, name);
        out.extend_from_slice(&(shape.len() as u32).to_le_bytes());
        for &d in shape.iter().rev() {
            out.extend_from_slice(&(d as u64).to_le_bytes());
        }
        out.extend_from_slice(&qtype.id().to_le_bytes());
        out.extend_from_slice(&(offset as u64).to_le_bytes());
        offset = nbytes
            .checked_next_multiple_of(align)
            .and_then(|n| n.checked_add(offset))
            .ok_or_else(|| "gguf: the tensors are too large for one file".to_string())?;
        sizes.push(nbytes);
    }
    Ok(sizes)
}

fn type_and_shape<'t>(name: &str, tensor: &'t GgufTensor) -> Result<(QType, &'t [usize]), String> {
    match tensor {
        GgufTensor::Quantized(q) => Ok((q.qtype, &q.shape)),
        GgufTensor::Dense(t) => match ggml_type(t.dtype()) {
            Some(q) => Ok((q, t.shape())),
            None => Err(format!(
                "gguf: tensor '{name}' has dtype {}, which GGUF cannot store (it stores f32, \
                 f16, bf16, f64, i8, i16, i32 and i64); convert it first, e.g. x.to(f32)",
                t.dtype()
            )),
        },
    }
}

/// How many arrays deep `array` goes (1 for an array of scalars).
fn nesting(array: &GgufArray) -> usize {
    match array {
        GgufArray::Array(v) => 1 + v.iter().map(nesting).max().unwrap_or(0),
        _ => 1,
    }
}

fn padding(len: usize, align: usize) -> usize {
    len.next_multiple_of(align) - len
}

fn pad(out: &mut Vec<u8>, align: usize) {
    out.resize(out.len() + padding(out.len(), align), 0);
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u64).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_value(out: &mut Vec<u8>, value: &GgufValue) {
    match value {
        GgufValue::U8(v) => out.push(*v),
        GgufValue::I8(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::I16(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::F32(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::Bool(v) => out.push(u8::from(*v)),
        GgufValue::String(s) => put_string(out, s),
        GgufValue::Array(a) => put_array(out, a),
        GgufValue::U64(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
        GgufValue::F64(v) => out.extend_from_slice(&v.to_le_bytes()),
    }
}

fn put_array(out: &mut Vec<u8>, array: &GgufArray) {
    out.extend_from_slice(&array.elem_type().id().to_le_bytes());
    out.extend_from_slice(&(array.len() as u64).to_le_bytes());
    match array {
        GgufArray::U8(v) => out.extend_from_slice(v),
        GgufArray::I8(v) => extend_le(out, v, i8::to_le_bytes),
        GgufArray::U16(v) => extend_le(out, v, u16::to_le_bytes),
        GgufArray::I16(v) => extend_le(out, v, i16::to_le_bytes),
        GgufArray::U32(v) => extend_le(out, v, u32::to_le_bytes),
        GgufArray::I32(v) => extend_le(out, v, i32::to_le_bytes),
        GgufArray::F32(v) => extend_le(out, v, f32::to_le_bytes),
        GgufArray::Bool(v) => out.extend(v.iter().map(|&b| u8::from(b))),
        GgufArray::String(v) => v.iter().for_each(|s| put_string(out, s)),
        GgufArray::Array(v) => v.iter().for_each(|a| put_array(out, a)),
        GgufArray::U64(v) => extend_le(out, v, u64::to_le_bytes),
        GgufArray::I64(v) => extend_le(out, v, i64::to_le_bytes),
        GgufArray::F64(v) => extend_le(out, v, f64::to_le_bytes),
    }
}

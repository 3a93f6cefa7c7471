//! Raw little-endian element bytes <-> typed storage, for the formats that store
//! tensors as plain little-endian arrays in C order (npy, GGUF, safetensors).
//! Bool is one byte per element: 0 is false, anything else true.

use half::{bf16, f16};

use crate::tensor::{DType, Storage, Tensor};

/// Decodes `bytes` (a whole number of `dtype` elements; a trailing partial
/// element is ignored) into storage.
pub(crate) fn storage_from_le(dtype: DType, bytes: &[u8]) -> Storage {
    match dtype {
        DType::Bool => Storage::Bool(bytes.iter().map(|&b| b != 0).collect()),
        DType::U8 => Storage::U8(bytes.to_vec()),
        DType::U16 => Storage::U16(decode_words(bytes, u16::from_le_bytes)),
        DType::U32 => Storage::U32(decode_words(bytes, u32::from_le_bytes)),
        DType::U64 => Storage::U64(decode_words(bytes, u64::from_le_bytes)),
        DType::I8 => Storage::I8(decode_words(bytes, i8::from_le_bytes)),
        DType::I16 => Storage::I16(decode_words(bytes, i16::from_le_bytes)),
        DType::I32 => Storage::I32(decode_words(bytes, i32::from_le_bytes)),
        DType::I64 => Storage::I64(decode_words(bytes, i64::from_le_bytes)),
        DType::F16 => Storage::F16(decode_words(bytes, |w| {
            f16::from_bits(u16::from_le_bytes(w))
        })),
        DType::BF16 => Storage::BF16(decode_words(bytes, |w| {
            bf16::from_bits(u16::from_le_bytes(w))
        })),
        DType::F32 => Storage::F32(decode_words(bytes, f32::from_le_bytes)),
        DType::F64 => Storage::F64(decode_words(bytes, f64::from_le_bytes)),
    }
}

/// The elements of `t` in C order as little-endian bytes.
pub(crate) fn tensor_to_le(t: &Tensor) -> Vec<u8> {
    let t = t.contiguous();
    let mut out = Vec::with_capacity(t.nbytes());
    match t.storage() {
        Storage::Bool(v) => out.extend(v.iter().map(|&b| u8::from(b))),
        Storage::U8(v) => out.extend_from_slice(v),
        Storage::U16(v) => extend_le(&mut out, v, u16::to_le_bytes),
        Storage::U32(v) => extend_le(&mut out, v, u32::to_le_bytes),
        Storage::U64(v) => extend_le(&mut out, v, u64::to_le_bytes),
        Storage::I8(v) => extend_le(&mut out, v, i8::to_le_bytes),
        Storage::I16(v) => extend_le(&mut out, v, i16::to_le_bytes),
        Storage::I32(v) => extend_le(&mut out, v, i32::to_le_bytes),
        Storage::I64(v) => extend_le(&mut out, v, i64::to_le_bytes),
        Storage::F16(v) => extend_le(&mut out, v, |x| x.to_bits().to_le_bytes()),
        Storage::BF16(v) => extend_le(&mut out, v, |x| x.to_bits().to_le_bytes()),
        Storage::F32(v) => extend_le(&mut out, v, f32::to_le_bytes),
        Storage::F64(v) => extend_le(&mut out, v, f64::to_le_bytes),
    }
    out
}

/// Decodes consecutive `N`-byte words (a trailing partial word is ignored).
pub(crate) fn decode_words<T, const N: usize>(
    bytes: &[u8],
    decode: impl Fn([u8; N]) -> T,
) -> Vec<T> {
    bytes
        .as_chunks::<N>()
        .0
        .iter()
        .map(|&w| decode(w))
        .collect()
}

/// Appends the encoding of every value to `out`.
pub(crate) fn extend_le<T: Copy, const N: usize>(
    out: &mut Vec<u8>,
    values: &[T],
    encode: impl Fn(T) -> [u8; N],
) {
    out.reserve(values.len() * N);
    for &v in values {
        out.extend_from_slice(&encode(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dtype_round_trips() {
        let t =
            Tensor::from_vec(vec![-1.5f32, 0.0, 2.25, f32::INFINITY, -0.0, 7.0], &[2, 3]).unwrap();
        for dtype in DType::ALL {
            let x = t.to_dtype(dtype);
            let bytes = tensor_to_le(&x);
            assert_eq!(bytes.len(), x.nbytes(), "{dtype}");
            let back = Tensor::from_storage(storage_from_le(dtype, &bytes), &[2, 3]).unwrap();
            assert_eq!(back.storage(), x.contiguous().storage(), "{dtype}");
        }
    }

    #[test]
    fn layout_is_little_endian_c_order() {
        let t = Tensor::from_vec(vec![0x0102i16, 0x0304, 0x0506, 0x0708], &[2, 2]).unwrap();
        let tt = t.transpose(0, 1).unwrap();
        assert_eq!(tensor_to_le(&tt), [2, 1, 6, 5, 4, 3, 8, 7]);
        assert_eq!(tensor_to_le(&Tensor::scalar(true)), [1]);
        assert_eq!(
            storage_from_le(DType::Bool, &[0, 2, 1]),
            Storage::Bool(vec![false, true, true])
        );
    }
}

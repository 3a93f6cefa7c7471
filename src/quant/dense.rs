//! The unquantized GGML types (one element per "block"), read from little-endian bytes
//! and converted to f32: exactly for f16/bf16, rounding to nearest for the rest.

use half::{bf16, f16};

use super::rounding::f16_to_f32;
use super::QType;

/// Converts `bytes` (whole elements of the dense type `qtype`) into `out`; false when
/// `qtype` is not a dense type.
#[inline(always)]
pub fn to_f32(qtype: QType, bytes: &[u8], out: &mut [f32]) -> bool {
    fn each<const B: usize>(bytes: &[u8], out: &mut [f32], f: impl Fn([u8; B]) -> f32) {
        for (o, b) in out.iter_mut().zip(bytes.as_chunks::<B>().0) {
            *o = f(*b);
        }
    }
    match qtype {
        QType::F32 => each(bytes, out, f32::from_le_bytes),
        QType::F16 => each(bytes, out, |b| f16_to_f32(f16::from_le_bytes(b))),
        QType::BF16 => each(bytes, out, |b| bf16::from_le_bytes(b).to_f32()),
        QType::F64 => each(bytes, out, |b| f64::from_le_bytes(b) as f32),
        QType::I8 => each(bytes, out, |b: [u8; 1]| b[0] as i8 as f32),
        QType::I16 => each(bytes, out, |b| i16::from_le_bytes(b) as f32),
        QType::I32 => each(bytes, out, |b| i32::from_le_bytes(b) as f32),
        QType::I64 => each(bytes, out, |b| i64::from_le_bytes(b) as f32),
        _ => return false,
    }
    true
}

/// Writes `x` as the float type `qtype` (f32, f16 or bf16, rounding to nearest even);
/// false for any other type.
pub fn from_f32(qtype: QType, x: &[f32], out: &mut [u8]) -> bool {
    match qtype {
        QType::F32 => {
            for (o, v) in out.as_chunks_mut::<4>().0.iter_mut().zip(x) {
                *o = v.to_le_bytes();
            }
        }
        QType::F16 => {
            for (o, &v) in out.as_chunks_mut::<2>().0.iter_mut().zip(x) {
                *o = f16::from_f32(v).to_le_bytes();
            }
        }
        QType::BF16 => {
            for (o, &v) in out.as_chunks_mut::<2>().0.iter_mut().zip(x) {
                *o = bf16::from_f32(v).to_le_bytes();
            }
        }
        _ => return false,
    }
    true
}

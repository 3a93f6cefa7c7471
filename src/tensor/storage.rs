//! Typed, flat element buffers. A storage knows its dtype and length, never a shape.

use half::{bf16, f16};

use super::dtype::DType;

/// A flat buffer of elements of one dtype. Tensors hold it behind an `Arc`;
/// writers call `Arc::make_mut`, which copies only when the buffer is shared.
#[derive(Clone, Debug, PartialEq)]
pub enum Storage {
    Bool(Vec<bool>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

impl Storage {
    /// A buffer of `len` zero elements.
    pub fn zeros(dtype: DType, len: usize) -> Storage {
        crate::dispatch!(dtype, T => {
            <T as super::dtype::Elem>::into_storage(vec![T::default(); len])
        })
    }

    pub fn dtype(&self) -> DType {
        match self {
            Storage::Bool(_) => DType::Bool,
            Storage::U8(_) => DType::U8,
            Storage::U16(_) => DType::U16,
            Storage::U32(_) => DType::U32,
            Storage::U64(_) => DType::U64,
            Storage::I8(_) => DType::I8,
            Storage::I16(_) => DType::I16,
            Storage::I32(_) => DType::I32,
            Storage::I64(_) => DType::I64,
            Storage::F16(_) => DType::F16,
            Storage::BF16(_) => DType::BF16,
            Storage::F32(_) => DType::F32,
            Storage::F64(_) => DType::F64,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Storage::Bool(v) => v.len(),
            Storage::U8(v) => v.len(),
            Storage::U16(v) => v.len(),
            Storage::U32(v) => v.len(),
            Storage::U64(v) => v.len(),
            Storage::I8(v) => v.len(),
            Storage::I16(v) => v.len(),
            Storage::I32(v) => v.len(),
            Storage::I64(v) => v.len(),
            Storage::F16(v) => v.len(),
            Storage::BF16(v) => v.len(),
            Storage::F32(v) => v.len(),
            Storage::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

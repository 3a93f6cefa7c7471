//! GGML quantized tensors: block formats, quantize/dequantize (byte- and bit-exact with
//! ggml's reference code), and dot products / matmul against f32 activations.

pub mod qtype;

use std::sync::Arc;

pub use qtype::QType;

/// The raw bytes of a quantized tensor: owned, or a range of a memory-mapped file.
#[derive(Clone, Debug)]
pub enum QBytes {
    Owned(Arc<Vec<u8>>),
    Mapped {
        map: Arc<memmap2::Mmap>,
        offset: usize,
        len: usize,
    },
}

impl QBytes {
    pub fn as_slice(&self) -> &[u8] {
        match self {
            QBytes::Owned(v) => v,
            // Range checked against the map's length when the Mapped value was made.
            QBytes::Mapped { map, offset, len } => map.get(*offset..offset + len).unwrap_or(&[]),
        }
    }
}

/// A quantized tensor: rows of `shape[last]` elements stored as whole blocks of `qtype`.
/// Shape follows tsr's row-major convention (GGML's `ne` reversed): a GGML weight
/// with ne = [K, N] is a tsr `[N, K]` tensor.
#[derive(Clone, Debug)]
pub struct QTensor {
    pub qtype: QType,
    pub shape: Vec<usize>,
    pub data: QBytes,
}

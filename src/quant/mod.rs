//! GGML quantized tensors: block formats, quantize/dequantize (byte- and bit-exact with
//! ggml's reference code), and dot products / matmul against f32 activations.
//!
//! # API
//!
//! Slices of values and bytes:
//! * [`quantize`]`(x, qtype) -> Result<Vec<u8>, String>`: ggml's reference quantizers
//!   (`quantize_row_*_ref`, no importance matrix), byte for byte, for Q4_K, Q5_K, Q6_K,
//!   Q8_0, Q8_K, Q4_0, Q4_1, Q5_0, Q5_1, Q8_1 (and F32/F16/BF16 as conversions).
//!   `x.len()` must be a whole number of blocks.
//! * [`dequantize`]`(bytes, qtype, n) -> Result<Vec<f32>, String>` and
//!   [`dequantize_into`]: ggml's dequantizers bit for bit, for every [`QType`]
//!   (k-quants Q2_K..Q8_K, Q4_0..Q8_1, F32, F16, BF16, F64, I8..I64).
//!
//! Tensors ([`QTensor`], shape row-major as in tsr: a GGML weight with ne = [K, N] is
//! `[N, K]`):
//! * `QTensor::quantize(&tensor, qtype)`, `qt.dequantize()`, `qt.dequantize_transposed()`
//!   (a [N, K] weight as the f32 [K, N] tensor), `qt.nbytes()`, `QTensor::new` (checks
//!   the data length) and `qt.check()`.
//! * [`matmul_f32_q`]`(x, w)`: `x @ w.T` for f32 x [..., K] and quantized w [N, K],
//!   without dequantizing w whole: activation rows are quantized to ggml's
//!   `vec_dot_type` ([`vec_dot_type`]: Q8_K for Q4_K/Q5_K/Q6_K, Q8_0 for Q8_0) and dotted
//!   in integers, for any number of rows; for types without a fused kernel, weight
//!   tiles are dequantized into a small buffer for a blocked f32 GEMM. Against
//!   dequantize-then-matmul, the fused result differs only by the activation rounding:
//!   per output, at most ½·(max|x_row|/127)·Σ|w_row| plus f32 summation error
//!   (~1e-5·Σ|x·w|); the tiled path only by the summation error (both are tested).
//!
//! # Determinism and speed
//!
//! Work is split in fixed chunks (of blocks, or of weight rows) on the kernels' parallel
//! loops (`kernels::parallel`), so results are identical for any thread count and
//! Ctrl-C stops a long quantize, dequantize or matmul between chunks. Kernels are picked once per process
//! ([`crate::kernels::isa::Isa::detect`], capped by `TSR_ISA`): hand-written AVX2 integer
//! dot kernels whose scalar twins keep their lanes and f32 order, and quantize/dequantize
//! built for AVX-512, AVX2 and scalar from the same code (Rust never fuses a multiply and
//! an add) — the same bits on every ISA; scalar twins elsewhere (no NEON kernels yet).
//!
//! Where ggml's C relies on behaviour C leaves to the platform (float → small int casts
//! of NaN or out-of-range values, the sums an all-zero Q8_K block leaves unwritten), this
//! module does what ggml does on x86-64 (`rounding::c_trunc`) and writes zeros.
//!
//! # Files
//!
//! `qtype` (the type table), `blocks` (block structs and byte codecs), `rounding`
//! (ggml's int/f16 conversions), `lanes` + `search` (the reference quantizers' scale
//! searches, one lane per sub-block), one file per format family (`q4_k`, `q5_k` with
//! `scale_min`, `q6_k`, `q8_0`, `q8_k`, `legacy`, `low_k`, `dense`), `quantize` /
//! `dequant` (dispatch and parallel loops), `vec_dot` (scalar and AVX2 dot kernels),
//! `matmul` (the fused `x @ w.T`, on `kernels::linalg::gemm_nt`'s f32 tile GEMM),
//! `qtensor` (tensor API).

pub mod blocks;
mod dense;
mod dequant;
mod lanes;
mod legacy;
mod low_k;
mod matmul;
mod q4_k;
mod q5_k;
mod q6_k;
mod q8_0;
mod q8_k;
mod qtensor;
pub(crate) mod qtype;
mod quantize;
mod rounding;
mod scale_min;
mod search;
#[cfg(test)]
mod tests;
mod vec_dot;

use std::sync::Arc;

pub use dequant::{dequantize, dequantize_into};
pub use matmul::matmul_f32_q;
pub use qtype::QType;
pub use quantize::{quantize, QUANTIZABLE};
pub use vec_dot::vec_dot_type;

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
            QBytes::Mapped { map, offset, len } => {
                let bytes = offset
                    .checked_add(*len)
                    .and_then(|end| map.get(*offset..end));
                // The range was checked against the map when the value was made.
                debug_assert!(bytes.is_some(), "a mapped range outside its map");
                bytes.unwrap_or(&[])
            }
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

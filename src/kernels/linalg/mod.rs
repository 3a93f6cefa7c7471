//! Matrix products: strided matrix views (`mat`), the packed f32/f64 GEMM (`gemm`) on
//! its register micro-kernels (`microkernel`, also used by the blocked convolutions),
//! the product for every element type (`matmul`), and the small `C += A·Bᵀ` tile GEMM
//! the quantized matmul runs on dequantized weight tiles (`gemm_nt`).

pub(crate) mod gemm;
pub(crate) mod gemm_nt;
pub mod mat;
pub(crate) mod matmul;
pub(crate) mod microkernel;

pub use mat::Mat;
pub use matmul::{matmul_batch, MatMul};

//! Matrix products: strided matrix views (`mat`), the matrix-vector dot (`dot`), the
//! packed f32/f64 GEMM (`gemm`, its
//! packing in `gemm_pack`, its register micro-kernels in `gemm_kernel`), the conv
//! micro-kernel (`microkernel`),
//! the product for every element type (`matmul`), and the small `C += A·Bᵀ` tile GEMM
//! the quantized matmul runs on dequantized weight tiles (`gemm_nt`).

pub(crate) mod dot;
pub(crate) mod gemm;
pub(crate) mod gemm_kernel;
pub(crate) mod gemm_nt;
pub(crate) mod gemm_pack;
pub mod mat;
pub(crate) mod matmul;
pub(crate) mod matmul_bf16;
pub(crate) mod microkernel;

pub use mat::Mat;
pub use matmul::{matmul_batch_new, matmul_new, MatMul};

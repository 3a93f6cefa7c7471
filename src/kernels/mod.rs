//! Raw-slice kernels: generic over the element type, told shapes and strides explicitly.
//! They never see a `Tensor`, never allocate results and never validate user input:
//! `ops` checks arguments, allocates the output and picks the kernel.

pub mod alloc;
pub mod arith;
pub mod conv;
pub mod conv_f32;
pub mod depthwise;
#[cfg(target_arch = "x86_64")]
mod depthwise_avx2;
pub mod erf;
pub mod gemm;
pub mod interrupt;
pub mod isa;
pub mod map;
pub mod matmul;
pub mod microkernel;
pub mod nn;
pub mod padded;
pub mod parallel;
pub mod pool;
#[cfg(target_arch = "x86_64")]
mod pool_avx2;
pub mod reduce;
pub mod simd;
pub mod strided;
pub mod winograd;

//! Convolution, unfold and fold: the window geometry (`window`), the generic kernels
//! on im2col and the GEMM (`generic`), the blocked f32 kernels (`conv_f32`,
//! `winograd` with its row and output transforms in `winograd_rows` and
//! `winograd_output`, on the `padded` layout, sharing `operands`) and depthwise convolution
//! (`depthwise` and its 3×3 AVX-512/AVX2 variants in `depthwise_3x3`, sharing `planes`).

pub(crate) mod conv_f32;
pub(crate) mod depthwise;
#[cfg(target_arch = "x86_64")]
mod depthwise_3x3;
pub(crate) mod generic;
pub(crate) mod operands;
mod padded;
pub(crate) mod planes;
pub(crate) mod window;
mod winograd;
mod winograd_output;
mod winograd_rows;

pub use generic::{col2im, conv, conv_transpose, im2col, Channels};
pub use window::{Dim, Window};

//! Scalar definitions every kernel and its SIMD twin share: the per-element arithmetic
//! of each element type (`arith`), the vectorizable f32 functions (`wide` in f64,
//! `exp_f32` and `tanh_f32` in f32), erf and the other special functions (`special`), the scalar
//! activations, and `apply`, which runs one of them over a slice.

pub mod activation;
pub mod apply;
pub mod arith;
pub mod erf;
mod exp_f32;
pub mod special;
mod tanh_f32;
mod tanh_table;
mod wide;

pub use apply::MathFn;
pub use arith::{is_nan, truth, Arith, Float};

//! Elementwise kernels: unary and binary maps over strided layouts (`map`), the
//! per-lane neural-network functions, softmax and the norms (`nn`), and draws from the
//! random stream (`random`).

pub mod map;
pub mod nn;
pub mod random;

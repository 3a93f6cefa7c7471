//! Elementwise kernels: unary and binary maps over strided layouts (`map`), the
//! per-lane neural-network functions, softmax and the norms (`nn`), and draws from the
//! random stream (`random`).

pub(crate) mod map;
pub(crate) mod nn;
pub(crate) mod random;

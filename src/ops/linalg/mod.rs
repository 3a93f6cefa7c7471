//! Linear algebra with `numpy.linalg` semantics: the matrix products (`matmul`),
//! factorizations and solvers over stacks of matrices (the last two axes; the leading
//! ones are a batch), matrix norms, contractions and polynomial fits.

mod contract;
mod einsum;
mod factor;
mod lstsq;
mod matmul;
mod matrix_norm;
mod poly;
mod solve;
mod stack;

pub use contract::{inner, tensordot, tensordot_n, vdot};
pub use einsum::einsum;
pub use factor::{cholesky, eigh, qr, svd};
pub use lstsq::{lstsq, matrix_rank, pinv};
pub use matmul::{dot, matmul};
pub use matrix_norm::{norm, NormOrd};
pub use poly::{interp, polyfit, polyval};
pub use solve::{by_squaring, det, inv, matrix_power, slogdet, solve, solve_triangular};

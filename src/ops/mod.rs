//! Tensor operations: validate arguments, compute result shape and dtype, allocate,
//! and hand raw slices to `kernels`. One file per family.

pub mod binary;
pub mod close;
pub mod conv;
pub mod create;
pub mod index;
pub mod linalg;
pub mod nn;
pub mod pool;
pub mod random;
pub mod reduce;
pub mod shape;
#[cfg(test)]
mod testutil;
pub mod unary;

use crate::tensor::shape::checked_numel;
use crate::tensor::{Elem, Result, Scalar, Tensor, TensorError};

/// One side of a binary op: a tensor, or a weak scalar that adopts the tensor's dtype.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

pub use binary::{binary, BinaryOp};
pub use create::{arange, eye, full, linspace};
pub use linalg::matmul;
pub use reduce::{reduce, ReduceOp};
pub use unary::{unary, UnaryOp};

/// The storage of `t` as a slice of `T`. Ops call it after casting `t` to `T`'s dtype,
/// so the error only guards against an internal mismatch.
fn elems<'t, T: Elem>(op: &str, t: &'t Tensor) -> Result<&'t [T]> {
    t.storage_slice::<T>().ok_or_else(|| {
        TensorError::dtype(
            op,
            t.dtype(),
            format!("internal error: expected {}", T::DTYPE),
        )
    })
}

/// A buffer of `shape`'s element count filled with `value`. An element count that
/// overflows, or an allocation the system refuses, is an error rather than an abort.
fn output_buffer<T: Clone>(op: &str, shape: &[usize], value: T) -> Result<Vec<T>> {
    let n = checked_numel(shape)
        .ok_or_else(|| TensorError::shape(op, "shape has too many elements"))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(n)
        .map_err(|_| TensorError::value(op, format!("cannot allocate a tensor of {n} elements")))?;
    buf.resize(n, value);
    Ok(buf)
}

/// A weak scalar converted to `T` the way `astype` converts.
fn scalar_as<T: Elem>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_i64(i64::from(b)),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_f64(f),
    }
}

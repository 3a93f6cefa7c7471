//! Tensor operations: validate arguments, compute result shape and dtype, allocate,
//! and hand raw slices to `kernels`. One file per family.

pub mod algebra;
mod axis_gather;
pub mod binary;
pub(crate) mod binary_inplace;
pub mod close;
pub mod conv;
pub(crate) mod create;
pub mod gather;
pub(crate) mod index;
pub mod interpolate;
pub mod linalg;
pub mod lookup;
pub(crate) mod matrix;
pub mod nn;
pub mod order_picks;
pub(crate) mod pad;
pub(crate) mod pieces;
pub mod polygamma;
pub mod pool;
pub mod pool_grad;
pub(crate) mod random;
pub(crate) mod rearrange;
pub mod reduce;
pub(crate) mod sampling;
pub mod scatter;
pub(crate) mod shape;
pub mod sort;
pub mod stats;
#[cfg(test)]
mod testutil;
pub(crate) mod tile;
pub mod unary;

use crate::tensor::{budget, Category, DType, Elem, Result, Scalar, Tensor, TensorError};

/// One side of a binary op: a tensor, or a weak scalar that adopts the tensor's dtype.
#[derive(Clone, Copy, Debug)]
pub enum Operand<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

impl<'a> Operand<'a> {
    /// The operand's shape; a scalar is 0-d.
    pub fn shape(&self) -> &'a [usize] {
        match *self {
            Operand::Tensor(t) => t.shape(),
            Operand::Scalar(_) => &[],
        }
    }

    /// The dtype both operands are converted to: PyTorch's `promote_types` for two
    /// tensors, the tensor's dtype unless a weak scalar is of a higher category, and
    /// the default dtypes (bool, i64, f32) for two scalars.
    pub fn promote(a: Operand, b: Operand) -> DType {
        let default = |s: Scalar| match s.category() {
            Category::Bool => DType::Bool,
            Category::Int => DType::I64,
            Category::Float => DType::DEFAULT_FLOAT,
        };
        match (a, b) {
            (Operand::Tensor(x), Operand::Tensor(y)) => DType::promote(x.dtype(), y.dtype()),
            (Operand::Tensor(t), Operand::Scalar(s)) | (Operand::Scalar(s), Operand::Tensor(t)) => {
                DType::promote_weak(t.dtype(), s.category())
            }
            (Operand::Scalar(x), Operand::Scalar(y)) => DType::promote(default(x), default(y)),
        }
    }
}

pub use binary::{binary, BinaryOp};
pub use binary_inplace::binary_inplace;
pub use create::{arange, eye, full, linspace, logspace};
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

/// A buffer of `shape`'s element count filled with `value`. A shape over the memory
/// limit, or an allocation the system refuses, is an error rather than an abort.
fn output_buffer<T: Clone>(op: &str, shape: &[usize], value: T) -> Result<Vec<T>> {
    let n = budget::check_bytes(op, shape, std::mem::size_of::<T>())?;
    let mut buf = crate::kernels::alloc::with_capacity(n).ok_or_else(|| cannot_allocate(op, n))?;
    buf.resize(n, value);
    Ok(buf)
}

/// A new buffer holding a copy of `src`, written once (not zeroed first), after checking
/// its size against the memory limit.
fn copied_buffer<T: Elem>(op: &str, src: &[T]) -> Result<Vec<T>> {
    let n = budget::check_bytes(op, &[src.len()], std::mem::size_of::<T>())?;
    crate::kernels::alloc::copy_of(src).ok_or_else(|| cannot_allocate(op, n))
}

/// A tensor of `shape` whose buffer `make` allocates and writes (`None` when the system
/// refuses the allocation), after checking the shape against the memory limit.
fn new_tensor<T: Elem>(
    op: &str,
    shape: &[usize],
    make: impl FnOnce() -> Option<Vec<T>>,
) -> Result<Tensor> {
    let n = budget::check(op, shape, T::DTYPE)?;
    let data = make().ok_or_else(|| cannot_allocate(op, n))?;
    Tensor::from_vec(data, shape)
}

/// The error for an allocation of `n` elements that the system refused.
fn cannot_allocate(op: &str, n: usize) -> TensorError {
    TensorError::value(op, format!("cannot allocate a tensor of {n} elements"))
}

/// A weak scalar converted to `T` the way `astype` converts.
fn scalar_as<T: Elem>(s: Scalar) -> T {
    match s {
        Scalar::Bool(b) => T::from_i64(i64::from(b)),
        Scalar::Int(i) => T::from_i64(i),
        Scalar::Float(f) => T::from_f64(f),
    }
}

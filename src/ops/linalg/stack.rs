//! A tensor as a stack of matrices for the factorizations and solvers: the last two
//! axes are the matrices, the leading ones the batch. The batch is spread over threads
//! one matrix per task; inside a factorization only the GEMM runs in parallel, and its
//! bits depend on neither the thread count nor the ISA (`kernels::factor`).

use crate::kernels::factor::Real as FactorReal;
use crate::kernels::parallel::for_each_chunk_mut;
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// The float types the factorizations compute in, with the few scalar functions the
/// ops around them need.
pub trait Real: FactorReal + Elem + Copy {
    const NAN: Self;
    fn ln(self) -> Self;
    fn is_finite(self) -> bool;
    fn is_nan(self) -> bool;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const NAN: $t = <$t>::NAN;
            fn ln(self) -> $t {
                <$t>::ln(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
        }
    )*};
}

real!(f64);

/// The dtype of a factorization's results: a float input's own, f64 for integers and
/// bool (NumPy). Whatever it is, the factorizations compute in f64 and round their
/// results once, as `numpy.linalg` does (it casts float32 to float64 and back), so an
/// f32 result is as accurate as f32 can hold rather than carrying f32 rounding errors
/// times the condition number.
pub fn result_dtype(x: DType) -> DType {
    if x.is_float() {
        x
    } else {
        DType::F64
    }
}

/// Row-major matrices `rows x cols`, `len()` of them, converted to `T`.
pub struct Stack<T> {
    data: Vec<T>,
    pub batch: Vec<usize>,
    pub rows: usize,
    pub cols: usize,
}

impl<T: Real> Stack<T> {
    /// The matrices of `x` (at least 2-D).
    pub fn new(op: &str, x: &Tensor) -> Result<Stack<T>> {
        let shape = x.shape();
        if shape.len() < 2 {
            return Err(TensorError::shape(
                op,
                format!(
                    "expected a matrix or a stack of matrices (at least 2-D), got shape {}",
                    shape_str(shape)
                ),
            ));
        }
        let (batch, mat) = shape.split_at(shape.len() - 2);
        Ok(Stack {
            data: x.to_vec::<T>(),
            batch: batch.to_vec(),
            rows: mat[0],
            cols: mat[1],
        })
    }

    /// The matrices of `x`, which must be square.
    pub fn square(op: &str, x: &Tensor) -> Result<Stack<T>> {
        let s = Stack::new(op, x)?;
        if s.rows != s.cols {
            return Err(TensorError::shape(
                op,
                format!(
                    "expected square matrices, got shape {} ({} x {})",
                    shape_str(x.shape()),
                    s.rows,
                    s.cols
                ),
            ));
        }
        Ok(s)
    }

    /// The number of matrices.
    pub fn len(&self) -> usize {
        self.batch.iter().product()
    }

    /// The row-major elements of matrix `i`.
    pub fn slice(&self, i: usize) -> &[T] {
        let size = self.rows * self.cols;
        &self.data[i * size..(i + 1) * size]
    }

    /// Whether matrix `i` holds no NaN or infinity.
    pub fn finite(&self, i: usize) -> bool {
        let size = self.rows * self.cols;
        self.data[i * size..(i + 1) * size]
            .iter()
            .all(|x| x.is_finite())
    }

    /// `self.batch` followed by `dims`.
    pub fn shape_with(&self, dims: &[usize]) -> Vec<usize> {
        [&self.batch[..], dims].concat()
    }
}

/// `f(i)` for every matrix `i` of a batch of `count`, in parallel one matrix per task,
/// in batch order; the first error in batch order is the one returned.
pub fn each_matrix<R: Send>(
    op: &str,
    count: usize,
    f: impl Fn(usize) -> Result<R> + Sync + Send,
) -> Result<Vec<R>> {
    let mut slots: Vec<Option<Result<R>>> = (0..count).map(|_| None).collect();
    for_each_chunk_mut(&mut slots, 1, |i, slot| slot[0] = Some(f(i)));
    slots
        .into_iter()
        .map(|s| s.unwrap_or_else(|| Err(TensorError::value(op, "interrupted"))))
        .collect()
}

/// One tensor of `shape` from the per-matrix parts (row-major, in batch order),
/// converted to `dtype`.
pub fn stacked<T: Real>(parts: Vec<Vec<T>>, shape: &[usize], dtype: DType) -> Result<Tensor> {
    let t = Tensor::from_vec(parts.concat(), shape)?;
    Ok(if t.dtype() == dtype {
        t
    } else {
        t.to_dtype(dtype)
    })
}

/// `n` NaNs: the result for a matrix holding NaN or infinity (NaN in, NaN out, and the
/// iterative factorizations never see it).
pub fn nans<T: Real>(n: usize) -> Vec<T> {
    vec![T::NAN; n]
}

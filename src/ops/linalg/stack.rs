//! A tensor as a stack of matrices for the factorizations and solvers: the last two
//! axes are the matrices, the leading ones the batch. The batch is spread over threads
//! one matrix per task, and faer splits each factorization into `FACTOR_PARTS` parts,
//! a constant, so the bits never depend on the thread count.

use std::sync::Once;

use faer::{MatRef, Par};

use crate::kernels::parallel::for_each_chunk_mut;
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// The float types the factorizations compute in, with the few scalar functions the
/// ops around them need.
pub trait Real: faer::traits::RealField + Elem + Copy {
    const EPSILON: Self;
    const NAN: Self;
    fn abs(self) -> Self;
    fn ln(self) -> Self;
    fn is_finite(self) -> bool;
    fn is_nan(self) -> bool;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const EPSILON: $t = <$t>::EPSILON;
            const NAN: $t = <$t>::NAN;
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
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

real!(f32, f64);

/// The dtype of a factorization's float results: a float input's own (f16 and bf16
/// are computed in f32 and rounded back), f64 for integers and bool (NumPy).
pub fn result_dtype(x: DType) -> DType {
    if x.is_float() {
        x
    } else {
        DType::F64
    }
}

/// Whether a factorization of `x` computes in f64 (else f32).
pub fn computes_in_f64(x: DType) -> bool {
    result_dtype(x) == DType::F64
}

/// Runs `$body` with `$t` the compute type of dtype `$dtype` (f64 or f32).
macro_rules! by_real {
    ($dtype:expr, $t:ident => $body:expr) => {
        if $crate::ops::linalg::stack::computes_in_f64($dtype) {
            type $t = f64;
            $body
        } else {
            type $t = f32;
            $body
        }
    };
}
pub(super) use by_real;

/// The parts faer splits one factorization into (its `Par::Rayon(n)`), run on as many
/// threads as are free. Its partial results depend on this number, not on the threads
/// running them.
const FACTOR_PARTS: usize = 2;

/// Sets faer's parallelism to `FACTOR_PARTS`, once.
fn split_factorizations() {
    static SET: Once = Once::new();
    SET.call_once(|| faer::set_global_parallelism(Par::rayon(FACTOR_PARTS)));
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
        split_factorizations();
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

    /// Matrix `i`.
    pub fn matrix(&self, i: usize) -> MatRef<'_, T> {
        let size = self.rows * self.cols;
        MatRef::from_row_major_slice(&self.data[i * size..(i + 1) * size], self.rows, self.cols)
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

/// The row-major elements of `m`.
pub fn row_major<T: Real>(m: MatRef<'_, T>) -> Vec<T> {
    let mut out = Vec::with_capacity(m.nrows() * m.ncols());
    for i in 0..m.nrows() {
        for j in 0..m.ncols() {
            out.push(m[(i, j)]);
        }
    }
    out
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

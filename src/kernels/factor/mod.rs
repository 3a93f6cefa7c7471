//! Dense factorizations of one row-major matrix on tsr's own GEMM: LU with partial
//! pivoting (`lu`), triangular solves (`triangular`), Cholesky (`cholesky`),
//! Householder QR (`householder`), and the symmetric eigenproblem (`symmetric_eigen`:
//! reduction to tridiagonal form in `tridiagonal`, then implicit QL in
//! `tridiagonal_eigen`) and the SVD (`svd`: reduction to bidiagonal form in
//! `bidiagonal`, then implicit-shift QR in `bidiagonal_svd`). Their loops' vector steps
//! (`vector`) are `twin!` builds, one per ISA, that round alike; the rotations of the
//! iterative steps reach the vectors in batches (`rotations`).
//!
//! Why our own rather than a library's: a library picks its kernels and cache blocking
//! from the CPU it runs on, so two machines differ in the last bits. Here the blocking
//! is the constant `BLOCK`, the loops outside the products do one IEEE operation at a
//! time in a fixed order (Rust never contracts `a * b + c` into an FMA), and every
//! product goes through `linalg::gemm`, whose bits depend on neither the ISA nor the
//! thread count. So each factorization gives the same bits on every x86 CPU, under any
//! `TSR_ISA` and for any `--threads`.

pub(crate) mod bidiagonal;
pub(crate) mod bidiagonal_svd;
pub(crate) mod cholesky;
pub(crate) mod householder;
pub(crate) mod lu;
pub(crate) mod rotations;
pub(crate) mod svd;
pub(crate) mod symmetric_eigen;
pub(crate) mod triangular;
pub(crate) mod tridiagonal;
pub(crate) mod tridiagonal_eigen;
pub(crate) mod vector;

use std::ops::{AddAssign, DivAssign, MulAssign, Range, SubAssign};

use crate::kernels::linalg::gemm::gemm;
use crate::kernels::linalg::gemm_kernel::GemmFloat;
use crate::kernels::linalg::Mat;
use crate::kernels::math::activation::Real as ScalarReal;

/// Columns factored at a time (and rows solved at a time): the panels run plain loops,
/// the updates between them one GEMM each.
pub const BLOCK: usize = 64;

/// The float types the factorizations compute in (f32, f64): the activations'
/// arithmetic, in place too, and the GEMM.
pub trait Real: ScalarReal + GemmFloat + AddAssign + SubAssign + MulAssign + DivAssign {
    const ZERO: Self;
    const ONE: Self;
    const EPSILON: Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const EPSILON: $t = <$t>::EPSILON;
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn abs(self) -> $t {
                <$t>::abs(self)
            }
        }
    )*};
}

real!(f32, f64);

/// `c -= a · b`, where `c` starts at the block's first element and has row stride
/// `ldc`. The product is computed whole first, then subtracted element by element.
fn sub_product<T: Real>(c: &mut [T], ldc: usize, product: &[T], cols: usize) {
    if cols == 0 {
        return;
    }
    for (row, p) in c.chunks_mut(ldc).zip(product.chunks_exact(cols)) {
        vector::sub(&mut row[..cols], p);
    }
}

/// Rows of an `n`-column matrix one parallel task takes in a pass (about 256 KB of
/// f64): fixed by `n` alone, so the chunks, and the bits, do not depend on the threads.
fn chunk_rows(n: usize) -> usize {
    ((1 << 15) / n.max(1)).max(1)
}

/// Two chunks' partial sums added entry by entry (`map_reduce`'s combining step).
fn add_partials<T: Real>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    vector::add_scaled(&mut a, T::ONE, &b);
    a
}

/// `a · b` into a new row-major buffer.
fn product<T: Real>(a: Mat<T>, b: Mat<T>) -> Vec<T> {
    let mut out = vec![T::ZERO; a.rows() * b.cols()];
    gemm(&mut out, a, b);
    out
}

/// The `n × n` identity, row-major.
pub fn identity<T: Real>(n: usize) -> Vec<T> {
    let mut eye = vec![T::ZERO; n * n];
    for d in 0..n {
        eye[d * n + d] = T::ONE;
    }
    eye
}

/// Columns `cols` of the first `rows` rows of the `n`-column row-major `a`, transposed
/// (`cols.len() × rows`, row-major): a panel whose columns are contiguous, so the
/// panel loops run vector steps down them.
fn transposed_panel<T: Real>(a: &[T], n: usize, cols: Range<usize>, rows: usize) -> Vec<T> {
    let mut t = vec![T::ZERO; cols.len() * rows];
    for (k, c) in cols.enumerate() {
        for i in 0..rows {
            t[k * rows + i] = a[i * n + c];
        }
    }
    t
}

/// The inverse of `transposed_panel`: `t` back into columns `cols` of `a`.
fn store_panel<T: Real>(a: &mut [T], n: usize, cols: Range<usize>, t: &[T], rows: usize) {
    for (k, c) in cols.enumerate() {
        for i in 0..rows {
            a[i * n + c] = t[k * rows + i];
        }
    }
}

/// The view of rows `r` and columns `c` of the row-major matrix `data` with `ld`
/// columns.
fn view<T: Real>(data: &[T], ld: usize, r: Range<usize>, c: Range<usize>) -> Mat<'_, T> {
    Mat::row_major(data, data.len() / ld.max(1), ld).block(r, c)
}

#[cfg(test)]
mod tests;

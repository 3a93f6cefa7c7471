//! Solvers and what the LU factorization gives: `solve`, `inv`, `det`, `slogdet`,
//! `solve_triangular` (SciPy's) and `matrix_power`, over stacks of matrices.

use super::stack::{each_matrix, result_dtype, stacked, Real, Stack};
use crate::kernels::factor::identity;
use crate::kernels::factor::lu::{self, Pivots};
use crate::kernels::factor::triangular::{self, Triangle};
use crate::ops::matmul;
use crate::tensor::shape::{broadcast_shapes, shape_str};
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// Whether the `n × n` row-major `u`'s diagonal (an LU factor's, or a triangle's) has
/// no exact zero: LAPACK's test, which NumPy reports as a singular matrix.
fn nonsingular<T: Real>(op: &str, u: &[T], n: usize) -> Result<()> {
    if (0..n).any(|i| u[i * n + i] == T::ZERO) {
        return Err(TensorError::value(op, "singular matrix"));
    }
    Ok(())
}

/// The LU factors of matrix `i` of `s` (`L` below the diagonal, `U` on and above it)
/// and their pivots.
fn lu_of<T: Real>(s: &Stack<T>, i: usize) -> (Vec<T>, Pivots) {
    let mut a = s.slice(i).to_vec();
    let pivots = lu::factor(&mut a, s.rows);
    (a, pivots)
}

/// `a⁻¹ b` from `a`'s LU factors, for the `n × k` row-major `b`.
fn lu_solve<T: Real>((lu, pivots): &(Vec<T>, Pivots), n: usize, mut b: Vec<T>, k: usize) -> Vec<T> {
    pivots.apply(&mut b, k);
    let lower = Triangle {
        lower: true,
        unit: true,
    };
    let upper = Triangle {
        lower: false,
        unit: false,
    };
    triangular::solve(lu, n, lower, &mut b, k);
    triangular::solve(lu, n, upper, &mut b, k);
    b
}

/// `a` and `b` broadcast over their batch axes for `a x = b`: `a` square `m x m`, `b`
/// a vector of `m` when 1-D (NumPy 2), else `m x k` matrices. The broadcast pair with
/// `b` as matrices, and whether `b` was a vector.
fn system(op: &str, a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor, bool)> {
    let mismatch = || {
        TensorError::shape(
            op,
            format!(
                "a has shape {} and b has shape {}: b needs as many rows as the square a",
                shape_str(a.shape()),
                shape_str(b.shape())
            ),
        )
    };
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() < 2 || sa[sa.len() - 1] != sa[sa.len() - 2] {
        return Err(TensorError::shape(
            op,
            format!(
                "a must be a square matrix or a stack of them, got shape {}",
                shape_str(sa)
            ),
        ));
    }
    let m = sa[sa.len() - 1];
    let vector = sb.len() == 1;
    let b = if vector { b.unsqueeze(-1)? } else { b.clone() };
    let sb = b.shape();
    if sb.len() < 2 || sb[sb.len() - 2] != m {
        return Err(mismatch());
    }
    let k = sb[sb.len() - 1];
    let batch = broadcast_shapes(op, &sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
    let a = a.broadcast_to(&[&batch[..], &[m, m]].concat())?;
    let b = b.broadcast_to(&[&batch[..], &[m, k]].concat())?;
    Ok((a, b, vector))
}

/// Drops the column axis of a solution when `b` was a vector.
fn unvector(x: Tensor, vector: bool) -> Result<Tensor> {
    if vector {
        x.squeeze(Some(&[-1]))
    } else {
        Ok(x)
    }
}

/// The solution `x` of `a x = b` (NumPy 2's rule for a vector `b`).
pub fn solve(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (a, b, vector) = system("solve", a, b)?;
    let dtype = result_dtype(DType::promote(a.dtype(), b.dtype()));
    type T = f64;
    let (sa, sb) = (Stack::<T>::new("solve", &a)?, Stack::<T>::new("solve", &b)?);
    let parts = each_matrix("solve", sa.len(), |i| {
        let f = lu_of(&sa, i);
        nonsingular("solve", &f.0, sa.rows)?;
        Ok(lu_solve(&f, sa.rows, sb.slice(i).to_vec(), sb.cols))
    })?;
    unvector(
        stacked(parts, &sb.shape_with(&[sb.rows, sb.cols]), dtype)?,
        vector,
    )
}

/// The solution of `a x = b` for triangular `a` (lower or upper; only that triangle
/// is read), as `scipy.linalg.solve_triangular`, batched like `solve`.
pub fn solve_triangular(a: &Tensor, b: &Tensor, lower: bool) -> Result<Tensor> {
    let op = "solve_triangular";
    let (a, b, vector) = system(op, a, b)?;
    let dtype = result_dtype(DType::promote(a.dtype(), b.dtype()));
    type T = f64;
    let (sa, sb) = (Stack::<T>::new(op, &a)?, Stack::<T>::new(op, &b)?);
    let parts = each_matrix(op, sa.len(), |i| {
        let t = sa.slice(i);
        nonsingular(op, t, sa.rows)?;
        let mut x = sb.slice(i).to_vec();
        let tri = Triangle { lower, unit: false };
        triangular::solve(t, sa.rows, tri, &mut x, sb.cols);
        Ok(x)
    })?;
    unvector(
        stacked(parts, &sb.shape_with(&[sb.rows, sb.cols]), dtype)?,
        vector,
    )
}

/// The inverse of each square matrix.
pub fn inv(a: &Tensor) -> Result<Tensor> {
    type T = f64;
    let s = Stack::<T>::square("inv", a)?;
    let n = s.rows;
    let parts = each_matrix("inv", s.len(), |i| {
        let f = lu_of(&s, i);
        nonsingular("inv", &f.0, n)?;
        Ok(lu_solve(&f, n, identity(n), n))
    })?;
    stacked(parts, &s.shape_with(&[n, n]), result_dtype(a.dtype()))
}

/// The sign (1, -1, or 0 when singular) and the log of the absolute value of each
/// determinant, from the LU factors; both NaN for a matrix holding NaN.
fn sign_and_log<T: Real>(s: &Stack<T>, op: &str) -> Result<Vec<(T, T)>> {
    each_matrix(op, s.len(), |i| {
        let (u, pivots) = lu_of(s, i);
        let n = s.rows;
        let zero = T::ZERO;
        let mut sign: T = pivots.sign();
        let mut log = zero;
        for k in 0..n {
            let d = u[k * n + k];
            if d.is_nan() {
                return Ok((T::NAN, T::NAN));
            }
            if d == zero {
                return Ok((zero, T::from_f64(f64::NEG_INFINITY)));
            }
            if d < zero {
                sign = -sign;
            }
            log += d.abs().ln();
        }
        Ok((sign, log))
    })
}

/// The determinant of each square matrix (1 for 0 x 0), as the product of the LU
/// factor's diagonal with the pivots' sign.
pub fn det(a: &Tensor) -> Result<Tensor> {
    type T = f64;
    let s = Stack::<T>::square("det", a)?;
    let parts = each_matrix("det", s.len(), |i| {
        let (u, pivots) = lu_of(&s, i);
        let n = s.rows;
        let mut d: T = pivots.sign();
        for k in 0..n {
            d *= u[k * n + k];
        }
        Ok(vec![d])
    })?;
    stacked(parts, &s.batch, result_dtype(a.dtype()))
}

/// `(sign, logabsdet)` of each square matrix: `det = sign * exp(logabsdet)` without
/// overflow; a singular matrix gives (0, -inf).
pub fn slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    type T = f64;
    let s = Stack::<T>::square("slogdet", a)?;
    let (signs, logs): (Vec<T>, Vec<T>) = sign_and_log(&s, "slogdet")?.into_iter().unzip();
    let dtype = result_dtype(a.dtype());
    Ok((
        stacked(vec![signs], &s.batch, dtype)?,
        stacked(vec![logs], &s.batch, dtype)?,
    ))
}

/// `a` multiplied by itself `n` times through `matmul` (the identity for 0, in `a`'s
/// dtype; integers stay integers), by repeated squaring; a negative `n` inverts first.
pub fn matrix_power(a: &Tensor, n: i64) -> Result<Tensor> {
    let shape = a.shape();
    if shape.len() < 2 || shape[shape.len() - 1] != shape[shape.len() - 2] {
        return Err(TensorError::shape(
            "matrix_power",
            format!(
                "expected a square matrix or a stack of them, got shape {}",
                shape_str(shape)
            ),
        ));
    }
    let base = if n < 0 { inv(a)? } else { a.clone() };
    let m = shape[shape.len() - 1];
    match by_squaring(base, n.unsigned_abs(), matmul)? {
        Some(r) => Ok(r),
        None => identity_like(a, m),
    }
}

/// `base` multiplied by itself `e` times by repeated squaring (`None` for 0):
/// one order of products for every caller, so a recorded power has the bits of
/// the untracked one.
pub fn by_squaring<T: Clone, E>(
    base: T,
    mut e: u64,
    mul: impl Fn(&T, &T) -> std::result::Result<T, E>,
) -> std::result::Result<Option<T>, E> {
    let mut result: Option<T> = None;
    let mut square = base;
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => square.clone(),
                Some(r) => mul(&r, &square)?,
            });
        }
        e >>= 1;
        if e == 0 {
            return Ok(result);
        }
        square = mul(&square, &square)?;
    }
}

/// Identity matrices with `a`'s shape and dtype.
fn identity_like(a: &Tensor, m: usize) -> Result<Tensor> {
    crate::dispatch!(a.dtype(), T => {
        let count: usize = a.shape()[..a.ndim() - 2].iter().product();
        let mut data = vec![T::from_i64(0); count * m * m];
        for b in 0..count {
            for i in 0..m {
                data[b * m * m + i * m + i] = T::from_i64(1);
            }
        }
        Tensor::from_vec(data, a.shape())
    })
}

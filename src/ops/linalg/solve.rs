//! Solvers and what the LU factorization gives: `solve`, `inv`, `det`, `slogdet`,
//! `solve_triangular` (SciPy's) and `matrix_power`, over stacks of matrices.

use faer::linalg::solvers::{DenseSolveCore, Solve};
use faer::MatRef;

use super::stack::{by_real, each_matrix, result_dtype, row_major, stacked, Real, Stack};
use crate::ops::matmul;
use crate::tensor::shape::{broadcast_shapes, shape_str};
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// Whether `u`'s diagonal (an LU factor's) has no exact zero: LAPACK's test, which
/// NumPy reports as a singular matrix.
fn nonsingular<T: Real>(op: &str, u: MatRef<'_, T>) -> Result<()> {
    let zero = T::from_f64(0.0);
    if (0..u.nrows().min(u.ncols())).any(|i| u[(i, i)] == zero) {
        return Err(TensorError::value(op, "singular matrix"));
    }
    Ok(())
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
    by_real!(dtype, T => {
        let (sa, sb) = (Stack::<T>::new("solve", &a)?, Stack::<T>::new("solve", &b)?);
        let parts = each_matrix("solve", sa.len(), |i| {
            let lu = sa.matrix(i).partial_piv_lu();
            nonsingular("solve", lu.U())?;
            Ok(row_major(lu.solve(sb.matrix(i)).as_ref()))
        })?;
        unvector(stacked(parts, &sb.shape_with(&[sb.rows, sb.cols]), dtype)?, vector)
    })
}

/// The solution of `a x = b` for triangular `a` (lower or upper; only that triangle
/// is read), as `scipy.linalg.solve_triangular`, batched like `solve`.
pub fn solve_triangular(a: &Tensor, b: &Tensor, lower: bool) -> Result<Tensor> {
    let op = "solve_triangular";
    let (a, b, vector) = system(op, a, b)?;
    let dtype = result_dtype(DType::promote(a.dtype(), b.dtype()));
    by_real!(dtype, T => {
        let (sa, sb) = (Stack::<T>::new(op, &a)?, Stack::<T>::new(op, &b)?);
        let parts = each_matrix(op, sa.len(), |i| {
            let t = sa.matrix(i);
            nonsingular(op, t)?;
            let mut x = sb.matrix(i).to_owned();
            if lower {
                t.solve_lower_triangular_in_place(x.as_mut());
            } else {
                t.solve_upper_triangular_in_place(x.as_mut());
            }
            Ok(row_major(x.as_ref()))
        })?;
        unvector(stacked(parts, &sb.shape_with(&[sb.rows, sb.cols]), dtype)?, vector)
    })
}

/// The inverse of each square matrix.
pub fn inv(a: &Tensor) -> Result<Tensor> {
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::square("inv", a)?;
        let n = s.rows;
        let parts = each_matrix("inv", s.len(), |i| {
            let lu = s.matrix(i).partial_piv_lu();
            nonsingular("inv", lu.U())?;
            Ok(row_major(lu.inverse().as_ref()))
        })?;
        stacked(parts, &s.shape_with(&[n, n]), result_dtype(a.dtype()))
    })
}

/// The sign of the permutation `fwd` (1 or -1): each cycle of length c is c - 1 swaps.
fn pivot_sign<T: Real>(fwd: &[usize]) -> T {
    let mut seen = vec![false; fwd.len()];
    let mut odd = false;
    for start in 0..fwd.len() {
        let (mut j, mut len) = (start, 0);
        while !seen[j] {
            seen[j] = true;
            j = fwd[j];
            len += 1;
        }
        odd ^= len > 0 && len % 2 == 0;
    }
    T::from_f64(if odd { -1.0 } else { 1.0 })
}

/// The sign (1, -1, or 0 when singular) and the log of the absolute value of each
/// determinant, from the LU factors; both NaN for a matrix holding NaN.
fn sign_and_log<T: Real>(s: &Stack<T>, op: &str) -> Result<Vec<(T, T)>> {
    each_matrix(op, s.len(), |i| {
        let lu = s.matrix(i).partial_piv_lu();
        let zero = T::from_f64(0.0);
        let mut sign = pivot_sign::<T>(lu.P().arrays().0);
        let mut log = zero;
        let u = lu.U();
        for k in 0..u.nrows() {
            let d = u[(k, k)];
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
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::square("det", a)?;
        let parts = each_matrix("det", s.len(), |i| {
            let lu = s.matrix(i).partial_piv_lu();
            let u = lu.U();
            let mut d = pivot_sign::<T>(lu.P().arrays().0);
            for k in 0..u.nrows() {
                d *= u[(k, k)];
            }
            Ok(vec![d])
        })?;
        stacked(parts, &s.batch, result_dtype(a.dtype()))
    })
}

/// `(sign, logabsdet)` of each square matrix: `det = sign * exp(logabsdet)` without
/// overflow; a singular matrix gives (0, -inf).
pub fn slogdet(a: &Tensor) -> Result<(Tensor, Tensor)> {
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::square("slogdet", a)?;
        let (signs, logs): (Vec<T>, Vec<T>) = sign_and_log(&s, "slogdet")?.into_iter().unzip();
        let dtype = result_dtype(a.dtype());
        Ok((stacked(vec![signs], &s.batch, dtype)?, stacked(vec![logs], &s.batch, dtype)?))
    })
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
    let mut e = n.unsigned_abs();
    let m = shape[shape.len() - 1];
    let mut result: Option<Tensor> = None;
    let mut square = base;
    loop {
        if e & 1 == 1 {
            result = Some(match result {
                None => square.clone(),
                Some(r) => matmul(&r, &square)?,
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        square = matmul(&square, &square)?;
    }
    match result {
        Some(r) => Ok(r),
        None => identity_like(a, m),
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

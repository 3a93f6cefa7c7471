//! What the SVD gives beyond itself: `lstsq`, `pinv` and `matrix_rank`, with NumPy's
//! cutoffs for small singular values.

use super::factor::{singular_values, thin_svd};
use super::stack::{each_matrix, nans, result_dtype, stacked, Real, Stack};
use crate::kernels::factor::identity;
use crate::kernels::factor::svd::Svd;
use crate::kernels::linalg::{Mat, MatMul};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// The count of singular values above `rcond` times the largest (`s` descending).
fn rank_of<T: Real>(s: &[T], rcond: T) -> usize {
    let cutoff = s.first().map_or(T::from_f64(0.0), |&max| rcond * max);
    s.iter().filter(|&&x| x > cutoff).count()
}

/// `rcond` or the default, `max(m, n)` times `eps`, the machine epsilon of the input's
/// dtype (NumPy's rule for `matrix_rank`; its `lstsq` takes f64's even for f32 input,
/// which counts an f32 matrix's rounding noise as rank: tsr does not).
fn cutoff<T: Real>(rcond: Option<f64>, eps: f64, m: usize, n: usize) -> T {
    T::from_f64(rcond.unwrap_or(eps * m.max(n) as f64))
}

/// `v[:, :r] diag(1 / s[:r]) u[:, :r]ᵀ b` for the `m × cols` row-major `b`: the
/// minimum-norm least-squares solution (`n × cols`) through the first `r` singular
/// triplets of the thin SVD of an `m × n` matrix.
fn pseudo_solve<T: Real + MatMul>(
    f: &Svd<T>,
    (m, n): (usize, usize),
    r: usize,
    (b, cols): (&[T], usize),
) -> Vec<T> {
    let k = f.s.len();
    let u = Mat::row_major(&f.u, m, k).block(0..m, 0..r);
    let mut ub = vec![T::ZERO; r * cols];
    T::matmul(&mut ub, u.t(), Mat::row_major(b, m, cols));
    for (row, &si) in ub.chunks_exact_mut(cols.max(1)).zip(&f.s[..r]) {
        let inv = T::ONE / si;
        for x in row {
            *x *= inv;
        }
    }
    let vh = Mat::row_major(&f.vh, k, n).block(0..r, 0..n);
    let mut x = vec![T::ZERO; n * cols];
    T::matmul(&mut x, vh.t(), Mat::row_major(&ub, r, cols));
    x
}

/// The squared 2-norm of each column of `b - a x` (`a` `m × n`, `x` `n × k`).
fn squared_residuals<T: Real + MatMul>(
    (a, b): (&[T], &[T]),
    x: &[T],
    (m, n, k): (usize, usize, usize),
) -> Vec<T> {
    let mut ax = vec![T::ZERO; m * k];
    T::matmul(&mut ax, Mat::row_major(a, m, n), Mat::row_major(x, n, k));
    (0..k)
        .map(|j| {
            (0..m).fold(T::ZERO, |acc, i| {
                let r = b[i * k + j] - ax[i * k + j];
                acc + r * r
            })
        })
        .collect()
}

/// `numpy.linalg.lstsq(a, b, rcond)` for a matrix `a` (`m x n`) and `b` of `m` rows:
/// `[x, residuals, rank, sv]`. `residuals` holds each column's squared residual when
/// `a` has full column rank and `m > n`, and is empty otherwise; `rank` is i64.
pub fn lstsq(a: &Tensor, b: &Tensor, rcond: Option<f64>) -> Result<Vec<Tensor>> {
    let op = "lstsq";
    let (sa, sb) = (a.shape(), b.shape());
    if sa.len() != 2 || !(1..=2).contains(&sb.len()) || sb[0] != sa[0] {
        return Err(TensorError::shape(
            op,
            format!(
                "a has shape {} and b has shape {}: a must be a matrix and b a vector or matrix with as many rows",
                shape_str(sa),
                shape_str(sb)
            ),
        ));
    }
    let vector = sb.len() == 1;
    let b = if vector { b.unsqueeze(-1)? } else { b.clone() };
    let dtype = result_dtype(DType::promote(a.dtype(), b.dtype()));
    type T = f64;
    let (ma, mb) = (Stack::<T>::new(op, a)?, Stack::<T>::new(op, &b)?);
    let (m, n, k) = (ma.rows, ma.cols, mb.cols);
    let (x, residuals, rank, s) = if ma.finite(0) && mb.finite(0) {
        let f = thin_svd(op, ma.slice(0), (m, n))?;
        let rank = rank_of(&f.s, cutoff::<T>(rcond, dtype.machine_epsilon(), m, n));
        let x = pseudo_solve(&f, (m, n), rank, (mb.slice(0), k));
        let residuals = if rank == n && m > n {
            squared_residuals((ma.slice(0), mb.slice(0)), &x, (m, n, k))
        } else {
            Vec::new()
        };
        (x, residuals, rank, f.s)
    } else {
        (nans(n * k), Vec::new(), 0, nans(m.min(n)))
    };
    let nres = residuals.len();
    let x = stacked(vec![x], &[n, k], dtype)?;
    Ok(vec![
        if vector { x.squeeze(Some(&[-1]))? } else { x },
        stacked(vec![residuals], &[nres], dtype)?,
        Tensor::scalar(rank as i64),
        stacked(vec![s], &[m.min(n)], dtype)?,
    ])
}

/// The Moore-Penrose pseudo-inverse of each matrix (`n x m` for `m x n`), singular
/// values at or below `rcond` times the largest taken as zero (NumPy's default
/// `max(m, n)` epsilons).
pub fn pinv(a: &Tensor, rcond: Option<f64>) -> Result<Tensor> {
    type T = f64;
    let s = Stack::<T>::new("pinv", a)?;
    let (m, n) = (s.rows, s.cols);
    let eps = result_dtype(a.dtype()).machine_epsilon();
    let parts = each_matrix("pinv", s.len(), |i| {
        if !s.finite(i) {
            return Ok(nans(n * m));
        }
        let f = thin_svd("pinv", s.slice(i), (m, n))?;
        let rank = rank_of(&f.s, cutoff::<T>(rcond, eps, m, n));
        Ok(pseudo_solve(&f, (m, n), rank, (&identity(m), m)))
    })?;
    stacked(parts, &s.shape_with(&[n, m]), result_dtype(a.dtype()))
}

/// The rank of each matrix: its count of singular values above `tol` (by default
/// the largest times `max(m, n)` epsilons), as i64. A vector's rank is 1 unless it is
/// all zeros (NumPy).
pub fn matrix_rank(a: &Tensor, tol: Option<f64>) -> Result<Tensor> {
    if a.ndim() < 2 {
        let nonzero = a.to_vec::<f64>().iter().any(|&x| x != 0.0);
        return Ok(Tensor::scalar(i64::from(nonzero)));
    }
    type T = f64;
    let s = Stack::<T>::new("matrix_rank", a)?;
    let (m, n) = (s.rows, s.cols);
    let eps = result_dtype(a.dtype()).machine_epsilon();
    let ranks = each_matrix("matrix_rank", s.len(), |i| {
        if !s.finite(i) {
            return Ok(0i64);
        }
        let sv = singular_values("matrix_rank", s.slice(i), (m, n))?;
        let count = match tol {
            Some(t) => sv.iter().filter(|&&x| x.to_f64() > t).count(),
            None => rank_of(&sv, cutoff::<T>(None, eps, m, n)),
        };
        Ok(count as i64)
    })?;
    Tensor::from_vec(ranks, &s.batch)
}

//! What the SVD gives beyond itself: `lstsq`, `pinv` and `matrix_rank`, with NumPy's
//! cutoffs for small singular values.

use faer::{Mat, MatRef};

use super::factor::singular_values;
use super::stack::{by_real, each_matrix, nans, result_dtype, row_major, stacked, Real, Stack};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// The thin SVD of `m` as `(u, s, v)`, or an error naming `op`.
fn thin_svd<T: Real>(op: &str, m: MatRef<'_, T>) -> Result<(Mat<T>, Vec<T>, Mat<T>)> {
    let f = m
        .thin_svd()
        .map_err(|_| TensorError::value(op, "SVD did not converge"))?;
    let s = f.S().column_vector().iter().copied().collect();
    Ok((f.U().to_owned(), s, f.V().to_owned()))
}

/// The count of singular values above `rcond` times the largest (`s` descending).
fn rank_of<T: Real>(s: &[T], rcond: T) -> usize {
    let cutoff = s.first().map_or(T::from_f64(0.0), |&max| rcond * max);
    s.iter().filter(|&&x| x > cutoff).count()
}

/// `rcond` or NumPy's default, `max(m, n)` machine epsilons.
fn cutoff<T: Real>(rcond: Option<f64>, m: usize, n: usize) -> T {
    rcond.map_or(T::EPSILON * T::from_f64(m.max(n) as f64), T::from_f64)
}

/// `v[:, :r] diag(1 / s[:r]) u[:, :r]ᵀ b`: the minimum-norm least-squares solution
/// through the first `r` singular triplets.
fn pseudo_solve<T: Real>(u: &Mat<T>, s: &[T], v: &Mat<T>, r: usize, b: MatRef<'_, T>) -> Mat<T> {
    let mut ub = u.as_ref().get(.., ..r).transpose() * b;
    for (i, &si) in s[..r].iter().enumerate() {
        let inv = T::from_f64(1.0) / si;
        for j in 0..ub.ncols() {
            ub[(i, j)] *= inv;
        }
    }
    v.as_ref().get(.., ..r) * ub
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
    by_real!(dtype, T => {
        let (ma, mb) = (Stack::<T>::new(op, a)?, Stack::<T>::new(op, &b)?);
        let (m, n, k) = (ma.rows, ma.cols, mb.cols);
        let (x, residuals, rank, s) = if ma.finite(0) && mb.finite(0) {
            let (u, s, v) = thin_svd(op, ma.matrix(0))?;
            let rank = rank_of(&s, cutoff::<T>(rcond, m, n));
            let x = pseudo_solve(&u, &s, &v, rank, mb.matrix(0));
            let residuals = if rank == n && m > n {
                let r = mb.matrix(0) - ma.matrix(0) * &x;
                (0..k)
                    .map(|j| (0..m).fold(T::from_f64(0.0), |acc, i| acc + r[(i, j)] * r[(i, j)]))
                    .collect()
            } else {
                Vec::new()
            };
            (row_major(x.as_ref()), residuals, rank, s)
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
    })
}

/// The Moore-Penrose pseudo-inverse of each matrix (`n x m` for `m x n`), singular
/// values at or below `rcond` times the largest taken as zero (NumPy's default
/// `max(m, n)` epsilons).
pub fn pinv(a: &Tensor, rcond: Option<f64>) -> Result<Tensor> {
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::new("pinv", a)?;
        let (m, n) = (s.rows, s.cols);
        let parts = each_matrix("pinv", s.len(), |i| {
            if !s.finite(i) {
                return Ok(nans(n * m));
            }
            let (u, sv, v) = thin_svd("pinv", s.matrix(i))?;
            let rank = rank_of(&sv, cutoff::<T>(rcond, m, n));
            let eye = Mat::<T>::identity(m, m);
            Ok(row_major(pseudo_solve(&u, &sv, &v, rank, eye.as_ref()).as_ref()))
        })?;
        stacked(parts, &s.shape_with(&[n, m]), result_dtype(a.dtype()))
    })
}

/// The rank of each matrix: its count of singular values above `tol` (by default
/// the largest times `max(m, n)` epsilons), as i64. A vector's rank is 1 unless it is
/// all zeros (NumPy).
pub fn matrix_rank(a: &Tensor, tol: Option<f64>) -> Result<Tensor> {
    if a.ndim() < 2 {
        let nonzero = a.to_vec::<f64>().iter().any(|&x| x != 0.0);
        return Ok(Tensor::scalar(i64::from(nonzero)));
    }
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::new("matrix_rank", a)?;
        let (m, n) = (s.rows, s.cols);
        let ranks = each_matrix("matrix_rank", s.len(), |i| {
            if !s.finite(i) {
                return Ok(0i64);
            }
            let sv = singular_values(s.matrix(i))?;
            let count = match tol {
                Some(t) => sv.iter().filter(|&&x| x.to_f64() > t).count(),
                None => rank_of(&sv, cutoff::<T>(None, m, n)),
            };
            Ok(count as i64)
        })?;
        Tensor::from_vec(ranks, &s.batch)
    })
}

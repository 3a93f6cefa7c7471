//! The factorizations: `cholesky`, `qr`, `eigh`/`eigvalsh` and `svd`/`svdvals`, with
//! `numpy.linalg`'s shapes and conventions, over stacks of matrices.

use faer::{MatRef, Side};

use super::stack::{by_real, each_matrix, nans, result_dtype, row_major, stacked, Real, Stack};
use crate::tensor::{Elem, Result, Tensor, TensorError};

/// The lower-triangular `L` with `a = L Lᵀ` (only `a`'s lower triangle is read), or
/// the upper `U = Lᵀ` with `a = Uᵀ U`.
pub fn cholesky(a: &Tensor, upper: bool) -> Result<Tensor> {
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::square("cholesky", a)?;
        let n = s.rows;
        let parts = each_matrix("cholesky", s.len(), |i| {
            if !s.finite(i) {
                return Ok(nans(n * n));
            }
            let llt = s
                .matrix(i)
                .llt(Side::Lower)
                .map_err(|_| TensorError::value("cholesky", "not positive definite"))?;
            let l = llt.L();
            Ok(row_major(if upper { l.transpose() } else { l }))
        })?;
        stacked(parts, &s.shape_with(&[n, n]), result_dtype(a.dtype()))
    })
}

/// The QR factorization: `"reduced"` gives q `m x k` and r `k x n` (k = min(m, n)),
/// `"complete"` q `m x m` and r `m x n`, `"r"` r alone (`k x n`).
pub fn qr(a: &Tensor, mode: &str) -> Result<Vec<Tensor>> {
    if !matches!(mode, "reduced" | "complete" | "r") {
        return Err(TensorError::value(
            "qr",
            format!("mode must be \"reduced\", \"complete\" or \"r\", got \"{mode}\""),
        ));
    }
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::new("qr", a)?;
        let (m, n) = (s.rows, s.cols);
        let k = if mode == "complete" { m } else { m.min(n) };
        let parts = each_matrix("qr", s.len(), |i| {
            if !s.finite(i) {
                return Ok((nans(m * k), nans(k * n)));
            }
            let f = s.matrix(i).qr();
            Ok(if mode == "r" {
                (Vec::new(), row_major(f.thin_R()))
            } else if mode == "complete" {
                // r is m x n: the thin r (k rows) over zero rows.
                let mut r = row_major(f.thin_R());
                r.resize(m * n, T::from_f64(0.0));
                (row_major(f.compute_Q().as_ref()), r)
            } else {
                (row_major(f.compute_thin_Q().as_ref()), row_major(f.thin_R()))
            })
        })?;
        let (q, r): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
        let dtype = result_dtype(a.dtype());
        let r = stacked(r, &s.shape_with(&[k, n]), dtype)?;
        if mode == "r" {
            return Ok(vec![r]);
        }
        Ok(vec![stacked(q, &s.shape_with(&[m, k]), dtype)?, r])
    })
}

/// Eigenvalues (ascending) and, with `vectors`, the eigenvectors (columns) of symmetric
/// matrices; only the lower triangle is read.
pub fn eigh(a: &Tensor, vectors: bool) -> Result<Vec<Tensor>> {
    let op = if vectors { "eigh" } else { "eigvalsh" };
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::square(op, a)?;
        let n = s.rows;
        let parts = each_matrix(op, s.len(), |i| {
            if !s.finite(i) {
                return Ok((nans(n), nans(if vectors { n * n } else { 0 })));
            }
            if n == 0 {
                return Ok((Vec::new(), Vec::new()));
            }
            let fail = |_| TensorError::value(op, "eigenvalues did not converge");
            let m = s.matrix(i);
            if vectors {
                let e = m.self_adjoint_eigen(Side::Lower).map_err(fail)?;
                let w = e.S().column_vector().iter().copied().collect();
                Ok((w, row_major(e.U())))
            } else {
                Ok((m.self_adjoint_eigenvalues(Side::Lower).map_err(fail)?, Vec::new()))
            }
        })?;
        let (w, v): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
        let dtype = result_dtype(a.dtype());
        let mut out = vec![stacked(w, &s.shape_with(&[n]), dtype)?];
        if vectors {
            out.push(stacked(v, &s.shape_with(&[n, n]), dtype)?);
        }
        Ok(out)
    })
}

/// The singular value decomposition `a = u diag(s) vh`: s descending; with `full`,
/// u `m x m` and vh `n x n`, else `m x k` and `k x n`; without `uv`, s alone.
pub fn svd(a: &Tensor, full: bool, uv: bool) -> Result<Vec<Tensor>> {
    let op = if uv { "svd" } else { "svdvals" };
    by_real!(a.dtype(), T => {
        let s = Stack::<T>::new(op, a)?;
        let (m, n) = (s.rows, s.cols);
        let k = m.min(n);
        let (ur, vr) = if full { (m, n) } else { (k, k) };
        let parts = each_matrix(op, s.len(), |i| {
            if !s.finite(i) {
                let (u, vh) = if uv { (m * ur, vr * n) } else { (0, 0) };
                return Ok((nans(u), nans(k), nans(vh)));
            }
            let mat = s.matrix(i);
            if !uv {
                return Ok((Vec::new(), singular_values(mat)?, Vec::new()));
            }
            let fail = |_| TensorError::value(op, "SVD did not converge");
            let f = if full { mat.svd() } else { mat.thin_svd() }.map_err(fail)?;
            let sv = f.S().column_vector().iter().copied().collect();
            Ok((row_major(f.U()), sv, row_major(f.V().transpose())))
        })?;
        let dtype = result_dtype(a.dtype());
        let mut u = Vec::new();
        let mut sv = Vec::new();
        let mut vh = Vec::new();
        for (a, b, c) in parts {
            u.push(a);
            sv.push(b);
            vh.push(c);
        }
        let sv = stacked(sv, &s.shape_with(&[k]), dtype)?;
        if !uv {
            return Ok(vec![sv]);
        }
        Ok(vec![
            stacked(u, &s.shape_with(&[m, ur]), dtype)?,
            sv,
            stacked(vh, &s.shape_with(&[vr, n]), dtype)?,
        ])
    })
}

/// The singular values of `m`, descending.
pub fn singular_values<T: Real>(m: MatRef<'_, T>) -> Result<Vec<T>> {
    m.singular_values()
        .map_err(|_| TensorError::value("svd", "SVD did not converge"))
}

//! The factorizations: `cholesky`, `qr`, `eigh`/`eigvalsh` and `svd`/`svdvals`, with
//! `numpy.linalg`'s shapes and conventions, over stacks of matrices.

use crate::kernels::factor::{cholesky, householder, svd, symmetric_eigen};
use crate::kernels::transpose::transpose;

use super::stack::{each_matrix, nans, result_dtype, stacked, Real, Stack};
use crate::tensor::{Result, Tensor, TensorError};

/// The lower-triangular `L` with `a = L Lᵀ` (only `a`'s lower triangle is read), or
/// the upper `U = Lᵀ` with `a = Uᵀ U`.
pub fn cholesky(a: &Tensor, upper: bool) -> Result<Tensor> {
    type T = f64;
    let s = Stack::<T>::square("cholesky", a)?;
    let n = s.rows;
    let parts = each_matrix("cholesky", s.len(), |i| {
        if !s.finite(i) {
            return Ok(nans(n * n));
        }
        let l = cholesky::factor(s.slice(i), n)
            .ok_or_else(|| TensorError::value("cholesky", "not positive definite"))?;
        Ok(if upper { transpose(&l, n, n) } else { l })
    })?;
    stacked(parts, &s.shape_with(&[n, n]), result_dtype(a.dtype()))
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
    type T = f64;
    let s = Stack::<T>::new("qr", a)?;
    let (m, n) = (s.rows, s.cols);
    let k = if mode == "complete" { m } else { m.min(n) };
    let parts = each_matrix("qr", s.len(), |i| {
        if !s.finite(i) {
            return Ok((nans(m * k), nans(k * n)));
        }
        let mut f = s.slice(i).to_vec();
        let taus = householder::factor(&mut f, m, n);
        let r = householder::r_factor(&f, (m, n), k);
        let q = if mode == "r" {
            Vec::new()
        } else {
            householder::q_factor(&f, (m, n), &taus, k)
        };
        Ok((q, r))
    })?;
    let (q, r): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    let dtype = result_dtype(a.dtype());
    let r = stacked(r, &s.shape_with(&[k, n]), dtype)?;
    if mode == "r" {
        return Ok(vec![r]);
    }
    Ok(vec![stacked(q, &s.shape_with(&[m, k]), dtype)?, r])
}

/// Eigenvalues (ascending) and, with `vectors`, the eigenvectors (columns) of symmetric
/// matrices; only the lower triangle is read.
pub fn eigh(a: &Tensor, vectors: bool) -> Result<Vec<Tensor>> {
    let op = if vectors { "eigh" } else { "eigvalsh" };
    type T = f64;
    let s = Stack::<T>::square(op, a)?;
    let n = s.rows;
    let parts = each_matrix(op, s.len(), |i| {
        if !s.finite(i) {
            return Ok((nans(n), nans(if vectors { n * n } else { 0 })));
        }
        if n == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let fail = || TensorError::value(op, "eigenvalues did not converge");
        if vectors {
            symmetric_eigen::eigen(s.slice(i), n).ok_or_else(fail)
        } else {
            let w = symmetric_eigen::eigenvalues(s.slice(i), n).ok_or_else(fail)?;
            Ok((w, Vec::new()))
        }
    })?;
    let (w, v): (Vec<_>, Vec<_>) = parts.into_iter().unzip();
    let dtype = result_dtype(a.dtype());
    let mut out = vec![stacked(w, &s.shape_with(&[n]), dtype)?];
    if vectors {
        out.push(stacked(v, &s.shape_with(&[n, n]), dtype)?);
    }
    Ok(out)
}

/// The singular value decomposition `a = u diag(s) vh`: s descending; with `full`,
/// u `m x m` and vh `n x n`, else `m x k` and `k x n`; without `uv`, s alone.
pub fn svd(a: &Tensor, full: bool, uv: bool) -> Result<Vec<Tensor>> {
    let op = if uv { "svd" } else { "svdvals" };
    type T = f64;
    let s = Stack::<T>::new(op, a)?;
    let (m, n) = (s.rows, s.cols);
    let k = m.min(n);
    let (ur, vr) = if full { (m, n) } else { (k, k) };
    let parts = each_matrix(op, s.len(), |i| {
        if !s.finite(i) {
            let (u, vh) = if uv { (m * ur, vr * n) } else { (0, 0) };
            return Ok((nans(u), nans(k), nans(vh)));
        }
        if !uv {
            return Ok((
                Vec::new(),
                singular_values(op, s.slice(i), (m, n))?,
                Vec::new(),
            ));
        }
        let f = svd::decompose(s.slice(i), m, n, full).ok_or_else(|| not_converged(op))?;
        Ok((f.u, f.s, f.vh))
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
}

/// The error of an SVD whose iterations did not converge.
fn not_converged(op: &str) -> TensorError {
    TensorError::value(op, "SVD did not converge")
}

/// The singular values of the `m × n` row-major `a`, descending.
pub fn singular_values<T: Real>(op: &str, a: &[T], (m, n): (usize, usize)) -> Result<Vec<T>> {
    svd::singular_values(a, m, n).ok_or_else(|| not_converged(op))
}

/// The thin SVD `(u, s, vh)` of the `m × n` row-major `a` (`u` `m × k`, `vh` `k × n`).
pub fn thin_svd<T: Real>(op: &str, a: &[T], (m, n): (usize, usize)) -> Result<svd::Svd<T>> {
    svd::decompose(a, m, n, false).ok_or_else(|| not_converged(op))
}

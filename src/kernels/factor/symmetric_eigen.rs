//! The symmetric eigenproblem (`numpy.linalg.eigh`): reduction to tridiagonal form,
//! implicit QL on the tridiagonal matrix, and the eigenvectors carried back by the
//! reduction's reflectors; eigenvalues ascending.

use super::rotations::RotatedRows;
use super::tridiagonal::reduce;
use super::tridiagonal_eigen::diagonalize;
use super::Real;

/// The eigenvalues, ascending, of the `n × n` row-major symmetric `a` (only its lower
/// triangle is read); `None` when the iterations do not converge.
pub fn eigenvalues<T: Real>(a: &[T], n: usize) -> Option<Vec<T>> {
    let t = reduce(a, n);
    let mut d = t.diag.clone();
    diagonalize(&mut d, &t.off, None)?;
    Some(ascending(&d).into_iter().map(|k| d[k]).collect())
}

/// The eigenvalues, ascending, and the eigenvectors (row-major `n × n`, column `k` the
/// unit vector of value `k`).
pub fn eigen<T: Real>(a: &[T], n: usize) -> Option<(Vec<T>, Vec<T>)> {
    let t = reduce(a, n);
    let mut d = t.diag.clone();
    let mut rotated = RotatedRows::identity(n);
    diagonalize(&mut d, &t.off, Some(&mut rotated))?;
    let zt = rotated.finish();
    let order = ascending(&d);
    let mut z = vec![T::ZERO; n * n];
    for (k, &from) in order.iter().enumerate() {
        for i in 0..n {
            z[i * n + k] = zt[from * n + i];
        }
    }
    t.to_original_basis(&mut z, n);
    Some((order.into_iter().map(|k| d[k]).collect(), z))
}

/// The indices of `d` in ascending order of value (ties in index order).
fn ascending<T: Real>(d: &[T]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..d.len()).collect();
    order.sort_by(|&i, &j| d[i].partial_cmp(&d[j]).unwrap_or(std::cmp::Ordering::Equal));
    order
}

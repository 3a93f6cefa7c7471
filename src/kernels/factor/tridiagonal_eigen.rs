//! Eigenvalues and eigenvectors of a symmetric tridiagonal matrix by the implicit QL
//! algorithm with shifts from the leading 2 × 2 block (EISPACK's `imtql2`, after
//! Martin and Wilkinson, 1968): a published algorithm, written as one function.

use super::householder::scaled_norm;
use super::rotations::RotatedRows;
use super::Real;

/// The QL iterations one matrix may take in all: 30 per eigenvalue, as LAPACK's
/// `steqr` allows.
const ITERATIONS_PER_VALUE: usize = 30;

/// Diagonalizes the tridiagonal matrix with diagonal `d` (n values) and off-diagonal
/// `e` (n - 1 values): afterwards `d` holds the eigenvalues, unsorted. With `zt`
/// (`n × n` row-major, the identity or `Qᵀ` of an earlier reduction), each rotation is
/// applied to its rows, so row `k` ends as the eigenvector of `d[k]`. `None` when the
/// iterations do not converge.
pub fn diagonalize<T: Real>(
    d: &mut [T],
    e: &[T],
    mut zt: Option<&mut RotatedRows<T>>,
) -> Option<()> {
    let n = d.len();
    let mut e: Vec<T> = e.iter().copied().chain([T::ZERO]).take(n).collect();
    let mut budget = ITERATIONS_PER_VALUE * n;
    let two = T::ONE + T::ONE;
    for l in 0..n {
        loop {
            // The first negligible off-diagonal at or after l ends the block.
            let mut m = l;
            while m + 1 < n {
                let dd = d[m].abs() + d[m + 1].abs();
                if e[m].abs() <= T::EPSILON * dd {
                    break;
                }
                m += 1;
            }
            if m == l {
                break;
            }
            budget = budget.checked_sub(1)?;
            // Shift from the leading 2 × 2 block.
            let mut g = (d[l + 1] - d[l]) / (two * e[l]);
            let r = scaled_norm([g, T::ONE].into_iter());
            g = d[m] - d[l] + e[l] / (g + if g >= T::ZERO { r } else { -r });
            let (mut s, mut c, mut p) = (T::ONE, T::ONE, T::ZERO);
            let mut underflow = false;
            for i in (l..m).rev() {
                let f = s * e[i];
                let b = c * e[i];
                let r = scaled_norm([f, g].into_iter());
                e[i + 1] = r;
                if r == T::ZERO {
                    // Recover from underflow: the block splits at i + 1.
                    d[i + 1] -= p;
                    e[m] = T::ZERO;
                    underflow = true;
                    break;
                }
                s = f / r;
                c = g / r;
                g = d[i + 1] - p;
                let r = (d[i] - g) * s + two * c * b;
                p = s * r;
                d[i + 1] = g + p;
                g = c * r - b;
                if let Some(zt) = zt.as_deref_mut() {
                    // Rows i, i + 1 become c·zᵢ - s·zᵢ₊₁ and s·zᵢ + c·zᵢ₊₁.
                    zt.rotate((i, i + 1), (c, -s));
                }
            }
            if underflow {
                continue;
            }
            d[l] -= p;
            e[l] = g;
            e[m] = T::ZERO;
        }
    }
    Some(())
}

//! Householder reduction of a symmetric matrix to tridiagonal form (LAPACK's `sytd2`,
//! lower): `a = Q T Qᵀ`, with `Q = diag(1, H₀ H₁ ⋯)` kept as reflectors.

use super::householder::{apply_q, reflect_row_tail};
use super::{vector, Real};

/// The tridiagonal `T` of a symmetric matrix and the reflectors of its `Q`.
pub struct Tridiagonal<T> {
    /// `T`'s diagonal, `n` values.
    pub diag: Vec<T>,
    /// `T`'s off-diagonal, `n - 1` values (none for `n` = 0).
    pub off: Vec<T>,
    /// Reflector `j` below the diagonal of column `j` of this `(n-1) × (n-1)` matrix,
    /// as `householder::factor` stores them.
    reflectors: Vec<T>,
    taus: Vec<T>,
}

/// Reduces the `n × n` row-major symmetric `a`, of which only the lower triangle is read.
pub fn reduce<T: Real>(a: &[T], n: usize) -> Tridiagonal<T> {
    let mut s = vec![T::ZERO; n * n];
    for i in 0..n {
        for j in 0..=i {
            s[i * n + j] = a[i * n + j];
            s[j * n + i] = a[i * n + j];
        }
    }
    let w = n.saturating_sub(1);
    let mut reflectors = vec![T::ZERO; w * w];
    let mut taus = Vec::with_capacity(n.saturating_sub(2));
    let mut off = Vec::with_capacity(w);
    for j in 0..n.saturating_sub(2) {
        // Column j below the diagonal is row j right of it (the matrix is symmetric).
        let (beta, tau, v) = reflect_row_tail(&s, n, j, &mut reflectors);
        off.push(beta);
        taus.push(tau);
        if tau != T::ZERO {
            update_trailing(&mut s, n, j + 1, &v, tau);
        }
    }
    if n >= 2 {
        off.push(s[(n - 1) * n + n - 2]);
    }
    let diag = (0..n).map(|i| s[i * n + i]).collect();
    Tridiagonal {
        diag,
        off,
        reflectors,
        taus,
    }
}

/// `A ← H A H` on the trailing block from row and column `from`, `H = I - τ v vᵀ`:
/// `p = τ A v`, `w = p - (τ/2)(pᵀv) v`, `A ← A - v wᵀ - w vᵀ`.
fn update_trailing<T: Real>(s: &mut [T], n: usize, from: usize, v: &[T], tau: T) {
    let p: Vec<T> = (from..n)
        .map(|i| tau * vector::dot(&s[i * n + from..(i + 1) * n], v))
        .collect();
    let pv = vector::dot(&p, v);
    let half = T::ONE / (T::ONE + T::ONE);
    let alpha = -(half * tau * pv);
    let w: Vec<T> = p.iter().zip(v).map(|(x, y)| *x + alpha * *y).collect();
    for (i, (vi, wi)) in (from..n).zip(v.iter().zip(&w)) {
        vector::sub_rank2(&mut s[i * n + from..(i + 1) * n], (*vi, &w), (*wi, v));
    }
}

impl<T: Real> Tridiagonal<T> {
    /// Overwrites the `n × cols` row-major `z` (vectors in `T`'s basis, one per column)
    /// with `Q z` (the same vectors in the original basis).
    pub fn to_original_basis(&self, z: &mut [T], cols: usize) {
        let w = self.diag.len().saturating_sub(1);
        if w == 0 || cols == 0 {
            return;
        }
        // Row 0 is untouched by Q = diag(1, H₀ H₁ ⋯).
        apply_q(&self.reflectors, (w, w), &self.taus, &mut z[cols..], cols);
    }
}

//! Householder reduction of a tall matrix to upper bidiagonal form (LAPACK's `gebd2`):
//! `a = U B Vᵀ`, with `U = H₀ H₁ ⋯` from the left reflectors (one per column) and
//! `V = diag(1, G₀ G₁ ⋯)` from the right ones (one per row), both kept as reflectors.

use super::householder::{apply_q, apply_reflector, reflect_column, reflect_row_tail};
use super::{vector, Real};

/// The bidiagonal `B` of an `m × n` matrix (`m ≥ n`) and the reflectors of `U` and `V`.
pub struct Bidiagonal<T> {
    /// `B`'s diagonal, `n` values.
    pub diag: Vec<T>,
    /// `B`'s superdiagonal, `n - 1` values (none for `n` = 0).
    pub off: Vec<T>,
    /// The reduced matrix: left reflector `j` below the diagonal of column `j`.
    left: Vec<T>,
    left_taus: Vec<T>,
    /// Right reflector `j` below the diagonal of column `j` of this `(n-1) × (n-1)`
    /// matrix (row `j`'s vector right of the superdiagonal, transposed).
    right: Vec<T>,
    right_taus: Vec<T>,
    shape: (usize, usize),
}

/// Reduces the `m × n` row-major `a`, `m ≥ n`.
pub fn reduce<T: Real>(a: &[T], m: usize, n: usize) -> Bidiagonal<T> {
    let mut s = a.to_vec();
    let w = n.saturating_sub(1);
    let mut right = vec![T::ZERO; w * w];
    let (mut left_taus, mut right_taus) = (Vec::with_capacity(n), Vec::with_capacity(w));
    let (mut diag, mut off) = (Vec::with_capacity(n), Vec::with_capacity(w));
    for j in 0..n {
        let tau = reflect_column(&mut s, (m, n), j);
        apply_reflector(&mut s, (m, n), j, tau, j + 1..n);
        left_taus.push(tau);
        diag.push(s[j * n + j]);
        if j + 1 == n {
            break;
        }
        let (beta, tau, v) = reflect_row_tail(&s, n, j, &mut right);
        off.push(beta);
        right_taus.push(tau);
        if tau != T::ZERO {
            // Rows below j lose (row · v) τ vᵀ.
            for row in s[(j + 1) * n..].chunks_exact_mut(n) {
                let tail = &mut row[j + 1..];
                let t = tau * vector::dot(tail, &v);
                vector::sub_scaled(tail, t, &v);
            }
        }
    }
    Bidiagonal {
        diag,
        off,
        left: s,
        left_taus,
        right,
        right_taus,
        shape: (m, n),
    }
}

impl<T: Real> Bidiagonal<T> {
    /// Overwrites the `m × cols` row-major `c` with `U c`.
    pub fn apply_u(&self, c: &mut [T], cols: usize) {
        apply_q(&self.left, self.shape, &self.left_taus, c, cols);
    }

    /// Overwrites the `n × cols` row-major `c` with `V c`.
    pub fn apply_v(&self, c: &mut [T], cols: usize) {
        let w = self.shape.1.saturating_sub(1);
        if w == 0 || cols == 0 {
            return;
        }
        // Row 0 is untouched by V = diag(1, G₀ G₁ ⋯).
        apply_q(&self.right, (w, w), &self.right_taus, &mut c[cols..], cols);
    }
}

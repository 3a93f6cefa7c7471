//! Householder reduction of a tall matrix to upper bidiagonal form (LAPACK's `gebd2`):
//! `a = U B Vᵀ`, with `U = H₀ H₁ ⋯` from the left reflectors (one per column) and
//! `V = diag(1, G₀ G₁ ⋯)` from the right ones (one per row), both kept as reflectors.

use super::householder::{apply_q, reflect_column, reflect_row_tail};
use super::{add_partials, chunk_rows, vector, Real};
use crate::kernels::parallel::{map_reduce, Disjoint};

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
///
/// Step `j` reflects column `j` below the diagonal (`H`, vector `u`) and row `j`
/// right of the superdiagonal (`G`, vector `v`): the trailing rows lose
/// `uᵢ wᵀ` with `w = τ uᵀC`, then `τ' (row · v) vᵀ`. One pass over the rows does both
/// and also sums `Σ xᵢ rowᵢ` for the next step's `w`, `x` the next column (whose
/// reflector is the column divided by a scale known only after the pass, so the sum
/// is scaled afterwards). The rows run in parallel chunks of a size fixed by the
/// matrix, and the chunks' sums are added in a fixed tree: the same bits for any
/// thread count.
pub fn reduce<T: Real>(a: &[T], m: usize, n: usize) -> Bidiagonal<T> {
    let mut s = a.to_vec();
    let w = n.saturating_sub(1);
    let mut right = vec![T::ZERO; w * w];
    let (mut left_taus, mut right_taus) = (Vec::with_capacity(n), Vec::with_capacity(w));
    let (mut diag, mut off) = (Vec::with_capacity(n), Vec::with_capacity(w));
    let mut sum = pass(&mut s, (m, n), 0, None, None, n > 1);
    for j in 0..n {
        let alpha = s[j * n + j];
        let tau = reflect_column(&mut s, (m, n), j);
        let beta = s[j * n + j];
        left_taus.push(tau);
        diag.push(beta);
        if j + 1 == n {
            break;
        }
        // w = τ (C[j] + Σ uᵢ C[i]) with uᵢ = xᵢ / (α - β), as `reflect` divides.
        let scale = alpha - beta;
        let left = (tau != T::ZERO).then(|| {
            let row = &s[j * n + j + 1..(j + 1) * n];
            row.iter()
                .zip(&sum)
                .map(|(c, x)| tau * (*c + *x / scale))
                .collect::<Vec<T>>()
        });
        if let Some(w) = &left {
            vector::sub(&mut s[j * n + j + 1..(j + 1) * n], w);
        }
        let (beta, tau, v) = reflect_row_tail(&s, n, j, &mut right);
        off.push(beta);
        right_taus.push(tau);
        let right = (tau != T::ZERO).then_some((tau, &v[..]));
        sum = pass(&mut s, (m, n), j + 1, left.as_deref(), right, j + 2 < n);
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

/// One pass over rows `r0..m` of `s`, on columns `r0..`: each row first loses
/// `uᵢ wᵀ` (`left`, `uᵢ` the row's entry in column `r0 - 1`), then `τ (row · v) vᵀ`
/// (`right`); with `sum`, the rows after `r0` add `x · row[r0 + 1..]`, `x` their entry
/// in column `r0`, into the returned sum.
fn pass<T: Real>(
    s: &mut [T],
    (m, n): (usize, usize),
    r0: usize,
    left: Option<&[T]>,
    right: Option<(T, &[T])>,
    sum: bool,
) -> Vec<T> {
    let len = if sum { n - r0 - 1 } else { 0 };
    let rows = Disjoint::new(&mut s[r0 * n..m * n]);
    let partial = |range: std::ops::Range<usize>| {
        let mut acc = vec![T::ZERO; len];
        for r in range {
            // SAFETY: each chunk of rows is handed to one call alone.
            let row = unsafe { rows.part(r * n, n) };
            if let Some(w) = left {
                let u = row[r0 - 1];
                vector::sub_scaled(&mut row[r0..], u, w);
            }
            if let Some((tau, v)) = right {
                let t = tau * vector::dot(&row[r0..], v);
                vector::sub_scaled(&mut row[r0..], t, v);
            }
            if sum && r > 0 {
                let x = row[r0];
                vector::add_scaled(&mut acc, x, &row[r0 + 1..]);
            }
        }
        acc
    };
    map_reduce(m - r0, chunk_rows(n), partial, add_partials).unwrap_or_default()
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

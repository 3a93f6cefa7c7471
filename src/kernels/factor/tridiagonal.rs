//! Householder reduction of a symmetric matrix to tridiagonal form (LAPACK's `sytrd`,
//! lower): `a = Q T Qᵀ`, with `Q = diag(1, H₀ H₁ ⋯)` kept as reflectors.

use super::householder::{apply_q, reflect_row_tail};
use super::{add_partials, chunk_rows, product, sub_product, vector, view, Real, BLOCK};
use crate::kernels::parallel::map_reduce;

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
///
/// Blocked as LAPACK's `sytrd` (with `latrd`'s panels): step `j` reflects row `j` right
/// of the diagonal (`v`, `τ`), and `H = I - τ v vᵀ` on both sides of the trailing
/// matrix is `A ← A - v wᵀ - w vᵀ` with `w = p - (τ/2)(pᵀv) v`, `p = τ A v`. Inside a
/// panel of `BLOCK` steps the trailing matrix is left as it was and the panel's `v`s
/// and `w`s are kept instead: a row is brought up to date just before it is reflected,
/// and `A v` is corrected by them. After the panel one GEMM applies them all. Only
/// the lower triangle is read, as LAPACK does (the GEMM updates the whole square, which
/// is simpler than updating a triangle and costs it little).
pub fn reduce<T: Real>(a: &[T], n: usize) -> Tridiagonal<T> {
    let mut s = vec![T::ZERO; n * n];
    for i in 0..n {
        for j in 0..=i {
            s[i * n + j] = a[i * n + j];
            s[j * n + i] = a[i * n + j];
        }
    }
    let w = n.saturating_sub(1);
    let steps = n.saturating_sub(2);
    let mut reflectors = vec![T::ZERO; w * w];
    let mut taus = Vec::with_capacity(steps);
    let mut off = Vec::with_capacity(w);
    for j0 in (0..steps).step_by(BLOCK) {
        let j1 = (j0 + BLOCK).min(steps);
        let panel = reduce_panel(&mut s, n, j0..j1, &mut reflectors);
        off.extend(&panel.betas);
        taus.extend(&panel.taus);
        panel.update_trailing(&mut s, n);
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

/// The reflectors of one panel of steps `j0..j1`, with the `w`s of the update they
/// make: `vt` and `wt` hold one vector a row (`nb × len`), entry `r` for matrix row
/// `j0 + 1 + r`.
struct Panel<T> {
    cols: std::ops::Range<usize>,
    len: usize,
    vt: Vec<T>,
    wt: Vec<T>,
    betas: Vec<T>,
    taus: Vec<T>,
}

/// Reflects rows `cols` of `s` (see `reduce`): each is first brought up to date with
/// the panel's earlier reflectors, then reflected.
fn reduce_panel<T: Real>(
    s: &mut [T],
    n: usize,
    cols: std::ops::Range<usize>,
    reflectors: &mut [T],
) -> Panel<T> {
    let (j0, nb) = (cols.start, cols.len());
    let len = n - j0 - 1;
    let mut panel = Panel {
        cols,
        len,
        vt: vec![T::ZERO; nb * len],
        wt: vec![T::ZERO; nb * len],
        betas: Vec::with_capacity(nb),
        taus: Vec::with_capacity(nb),
    };
    let half = T::ONE / (T::ONE + T::ONE);
    for k in 0..nb {
        let i = j0 + k;
        // Column i from the diagonal down, brought up to date and stored as row i (where
        // the reflector is made from); row i is entry k - 1 of the earlier vectors.
        let mut column: Vec<T> = (i..n).map(|r| s[r * n + i]).collect();
        for q in 0..k {
            let (vq, wq) = (
                &panel.vt[q * len..(q + 1) * len],
                &panel.wt[q * len..(q + 1) * len],
            );
            vector::sub_rank2(
                &mut column,
                (vq[k - 1], &wq[k - 1..]),
                (wq[k - 1], &vq[k - 1..]),
            );
        }
        s[i * n + i..(i + 1) * n].copy_from_slice(&column);
        let (beta, tau, v) = reflect_row_tail(s, n, i, reflectors);
        panel.betas.push(beta);
        panel.taus.push(tau);
        panel.vt[k * len + k..(k + 1) * len].copy_from_slice(&v);
        if tau == T::ZERO {
            continue;
        }
        // p = τ (A v - V Wᵀv - W Vᵀv) on rows i + 1.., A as at the panel's start.
        let mut p = product_rows(s, n, i + 1, &v);
        for q in 0..k {
            let (vq, wq) = (
                &panel.vt[q * len + k..(q + 1) * len],
                &panel.wt[q * len + k..(q + 1) * len],
            );
            let (wv, vv) = (vector::dot(wq, &v), vector::dot(vq, &v));
            vector::sub_rank2(&mut p, (wv, vq), (vv, wq));
        }
        for x in &mut p {
            *x = tau * *x;
        }
        let alpha = -(half * tau * vector::dot(&p, &v));
        vector::add_scaled(&mut p, alpha, &v);
        panel.wt[k * len + k..(k + 1) * len].copy_from_slice(&p);
    }
    panel
}

impl<T: Real> Panel<T> {
    /// `A ← A - V Wᵀ - W Vᵀ` on the rows and columns after the panel: one GEMM of
    /// `[V W]` by `[W V]ᵀ`.
    fn update_trailing(&self, s: &mut [T], n: usize) {
        let (nb, j1, len) = (self.cols.len(), self.cols.end, self.len);
        let rows = n - j1;
        if rows == 0 {
            return;
        }
        // Row j1 is entry nb - 1 of the vectors.
        let (mut left, mut right) = (vec![T::ZERO; rows * 2 * nb], vec![T::ZERO; rows * 2 * nb]);
        for q in 0..nb {
            for r in 0..rows {
                let (v, w) = (self.vt[q * len + nb - 1 + r], self.wt[q * len + nb - 1 + r]);
                left[r * 2 * nb + q] = v;
                left[r * 2 * nb + nb + q] = w;
                right[r * 2 * nb + q] = w;
                right[r * 2 * nb + nb + q] = v;
            }
        }
        let k = 2 * nb;
        let update = product(
            view(&left, k, 0..rows, 0..k),
            view(&right, k, 0..rows, 0..k).t(),
        );
        sub_product(&mut s[j1 * n + j1..], n, &update, rows);
    }
}

/// `A v` on rows and columns `r0..` of the symmetric `n × n` row-major `s` (`v`
/// starting at column `r0`), reading only the lower triangle: row `i` gives
/// `A[i, ..=i] · v` to entry `i` and `vᵢ A[i, ..i]` to the entries before it, so the
/// matrix is read half as much. The rows run in parallel chunks of a size fixed by
/// `n`, whose partial sums are added in a fixed tree.
fn product_rows<T: Real>(s: &[T], n: usize, r0: usize, v: &[T]) -> Vec<T> {
    let len = n - r0;
    let partial = |rows: std::ops::Range<usize>| {
        let mut p = vec![T::ZERO; len];
        for r in rows {
            let row = &s[(r0 + r) * n + r0..(r0 + r) * n + r0 + r + 1];
            p[r] += vector::dot(row, &v[..=r]);
            vector::add_scaled(&mut p[..r], v[r], &row[..r]);
        }
        p
    };
    map_reduce(len, chunk_rows(n), partial, add_partials).unwrap_or_default()
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

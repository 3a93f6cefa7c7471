//! LU factorization with partial pivoting (LAPACK's `getrf`): `P a = L U` for a square
//! row-major matrix, blocked right-looking. Each panel of `BLOCK` columns is factored
//! with plain loops, then the rows to its right are solved with the panel's unit lower
//! triangle and the trailing matrix is updated by one GEMM.

use super::{product, sub_product, vector, view, Real, BLOCK};

/// The pivots of an LU factorization: at step `j`, row `j` was swapped with row
/// `swaps[j]` (≥ j), as LAPACK's `ipiv`.
pub struct Pivots {
    pub swaps: Vec<usize>,
}

impl Pivots {
    /// 1 for an even number of row swaps, -1 for an odd one.
    pub fn sign<T: Real>(&self) -> T {
        let swapped = self.swaps.iter().enumerate().filter(|(j, p)| *j != **p);
        if swapped.count() % 2 == 0 {
            T::ONE
        } else {
            -T::ONE
        }
    }

    /// Applies the swaps, in order, to the rows of the row-major `b` with `cols`
    /// columns.
    pub fn apply<T: Real>(&self, b: &mut [T], cols: usize) {
        for (j, &p) in self.swaps.iter().enumerate() {
            swap_rows(b, cols, j, p);
        }
    }
}

/// Swaps rows `i` and `j` of the row-major `a` with `cols` columns.
fn swap_rows<T: Real>(a: &mut [T], cols: usize, i: usize, j: usize) {
    if i == j || cols == 0 {
        return;
    }
    let (lo, hi) = (i.min(j), i.max(j));
    let (top, bottom) = a.split_at_mut(hi * cols);
    top[lo * cols..(lo + 1) * cols].swap_with_slice(&mut bottom[..cols]);
}

/// Factors the `n × n` row-major `a` in place: afterwards its strict lower triangle is
/// `L` (whose unit diagonal is implied) and its upper triangle `U`. A zero pivot (a
/// singular matrix) is kept, as LAPACK does; `U`'s diagonal shows it.
pub fn factor<T: Real>(a: &mut [T], n: usize) -> Pivots {
    let mut swaps = Vec::with_capacity(n);
    for j0 in (0..n).step_by(BLOCK) {
        let j1 = (j0 + BLOCK).min(n);
        factor_panel(a, n, j0..j1, &mut swaps);
        solve_right_of_panel(a, n, j0..j1);
        if j1 < n {
            // The trailing matrix loses L21 · U12.
            let update = product(view(a, n, j1..n, j0..j1), view(a, n, j0..j1, j1..n));
            sub_product(&mut a[j1 * n + j1..], n, &update, n - j1);
        }
    }
    Pivots { swaps }
}

/// Factors columns `cols` (rows `cols.start..n`) with plain loops, swapping whole rows.
fn factor_panel<T: Real>(
    a: &mut [T],
    n: usize,
    cols: std::ops::Range<usize>,
    swaps: &mut Vec<usize>,
) {
    for j in cols.clone() {
        // The first row holding the largest magnitude (NaN is never larger, so a
        // column of NaN pivots on its first row).
        let mut p = j;
        for i in j + 1..n {
            if a[i * n + j].abs() > a[p * n + j].abs() {
                p = i;
            }
        }
        swaps.push(p);
        swap_rows(a, n, j, p);
        let pivot = a[j * n + j];
        if pivot != T::ZERO {
            for i in j + 1..n {
                a[i * n + j] /= pivot;
            }
        }
        let (top, below) = a.split_at_mut((j + 1) * n);
        let pivot_row = &top[j * n + j + 1..j * n + cols.end];
        for row in below.chunks_exact_mut(n) {
            let l = row[j];
            vector::sub_scaled(&mut row[j + 1..cols.end], l, pivot_row);
        }
    }
}

/// Rows `cols` right of the panel become `L11⁻¹ A12` (forward substitution with the
/// panel's unit lower triangle).
fn solve_right_of_panel<T: Real>(a: &mut [T], n: usize, cols: std::ops::Range<usize>) {
    for r in cols.clone() {
        let (top, rest) = a.split_at_mut(r * n);
        let row = &mut rest[..n];
        for k in cols.start..r {
            let l = row[k];
            vector::sub_scaled(&mut row[cols.end..], l, &top[k * n + cols.end..(k + 1) * n]);
        }
    }
}

//! Cholesky factorization `a = L Lᵀ` (LAPACK's `potrf`, lower), blocked left-looking:
//! each panel of `BLOCK` columns first loses the product of the columns already
//! factored (one GEMM), then is factored with plain loops.

use super::{product, sub_product, view, Real, BLOCK};

/// The lower-triangular `L` (row-major, zeros above the diagonal) with `a = L Lᵀ`, for
/// the `n × n` row-major `a` of which only the lower triangle is read; `None` when `a`
/// is not positive definite (a pivot that is not > 0, NaN included).
pub fn factor<T: Real>(a: &[T], n: usize) -> Option<Vec<T>> {
    let mut l = vec![T::ZERO; n * n];
    for i in 0..n {
        l[i * n..=i * n + i].copy_from_slice(&a[i * n..=i * n + i]);
    }
    for j0 in (0..n).step_by(BLOCK) {
        let j1 = (j0 + BLOCK).min(n);
        if j0 > 0 {
            let update = product(view(&l, n, j0..n, 0..j0), view(&l, n, j0..j1, 0..j0).t());
            sub_product(&mut l[j0 * n + j0..], n, &update, j1 - j0);
        }
        factor_panel(&mut l, n, j0..j1)?;
    }
    Some(l)
}

/// Factors columns `cols` of `l` (rows `cols.start..n`), whose entries already lost the
/// columns left of the panel; clears the panel's diagonal block above the diagonal.
fn factor_panel<T: Real>(l: &mut [T], n: usize, cols: std::ops::Range<usize>) -> Option<()> {
    for j in cols.clone() {
        let mut d = l[j * n + j];
        for p in cols.start..j {
            d -= l[j * n + p] * l[j * n + p];
        }
        if d.partial_cmp(&T::ZERO) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let d = d.sqrt();
        l[j * n + j] = d;
        let (top, below) = l.split_at_mut((j + 1) * n);
        let lj = &top[j * n + cols.start..j * n + j];
        for row in below.chunks_exact_mut(n) {
            let mut x = row[j];
            for (p, y) in row[cols.start..j].iter().zip(lj) {
                x -= *p * *y;
            }
            row[j] = x / d;
        }
        top[j * n + j + 1..j * n + cols.end].fill(T::ZERO);
    }
    Some(())
}

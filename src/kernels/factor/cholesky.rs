//! Cholesky factorization `a = L Lᵀ` (LAPACK's `potrf`, lower), blocked left-looking:
//! each panel of `BLOCK` columns first loses the product of the columns already
//! factored (one GEMM), then is factored with vector steps, its rows below the
//! diagonal block in parallel.

use super::{product, store_panel, sub_product, transposed_panel, vector, view, Real, BLOCK};
use crate::kernels::parallel::for_each_chunk_mut;

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

/// Rows below the panel's diagonal block that one parallel task finishes.
const CHUNK_ROWS: usize = 128;

/// Factors columns `cols` of `l` (rows `cols.start..n`), whose entries already lost the
/// columns left of the panel; clears the panel's diagonal block above the diagonal.
///
/// Both parts work on the transposed panel, column by column (`potf2`, right-looking):
/// column `j` is divided by its pivot, then the later columns lose their multiple of
/// it, each a contiguous vector step. Every entry takes the same operations in the same
/// order as the dot-product form, so the chunking (and the thread count) changes no bit.
fn factor_panel<T: Real>(l: &mut [T], n: usize, cols: std::ops::Range<usize>) -> Option<()> {
    let (j0, jb) = (cols.start, cols.len());
    // The diagonal block: column k of it is row k of `block`.
    let mut block = transposed_panel(&l[j0 * n..], n, cols.clone(), jb);
    for j in 0..jb {
        let d = block[j * jb + j];
        if d.partial_cmp(&T::ZERO) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let d = d.sqrt();
        block[j * jb + j] = d;
        for x in &mut block[j * jb + j + 1..(j + 1) * jb] {
            *x /= d;
        }
        let (done, later) = block.split_at_mut((j + 1) * jb);
        let column = &done[j * jb..];
        for (k, row) in (j + 1..jb).zip(later.chunks_exact_mut(jb)) {
            vector::sub_scaled(&mut row[k..], column[k], &column[k..]);
        }
    }
    for i in 0..jb {
        let row = &mut l[(j0 + i) * n..(j0 + i + 1) * n];
        for k in 0..jb {
            row[j0 + k] = if k <= i { block[k * jb + i] } else { T::ZERO };
        }
    }
    // The rows below, in chunks: the same steps against the finished block.
    if cols.end == n {
        return Some(());
    }
    for_each_chunk_mut(&mut l[cols.end * n..], CHUNK_ROWS * n, |_, rows| {
        let r = rows.len() / n;
        let mut part = transposed_panel(rows, n, cols.clone(), r);
        for j in 0..jb {
            let d = block[j * jb + j];
            let (done, later) = part.split_at_mut((j + 1) * r);
            let column = &mut done[j * r..];
            for x in column.iter_mut() {
                *x /= d;
            }
            for (k, row) in (j + 1..jb).zip(later.chunks_exact_mut(r)) {
                vector::sub_scaled(row, block[j * jb + k], column);
            }
        }
        store_panel(rows, n, cols.clone(), &part, r);
    });
    Some(())
}

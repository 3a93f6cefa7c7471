//! The transpose of a row-major matrix, in parallel over tiles: each task reads a block
//! of rows (a run of columns of each, at most `TILE_BYTES` in all) and writes a run of
//! each of the matching result rows, so that both sides stay in cache. (The loops it
//! replaced wrote the result in the order of the source, touching a new cache line of
//! the result for every element.) Copies only: the same bits on any thread count.

use super::parallel::{for_each_item, Disjoint};

/// Bytes of `a` per task: a tile that stays in L1 while its columns are written out.
const TILE_BYTES: usize = 32 << 10;
/// Fewest rows per tile, so that even a very wide matrix writes runs, not elements.
const MIN_TILE_ROWS: usize = 16;

/// The transpose of the `rows × cols` row-major `a` (`cols × rows`, row-major).
pub fn transpose<T: Copy + Default + Send + Sync>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut t = vec![T::default(); rows * cols];
    if t.is_empty() {
        return t;
    }
    let fit = TILE_BYTES / size_of::<T>().max(1);
    let tile_cols = cols.min(fit / MIN_TILE_ROWS).max(1);
    let tile_rows = (fit / tile_cols).clamp(1, rows);
    let col_tiles = cols.div_ceil(tile_cols);
    let parts = Disjoint::new(&mut t);
    for_each_item(
        rows.div_ceil(tile_rows) * col_tiles,
        || (),
        |(), item| {
            let (r0, c0) = (item / col_tiles * tile_rows, item % col_tiles * tile_cols);
            let (r1, c1) = (rows.min(r0 + tile_rows), cols.min(c0 + tile_cols));
            let rows_of_a = &a[r0 * cols..r1 * cols];
            for j in c0..c1 {
                // SAFETY: the item alone writes columns r0..r1 of result rows c0..c1.
                let dst = unsafe { parts.part(j * rows + r0, r1 - r0) };
                for (d, row) in dst.iter_mut().zip(rows_of_a.chunks_exact(cols)) {
                    *d = row[j];
                }
            }
        },
    );
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::with_threads;

    /// Empty, single row or column, small, the quantized matmul's shape, and wider than
    /// a tile (several tiles across).
    #[test]
    fn transposes_every_shape_on_any_thread_count() {
        let shapes = [
            (0, 3),
            (3, 0),
            (1, 1),
            (1, 7),
            (7, 1),
            (5, 3),
            (4096, 32),
            (33, 1000),
            (40, 20_000),
        ];
        for (rows, cols) in shapes {
            let a: Vec<u32> = (0..(rows * cols) as u32).collect();
            let want: Vec<u32> = (0..rows * cols)
                .map(|i| a[i % rows * cols + i / rows])
                .collect();
            for threads in [1, 2, 3] {
                let got = with_threads(threads, || transpose(&a, rows, cols));
                assert_eq!(got, want, "{rows}x{cols}");
            }
        }
    }
}

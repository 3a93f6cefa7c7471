//! The transpose of a row-major matrix, in parallel over blocks of its rows: each task
//! reads one contiguous block and writes a run of each row of the result, so both
//! sides stay in cache (a column-at-a-time loop reads every cache line of the matrix
//! once per column). Copies only: the result has the same bits on any thread count.

use super::parallel::{for_each_item, Disjoint};

/// Bytes of `a` per task: a block that stays in L1 while its columns are written out.
const BLOCK_BYTES: usize = 32 << 10;

/// The transpose of the `rows × cols` row-major `a` (`cols × rows`, row-major).
pub fn transpose<T: Copy + Default + Send + Sync>(a: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut t = vec![T::default(); rows * cols];
    if t.is_empty() {
        return t;
    }
    let block = (BLOCK_BYTES / size_of::<T>().max(1) / cols).clamp(1, rows);
    let parts = Disjoint::new(&mut t);
    for_each_item(
        rows.div_ceil(block),
        || (),
        |(), item| {
            let (r0, r1) = (item * block, rows.min(item * block + block));
            let rows_of_a = &a[r0 * cols..r1 * cols];
            for j in 0..cols {
                // SAFETY: item alone writes columns r0..r1 of the result's rows.
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

    #[test]
    fn transposes_every_shape_on_any_thread_count() {
        for (rows, cols) in [
            (0, 3),
            (3, 0),
            (1, 1),
            (1, 7),
            (7, 1),
            (5, 3),
            (4096, 32),
            (33, 1000),
        ] {
            let a: Vec<u32> = (0..(rows * cols) as u32).collect();
            let want: Vec<u32> = (0..rows * cols)
                .map(|i| a[i % rows * cols + i / rows])
                .collect();
            for threads in [1, 2, 3] {
                assert_eq!(
                    with_threads(threads, || transpose(&a, rows, cols)),
                    want,
                    "{rows}x{cols}"
                );
            }
        }
    }
}

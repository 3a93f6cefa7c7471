//! Packing for the GEMM: a block of A becomes panels of `mr` rows ([p][mr] each), a
//! block of B panels of `nr` columns ([p][nr] each), so that the micro-kernel reads
//! both as contiguous streams. Rows or columns past the block's edge are zero.

use super::mat::Mat;

/// The most rows in an A panel (the tallest kernel's `mr`).
const MAX_MR: usize = 16;

/// Packs `a` (mc × kc) into ⌈mc / mr⌉ panels of [kc][mr] at the start of `dst`
/// (`mr` ≤ `MAX_MR`).
pub fn pack_a<T: Copy + Default>(dst: &mut [T], a: Mat<T>, mr: usize) {
    let (m, k) = (a.rows(), a.cols());
    for (q, panel) in dst
        .chunks_exact_mut(mr * k)
        .take(m.div_ceil(mr))
        .enumerate()
    {
        let mut rows: [&[T]; MAX_MR] = [&[]; MAX_MR];
        let whole = q * mr + mr <= m
            && (0..mr).all(|r| a.row(q * mr + r).map(|row| rows[r] = row).is_some());
        if whole {
            // All rows of the panel at once: `mr` sequential streams the prefetcher
            // follows (one short row after another would each start cold).
            for (p, d) in panel.chunks_exact_mut(mr).enumerate() {
                for (d, row) in d.iter_mut().zip(&rows) {
                    *d = row[p];
                }
            }
            continue;
        }
        for (p, d) in panel.chunks_exact_mut(mr).enumerate() {
            for (r, v) in d.iter_mut().enumerate() {
                let i = q * mr + r;
                *v = if i < m { a.at(i, p) } else { T::default() };
            }
        }
    }
}

/// Packs `b` (kc × nc) into ⌈nc / nr⌉ panels of [kc][nr] at the start of `dst`.
pub fn pack_b<T: Copy + Default>(dst: &mut [T], b: Mat<T>, nr: usize) {
    let (k, n) = (b.rows(), b.cols());
    for (q, panel) in dst
        .chunks_exact_mut(nr * k)
        .take(n.div_ceil(nr))
        .enumerate()
    {
        let (start, cols) = (q * nr, nr.min(n - q * nr));
        for (p, d) in panel.chunks_exact_mut(nr).enumerate() {
            let (d, pad) = d.split_at_mut(cols);
            match b.row(p) {
                // Element by element: a `copy_from_slice` of a few dozen values is a
                // call to memmove each time.
                Some(row) => d.iter_mut().zip(&row[start..]).for_each(|(d, &v)| *d = v),
                None => d
                    .iter_mut()
                    .enumerate()
                    .for_each(|(j, v)| *v = b.at(p, start + j)),
            }
            pad.fill(T::default());
        }
    }
}

/// Values `pack_a` writes for `rows` rows (of any inner size `k`).
pub fn packed_len(rows: usize, k: usize, panel: usize) -> usize {
    rows.div_ceil(panel) * panel * k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_hold_the_block_and_zeros_past_it() {
        let data: Vec<i32> = (1..=35).collect();
        // 5 × 7 row-major, and its transpose read through strides.
        for m in [Mat::row_major(&data, 5, 7), Mat::row_major(&data, 7, 5).t()] {
            let (rows, cols) = (m.rows(), m.cols());
            let mut a = vec![-1; packed_len(rows, cols, 2)];
            pack_a(&mut a, m, 2);
            for i in 0..6 {
                for p in 0..cols {
                    let want = if i < rows { m.at(i, p) } else { 0 };
                    assert_eq!(a[(i / 2 * cols + p) * 2 + i % 2], want);
                }
            }
            let mut b = vec![-1; packed_len(cols, rows, 3)];
            pack_b(&mut b, m, 3);
            for p in 0..rows {
                for j in 0..cols.next_multiple_of(3) {
                    let want = if j < cols { m.at(p, j) } else { 0 };
                    assert_eq!(b[(j / 3 * rows + p) * 3 + j % 3], want);
                }
            }
        }
    }
}

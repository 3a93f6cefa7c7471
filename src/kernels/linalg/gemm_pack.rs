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
        let present = mr.min(m - q * mr);
        let mut rows: [&[T]; MAX_MR] = [&[]; MAX_MR];
        let contiguous = (0..present).all(|r| a.row(q * mr + r).map(|row| rows[r] = row).is_some());
        if contiguous && present < mr {
            // The last, partial panel: zeros, then each row down its column (element
            // by element through the view, as below, it was about a sixth of
            // `pack_a`'s time for 64 rows in a profile).
            panel.fill(T::default());
            for (r, row) in rows[..present].iter().enumerate() {
                for (d, &v) in panel[r..].iter_mut().step_by(mr).zip(*row) {
                    *d = v;
                }
            }
            continue;
        }
        if contiguous {
            // All rows of the panel at once: `mr` sequential streams the prefetcher
            // follows (one short row after another would each start cold). Each
            // kernel's height is a constant, so that the copy unrolls without bounds
            // checks (the loop over a runtime `mr` cost a fifth of a 64³ product).
            match mr {
                4 => whole_a_panel::<T, 4>(panel, &rows),
                6 => whole_a_panel::<T, 6>(panel, &rows),
                12 => whole_a_panel::<T, 12>(panel, &rows),
                _ => {
                    for (p, d) in panel.chunks_exact_mut(mr).enumerate() {
                        for (d, row) in d.iter_mut().zip(&rows) {
                            *d = row[p];
                        }
                    }
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
        if cols == nr && b.col_stride() == 1 && whole_b_panel(panel, b, start, nr) {
            continue;
        }
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

/// Copies a panel of `R` whole rows (`rows`, each `k` long) into `panel` ([k][R]).
fn whole_a_panel<T: Copy, const R: usize>(panel: &mut [T], rows: &[&[T]; MAX_MR]) {
    let k = panel.len() / R;
    let rows: [&[T]; R] = std::array::from_fn(|r| &rows[r][..k]);
    for (p, d) in (0..k).zip(panel.chunks_exact_mut(R)) {
        for (d, row) in d.iter_mut().zip(&rows) {
            *d = row[p];
        }
    }
}

/// Copies columns `start..start + nr` of `b` (rows contiguous) into `panel` ([k][nr])
/// as fixed-size arrays, for a kernel's width; false (nothing copied) for another
/// width. (A slice copy of a few dozen values is a call to memmove each time: a tenth
/// of a 64³ product.)
fn whole_b_panel<T: Copy>(panel: &mut [T], b: Mat<T>, start: usize, nr: usize) -> bool {
    fn copy<T: Copy, const NR: usize>(panel: &mut [T], b: Mat<T>, start: usize) {
        for (p, d) in panel.chunks_exact_mut(NR).enumerate() {
            let src = b.row(p).and_then(|row| row.get(start..start + NR));
            if let (Ok(d), Some(Ok(src))) =
                (<&mut [T; NR]>::try_from(d), src.map(<&[T; NR]>::try_from))
            {
                *d = *src;
            }
        }
    }
    match nr {
        4 => copy::<T, 4>(panel, b, start),
        8 => copy::<T, 8>(panel, b, start),
        16 => copy::<T, 16>(panel, b, start),
        32 => copy::<T, 32>(panel, b, start),
        _ => return false,
    }
    true
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
        let data: Vec<i32> = (1..=35 * 29).collect();
        // Row-major and a transpose read through strides; panel sizes of every kernel
        // (the constant-size copies) and others (the general loop), whole and partial.
        for (rows, cols) in [(5, 7), (35, 29), (29, 35)] {
            let row_major = Mat::row_major(&data, rows, cols);
            for m in [row_major, Mat::row_major(&data, cols, rows).t()] {
                let (rows, cols) = (m.rows(), m.cols());
                for mr in [2, 4, 6, 12] {
                    let mut a = vec![-1; packed_len(rows, cols, mr)];
                    pack_a(&mut a, m, mr);
                    for i in 0..rows.next_multiple_of(mr) {
                        for p in 0..cols {
                            let want = if i < rows { m.at(i, p) } else { 0 };
                            assert_eq!(a[(i / mr * cols + p) * mr + i % mr], want);
                        }
                    }
                }
                for nr in [3, 4, 8, 16, 32] {
                    let mut b = vec![-1; packed_len(cols, rows, nr)];
                    pack_b(&mut b, m, nr);
                    for p in 0..rows {
                        for j in 0..cols.next_multiple_of(nr) {
                            let want = if j < cols { m.at(p, j) } else { 0 };
                            assert_eq!(b[(j / nr * rows + p) * nr + j % nr], want);
                        }
                    }
                }
            }
        }
    }
}

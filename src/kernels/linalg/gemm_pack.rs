//! Packing for the GEMM: a block of A becomes panels of `mr` rows ([p][mr] each), a
//! block of B panels of `nr` columns ([p][nr] each), so that the micro-kernel reads
//! both as contiguous streams. Rows or columns past the block's edge are zero.

use super::mat::Mat;
use crate::kernels::isa::Isa;

/// The most rows in an A panel (the tallest kernel's `mr`).
const MAX_MR: usize = 16;

/// Packs `a` (mc × kc) into ⌈mc / mr⌉ panels of [kc][mr] at the start of `dst`
/// (`mr` ≤ `MAX_MR`), with the SIMD copies `isa` allows (the same values either way).
pub fn pack_a<T: Copy + Default>(dst: &mut [T], a: Mat<T>, mr: usize, isa: Isa) {
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
                4 => whole_a_panel::<T, 4>(panel, &rows, 0),
                6 => whole_a_panel::<T, 6>(panel, &rows, 0),
                12 => whole_a_panel_12(panel, &rows, isa),
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
        // A transposed view (as `dh.T @ x` passes `dh`, the weight gradient of a linear
        // layer): each packed row is `mr` consecutive values of a column of A. Value by
        // value through the strides, that product of the MLP in benches/compare
        // (256 × 256 × 784, one thread) took 0.72–0.75 ms against 0.70–0.71.
        if present == mr && a.row_stride() == 1 && whole_b_panel(panel, a.t(), q * mr, mr) {
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
        if cols == nr && b.row_stride() == 1 && transposed_b_panel(panel, b, start, nr) {
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

/// Copies columns `from..k` of a panel of `R` whole rows (the first `R` of `rows`, each
/// at least `k` long) into `panel` ([k][R]).
fn whole_a_panel<T: Copy, const R: usize>(panel: &mut [T], rows: &[&[T]], from: usize) {
    let k = panel.len() / R;
    let rows: [&[T]; R] = std::array::from_fn(|r| &rows[r][..k]);
    for (p, d) in (from..k).zip(panel[from * R..].chunks_exact_mut(R)) {
        for (d, row) in d.iter_mut().zip(&rows) {
            *d = row[p];
        }
    }
}

/// `whole_a_panel` for 12 rows: on AVX2, values of 4 bytes (f32, the AVX-512 f32
/// kernel's panels) go through 8 × 8 and 4 × 8 register transposes, 8 columns at a
/// time; the columns past the last multiple of 8 (and other types) element by element.
/// Element by element only, the 12 rows of a 1024-wide A (4 KiB apart) are 12 loads per
/// packed row that map to the same L1 sets: packing the A of a 1024³ product took
/// 0.51 ms that way, 0.17 ms transposed (a harness on the AVX-512 Zen 4 here), about
/// 2% of the product's time saved.
fn whole_a_panel_12<T: Copy>(panel: &mut [T], rows: &[&[T]; MAX_MR], isa: Isa) {
    let k = panel.len() / 12;
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() && std::mem::size_of::<T>() == 4 {
        done = k / 8 * 8;
        let starts: [*const f32; 12] = std::array::from_fn(|r| rows[r][..k].as_ptr().cast());
        // SAFETY: AVX2 is allowed on this CPU (`Isa`). Each of the 12 rows holds k ≥ done
        // values and the panel 12 · k; moving 4-byte values as f32 bit patterns (loads
        // and stores, no arithmetic) copies any 4-byte `Copy` type exactly.
        unsafe { x86::panel_12_of_4_bytes(panel.as_mut_ptr().cast(), starts, done) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    whole_a_panel::<T, 12>(panel, rows, done);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Writes columns 0..k (a multiple of 8) of the 12 rows at `rows` to `dst` as
    /// [k][12], moving 4-byte values as f32 bit patterns.
    ///
    /// # Safety
    /// The CPU has AVX2; each row holds k values and `dst` 12 · k.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn panel_12_of_4_bytes(dst: *mut f32, rows: [*const f32; 12], k: usize) {
        for p in (0..k).step_by(8) {
            let mut columns = [[_mm256_setzero_ps(); 4]; 3];
            for (g, quad) in columns.iter_mut().enumerate() {
                let r = rows[4 * g..4 * g + 4]
                    .iter()
                    .map(|&row| row.wrapping_add(p));
                // SAFETY: AVX2 (the caller's contract); columns p..p + 8 (p + 8 ≤ k) of
                // rows 4g..4g + 4.
                *quad = unsafe { transpose_4_rows(r) };
            }
            // SAFETY: packed rows p..p + 8 are dst[12p..12(p + 8)], inside 12 · k.
            let d = unsafe { dst.add(p * 12) };
            let [tops, middles, bottoms] = columns;
            let quads = tops.iter().zip(&middles).zip(&bottoms);
            for (c, ((&top, &middle), &bottom)) in quads.enumerate() {
                // SAFETY: as above, packed rows p + c and p + c + 4.
                unsafe {
                    let (low, high) = (d.add(c * 12), d.add((c + 4) * 12));
                    _mm256_storeu_ps(low, _mm256_permute2f128_ps::<0x20>(top, middle));
                    _mm_storeu_ps(low.add(8), _mm256_castps256_ps128(bottom));
                    _mm256_storeu_ps(high, _mm256_permute2f128_ps::<0x31>(top, middle));
                    _mm_storeu_ps(high.add(8), _mm256_extractf128_ps::<1>(bottom));
                }
            }
        }
    }

    /// Eight columns of four rows, as four vectors: vector c holds column c of the four
    /// rows in its lower half and column c + 4 in its upper half.
    ///
    /// # Safety
    /// The CPU has AVX2; each pointer reads 8 values.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn transpose_4_rows(mut rows: impl Iterator<Item = *const f32>) -> [__m256; 4] {
        let mut r = [_mm256_setzero_ps(); 4];
        for (v, row) in r.iter_mut().zip(&mut rows) {
            // SAFETY: the caller's contract.
            *v = unsafe { _mm256_loadu_ps(row) };
        }
        let (ab_low, ab_high) = (
            _mm256_unpacklo_ps(r[0], r[1]),
            _mm256_unpackhi_ps(r[0], r[1]),
        );
        let (cd_low, cd_high) = (
            _mm256_unpacklo_ps(r[2], r[3]),
            _mm256_unpackhi_ps(r[2], r[3]),
        );
        [
            _mm256_shuffle_ps::<0x44>(ab_low, cd_low),
            _mm256_shuffle_ps::<0xEE>(ab_low, cd_low),
            _mm256_shuffle_ps::<0x44>(ab_high, cd_high),
            _mm256_shuffle_ps::<0xEE>(ab_high, cd_high),
        ]
    }
}

/// Copies columns `start..start + nr` of `b` (rows contiguous, `start + nr` within
/// them; the caller checks both, a row that is not would be left as it was) into
/// `panel` ([k][nr]) as fixed-size arrays, for a kernel's width or height (`pack_a`
/// passes a transposed A's `Aᵀ`, whose rows are A's columns); false (nothing copied)
/// for another size. (A slice copy of a few dozen values is a call to memmove each
/// time: a tenth of a 64³ product.)
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
        6 => copy::<T, 6>(panel, b, start),
        8 => copy::<T, 8>(panel, b, start),
        12 => copy::<T, 12>(panel, b, start),
        16 => copy::<T, 16>(panel, b, start),
        32 => copy::<T, 32>(panel, b, start),
        _ => return false,
    }
    true
}

/// A whole panel of columns `start..start + nr` of a `b` whose columns are contiguous
/// (the transpose of a row-major matrix, as `x @ w.T` passes `w`), as the A panel of
/// those rows of `bᵀ`: `nr` streams, one value of each per packed row. Value by
/// value through the strides (an index computation each), packing `w1ᵀ` was half
/// of the packing and 9% of a profile of an MLP's forward and backward. False (and
/// nothing written) for panel widths without a copy of their own.
fn transposed_b_panel<T: Copy>(panel: &mut [T], b: Mat<T>, start: usize, nr: usize) -> bool {
    fn copy<T: Copy, const NR: usize>(panel: &mut [T], columns: Mat<T>, start: usize) -> bool {
        let mut cols: [&[T]; NR] = [&[]; NR];
        for (j, col) in cols.iter_mut().enumerate() {
            match columns.row(start + j) {
                Some(c) => *col = c,
                None => return false,
            }
        }
        whole_a_panel::<T, NR>(panel, &cols, 0);
        true
    }
    match nr {
        8 => copy::<T, 8>(panel, b.t(), start),
        16 => copy::<T, 16>(panel, b.t(), start),
        32 => copy::<T, 32>(panel, b.t(), start),
        _ => false,
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
        let data: Vec<i32> = (1..=35 * 29).collect();
        // Row-major and a transpose read through strides; panel sizes of every kernel
        // (the constant-size copies) and others (the general loop), whole and partial.
        for (rows, cols) in [(5, 7), (35, 29), (29, 35)] {
            let row_major = Mat::row_major(&data, rows, cols);
            for m in [row_major, Mat::row_major(&data, cols, rows).t()] {
                let (rows, cols) = (m.rows(), m.cols());
                for (mr, isa) in [2, 4, 6, 12]
                    .into_iter()
                    .flat_map(|mr| Isa::supported().into_iter().map(move |isa| (mr, isa)))
                {
                    let mut a = vec![-1; packed_len(rows, cols, mr)];
                    pack_a(&mut a, m, mr, isa);
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

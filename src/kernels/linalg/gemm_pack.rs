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
                6 => whole_a_panel_by_transposes::<T, 6>(panel, &rows, isa),
                12 => whole_a_panel_by_transposes::<T, 12>(panel, &rows, isa),
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
        if present == mr
            && a.row_stride() == 1
            && whole_b_panels(panel, a.t().block(0..k, q * mr..q * mr + mr), mr)
        {
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
    // Whole panels of contiguous rows are copied all at once; the loop takes the rest.
    let first = if b.col_stride() == 1 && whole_b_panels(dst, b, nr) {
        n / nr
    } else {
        0
    };
    for (q, panel) in dst
        .chunks_exact_mut(nr * k)
        .take(n.div_ceil(nr))
        .enumerate()
        .skip(first)
    {
        let (start, cols) = (q * nr, nr.min(n - q * nr));
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

/// `whole_a_panel` for 6 or 12 rows (the f32 kernels' heights on AVX2 and AVX-512): on
/// AVX2, values of 4 bytes go through 4 × 8 register transposes, 8 columns at a time;
/// the columns past the last multiple of 8 (and other types and heights) element by
/// element. Element by element only, the rows of a 1024-wide A (4 KiB apart) are `R`
/// loads per packed row that map to the same L1 sets: packing the A of a 1024³
/// product with 12-row panels took 0.51 ms that way, 0.17 ms transposed (a harness on
/// an AVX-512 Zen 4), about 2% of the product's time saved; with 6-row panels (harness
/// on the AVX2 Zen 3 of docs/PERFORMANCE.md, medians of 9 × 100–200 packs, A in cache)
/// 48 × 1024 took 8.1 µs against 4.8, 126 × 256 5.2 against 2.9; in one-thread
/// profiles of products, where A comes from L2 or memory, 1.3% of 1024³ against 1.0%,
/// 3.0% of 256³ against 2.5%.
fn whole_a_panel_by_transposes<T: Copy, const R: usize>(
    panel: &mut [T],
    rows: &[&[T]; MAX_MR],
    isa: Isa,
) {
    let k = panel.len() / R;
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() && std::mem::size_of::<T>() == 4 && (R == 6 || R == 12) {
        done = k / 8 * 8;
        let starts: [*const f32; R] = std::array::from_fn(|r| rows[r][..k].as_ptr().cast());
        let dst = panel.as_mut_ptr().cast();
        // SAFETY: an `Isa` with AVX2 exists only on a CPU that has it. Each of the R rows
        // holds k ≥ done values and the panel R · k; moving 4-byte values as f32 bit
        // patterns (loads and stores, no arithmetic) copies any 4-byte plain-data type
        // (f32, i32, u32: no padding bytes) exactly.
        unsafe {
            match R {
                6 => x86::panel_6_of_4_bytes(dst, &starts, done),
                _ => x86::panel_12_of_4_bytes(dst, &starts, done),
            }
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = isa;
    whole_a_panel::<T, R>(panel, rows, done);
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Writes columns 0..k (a multiple of 8) of the 6 rows at `rows` to `dst` as
    /// [k][6], moving 4-byte values as f32 bit patterns: two rows of zeros make them 8,
    /// transposed as two quads, and each packed row is stored as 8 values whose last 2
    /// the next one's store overwrites (the eighth as 4 + 2, to end with its 8 columns).
    ///
    /// # Safety
    /// The CPU has AVX2; `rows` holds 6 pointers, each row holds k values and `dst`
    /// 6 · k.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn panel_6_of_4_bytes(dst: *mut f32, rows: &[*const f32], k: usize) {
        for p in (0..k).step_by(8) {
            let mut r = [_mm256_setzero_ps(); 8];
            // SAFETY: the caller's contract: columns p..p + 8 (p + 8 ≤ k) of rows 0..6.
            unsafe { load_columns(&mut r[..6], &rows[..6], p) };
            let top = transpose_4([r[0], r[1], r[2], r[3]]);
            let bottom = transpose_4([r[4], r[5], r[6], r[7]]);
            // SAFETY: packed rows p..p + 8 are dst[6p..6(p + 8)], inside 6 · k; the
            // stores go in order of packed row, and the 8 values of row c end at 6c + 8,
            // inside the next row, which is stored after.
            unsafe {
                let d = dst.add(p * 6);
                for c in 0..4 {
                    let low = _mm256_permute2f128_ps::<0x20>(top[c], bottom[c]);
                    _mm256_storeu_ps(d.add(c * 6), low);
                }
                for c in 4..7 {
                    let high = _mm256_permute2f128_ps::<0x31>(top[c - 4], bottom[c - 4]);
                    _mm256_storeu_ps(d.add(c * 6), high);
                }
                let last = _mm256_permute2f128_ps::<0x31>(top[3], bottom[3]);
                _mm_storeu_ps(d.add(42), _mm256_castps256_ps128(last));
                let rest = _mm_castps_si128(_mm256_extractf128_ps::<1>(last));
                _mm_storel_epi64(d.add(46).cast(), rest);
            }
        }
    }

    /// Writes columns 0..k (a multiple of 8) of the 12 rows at `rows` to `dst` as
    /// [k][12], moving 4-byte values as f32 bit patterns.
    ///
    /// # Safety
    /// The CPU has AVX2; `rows` holds 12 pointers, each row holds k values and `dst`
    /// 12 · k.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn panel_12_of_4_bytes(dst: *mut f32, rows: &[*const f32], k: usize) {
        for p in (0..k).step_by(8) {
            let mut r = [_mm256_setzero_ps(); 12];
            // SAFETY: the caller's contract: columns p..p + 8 (p + 8 ≤ k) of rows 0..12.
            unsafe { load_columns(&mut r, &rows[..12], p) };
            let [tops, middles, bottoms] = [0, 1, 2]
                .map(|g| transpose_4([r[4 * g], r[4 * g + 1], r[4 * g + 2], r[4 * g + 3]]));
            // SAFETY: packed rows p..p + 8 are dst[12p..12(p + 8)], inside 12 · k.
            let d = unsafe { dst.add(p * 12) };
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

    /// Columns p..p + 8 of each row in `rows` into `r`.
    ///
    /// # Safety
    /// The CPU has AVX2; each row holds p + 8 values.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn load_columns(r: &mut [__m256], rows: &[*const f32], p: usize) {
        for (v, &row) in r.iter_mut().zip(rows) {
            // SAFETY: the caller's contract.
            *v = unsafe { _mm256_loadu_ps(row.add(p)) };
        }
    }

    /// Eight columns of four rows, as four vectors: vector c holds column c of the four
    /// rows in its lower half and column c + 4 in its upper half.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn transpose_4(r: [__m256; 4]) -> [__m256; 4] {
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

/// Rows of B that `whole_b_panels` copies into every panel before moving on. Panel by
/// panel, each packed row of a 1024-wide B is read from a line 4 KiB past the previous
/// one's, a new page each time; 8 rows at a time, every panel takes 8 lines in a row
/// and the rows are read 8 at a time from start to end. In a harness on the AVX2 Zen 3 of
/// docs/PERFORMANCE.md (B in cache, medians of 9 × 10 packs), 1024 × 1024: panel by
/// panel 0.39–0.43 ms, 4 rows 0.24–0.25, 8 rows 0.20–0.21, 16 rows 0.29–0.33;
/// 1024 × 2048: 1.55–1.62, 0.62–0.69, 0.57–0.68, 0.72–0.74; 256 × 256 (in L2): 10,
/// 13–14, 9 and 8 µs. In one-thread profiles of products there, packing B took 2.9–3.1%
/// of 1024³ panel by panel and 1.2% 8 rows at a time, 3.1% and 2.7% of 256³.
const ROWS_AT_ONCE: usize = 8;

/// Copies the ⌊cols / nr⌋ whole panels of `b` (rows contiguous: the caller checks, a
/// row that is not would be left as it was) into the start of `dst` ([k][nr] each, one
/// after the other) as fixed-size arrays, for a kernel's width or height (`pack_a`
/// passes a transposed A's `Aᵀ`, whose rows are A's columns); false (nothing copied)
/// for another size. (A slice copy of a few dozen values is a call to memmove each
/// time: a tenth of a 64³ product.)
fn whole_b_panels<T: Copy>(dst: &mut [T], b: Mat<T>, nr: usize) -> bool {
    fn copy<T: Copy, const NR: usize>(dst: &mut [T], b: Mat<T>) {
        let k = b.rows();
        for p0 in (0..k).step_by(ROWS_AT_ONCE) {
            let rows: [Option<&[T]>; ROWS_AT_ONCE] =
                std::array::from_fn(|i| (p0 + i < k).then(|| b.row(p0 + i)).flatten());
            for (q, panel) in dst.chunks_exact_mut(k * NR).enumerate() {
                let columns = q * NR..(q + 1) * NR;
                for (d, row) in panel[p0 * NR..].chunks_exact_mut(NR).zip(&rows) {
                    let src = row.and_then(|row| row.get(columns.clone()));
                    if let (Ok(d), Some(Ok(src))) =
                        (<&mut [T; NR]>::try_from(d), src.map(<&[T; NR]>::try_from))
                    {
                        *d = *src;
                    }
                }
            }
        }
    }
    let dst = &mut dst[..b.cols() / nr * nr * b.rows()];
    if dst.is_empty() {
        return true;
    }
    match nr {
        4 => copy::<T, 4>(dst, b),
        6 => copy::<T, 6>(dst, b),
        8 => copy::<T, 8>(dst, b),
        12 => copy::<T, 12>(dst, b),
        16 => copy::<T, 16>(dst, b),
        32 => copy::<T, 32>(dst, b),
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
    fn panels_hold_the_block_and_zeros_past_it_and_nothing_after() {
        // Values after the panels, which no packing may write.
        const GUARD: usize = 16;
        let data: Vec<i32> = (1..=48 * 35).collect();
        // Row-major, a transpose read through strides and a block of a wider matrix (as
        // the GEMM passes its blocks); panel sizes of every kernel (the constant-size
        // copies) and others (the general loop), whole and partial; sizes that are
        // multiples of every panel and of 8 (the SIMD copies' last stores end the
        // buffer), and ones with tails.
        for (rows, cols) in [(5, 7), (35, 29), (29, 35), (24, 16), (48, 32)] {
            let row_major = Mat::row_major(&data, rows, cols);
            let wider = Mat::row_major(&data, rows, cols + 3).block(0..rows, 1..cols + 1);
            for m in [row_major, Mat::row_major(&data, cols, rows).t(), wider] {
                let (rows, cols) = (m.rows(), m.cols());
                for (mr, isa) in [2, 4, 6, 12]
                    .into_iter()
                    .flat_map(|mr| Isa::supported().into_iter().map(move |isa| (mr, isa)))
                {
                    let len = packed_len(rows, cols, mr);
                    let mut a = vec![-1; len + GUARD];
                    pack_a(&mut a, m, mr, isa);
                    assert!(a[len..].iter().all(|&v| v == -1), "past the panels");
                    for i in 0..rows.next_multiple_of(mr) {
                        for p in 0..cols {
                            let want = if i < rows { m.at(i, p) } else { 0 };
                            assert_eq!(a[(i / mr * cols + p) * mr + i % mr], want);
                        }
                    }
                }
                for nr in [3, 4, 6, 8, 12, 16, 32] {
                    let len = packed_len(cols, rows, nr);
                    let mut b = vec![-1; len + GUARD];
                    pack_b(&mut b, m, nr);
                    assert!(b[len..].iter().all(|&v| v == -1), "past the panels");
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

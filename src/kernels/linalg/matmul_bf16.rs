//! bf16 matrix products. Each output element is one f32 chain of fused multiply-adds
//! from +0 over the inner index taken in pairs, the odd index of each pair first
//! (k = 1, 0, 3, 2, ...; an odd last index alone), rounded once to bf16 at the end.
//! That is the order in which AVX-512 BF16's `vdpbf16ps` adds a pair of products into
//! an f32 sum, so a CPU that has it runs the products on it (32 multiply-adds per
//! instruction, twice an f32 FMA's); every other CPU runs the same chain on the f32
//! GEMM with the inner index permuted that way. The bits are the same on every ISA.
//!
//! `vdpbf16ps` rounds after each product, as a fused multiply-add does (a product of
//! two bf16 is exact in f32), but it reads subnormal inputs as zero and flushes
//! subnormal sums to zero. Measured on the AMD Zen 4 here: 3.2 million random pairs of
//! normal operands onto f32 sums gave exactly the bits of two fused multiply-adds, odd
//! index first (the even index first, or one rounding for both, differed in about
//! 3.55% of them). So the instruction runs a product only when no flush can happen
//! (`pairs_stay_normal`: every product finite, no product or nonzero sum
//! subnormal); any other product (tiny, huge, infinite or NaN operands) runs on the
//! f32 GEMM on every CPU.
//!
//! f16 has no kernel of its own: the machine this was built on has no AVX512-FP16, and
//! no untested kernel ships. It goes through f32 in `matmul`.

use half::bf16;

use super::gemm::gemm;
use super::mat::Mat;
use crate::kernels::isa::Isa;

/// `out = a · b` (row-major, a.rows × b.cols): each element the pair-order chain.
pub fn matmul(out: &mut [bf16], a: Mat<bf16>, b: Mat<bf16>) {
    matmul_on(Isa::detect(), out, a, b);
}

/// `matmul` with the kernels `isa` allows.
fn matmul_on(isa: Isa, out: &mut [bf16], a: Mat<bf16>, b: Mat<bf16>) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    // Cannot fire: `ops::matmul` checks the inner sizes. The SIMD paths read k values
    // of b's lines unchecked, so a mismatch must stop here.
    assert_eq!(k, b.rows(), "inner sizes of a bf16 product differ");
    let out = &mut out[..m * n];
    let mut wide = vec![0.0f32; out.len()];
    if k > 0 && !out.is_empty() && !on_avx512_bf16(isa, &mut wide, a, b) {
        chain_on_f32(&mut wide, a, b);
    }
    for (o, w) in out.iter_mut().zip(wide) {
        *o = bf16::from_f32(w);
    }
}

/// `wide = a · b` (a.rows × b.cols f32 values) on AVX-512 BF16 when `isa` has it and
/// the operands allow it (`pairs_stay_normal`); false otherwise (`wide` then holds
/// junk for the caller to overwrite).
#[cfg(target_arch = "x86_64")]
fn on_avx512_bf16(isa: Isa, wide: &mut [f32], a: Mat<bf16>, b: Mat<bf16>) -> bool {
    // SAFETY: an `Isa` with AVX-512 BF16 exists only on a CPU that has AVX-512 F, BW,
    // VL and BF16; `wide` holds a.rows × b.cols values.
    isa.avx512_bf16() && unsafe { avx512_bf16::product_if_exact(wide, a, b) }
}

#[cfg(not(target_arch = "x86_64"))]
fn on_avx512_bf16(_: Isa, _: &mut [f32], _: Mat<bf16>, _: Mat<bf16>) -> bool {
    false
}

/// Where the chain takes inner index `q` from: the pair's other index, unless that
/// is past the end (an odd last index).
fn in_pair_order(q: usize, k: usize) -> usize {
    if q ^ 1 < k {
        q ^ 1
    } else {
        q
    }
}

/// `wide = a · b` in f32, each element the pair-order chain, on the f32 GEMM (whose
/// elements are chains over the inner index in order) with A's columns and B's rows
/// permuted into pair order.
fn chain_on_f32(wide: &mut [f32], a: Mat<bf16>, b: Mat<bf16>) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let a32: Vec<f32> = (0..m)
        .flat_map(|i| (0..k).map(move |q| a.at(i, in_pair_order(q, k)).to_f32()))
        .collect();
    let b32: Vec<f32> = (0..k)
        .flat_map(|q| (0..n).map(move |j| b.at(in_pair_order(q, k), j).to_f32()))
        .collect();
    let (a32, b32) = (Mat::row_major(&a32, m, k), Mat::row_major(&b32, k, n));
    if n > 1 {
        gemm(wide, a32, b32);
    } else if m > 1 {
        // The GEMM takes one column as a matrix-vector product, whose sums are a tree of
        // interleaved chains (`dot`); its transpose, a row times a matrix, is one chain
        // per element.
        gemm(wide, b32.t(), a32.t());
    } else {
        wide[0] = (0..k).fold(0.0, |acc, q| a32.at(0, q).mul_add(b32.at(q, 0), acc));
    }
}

/// The products on AVX-512 BF16: A packed in panels of `MR` rows, B in strips of `NR`
/// columns (in parallel, one strip per item), both as the pairs `vdpbf16ps` reads (the
/// even index in the low half of a 32-bit word, the odd one in the high half, zero
/// past the end); a tile of `MR × NR` sums stays in registers for the whole chain.
/// A product with at most `FEW_ROWS` rows on one side and a weight matrix on the
/// other (`x @ W.T`) reads W's rows in place instead (`few_rows`).
#[cfg(target_arch = "x86_64")]
mod avx512_bf16 {
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU16, Ordering};

    use half::bf16;

    use super::Mat;
    use crate::kernels::parallel::{for_each_item, Disjoint};
    use crate::kernels::transpose::transpose;
    use crate::kernels::transpose16::transpose4_in_lanes;

    /// The smallest sum of the two operands' exponent fields (biased by 127) that keeps
    /// every product, and every nonzero partial sum, normal: a product of bf16 values
    /// with exponents ea and eb is a multiple of 2^(ea + eb - 14) (8-bit significands),
    /// so all sums are multiples of the smallest such step, which this keeps at 2^-126 or
    /// more: ea + eb ≥ -112.
    const MIN_EXPONENT_SUM: u16 = 2 * 127 - 112;
    /// The largest sum that keeps every product finite: below 2^(ea + eb + 2) ≤ 2^128
    /// with 16 significant bits, so at most f32's largest value.
    const MAX_EXPONENT_SUM: u16 = 2 * 127 + 126;

    /// The smallest and largest exponent field of `x`'s nonzero elements (`None` for all
    /// zeros), or `Err` when one is subnormal, infinite or NaN. Read along whichever way
    /// the view is contiguous.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn exponent_fields(x: Mat<bf16>) -> Fields {
        let x = if x.col_stride() != 1 && x.row_stride() == 1 {
            x.t()
        } else {
            x
        };
        let (mut lo, mut hi) = (u16::MAX, 0);
        for i in 0..x.rows() {
            let (line_lo, line_hi) = match x.row(i) {
                Some(line) => line_fields(line),
                None => line_fields(&(0..x.cols()).map(|j| x.at(i, j)).collect::<Vec<_>>()),
            };
            (lo, hi) = (lo.min(line_lo), hi.max(line_hi));
        }
        fields(lo, hi)
    }

    /// The exponent fields of an operand whose nonzero elements have fields `lo` and up
    /// (`u16::MAX`: none) and whose elements have fields up to `hi`, as `exponent_fields`
    /// gives them: the smallest field of a nonzero subnormal is 0, that of inf and NaN
    /// 0xff.
    fn fields(lo: u16, hi: u16) -> Fields {
        match (lo, hi) {
            (0, _) | (_, 0xff) => Err(()),
            _ if lo > hi => Ok(None),
            _ => Ok(Some((lo, hi))),
        }
    }

    /// The smallest exponent field of `line`'s nonzero elements (`u16::MAX` for none) and
    /// the largest of all, in a loop without branches that LLVM vectorizes for AVX-512 BW
    /// (built for the baseline ISA, it stayed scalar: 18% of a 1 × 4096 by 4096 × 4096
    /// product's profile, more than its 5% of multiply-adds).
    #[target_feature(enable = "avx512f,avx512bw")]
    fn line_fields(line: &[bf16]) -> (u16, u16) {
        let (mut lo, mut hi) = (u16::MAX, 0);
        for v in line {
            let magnitude = v.to_bits() & 0x7fff;
            let field = magnitude >> 7;
            lo = lo.min(if magnitude == 0 { u16::MAX } else { field });
            hi = hi.max(field);
        }
        (lo, hi)
    }

    /// True when every product of an element of `a` by one of `b` is finite and no
    /// product or nonzero partial sum is subnormal, so `vdpbf16ps` flushes nothing and
    /// gives the chain's bits (a sum that overflows is ±inf in both; tested). See the
    /// module doc of `matmul_bf16` and `MIN_EXPONENT_SUM`.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn pairs_stay_normal(a: Mat<bf16>, b: Mat<bf16>) -> bool {
        fields_allow(exponent_fields(a), exponent_fields(b))
    }

    /// `pairs_stay_normal` for operands with these exponent fields.
    fn fields_allow(a: Fields, b: Fields) -> bool {
        match (a, b) {
            (Ok(Some((a_lo, a_hi))), Ok(Some((b_lo, b_hi)))) => {
                a_lo + b_lo >= MIN_EXPONENT_SUM && a_hi + b_hi <= MAX_EXPONENT_SUM
            }
            // A side of zeros: every product is ±0 and every sum +0.
            (Ok(_), Ok(_)) => true,
            _ => false,
        }
    }

    /// The smallest and largest exponent field of an operand's nonzero elements
    /// (`None`: all zeros), or `Err` when one is subnormal, infinite or NaN.
    type Fields = Result<Option<(u16, u16)>, ()>;

    /// Pairs per block of `pack_lines` from lines contiguous along k: 64 bytes.
    const PACK_BLOCK: usize = 16;

    /// Rows of a tile: 12 × 2 sums of 16 lanes in 24 of the 32 registers.
    const MR: usize = 12;
    /// Columns of a tile: two registers.
    const NR: usize = 32;

    /// Lines `first..first + count` of `x` (lines × k: A's rows, or B's columns as
    /// the rows of Bᵀ) as pairs: `dst[q · width + r]` holds elements 2q (low half) and
    /// 2q + 1 (high half, 0 past the end) of line first + r. Lines contiguous along k
    /// give their pairs as they lie, lines side by side (k rows of them contiguous)
    /// interleave two of those rows; other views go element by element. `dst` must be
    /// zeros: entries past the lines and the pairs are left as they are.
    fn pack_lines(x: Mat<bf16>, (first, count): (usize, usize), width: usize, dst: &mut [u32]) {
        let k = x.cols();
        let bits = |v: bf16| u32::from(v.to_bits());
        if x.col_stride() == 1 {
            // In blocks of 16 pairs (a cache line of each line). Pair by pair over all
            // lines, W's rows of a 1 × 4096 by 4096 × 4096 product (8 KiB apart, one
            // L1 set) made that product 2.6 times slower (18 → 47.5 ms).
            let lines: Vec<&[[bf16; 2]]> = (first..first + count)
                .map_while(|l| x.row(l).map(|line| line.as_chunks::<2>().0))
                .collect();
            for q0 in (0..k / 2).step_by(PACK_BLOCK) {
                let q1 = (q0 + PACK_BLOCK).min(k / 2);
                for (r, line) in lines.iter().enumerate() {
                    for (q, &[low, high]) in (q0..q1).zip(&line[q0..q1]) {
                        dst[q * width + r] = bits(low) | bits(high) << 16;
                    }
                }
            }
            if k % 2 == 1 {
                let dst = &mut dst[k / 2 * width..];
                for (r, d) in dst.iter_mut().take(count).enumerate() {
                    *d = x.row(first + r).map_or(0, |line| bits(line[k - 1]));
                }
            }
        } else if x.row_stride() == 1 {
            let across = x.t();
            for (q, dst) in dst.chunks_exact_mut(width).take(k.div_ceil(2)).enumerate() {
                let line = |p: usize| across.row(p).map(|l| &l[first..first + count]);
                let high = if 2 * q + 1 < k { line(2 * q + 1) } else { None };
                let Some(low) = line(2 * q) else { break };
                match high {
                    Some(high) => {
                        for ((d, &l), &h) in dst.iter_mut().zip(low).zip(high) {
                            *d = bits(l) | bits(h) << 16;
                        }
                    }
                    None => {
                        for (d, &l) in dst.iter_mut().zip(low) {
                            *d = bits(l);
                        }
                    }
                }
            }
        } else {
            for r in 0..count {
                for p in 0..k {
                    dst[p / 2 * width + r] |= bits(x.at(first + r, p)) << (16 * (p % 2));
                }
            }
        }
    }

    /// `wide = a · b` in f32 (row-major), each element the pair-order chain, when the
    /// operands allow it (`pairs_stay_normal`); false otherwise (`wide` then holds
    /// junk). With at most `FEW_ROWS` rows on one side and the other side's lines
    /// contiguous along k (a weight matrix W in `x @ W.T`), `few_rows` reads those lines
    /// in place; otherwise both are packed (`product`).
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW, VL and BF16; a.cols = b.rows > 0, a.rows · b.cols > 0,
    /// and `wide` holds a.rows × b.cols values.
    pub(super) unsafe fn product_if_exact(wide: &mut [f32], a: Mat<bf16>, b: Mat<bf16>) -> bool {
        let (m, n) = (a.rows(), b.cols());
        if m <= FEW_ROWS && b.row_stride() == 1 {
            // SAFETY: the caller's contract, and a.rows ≤ FEW_ROWS, b's row stride 1.
            return unsafe { few_rows(wide, a, b) };
        }
        if n <= FEW_ROWS && a.col_stride() == 1 {
            let mut transposed = vec![0.0; n * m];
            // SAFETY: the caller's CPU and sizes; bᵀ has n ≤ FEW_ROWS rows, aᵀ row
            // stride 1 (a's column stride), and `transposed` holds n × m values.
            if !unsafe { few_rows(&mut transposed, b.t(), a.t()) } {
                return false;
            }
            wide[..m * n].copy_from_slice(&transpose(&transposed, n, m));
            return true;
        }
        // SAFETY: the caller's contract.
        unsafe {
            pairs_stay_normal(a, b) && {
                product(wide, a, b);
                true
            }
        }
    }

    /// Rows of `a` that `few_rows` takes: one register of 16 sums each.
    const FEW_ROWS: usize = 4;

    /// `product_if_exact` for a of at most `FEW_ROWS` rows and b's columns contiguous
    /// (the rows of W = bᵀ): 16 columns at a time, 16 pairs of each read from W's rows
    /// in place (`sums_of`), transposed in registers, and added onto the sums of a's
    /// rows; the exponent scan of W is folded into the same pass (packing and scanning
    /// W first took 80% of a 1 × 4096 by 4096 × 4096 product, 6.2–7.2 ms at one thread
    /// of the Zen 4 here; this took 2.5–2.6). The sums are written before the scan's
    /// verdict, which decides whether they stand. A prefetch 512 to 2048 bytes ahead on
    /// each line was slower (2.8–2.9 ms).
    ///
    /// # Safety
    /// As `product_if_exact`, with a.rows ≤ FEW_ROWS, a.rows · b.cols > 0, b.rows > 0
    /// and b's row stride 1.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    unsafe fn few_rows(wide: &mut [f32], a: Mat<bf16>, b: Mat<bf16>) -> bool {
        let (m, k, n) = (a.rows(), a.cols(), b.cols());
        let a_fields = exponent_fields(a);
        if a_fields.is_err() {
            return false;
        }
        // a's pairs, zero up to whole blocks of 16 pairs: word (q, i) at q · m + i.
        let pairs = k.div_ceil(2);
        let mut a_pairs = vec![0u32; pairs.next_multiple_of(16) * m];
        pack_lines(a, (0, m), m, &mut a_pairs);
        let w = b.t();
        let (least, most) = (AtomicU16::new(u16::MAX), AtomicU16::new(0));
        let out = Disjoint::new(&mut wide[..m * n]);
        let group = |_: &mut (), g: usize| {
            let cols = 16.min(n - 16 * g);
            let lines: [Option<&[bf16]>; 16] =
                std::array::from_fn(|c| if c < cols { w.row(16 * g + c) } else { None });
            let mut sums = [[0.0f32; 16]; FEW_ROWS];
            // SAFETY: the caller's CPU; `a_pairs` holds whole blocks of 16 pairs of m
            // rows, each line k values.
            let (line_least, line_most) = unsafe {
                match m {
                    1 => sums_of::<1>(&lines, &a_pairs, k, &mut sums),
                    2 => sums_of::<2>(&lines, &a_pairs, k, &mut sums),
                    3 => sums_of::<3>(&lines, &a_pairs, k, &mut sums),
                    _ => sums_of::<FEW_ROWS>(&lines, &a_pairs, k, &mut sums),
                }
            };
            least.fetch_min(line_least, Ordering::Relaxed);
            most.fetch_max(line_most, Ordering::Relaxed);
            for (i, row_sums) in sums.iter().take(m).enumerate() {
                // SAFETY: group g alone writes columns 16g..16g + cols of each row.
                let row = unsafe { out.part(i * n + 16 * g, cols) };
                row.copy_from_slice(&row_sums[..cols]);
            }
        };
        for_each_item(n.div_ceil(16), || (), group);
        // The least nonzero magnitude is one more than the least of magnitude - 1
        // (u16::MAX for zeros, wrapping); the fields are its top bits.
        let (least, most) = (least.into_inner(), most.into_inner());
        let least_field = if least == u16::MAX {
            u16::MAX
        } else {
            (least + 1) >> 7
        };
        let b_fields = fields(least_field, most >> 7);
        fields_allow(a_fields, b_fields)
    }

    /// The sums of `few_rows` for M rows of a (`a_pairs`) and the 16 lines of W in
    /// `lines` (`None` past W's end: zeros), into `sums[i][c]`; returns the least
    /// magnitude less one (wrapping: zeros give u16::MAX) and the largest magnitude of
    /// the lines' elements.
    ///
    /// Each block of 16 pairs is read as 16 registers whose 128-bit lanes are 16-byte
    /// loads of different lines (`whole_lanes`; `lanes_of` for the last block and
    /// group), so the loads do the transpose across lanes and only the 4 × 4
    /// transposes inside lanes remain (`transpose4_in_lanes`, half the shuffles of
    /// `transpose16`). A 16-byte load spans two cache lines only when a line of W does
    /// not start on 16 bytes (the allocator's buffers do, and so do W's rows when k is
    /// a multiple of 8); a 64-byte load of each line, as before, did whenever the line
    /// did not start on a cache line. A 1 × 4096 by 4096 × 4096 product on the Zen 4
    /// here, against those loads and the full 16 × 16 transpose (medians of five
    /// alternating rounds): with W 48 bytes past a cache line, 3.19–4.27 → 2.32–3.00 ms
    /// at one thread; with W on a line within 4% either way; at two threads 0.99–1.73 →
    /// 1.12–1.37, faster in 8 of 10 pairs.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW, VL and BF16; each line holds k values and `a_pairs`
    /// k.div_ceil(2) rounded up to 16 pairs of M words.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512bf16")]
    unsafe fn sums_of<const M: usize>(
        lines: &[Option<&[bf16]>; 16],
        a_pairs: &[u32],
        k: usize,
        sums: &mut [[f32; 16]; FEW_ROWS],
    ) -> (u16, u16) {
        const { assert!(M >= 1 && M <= FEW_ROWS) };
        let mut acc = [_mm512_setzero_ps(); M];
        let (mut least, mut most) = (_mm512_set1_epi16(-1), _mm512_setzero_si512());
        let (magnitude, one) = (_mm512_set1_epi16(0x7fff), _mm512_set1_epi16(1));
        // All 16 lines, when W has them (every group but perhaps the last); no line is
        // missing where `unwrap_or_default` runs.
        let whole = lines
            .iter()
            .all(Option::is_some)
            .then(|| lines.map(Option::unwrap_or_default));
        for q0 in (0..k.div_ceil(2)).step_by(16) {
            // v[4b + r], in 128-bit lane L: pairs q0 + 4b.. q0 + 4b + 4 of line 4L + r
            // (elements 2·q0 + 8b.. of it), zero past its end (the odd last pair's high
            // half too, as the chain has it).
            let left = k - 2 * q0;
            let v = match whole {
                // SAFETY: the caller's CPU; 32 elements from 2·q0 on lie within k.
                Some(whole) if left >= 32 => unsafe { whole_lanes(&whole, 2 * q0) },
                _ => {
                    let mut v = [_mm512_setzero_si512(); 16];
                    for (j, v) in v.iter_mut().enumerate() {
                        // SAFETY: the caller's CPU; each line holds k = 2·q0 + `left`
                        // values.
                        *v = unsafe { lanes_of(lines, j, q0, left) };
                    }
                    v
                }
            };
            for &x in &v {
                let x = _mm512_and_si512(x, magnitude);
                least = _mm512_min_epu16(least, _mm512_sub_epi16(x, one));
                most = _mm512_max_epu16(most, x);
            }
            // t[q] lane c: pair q0 + q of line c.
            let t = transpose4_in_lanes(&v);
            for (q, &t) in t.iter().enumerate() {
                // SAFETY: a 512-bit vector is one of 32 bf16 (the same 64 bytes).
                let t: __m512bh = unsafe { std::mem::transmute(t) };
                for (i, acc) in acc.iter_mut().enumerate() {
                    // SAFETY: (q0 + q) · M + i is below the whole blocks of `a_pairs`.
                    let word = unsafe { *a_pairs.get_unchecked((q0 + q) * M + i) } as i32;
                    // SAFETY: as above.
                    let a: __m512bh = unsafe { std::mem::transmute(_mm512_set1_epi32(word)) };
                    *acc = _mm512_dpbf16_ps(*acc, a, t);
                }
            }
        }
        for (row, acc) in sums.iter_mut().zip(&acc) {
            // SAFETY: a row holds 16 f32.
            unsafe { _mm512_storeu_ps(row.as_mut_ptr(), *acc) };
        }
        let (mut lo, mut hi) = ([0u16; 32], [0u16; 32]);
        // SAFETY: each array holds 32 u16, one register.
        unsafe {
            _mm512_storeu_si512(lo.as_mut_ptr().cast(), least);
            _mm512_storeu_si512(hi.as_mut_ptr().cast(), most);
        }
        (
            lo.into_iter().fold(u16::MAX, u16::min),
            hi.into_iter().fold(0, u16::max),
        )
    }

    /// The registers of `lanes_of` for 16 whole lines and 32 elements of each from `at`
    /// on, without its length and missing-line checks.
    ///
    /// # Safety
    /// The CPU has AVX-512 F; each line holds at least `at + 32` values.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn whole_lanes(lines: &[&[bf16]; 16], at: usize) -> [__m512i; 16] {
        std::array::from_fn(|j| {
            let (b, r) = (j / 4, j % 4);
            // SAFETY: `at + 8b + 8` ≤ `at + 32` values lie within each line.
            let part = |lane: usize| unsafe {
                _mm_loadu_si128(lines[4 * lane + r].as_ptr().add(at + 8 * b).cast())
            };
            let x = _mm512_castsi128_si512(part(0));
            let x = _mm512_inserti32x4::<1>(x, part(1));
            let x = _mm512_inserti32x4::<2>(x, part(2));
            _mm512_inserti32x4::<3>(x, part(3))
        })
    }

    /// Register `j` = 4b + r of a block of `sums_of`: in its 128-bit lane L, the 8
    /// elements 2·q0 + 8b.. of line 4L + r, zero past the line's end (`left` = k - 2·q0
    /// elements remain) and for a missing line: each lane one 16-byte load, masked
    /// where fewer than 8 elements remain.
    ///
    /// # Safety
    /// The CPU has AVX-512 F, BW and VL; each line holds at least 2·q0 + `left` values.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    #[inline]
    unsafe fn lanes_of(lines: &[Option<&[bf16]>; 16], j: usize, q0: usize, left: usize) -> __m512i {
        let (b, r) = (j / 4, j % 4);
        let at = 2 * q0 + 8 * b;
        let count = left.saturating_sub(8 * b).min(8);
        let mut x = _mm512_setzero_si512();
        if count == 0 {
            return x;
        }
        for lane in 0..4 {
            let Some(line) = lines[4 * lane + r] else {
                continue;
            };
            let into: __mmask16 = 0xf << (4 * lane);
            // SAFETY: 0 < count and `at + count` ≤ k ≤ the line's length; the masked
            // load reads only the first `count` elements.
            let part = unsafe {
                let from = line.as_ptr().add(at).cast::<__m128i>();
                if count == 8 {
                    _mm_loadu_si128(from)
                } else {
                    _mm_maskz_loadu_epi16(((1u16 << count) - 1) as __mmask8, from.cast())
                }
            };
            x = _mm512_mask_broadcast_i32x4(x, into, part);
        }
        x
    }

    /// `wide = a · b` in f32 (row-major), each element the pair-order chain. With few
    /// columns and more rows, as the transposed product (the products commute, so
    /// each chain is the same), so that a tile's 32 columns are a's rows.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BF16; `wide` holds a.rows × b.cols values.
    pub(super) unsafe fn product(wide: &mut [f32], a: Mat<bf16>, b: Mat<bf16>) {
        let (m, n) = (a.rows(), b.cols());
        if n < NR && m > n {
            let mut transposed = vec![0.0; n * m];
            // SAFETY: the caller's CPU; `transposed` holds n × m values.
            unsafe { tiles(&mut transposed, b.t(), a.t()) };
            wide[..m * n].copy_from_slice(&transpose(&transposed, n, m));
        } else {
            // SAFETY: the caller's contract.
            unsafe { tiles(wide, a, b) };
        }
    }

    /// `product` without the transposition.
    ///
    /// # Safety
    /// As `product`.
    unsafe fn tiles(wide: &mut [f32], a: Mat<bf16>, b: Mat<bf16>) {
        let (m, k, n) = (a.rows(), a.cols(), b.cols());
        let pairs = k.div_ceil(2);
        let mut packed_a = vec![0u32; m.div_ceil(MR) * pairs * MR];
        for (p, panel) in packed_a.chunks_exact_mut(pairs * MR).enumerate() {
            pack_lines(a, (p * MR, MR.min(m - p * MR)), MR, panel);
        }
        let out = Disjoint::new(&mut wide[..m * n]);
        let strip = |packed_b: &mut Vec<u32>, s: usize| {
            let (j0, cols) = (s * NR, NR.min(n - s * NR));
            packed_b.fill(0);
            pack_lines(b.t(), (j0, cols), NR, packed_b);
            for (p, panel) in packed_a.chunks_exact(pairs * MR).enumerate() {
                let rows = MR.min(m - p * MR);
                let mut sums = [[0.0f32; NR]; MR];
                macro_rules! by_rows {
                    ($($r:literal),*) => {
                        match rows {
                            $($r => {
                                // SAFETY: the caller's CPU has AVX-512 F and BF16; the
                                // panel holds pairs × MR words, the strip pairs × NR.
                                unsafe { tile::<$r>(panel, packed_b, &mut sums) }
                            })*
                            _ => {
                                // SAFETY: as above (rows is MR: the last count left).
                                unsafe { tile::<MR>(panel, packed_b, &mut sums) }
                            }
                        }
                    };
                }
                by_rows!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
                for (r, row_sums) in sums.iter().take(rows).enumerate() {
                    // SAFETY: strip s alone writes columns j0..j0 + cols of each row.
                    let row = unsafe { out.part((p * MR + r) * n + j0, cols) };
                    row.copy_from_slice(&row_sums[..cols]);
                }
            }
        };
        for_each_item(n.div_ceil(NR), || vec![0u32; pairs * NR], strip);
    }

    /// The first R rows of an `MR × NR` tile: `sums[r][j] = Σ_q` over the pairs of
    /// `vdpbf16ps` (odd index first), from +0, of panel row r and strip column j.
    ///
    /// # Safety
    /// The CPU has AVX-512 F and BF16; `panel` holds pairs × MR words and `strip`
    /// pairs × NR.
    #[target_feature(enable = "avx512f,avx512bf16")]
    unsafe fn tile<const R: usize>(panel: &[u32], strip: &[u32], sums: &mut [[f32; NR]; MR]) {
        const { assert!(R >= 1 && R <= MR) };
        let pairs = strip.len() / NR;
        debug_assert!(panel.len() >= pairs * MR);
        let mut acc = [[_mm512_setzero_ps(); 2]; R];
        // SAFETY: the caller's CPU; the loads read words q·NR..q·NR + 32 of the strip
        // and q·MR + r < q·MR + MR of the panel, for q < pairs: within both. A vector
        // of 16 words is one of 32 bf16 (the same 64 bytes), which `vdpbf16ps` reads.
        unsafe {
            for q in 0..pairs {
                let pb = strip.as_ptr().add(q * NR);
                let b0: __m512bh = std::mem::transmute(_mm512_loadu_si512(pb.cast()));
                let b1: __m512bh = std::mem::transmute(_mm512_loadu_si512(pb.add(16).cast()));
                for (r, acc) in acc.iter_mut().enumerate() {
                    let word = *panel.get_unchecked(q * MR + r) as i32;
                    let a: __m512bh = std::mem::transmute(_mm512_set1_epi32(word));
                    acc[0] = _mm512_dpbf16_ps(acc[0], a, b0);
                    acc[1] = _mm512_dpbf16_ps(acc[1], a, b1);
                }
            }
            for (row, acc) in sums.iter_mut().zip(&acc) {
                _mm512_storeu_ps(row.as_mut_ptr(), acc[0]);
                _mm512_storeu_ps(row.as_mut_ptr().add(16), acc[1]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::test_bits::random_bits;

    fn bits(v: &[bf16]) -> Vec<u16> {
        v.iter().map(|v| v.to_bits()).collect()
    }

    /// `m × n` bf16 values from `x(bits)`.
    fn matrix(m: usize, n: usize, seed: u64, x: impl Fn(u64) -> f32) -> Vec<bf16> {
        let mut bits = random_bits(seed);
        (0..m * n).map(|_| bf16::from_f32(x(bits()))).collect()
    }

    /// Normal values of either sign spread over 2^-20..2^20.
    fn spread(bits: u64) -> f32 {
        let sign = if bits & 1 == 0 { 1.0 } else { -1.0 };
        let exponent = ((bits >> 8) % 41) as i32 - 20;
        sign * (1.0 + (bits >> 20) as f32 / (1u64 << 44) as f32) * 2f32.powi(exponent)
    }

    /// The chain of the module doc, one element at a time.
    fn naive(a: &[bf16], b: &[bf16], (m, k, n): (usize, usize, usize)) -> Vec<bf16> {
        let mut out = Vec::with_capacity(m * n);
        for i in 0..m {
            for j in 0..n {
                // The order written out here rather than through `in_pair_order`.
                let order = (0..k).map(|q| match q % 2 {
                    0 if q + 1 < k => q + 1,
                    1 => q - 1,
                    _ => q,
                });
                let sum = order.fold(0.0f32, |acc, p| {
                    a[i * k + p].to_f32().mul_add(b[p * n + j].to_f32(), acc)
                });
                out.push(bf16::from_f32(sum));
            }
        }
        out
    }

    fn product(isa: Isa, a: &[bf16], b: &[bf16], (m, k, n): (usize, usize, usize)) -> Vec<u16> {
        let mut out = vec![bf16::ZERO; m * n];
        let (a, b) = (Mat::row_major(a, m, k), Mat::row_major(b, k, n));
        matmul_on(isa, &mut out, a, b);
        out.iter().map(|x| x.to_bits()).collect()
    }

    const SHAPES: [(usize, usize, usize); 12] = [
        (1, 1, 1),
        (1, 7, 1),
        (3, 8, 1),
        (40, 33, 1),
        (1, 33, 70),
        (2, 1, 3),
        (13, 17, 31),
        (12, 64, 32),
        (25, 101, 65),
        (30, 256, 3),
        (5, 2, 100),
        (4, 0, 3),
    ];

    #[test]
    fn every_isa_gives_the_naive_chain() {
        for (s, &(m, k, n)) in SHAPES.iter().enumerate() {
            let a = matrix(m, k, 1 + s as u64, spread);
            let b = matrix(k, n, 101 + s as u64, spread);
            let want: Vec<u16> = naive(&a, &b, (m, k, n))
                .iter()
                .map(|x| x.to_bits())
                .collect();
            for isa in Isa::supported() {
                assert_eq!(
                    product(isa, &a, &b, (m, k, n)),
                    want,
                    "{m}×{k}×{n} on {isa:?}"
                );
            }
        }
        if !Isa::detect().avx512_bf16() {
            eprintln!("skipping the AVX-512 BF16 kernel: this CPU does not have it");
        }
    }

    /// `pairs_stay_normal` where the CPU runs it (only CPUs with AVX-512 BF16 ask).
    fn gate(a: Mat<bf16>, b: Mat<bf16>) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        if Isa::detect().avx512_bf16() {
            // SAFETY: the CPU has AVX-512 F, BW and BF16 (just checked).
            return Some(unsafe { avx512_bf16::pairs_stay_normal(a, b) });
        }
        eprintln!("skipping the gate of the AVX-512 BF16 kernel: this CPU does not have it");
        None
    }

    #[test]
    fn views_of_any_strides_give_the_naive_chain() {
        // A as the transpose of a row-major k × m buffer (its lines side by side), B
        // every other column of a k × 2n one (contiguous neither way); then Bᵀ · Aᵀ,
        // whose chains are those of A · B (the products commute).
        for &(m, k, n) in &[(13, 17, 31), (40, 33, 1), (3, 65, 45)] {
            let (at, wide_b) = (matrix(k, m, 5, spread), matrix(k, 2 * n, 6, spread));
            let a = Mat::row_major(&at, k, m).t();
            let Some(b) = Mat::new(&wide_b, 0, (k, n), (2 * n as isize, 2)) else {
                panic!("a view of {k} × {n}")
            };
            let (a_rows, b_rows) = (a.collect_row_major(|v| v), b.collect_row_major(|v| v));
            let want = naive(&a_rows, &b_rows, (m, k, n));
            let want_t: Vec<bf16> = (0..n * m).map(|t| want[t % m * n + t / m]).collect();
            for isa in Isa::supported() {
                for (x, y, want) in [(a, b, &want), (b.t(), a.t(), &want_t)] {
                    let mut out = vec![bf16::ZERO; m * n];
                    matmul_on(isa, &mut out, x, y);
                    assert_eq!(bits(&out), bits(want), "{m}×{k}×{n} on {isa:?}");
                }
            }
        }
    }

    #[test]
    fn weights_read_in_place_give_the_naive_chain() {
        // x @ W.T with W row-major (`few_rows`), and W @ xᵀ, its transpose: odd and
        // even k, partial blocks of 16 pairs and of 16 columns, one to four rows; and
        // 13 rows, which pack W instead.
        for (s, &(m, k, n)) in [
            (1, 1000, 50),
            (3, 100, 37),
            (4, 31, 16),
            (2, 64, 17),
            (1, 2, 1),
            (4, 33, 45),
            (13, 33, 45),
        ]
        .iter()
        .enumerate()
        {
            let (x, w) = (
                matrix(m, k, 7 + s as u64, spread),
                matrix(n, k, 8 + s as u64, spread),
            );
            let w_t: Vec<bf16> = Mat::row_major(&w, n, k).t().collect_row_major(|v| v);
            let want = naive(&x, &w_t, (m, k, n));
            let want_t: Vec<bf16> = (0..n * m).map(|t| want[t % m * n + t / m]).collect();
            let (x, w) = (Mat::row_major(&x, m, k), Mat::row_major(&w, n, k));
            for isa in Isa::supported() {
                for (l, r, want) in [(x, w.t(), &want), (w, x.t(), &want_t)] {
                    let mut out = vec![bf16::ZERO; m * n];
                    matmul_on(isa, &mut out, l, r);
                    assert_eq!(bits(&out), bits(want), "{m}×{k}×{n} on {isa:?}");
                }
            }
        }
    }

    #[test]
    fn operands_that_could_flush_take_the_f32_chain() {
        // One element of a, and all of b.
        for (what, x, y) in [
            ("subnormal", f32::from_bits(0x0001_0000), 1.5),
            ("infinite", f32::INFINITY, 1.5),
            ("NaN", f32::NAN, 1.5),
            ("tiny products", 2f32.powi(-57), 2f32.powi(-56)),
            ("huge products", 2f32.powi(64), 2f32.powi(63)),
        ] {
            // 17 rows and k = 40: as weights, a fills a group of 16 lines whose first
            // 32 elements take `whole_lanes` and the rest `lanes_of`; a[5] is in the
            // former.
            let (m, k, n) = (17, 40, 33);
            let mut a = matrix(m, k, 3, spread);
            a[5] = bf16::from_f32(x);
            let b = matrix(k, n, 4, |_| y);
            let (a_mat, b_mat) = (Mat::row_major(&a, m, k), Mat::row_major(&b, k, n));
            assert_ne!(gate(a_mat, b_mat), Some(true), "{what}");
            let want: Vec<u16> = naive(&a, &b, (m, k, n))
                .iter()
                .map(|x| x.to_bits())
                .collect();
            for isa in Isa::supported() {
                assert_eq!(product(isa, &a, &b, (m, k, n)), want, "{what} on {isa:?}");
            }
            // Through `few_rows`: the odd element in the few rows (two rows of a by
            // bᵀᵀ, W = bᵀ read in place), and in the weights (two rows by aᵀ).
            let w: Vec<bf16> = b_mat.t().collect_row_major(|v| v);
            let ones = matrix(2, k, 9, |_| 1.5);
            for (x, w, rows) in [(&a[..2 * k], &w, n), (&ones[..], &a, m)] {
                let (x_mat, w_mat) = (Mat::row_major(x, 2, k), Mat::row_major(w, rows, k));
                let w_t: Vec<bf16> = w_mat.t().collect_row_major(|v| v);
                let want = naive(x, &w_t, (2, k, rows));
                for isa in Isa::supported() {
                    let mut out = vec![bf16::ZERO; 2 * rows];
                    matmul_on(isa, &mut out, x_mat, w_mat.t());
                    assert_eq!(bits(&out), bits(&want), "{what} in place on {isa:?}");
                }
            }
        }
    }

    #[test]
    fn weights_with_data_past_their_lines_are_read_up_to_k() {
        // W as the first k of k + 3 values per row, the rest NaN, subnormal and inf:
        // the masked loads must leave them out of the sums and of the exponent scan.
        let (m, k, n) = (2, 37, 21);
        let x = matrix(m, k, 11, spread);
        let mut w_buf = matrix(n, k + 3, 12, spread);
        for row in w_buf.chunks_exact_mut(k + 3) {
            row[k..].copy_from_slice(&[bf16::NAN, bf16::from_bits(1), bf16::INFINITY]);
        }
        let Some(w) = Mat::new(&w_buf, 0, (n, k), (k as isize + 3, 1)) else {
            panic!("a view of {n} × {k}")
        };
        let w_t: Vec<bf16> = w.t().collect_row_major(|v| v);
        let want = naive(&x, &w_t, (m, k, n));
        for isa in Isa::supported() {
            let mut out = vec![bf16::ZERO; m * n];
            matmul_on(isa, &mut out, Mat::row_major(&x, m, k), w.t());
            assert_eq!(bits(&out), bits(&want), "on {isa:?}");
        }
    }

    #[test]
    fn a_lone_subnormal_weight_is_not_flushed() {
        // One product with a subnormal weight and zeros elsewhere: flushed, it would
        // give 0 instead of the chain's tiny value (through `few_rows`, both ways round).
        // With 17 weight rows and k = 40 the weight sits in a `whole_lanes` block.
        for (k, n) in [(5, 3), (40, 17)] {
            let mut w = vec![bf16::ZERO; n * k];
            w[k + 2] = bf16::from_bits(0x0040);
            let w_t: Vec<bf16> = Mat::row_major(&w, n, k).t().collect_row_major(|v| v);
            for m in [1, 7] {
                let x = matrix(m, k, 13, |_| 1.5);
                let want = naive(&x, &w_t, (m, k, n));
                assert_ne!(want[1], bf16::ZERO);
                for isa in Isa::supported() {
                    let mut out = vec![bf16::ZERO; m * n];
                    let w_mat = Mat::row_major(&w, n, k).t();
                    matmul_on(isa, &mut out, Mat::row_major(&x, m, k), w_mat);
                    assert_eq!(bits(&out), bits(&want), "{m}×{k}×{n} on {isa:?}");
                }
            }
        }
    }

    #[test]
    fn sums_that_overflow_are_infinite_on_every_path() {
        // Products just below 2^128 pass the exponent check; their sums overflow to
        // inf, and a product of the other sign later does not bring them back.
        let big = bf16::from_f32(1.984375 * 2f32.powi(63));
        let (m, k, n) = (2, 6, 40);
        let x: Vec<bf16> = (0..m * k)
            .map(|i| if i % k == 4 { -big } else { big })
            .collect();
        let w = vec![big; n * k];
        let w_t: Vec<bf16> = Mat::row_major(&w, n, k).t().collect_row_major(|v| v);
        let want = naive(&x, &w_t, (m, k, n));
        assert!(want.iter().all(|v| v.is_infinite()));
        let (x_mat, w_t_mat) = (Mat::row_major(&x, m, k), Mat::row_major(&w_t, k, n));
        assert_ne!(gate(x_mat, w_t_mat), Some(false));
        for isa in Isa::supported() {
            for b in [Mat::row_major(&w, n, k).t(), w_t_mat] {
                let mut out = vec![bf16::ZERO; m * n];
                matmul_on(isa, &mut out, x_mat, b);
                assert_eq!(bits(&out), bits(&want), "on {isa:?}");
            }
        }
    }

    #[test]
    fn exponent_bounds_are_tight() {
        let at = |x: f32, y: f32| {
            let (a, b) = ([bf16::from_f32(x); 4], [bf16::from_f32(y); 4]);
            gate(Mat::row_major(&a, 2, 2), Mat::row_major(&b, 2, 2))
        };
        let Some(_) = at(1.0, 1.0) else { return };
        // 2^-56 · 2^-56 = 2^-112: products on a step of 2^-126, the smallest normal.
        assert_eq!(at(2f32.powi(-56), 2f32.powi(-56)), Some(true));
        assert_eq!(at(2f32.powi(-57), 2f32.powi(-56)), Some(false));
        // 2^63 · 2^63 · (almost 4) stays below 2^128.
        assert_eq!(at(2f32.powi(63), 2f32.powi(63)), Some(true));
        assert_eq!(at(2f32.powi(64), 2f32.powi(63)), Some(false));
        assert_eq!(at(-0.0, 1.0), Some(true));
        assert_eq!(at(0.0, f32::NAN), Some(false));
    }
}

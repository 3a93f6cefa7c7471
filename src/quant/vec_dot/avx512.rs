//! AVX-512 VNNI dot products of weight rows with one Q8_K activation row: the AVX2
//! kernels' integer steps with `dpwssd` applying the sub-block scales and adding into
//! i32 in one instruction, so a block ends with the same exact integer sums and takes
//! the scalar twin's f32 step: the same bits.
//!
//! Q6_K works on 64 values per register (0.65 → 0.51 ms for a 4096² matvec on a Zen 4
//! against the AVX2 kernel), in two chains of `dpwssd` with the bias taken off in the
//! lanes, so one horizontal sum finishes a block (4096² matvec, 1 thread, Zen 4,
//! alternating: medians 0.54–0.56 → 0.477–0.485 ms, minimums 0.51 → 0.46).
//!
//! Q4_K and Q5_K keep 256-bit registers: their 512-bit form needs a `vpermw` per
//! register to spread two sub-blocks' scales and measured slower than AVX2 (0.58
//! against 0.54 ms); here each sub-block's scale is broadcast from memory
//! inside `dpwssd`, which costs no shuffle at all (tsr alone, 1 thread, best of 600
//! against the AVX2 kernel, alternating: Q4_K 4096² matvec 0.587–0.601 → 0.516–0.548
//! ms; weights in L2, 256 × 4096, best of 20000: Q4_K 0.0393–0.0405 → 0.0343–0.0356
//! ms plus one noisy 0.0440, Q5_K 0.0452–0.0462 → 0.0412–0.0415 ms). Four chains of
//! two `dpwssd` and one horizontal sum for both of a Q4_K block's sums measured no
//! faster (256 × 4096, medians: 0.0324–0.0335 against 0.0331–0.0336 ms).
//!
//! For a matrix-vector product (`q4k_rows`, `q5k_rows`), four Q4_K or Q5_K weight rows
//! go side by side through the single-row dot's steps, each with its own sums and f32
//! chain, sharing the activation's loads: measured faster than one row at a time
//! (`ROWS_PER_PASS`).
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX-512 F/BW/VL/VNNI, AVX2, FMA and F16C.

use std::arch::x86_64::*;

use super::avx2::{add_q45_block, f16_at, f32_at, hsum_i32, load, load128, min_sums};
use super::scalar::add_block;
use crate::quant::blocks::unpack_scales_mins_words;

/// 64 bytes of `b` from `off` (bounds-checked; the offsets used are constant per block).
#[target_feature(enable = "avx512f")]
#[inline]
fn load512(b: &[u8], off: usize) -> __m512i {
    let s = &b[off..off + 64];
    // SAFETY: `s` is exactly 64 readable bytes and the load has no alignment requirement.
    unsafe { _mm512_loadu_si512(s.as_ptr().cast()) }
}

/// The low and high 256 bits of `v` added as 8 i32 lanes.
#[target_feature(enable = "avx512f,avx2")]
#[inline]
fn halves_sum(v: __m512i) -> __m256i {
    _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v))
}

/// `permutexvar` indexes giving word `w` of register `k` (values 64k + 2w, 64k + 2w + 1)
/// the scale of its Q6_K sub-block of 16 values.
const SPREAD_16: [[u8; 64]; 4] = {
    let mut t = [[0u8; 64]; 4];
    let mut k = 0;
    while k < 4 {
        let mut w = 0;
        while w < 32 {
            t[k][2 * w] = ((64 * k + 2 * w) / 16) as u8;
            w += 1;
        }
        k += 1;
    }
    t
};

/// 16-bit lanes shifted right by `lo` in the low 256 bits, `hi` in the high ones.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn shift_halves(v: __m512i, lo: i16, hi: i16) -> __m512i {
    let counts = _mm512_inserti64x4::<1>(
        _mm512_castsi256_si512(_mm256_set1_epi16(lo)),
        _mm256_set1_epi16(hi),
    );
    _mm512_srlv_epi16(v, counts)
}

#[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,fma,f16c")]
pub fn q6k_q8k(w: &[[u8; 210]], a: &[[u8; 292]]) -> f32 {
    let m4 = _mm512_set1_epi8(0x0f);
    let m2 = _mm512_set1_epi8(3);
    let mut acc = 0.0;
    for (x, y) in w.iter().zip(a) {
        let scales = _mm256_cvtepi8_epi16(load128(x, 192));
        let sc = _mm512_castsi256_si512(scales);
        // One sum per nibble, so each chain of dependent `dpwssd`s is 2 long, not 4.
        let mut sums = [_mm512_setzero_si512(); 2];
        for h in 0..2 {
            // ql bytes 64h..64h + 64: low nibbles are values 128h..128h + 64, high
            // nibbles the next 64; qh byte 32h + l holds their top bits, 2 per value.
            let ql = load512(x, 64 * h);
            let qh = _mm512_broadcast_i64x4(load(x, 128 + 32 * h));
            let nib = [
                _mm512_and_si512(ql, m4),
                _mm512_and_si512(_mm512_srli_epi16::<4>(ql), m4),
            ];
            for (i, nib) in nib.into_iter().enumerate() {
                let shift = 4 * i as i16;
                let top = _mm512_and_si512(shift_halves(qh, shift, shift + 2), m2);
                let u = _mm512_or_si512(nib, _mm512_slli_epi16::<4>(top));
                let k = 2 * h + i;
                let p = _mm512_maddubs_epi16(u, load512(y, 4 + 64 * k));
                let s = _mm512_permutexvar_epi16(load512(&SPREAD_16[k], 0), sc);
                sums[i] = dpwssd512(sums[i], s, p);
            }
        }
        // The quants are biased by 32: Σ scale·(u − 32)·y = Σ scale·u·y − 32·Σ scale·bsum,
        // taken off in the lanes so one horizontal sum finishes the block.
        let sumi = _mm512_add_epi32(sums[0], sums[1]);
        let bias = _mm256_slli_epi32::<5>(_mm256_madd_epi16(scales, load(y, 260)));
        let isum = hsum_i32(_mm256_sub_epi32(halves_sum(sumi), bias));
        acc = add_block::<false>(acc, (f32_at(y, 0), f16_at(x, 208), 0.0), (isum, 0));
    }
    acc
}

/// `acc + madd(a, b)` in one `vpdpwssd`. Written out because LLVM, given the
/// intrinsic on accumulators that start at zero, split three of a Q6_K block's four
/// into `vpmaddwd` + `vpaddd` (one more vector operation per 64 values): a Q6_K
/// matvec of 256 × 4096 weights took 0.036–0.039 ms against 0.034–0.035 (medians, 1
/// thread, Zen 4). The 512-bit register form of `dpwssd_broadcast` below: one asm
/// template cannot take both register classes and both operand forms.
#[target_feature(enable = "avx512f,avx512vnni")]
#[inline]
fn dpwssd512(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
    let mut acc = acc;
    // SAFETY: the instruction reads and writes registers only and needs AVX-512 F and
    // VNNI, which this function's target features require of its callers; it touches
    // no memory, no stack and no flags.
    unsafe {
        std::arch::asm!(
            "vpdpwssd {acc}, {a}, {b}",
            acc = inout(zmm_reg) acc,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}

/// A Q4_K/Q5_K block's scales in the form `dpwssd` takes them broadcast from memory —
/// `pairs[k]` holds sub-block k's 6-bit scale s as the i16 pair (s, s) — and the min
/// term's 4 i32 partial sums Σ m·bsum (bsums at `y[260..292]`).
#[target_feature(enable = "avx512f,avx512vl,avx2")]
#[inline]
fn scale_pairs_and_min_sums(scales: &[u8], y: &[u8], pairs: &mut [u32; 8]) -> __m128i {
    let mut packed = [0u8; 12];
    packed.copy_from_slice(&scales[..12]);
    let (sc, mn) = unpack_scales_mins_words(&packed);
    let s32 = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(sc as i64));
    // SAFETY: `pairs` is 32 writable bytes and the store has no alignment requirement.
    unsafe {
        _mm256_storeu_si256(
            pairs.as_mut_ptr().cast(),
            _mm256_or_si256(s32, _mm256_slli_epi32::<16>(s32)),
        )
    };
    min_sums(mn, y)
}

/// `acc + madd(a, b)` for `b` the i32 at `pair` in every lane: `vpdpwssd` with the
/// operand broadcast from memory. Written out because LLVM, left to the intrinsic,
/// splits the instruction into `vpmaddwd` + `vpaddd` (one more vector operation per
/// 32 values) and broadcasts `pair` by a separate instruction: the Q4_K dot then ran
/// no faster than the AVX2 kernel (256 × 4096 weights, 1 thread, Zen 4: 0.0372 against
/// 0.0378 ms), where in a kernel harness the whole instruction took the block from
/// 8.1–8.5 to 6.7–7.0 ns.
#[target_feature(enable = "avx512f,avx512vl,avx512vnni")]
#[inline]
fn dpwssd_broadcast(acc: __m256i, a: __m256i, pair: &u32) -> __m256i {
    let mut acc = acc;
    // SAFETY: the instruction reads the 4 bytes at `pair`, a live reference, and needs
    // AVX-512 VL and VNNI, which this function's target features require of its
    // callers; it touches no other memory, no stack and no flags.
    unsafe {
        std::arch::asm!(
            "vpdpwssd {acc}, {a}, dword ptr [{pair}]{{1to8}}",
            acc = inout(ymm_reg) acc,
            a = in(ymm_reg) a,
            pair = in(reg) pair,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    acc
}

/// Σ over each of R Q4_K/Q5_K rows of the blocks' f32 steps against the activation row
/// `a` (over the blocks all of them hold), given each block's 4 pairs of sub-block
/// quants (`quants(x, j)`: sub-blocks 2j and 2j + 1 as unsigned bytes). The R rows go
/// side by side, block by block, each with its own sums and f32 chain: the same steps
/// as one row alone, so each output has the bits of its own dot product. The rows
/// share the activation's loads, and their R independent chains presumably overlap
/// where one row's chain (scale unpacking, `dpwssd`s, horizontal sums, f32 step)
/// left the core waiting; what was measured is under `ROWS_PER_PASS`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn q45k_q8k_rows<const B: usize, const R: usize>(
    w: [&[[u8; B]]; R],
    a: &[[u8; 292]],
    quants: impl Fn(&[u8; B], usize) -> (__m256i, __m256i),
) -> [f32; R] {
    let blocks = w.iter().fold(a.len(), |n, row| n.min(row.len()));
    let mut pairs = [[0u32; 8]; R];
    let mut acc = [0.0; R];
    for (b, y) in a[..blocks].iter().enumerate() {
        let xs: [&[u8; B]; R] = std::array::from_fn(|r| &w[r][b]);
        let mut mins = [_mm_setzero_si128(); R];
        for r in 0..R {
            mins[r] = scale_pairs_and_min_sums(&xs[r][4..16], y, &mut pairs[r]);
        }
        // Two sums per row, so each chain of dependent `dpwssd`s is 4 long rather than 8.
        let (mut even, mut odd) = ([_mm256_setzero_si256(); R], [_mm256_setzero_si256(); R]);
        for j in 0..4 {
            let (ylo, yhi) = (load(y, 4 + 64 * j), load(y, 36 + 64 * j));
            for r in 0..R {
                let (lo, hi) = quants(xs[r], j);
                let pl = _mm256_maddubs_epi16(lo, ylo);
                let ph = _mm256_maddubs_epi16(hi, yhi);
                even[r] = dpwssd_broadcast(even[r], pl, &pairs[r][2 * j]);
                odd[r] = dpwssd_broadcast(odd[r], ph, &pairs[r][2 * j + 1]);
            }
        }
        for r in 0..R {
            let sums = (_mm256_add_epi32(even[r], odd[r]), mins[r]);
            acc[r] = add_q45_block(acc[r], xs[r], y, sums);
        }
    }
    acc
}

/// Weight rows per pass of `q4k_rows`/`q5k_rows`. Q4_K matvec, 1 thread unless noted,
/// Zen 4 (tsr alone, alternating rounds, medians): weights in L2 (256 × 4096), one row
/// at a time 0.0321–0.0327 ms, two 0.0296–0.0302, three 0.0300–0.0304, four
/// 0.0280–0.0291. As built, against one row at a time: in L2 0.0318–0.0325 →
/// 0.0273–0.0275 ms (Q5_K 0.0380–0.0407 → 0.0351–0.0357); 4096² 0.453–0.455 →
/// 0.406–0.420 ms, at 2 threads 0.231–0.248 → 0.209–0.213.
const ROWS_PER_PASS: usize = 4;

/// `out[i]` = the dot product of weight row i of `w` (rows of `wbytes`, at least
/// `out.len()` of them) with the Q8_K activation row `a`, as the single-row dot gives
/// it, `ROWS_PER_PASS` rows at a time.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
#[inline]
fn q45k_rows<const B: usize>(
    (w, wbytes): (&[u8], usize),
    a: &[u8],
    out: &mut [f32],
    quants: impl Fn(&[u8; B], usize) -> (__m256i, __m256i) + Copy,
) {
    let a = a.as_chunks::<292>().0;
    let wbytes = wbytes.max(1);
    // Rows past `out`'s end would put the wrong rows, or none, into the last outputs.
    let w = &w[..w.len().min(out.len().saturating_mul(wbytes))];
    let passes = w.chunks_exact(ROWS_PER_PASS.saturating_mul(wbytes));
    let rest = passes.remainder().chunks_exact(wbytes);
    let mut outs = out.chunks_exact_mut(ROWS_PER_PASS);
    for (o, rows) in (&mut outs).zip(passes) {
        let rows: [_; ROWS_PER_PASS] =
            std::array::from_fn(|r| blocks_of(&rows[r * wbytes..][..wbytes]));
        o.copy_from_slice(&q45k_q8k_rows(rows, a, quants));
    }
    for (o, r) in outs.into_remainder().iter_mut().zip(rest) {
        [*o] = q45k_q8k_rows([blocks_of(r)], a, quants);
    }
}

/// `row` as whole blocks of B bytes.
fn blocks_of<const B: usize>(row: &[u8]) -> &[[u8; B]] {
    row.as_chunks::<B>().0
}

/// The unsigned quants of Q4_K sub-blocks 2j and 2j + 1 of block `x`.
#[target_feature(enable = "avx2")]
#[inline]
fn q4k_quants(x: &[u8; 144], j: usize) -> (__m256i, __m256i) {
    let m4 = _mm256_set1_epi8(0x0f);
    let q4 = load(x, 16 + 32 * j);
    let hi = _mm256_srli_epi16::<4>(q4);
    (_mm256_and_si256(q4, m4), _mm256_and_si256(hi, m4))
}

/// The unsigned quants of Q5_K sub-blocks 2j and 2j + 1 of block `x`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
#[inline]
fn q5k_quants(x: &[u8; 176], j: usize) -> (__m256i, __m256i) {
    let m4 = _mm256_set1_epi8(0x0f);
    let sixteen = _mm256_set1_epi8(16);
    // The fifth bits at x[16..48]: bit b of byte l belongs to value l of sub-block b.
    let qh = load(x, 16);
    let q5 = load(x, 48 + 32 * j);
    let fifth = |v: __m256i, b: usize| {
        let set = _mm256_test_epi8_mask(qh, _mm256_set1_epi8(1 << b));
        _mm256_mask_add_epi8(v, set, v, sixteen)
    };
    let lo = _mm256_and_si256(q5, m4);
    let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(q5), m4);
    (fifth(lo, 2 * j), fifth(hi, 2 * j + 1))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn q4k_q8k(w: &[[u8; 144]], a: &[[u8; 292]]) -> f32 {
    let [dot] = q45k_q8k_rows([w], a, |x, j| q4k_quants(x, j));
    dot
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn q5k_q8k(w: &[[u8; 176]], a: &[[u8; 292]]) -> f32 {
    let [dot] = q45k_q8k_rows([w], a, |x, j| q5k_quants(x, j));
    dot
}

/// `q4k_q8k` of each Q4_K weight row of `w` (rows of `wbytes`, at least `out.len()`)
/// with the Q8_K activation row `a`, into `out`, `ROWS_PER_PASS` rows at a time.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn q4k_rows(w: (&[u8], usize), a: &[u8], out: &mut [f32]) {
    q45k_rows(w, a, out, |x, j| q4k_quants(x, j))
}

/// `q5k_q8k` of each Q5_K weight row of `w` with the activation row `a`, as `q4k_rows`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni,avx2,fma,f16c")]
pub fn q5k_rows(w: (&[u8], usize), a: &[u8], out: &mut [f32]) {
    q45k_rows(w, a, out, |x, j| q5k_quants(x, j))
}

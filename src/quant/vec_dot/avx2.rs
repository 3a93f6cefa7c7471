//! AVX2 dot products (the integer steps of ggml's x86 kernels): `maddubs` multiplies the
//! unsigned weight quants by the signed activation quants into i16 pairs and `madd`
//! applies the sub-block scales into i32. K-quant blocks then sum their lanes (exact)
//! and take the scalar twin's f32 step (`add_block`) — the kernels over many rows
//! reduce eight blocks' sums at once (`sum_each`) — and Q8_0 keeps eight f32 lanes as
//! its twin does. Same bits as the twins.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX2, FMA and F16C.

use std::arch::x86_64::*;

use super::scalar::add_block;
use crate::quant::blocks::unpack_scales_mins_words;

/// 32 bytes of `b` from `off` (bounds-checked; the offsets used are constant per block).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load(b: &[u8], off: usize) -> __m256i {
    let s = &b[off..off + 32];
    // SAFETY: `s` is exactly 32 readable bytes and the load has no alignment requirement.
    unsafe { _mm256_loadu_si256(s.as_ptr().cast()) }
}

/// 16 bytes of `b` from `off`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn load128(b: &[u8], off: usize) -> __m128i {
    let s = &b[off..off + 16];
    // SAFETY: `s` is exactly 16 readable bytes and the load has no alignment requirement.
    unsafe { _mm_loadu_si128(s.as_ptr().cast()) }
}

/// The sum of the 8 i32 lanes (exact: the block sums cannot overflow).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn hsum_i32(v: __m256i) -> i32 {
    hsum128_i32(_mm_add_epi32(
        _mm256_castsi256_si128(v),
        _mm256_extracti128_si256::<1>(v),
    ))
}

/// Lane `l` = the sum of the 8 i32 lanes of `v[l]` (exact: the block sums fit in i32,
/// and wrapping partial sums cannot change a total that fits). Three levels of
/// shuffles and adds for all eight, where summing each alone took three apiece and
/// a move to a general register.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sum_each(v: [__m256i; 8]) -> __m256i {
    let (y0, y1) = (
        quads(pairs(v[0], v[1]), pairs(v[2], v[3])),
        quads(pairs(v[4], v[5]), pairs(v[6], v[7])),
    );
    // Each half of y0 holds the partial sums of registers 0-3, each half of y1 those
    // of 4-7: adding the halves puts 0-3 in the low half of the result, 4-7 in the high.
    _mm256_add_epi32(
        _mm256_permute2x128_si256::<0x20>(y0, y1),
        _mm256_permute2x128_si256::<0x31>(y0, y1),
    )
}

/// `sum_each` of 4-lane registers: registers `l` and `l + 4` share one 256-bit
/// register, so two levels finish all eight (zero-extending each to 8 lanes took
/// three levels over twice the registers).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sum_each_half(v: [__m128i; 8]) -> __m256i {
    let joined = |l: usize| _mm256_set_m128i(v[l + 4], v[l]);
    quads(pairs(joined(0), joined(1)), pairs(joined(2), joined(3)))
}

/// Per 128-bit half: lanes (0 + 2, 1 + 3) of `a` and `b`, interleaved.
#[target_feature(enable = "avx2")]
#[inline]
fn pairs(a: __m256i, b: __m256i) -> __m256i {
    _mm256_add_epi32(_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b))
}

/// Per 128-bit half, for four registers' `pairs` (`ab` of a and b, `cd` of c and d):
/// the sums of a, b, c and d's four lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn quads(ab: __m256i, cd: __m256i) -> __m256i {
    _mm256_add_epi32(_mm256_unpacklo_epi64(ab, cd), _mm256_unpackhi_epi64(ab, cd))
}

/// The sum of the 4 i32 lanes.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn hsum128_i32(s: __m128i) -> i32 {
    let s = _mm_add_epi32(s, _mm_unpackhi_epi64(s, s));
    _mm_cvtsi128_si32(_mm_add_epi32(s, _mm_shuffle_epi32::<1>(s)))
}

#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn hsum(v: __m256) -> f32 {
    let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps::<1>(v));
    hsum128(s)
}

#[target_feature(enable = "avx2")]
#[inline]
fn hsum128(s: __m128) -> f32 {
    let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)))
}

/// The f16 at `b[off..off + 2]` as f32 by F16C: exact, as the scalar twin's integer
/// conversion, without its branches (which cost 4-12% of a Q6_K dot in a kernel
/// harness here, with the weights in huge pages and in 4 KiB pages). A
/// signaling NaN comes out quiet; every use multiplies it, which quiets it anyway.
#[target_feature(enable = "f16c")]
#[inline]
pub(super) fn f16_at(b: &[u8], off: usize) -> f32 {
    let h = u16::from_le_bytes([b[off], b[off + 1]]);
    _mm_cvtss_f32(_mm_cvtph_ps(_mm_cvtsi32_si128(i32::from(h))))
}

/// The two f16 at `b[off..off + 4]` (a K-quant block's d and dmin) as f32, by one F16C
/// conversion of a zero-extended 32-bit load. Converting them one at a time, the
/// compiler inserted each f16 into whatever register was at hand — the accumulator's
/// — which made every block's scales wait for the previous block's sum (Q4_K matvec
/// 4096², 1 thread, Zen 4: 0.536–0.541 → 0.530 ms, a small part of what the
/// block-order numerics cost).
#[target_feature(enable = "f16c")]
#[inline]
pub(super) fn f16_pair_at(b: &[u8], off: usize) -> (f32, f32) {
    let bits = u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]]);
    let f = _mm_cvtph_ps(_mm_cvtsi32_si128(bits as i32));
    (_mm_cvtss_f32(f), _mm_cvtss_f32(_mm_movehdup_ps(f)))
}

pub(super) fn f32_at(b: &[u8], off: usize) -> f32 {
    f32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// Shuffle masks that broadcast the i16 at index `i` to all 16 lanes of a register
/// whose two halves both hold the 8 i16 scales.
const BROADCAST_I16: [[u8; 32]; 8] = {
    let mut t = [[0u8; 32]; 8];
    let mut i = 0;
    while i < 8 {
        let mut b = 0;
        while b < 32 {
            t[i][b] = (2 * i + b % 2) as u8;
            b += 1;
        }
        i += 1;
    }
    t
};

/// Shuffle masks that put i16 `2k` in every lane of the low half and i16 `2k + 1` in
/// every lane of the high half of a register whose two halves both hold 8 i16 scales.
const PAIR_I16: [[u8; 32]; 4] = {
    let mut t = [[0u8; 32]; 4];
    let mut k = 0;
    while k < 4 {
        let mut b = 0;
        while b < 32 {
            t[k][b] = (2 * (2 * k + b / 16) + b % 2) as u8;
            b += 1;
        }
        k += 1;
    }
    t
};

/// The 8 Q4_K/Q5_K scales as i16 in both halves, and the min term's 4 i32 partial sums
/// Σ m·bsum (bsums at `y[260..292]`). The scales and the mins are widened from their
/// words separately (see `min_sums`).
#[target_feature(enable = "avx2")]
#[inline]
fn scales_and_min_sums(scales: &[u8], y: &[u8]) -> (__m256i, __m128i) {
    let mut packed = [0u8; 12];
    packed.copy_from_slice(&scales[..12]);
    let (sc, mn) = unpack_scales_mins_words(&packed);
    let sc = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(sc as i64));
    (_mm256_set_m128i(sc, sc), min_sums(mn, y))
}

/// A Q4_K/Q5_K block's min term as 4 i32 partial sums Σ m·bsum, for its 8 six-bit
/// mins (the little-endian word `mins` of `unpack_scales_mins_words`) and the Q8_K
/// block `y` (bsums at `y[260..292]`). The mins are widened to i16 in a 128-bit
/// register: widening them together with the scales in one 256-bit register and
/// extracting them again (a cross-lane move) was about 4% of a Q4_K matvec (a kernel
/// harness on the Zen 3 of docs/PERFORMANCE.md's session 57).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn min_sums(mins: u64, y: &[u8]) -> __m128i {
    let mins = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(mins as i64));
    let bsums = load(y, 260);
    let pair_sums = _mm_hadd_epi16(
        _mm256_castsi256_si128(bsums),
        _mm256_extracti128_si256::<1>(bsums),
    );
    _mm_madd_epi16(mins, pair_sums)
}

/// A Q4_K block's integer sums against a Q8_K block `y`: Σ scale·Σ q·y in 8 i32 lanes
/// and the min term Σ min·bsum in 4 (each exact; their totals are `add_block`'s).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn q4k_block_sums(x: &[u8], y: &[u8]) -> (__m256i, __m128i) {
    let m4 = _mm256_set1_epi8(0x0f);
    let (scales, mins) = scales_and_min_sums(&x[4..16], y);
    let mut sumi = _mm256_setzero_si256();
    for j in 0..4 {
        let q4 = load(x, 16 + 32 * j);
        let lo = _mm256_and_si256(q4, m4);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(q4), m4);
        sumi = _mm256_add_epi32(sumi, scaled_pair(scales, j, (lo, hi), y));
    }
    (sumi, mins)
}

/// `q4k_block_sums` for a Q5_K block (the fifth bits at `x[16..48]`).
#[target_feature(enable = "avx2")]
#[inline]
fn q5k_block_sums(x: &[u8], y: &[u8]) -> (__m256i, __m128i) {
    let m4 = _mm256_set1_epi8(0x0f);
    let sixteen = _mm256_set1_epi8(16);
    let (scales, mins) = scales_and_min_sums(&x[4..16], y);
    let qh = load(x, 16);
    // 16 where bit `b` of the qh byte is set, else 0.
    let high = |b: i32| {
        let m = _mm256_set1_epi8(1 << b);
        _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, m), m), sixteen)
    };
    let mut sumi = _mm256_setzero_si256();
    for j in 0..4 {
        let q5 = load(x, 48 + 32 * j);
        let lo = _mm256_or_si256(_mm256_and_si256(q5, m4), high(2 * j as i32));
        let hi = _mm256_or_si256(
            _mm256_and_si256(_mm256_srli_epi16::<4>(q5), m4),
            high(2 * j as i32 + 1),
        );
        sumi = _mm256_add_epi32(sumi, scaled_pair(scales, j, (lo, hi), y));
    }
    (sumi, mins)
}

/// Sub-blocks `2j` and `2j + 1` (quants `lo`, `hi`) times the activations, each run's
/// i16 pair sums scaled by its sub-block scale into i32 lanes.
#[target_feature(enable = "avx2")]
#[inline]
fn scaled_pair(scales: __m256i, j: usize, (lo, hi): (__m256i, __m256i), y: &[u8]) -> __m256i {
    let pl = _mm256_maddubs_epi16(lo, load(y, 4 + 64 * j));
    let ph = _mm256_maddubs_epi16(hi, load(y, 36 + 64 * j));
    let sl = _mm256_shuffle_epi8(scales, load(&BROADCAST_I16[2 * j], 0));
    let sh = _mm256_shuffle_epi8(scales, load(&BROADCAST_I16[2 * j + 1], 0));
    _mm256_add_epi32(_mm256_madd_epi16(sl, pl), _mm256_madd_epi16(sh, ph))
}

/// A Q4_K/Q5_K block's f32 step (`add_block`) on its integer sums: Σ scale·Σ q·y in
/// the 8 lanes of `sumi`, the min term in the 4 of `mins`.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
pub(super) fn add_q45_block(acc: f32, x: &[u8], y: &[u8], sums: (__m256i, __m128i)) -> f32 {
    let (sumi, mins) = sums;
    let (d, dmin) = f16_pair_at(x, 0);
    let scales = (f32_at(y, 0), d, dmin);
    add_block::<true>(acc, scales, (hsum_i32(sumi), hsum128_i32(mins)))
}

#[target_feature(enable = "avx2,fma,f16c")]
pub fn q4k_q8k(w: &[[u8; 144]], a: &[[u8; 292]]) -> f32 {
    let mut acc = 0.0;
    for (x, y) in w.iter().zip(a) {
        acc = add_q45_block(acc, x, y, q4k_block_sums(x, y));
    }
    acc
}

#[target_feature(enable = "avx2,fma,f16c")]
pub fn q5k_q8k(w: &[[u8; 176]], a: &[[u8; 292]]) -> f32 {
    let mut acc = 0.0;
    for (x, y) in w.iter().zip(a) {
        acc = add_q45_block(acc, x, y, q5k_block_sums(x, y));
    }
    acc
}

#[target_feature(enable = "avx2,fma,f16c")]
pub fn q6k_q8k(w: &[[u8; 210]], a: &[[u8; 292]]) -> f32 {
    let m4 = _mm256_set1_epi8(0x0f);
    let m2_at_4 = _mm256_set1_epi8(0x30);
    let mut acc = 0.0;
    for (x, y) in w.iter().zip(a) {
        // The 16 scales as i16, then each half's 8 in both 128-bit halves, so that one
        // in-lane shuffle gives a run its two sub-blocks' scales (a shuffle and a
        // widening per run before; with the high bits below, a block's shuffles,
        // widenings and shifts went from 35 to 21). Q6_K matvec 4096² on the Zen 3 of
        // docs/PERFORMANCE.md (session 56), tsr alone, medians of three alternating
        // rounds: 1 thread 0.859–0.893 → 0.712–0.740 ms, 2 threads 0.422–0.429 →
        // 0.345–0.366.
        let scales = _mm256_cvtepi8_epi16(load128(x, 192));
        let half_scales = [
            _mm256_permute2x128_si256::<0x00>(scales, scales),
            _mm256_permute2x128_si256::<0x11>(scales, scales),
        ];
        let mut sumi = _mm256_setzero_si256();
        for (h, &hs) in half_scales.iter().enumerate() {
            let (ql1, ql2, qh) = (load(x, 64 * h), load(x, 64 * h + 32), load(x, 128 + 32 * h));
            // Each run's two high bits moved to bits 4–5 of its bytes by one 16-bit
            // shift and a mask (the bits a shift carries across a byte land outside it).
            let high = |v: __m256i| _mm256_and_si256(v, m2_at_4);
            let q = [
                _mm256_or_si256(_mm256_and_si256(ql1, m4), high(_mm256_slli_epi16::<4>(qh))),
                _mm256_or_si256(_mm256_and_si256(ql2, m4), high(_mm256_slli_epi16::<2>(qh))),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16::<4>(ql1), m4), high(qh)),
                _mm256_or_si256(
                    _mm256_and_si256(_mm256_srli_epi16::<4>(ql2), m4),
                    high(_mm256_srli_epi16::<2>(qh)),
                ),
            ];
            for (k, &qk) in q.iter().enumerate() {
                let p = _mm256_maddubs_epi16(qk, load(y, 4 + 128 * h + 32 * k));
                let sc = _mm256_shuffle_epi8(hs, load(&PAIR_I16[k], 0));
                sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(sc, p));
            }
        }
        // The quants u are biased by 32, taken off as Σ scale·u·y − 32·Σ scale·bsum (so
        // maddubs sees unsigned weights): one madd per block, where subtracting 32·y
        // per run took a maddubs and a subtraction for each of the eight.
        let bias = _mm256_madd_epi16(scales, load(y, 260));
        let sumi = _mm256_sub_epi32(sumi, _mm256_slli_epi32::<5>(bias));
        let scales = (f32_at(y, 0), f16_at(x, 208), 0.0);
        acc = add_block::<false>(acc, scales, (hsum_i32(sumi), 0));
    }
    acc
}

/// One Q8_0·Q8_0 block product as 8 f32 partial sums (not yet scaled).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn q8_0_block(x: &[u8], y: &[u8]) -> __m256 {
    let (qx, qy) = (load(x, 2), load(y, 2));
    // |x|·(sign(x)·y): maddubs needs one unsigned operand. Activations are never −128.
    let p = _mm256_maddubs_epi16(_mm256_sign_epi8(qx, qx), _mm256_sign_epi8(qy, qx));
    _mm256_cvtepi32_ps(_mm256_madd_epi16(p, _mm256_set1_epi16(1)))
}

#[target_feature(enable = "avx2,fma,f16c")]
pub fn q8_0_q8_0(w: &[[u8; 34]], a: &[[u8; 34]]) -> f32 {
    let half = |b: &[u8; 34]| i16::from_le_bytes([b[0], b[1]]);
    // Blocks in pairs: one F16C conversion for the four scales, two accumulators.
    let (wp, wt) = w.as_chunks::<2>();
    let (ap, at) = a.as_chunks::<2>();
    let (mut acc0, mut acc1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    for (x, y) in wp.iter().zip(ap) {
        let h = _mm_setr_epi16(
            half(&x[0]),
            half(&x[1]),
            half(&y[0]),
            half(&y[1]),
            0,
            0,
            0,
            0,
        );
        let dxy = _mm_cvtph_ps(h);
        let d = _mm_mul_ps(dxy, _mm_movehl_ps(dxy, dxy));
        acc0 = _mm256_fmadd_ps(_mm256_broadcastss_ps(d), q8_0_block(&x[0], &y[0]), acc0);
        let d1 = _mm256_broadcastss_ps(_mm_movehdup_ps(d));
        acc1 = _mm256_fmadd_ps(d1, q8_0_block(&x[1], &y[1]), acc1);
    }
    for (x, y) in wt.iter().zip(at) {
        let d = _mm256_set1_ps(f16_at(x, 0) * f16_at(y, 0));
        acc0 = _mm256_fmadd_ps(d, q8_0_block(x, y), acc0);
    }
    hsum(_mm256_add_ps(acc0, acc1))
}

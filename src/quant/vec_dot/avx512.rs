//! AVX-512 (F/BW) dot products for the 4- and 5-bit K-quants: the AVX2 kernels'
//! integer sums, 64 activation bytes at a time. A 32-byte chunk of packed quants is
//! put in both halves of a register and shifted by 0 in the first half and 4 in the
//! second, so its low nibbles then its high nibbles line up with 64 contiguous
//! activation bytes. The 16 i32 lanes are folded to the AVX2 kernel's 8 at the end of
//! a block: integer sums are exact, so every lane holds the AVX2 lane's value and the
//! f32 accumulation that follows (the same 256-bit FMAs) gives the same bits as the
//! AVX2 and scalar twins.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX-512 F/BW and the AVX2 set.

use std::arch::x86_64::*;

use super::avx2::{load, scaled_sum, total, with_min_term};

/// 64 bytes of `b` from `off` (two adjacent loads, which the compiler merges).
#[target_feature(enable = "avx512f,avx2")]
#[inline]
fn load512(b: &[u8], off: usize) -> __m512i {
    halves(load(b, off), load(b, off + 32))
}

/// 32 bytes of `b` from `off`, in both halves of a register.
#[target_feature(enable = "avx512f,avx2")]
#[inline]
fn load_twice(b: &[u8], off: usize) -> __m512i {
    _mm512_broadcast_i64x4(load(b, off))
}

/// Two 256-bit halves: `lo` in the first, `hi` in the second.
#[target_feature(enable = "avx512f")]
#[inline]
fn halves(lo: __m256i, hi: __m256i) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

/// The 16 i32 lanes folded to 8: lane l plus lane l + 8.
#[target_feature(enable = "avx512f")]
#[inline]
fn fold(v: __m512i) -> __m256i {
    _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v))
}

/// The nibbles of a 32-byte chunk in both halves: low ones first, then high ones.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn nibbles(twice: __m512i) -> __m512i {
    let shifts = halves(_mm256_setzero_si256(), _mm256_set1_epi16(4));
    _mm512_and_si512(_mm512_srlv_epi16(twice, shifts), _mm512_set1_epi8(0x0f))
}

/// Sub-block scales 2j (first 16 words) and 2j + 1 (last 16 words) from the 8 i16
/// scales in the first words of `scales`.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn scale_pair(scales: __m256i, j: usize) -> __m512i {
    let pick = halves(
        _mm256_set1_epi16(2 * j as i16),
        _mm256_set1_epi16(2 * j as i16 + 1),
    );
    _mm512_permutexvar_epi16(pick, _mm512_castsi256_si512(scales))
}

#[target_feature(enable = "avx512f,avx512bw,avx2,fma,f16c")]
pub fn q4k_q8k(w: &[[u8; 144]], a: &[[u8; 292]]) -> f32 {
    let mut acc = _mm256_setzero_ps();
    let mut acc_m = _mm_setzero_ps();
    for (x, y) in w.iter().zip(a) {
        let scales;
        (scales, acc_m) = with_min_term(x, y, acc_m);
        let mut sums = _mm512_setzero_si512();
        for j in 0..4 {
            let q = nibbles(load_twice(x, 16 + 32 * j));
            let p = _mm512_maddubs_epi16(q, load512(y, 4 + 64 * j));
            sums = _mm512_add_epi32(sums, _mm512_madd_epi16(scale_pair(scales, j), p));
        }
        acc = scaled_sum(x, y, fold(sums), acc);
    }
    total(acc, acc_m)
}

#[target_feature(enable = "avx512f,avx512bw,avx2,fma,f16c")]
pub fn q5k_q8k(w: &[[u8; 176]], a: &[[u8; 292]]) -> f32 {
    let sixteen = _mm512_set1_epi8(16);
    let mut acc = _mm256_setzero_ps();
    let mut acc_m = _mm_setzero_ps();
    for (x, y) in w.iter().zip(a) {
        let scales;
        (scales, acc_m) = with_min_term(x, y, acc_m);
        let qh = load_twice(x, 16);
        let mut sums = _mm512_setzero_si512();
        for j in 0..4 {
            // The fifth bit: bit 2j of the qh bytes for the low nibbles, 2j + 1 for
            // the high ones.
            let bit = halves(
                _mm256_set1_epi8(1 << (2 * j)),
                _mm256_set1_epi8(1 << (2 * j + 1)),
            );
            let high = _mm512_maskz_mov_epi8(_mm512_test_epi8_mask(qh, bit), sixteen);
            let q = _mm512_or_si512(nibbles(load_twice(x, 48 + 32 * j)), high);
            let p = _mm512_maddubs_epi16(q, load512(y, 4 + 64 * j));
            sums = _mm512_add_epi32(sums, _mm512_madd_epi16(scale_pair(scales, j), p));
        }
        acc = scaled_sum(x, y, fold(sums), acc);
    }
    total(acc, acc_m)
}

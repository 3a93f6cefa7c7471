//! The weight K-quants the many-row kernels take (`KQuant`), and their blocks unpacked
//! for the AVX2 tile: quants as unsigned bytes in value order, scales widened, d and
//! dmin as f32. (The AVX-512 tile unpacks 16 rows at once in its own lanes.)
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX2 and F16C.

use std::arch::x86_64::*;

use super::avx2::{f16_at, f16_pair_at, load, load128};
use crate::quant::blocks::unpack_scales_mins;

/// Bytes of a Q8_K activation block.
pub const Q8K_BYTES: usize = 292;

/// The weight K-quants with a many-row kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum KQuant {
    Q4K,
    Q5K,
    Q6K,
}

impl KQuant {
    pub const fn block_bytes(self) -> usize {
        match self {
            KQuant::Q4K => 144,
            KQuant::Q5K => 176,
            KQuant::Q6K => 210,
        }
    }
}

/// One weight block, unpacked.
#[derive(Clone, Copy)]
pub struct Unpacked {
    /// The quants as unsigned bytes (Q6_K's biased by 32): run `r` lines up with
    /// activation quants `32r..32r + 32`.
    pub u: [__m256i; 8],
    /// The scales as i16: words 0-7 scale the first 16 values of run `r`, words 8-15
    /// the last 16.
    pub sc: [__m256i; 8],
    /// Sixteen i16 that `madd` pairs with an activation block's 16 bsums — Q4_K/Q5_K:
    /// each sub-block's min twice (Σ min·bsum, the min term); Q6_K: the 16 scales
    /// (Σ scale·bsum, the bias term over 32).
    pub pairs: __m256i,
    pub d: f32,
    pub dmin: f32,
}

#[target_feature(enable = "avx2")]
pub fn empty() -> Unpacked {
    let zero = _mm256_setzero_si256();
    Unpacked {
        u: [zero; 8],
        sc: [zero; 8],
        pairs: zero,
        d: 0.0,
        dmin: 0.0,
    }
}

/// Unpacks weight block `x` into `w` (in place: the block is large, and a returned
/// copy would cost more than the unpacking).
#[target_feature(enable = "avx2,f16c")]
pub fn unpack(kind: KQuant, x: &[u8], w: &mut Unpacked) {
    let m4 = _mm256_set1_epi8(0x0f);
    match kind {
        KQuant::Q4K | KQuant::Q5K => {
            let mut packed = [0u8; 12];
            packed.copy_from_slice(&x[4..16]);
            let sm = unpack_scales_mins(&packed);
            let (qs_at, qh) = match kind {
                KQuant::Q5K => (48, load(x, 16)),
                _ => (16, _mm256_setzero_si256()),
            };
            // 16 where bit `b` of the qh byte is set, else 0 (always 0 for Q4_K).
            let high = |b: usize| {
                let m = _mm256_set1_epi8(1 << b);
                let set = _mm256_cmpeq_epi8(_mm256_and_si256(qh, m), m);
                _mm256_and_si256(set, _mm256_set1_epi8(16))
            };
            for j in 0..4 {
                let q = load(x, qs_at + 32 * j);
                let (lo, hi) = (q, _mm256_srli_epi16::<4>(q));
                w.u[2 * j] = _mm256_or_si256(_mm256_and_si256(lo, m4), high(2 * j));
                w.u[2 * j + 1] = _mm256_or_si256(_mm256_and_si256(hi, m4), high(2 * j + 1));
            }
            for (sc, &s) in w.sc.iter_mut().zip(&sm[..8]) {
                *sc = _mm256_set1_epi16(s as i16);
            }
            // Mins 8..16 of `sm`, each twice.
            let twice = _mm_setr_epi8(8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
            w.pairs = _mm256_cvtepu8_epi16(_mm_shuffle_epi8(load128(&sm, 0), twice));
            (w.d, w.dmin) = f16_pair_at(x, 0);
        }
        KQuant::Q6K => {
            let m2 = _mm256_set1_epi8(3);
            let high = |v: __m256i| _mm256_slli_epi16::<4>(_mm256_and_si256(v, m2));
            let low = |v: __m256i| _mm256_and_si256(v, m4);
            let up = |v: __m256i| _mm256_srli_epi16::<4>(v);
            for h in 0..2 {
                let (ql1, ql2, qh) = (load(x, 64 * h), load(x, 64 * h + 32), load(x, 128 + 32 * h));
                w.u[4 * h] = _mm256_or_si256(low(ql1), high(qh));
                w.u[4 * h + 1] = _mm256_or_si256(low(ql2), high(_mm256_srli_epi16::<2>(qh)));
                w.u[4 * h + 2] = _mm256_or_si256(low(up(ql1)), high(up(qh)));
                w.u[4 * h + 3] = _mm256_or_si256(low(up(ql2)), high(_mm256_srli_epi16::<6>(qh)));
            }
            let scale = |i: usize| _mm_set1_epi16(x[192 + i] as i8 as i16);
            for (r, sc) in w.sc.iter_mut().enumerate() {
                *sc = _mm256_set_m128i(scale(2 * r + 1), scale(2 * r));
            }
            w.pairs = _mm256_cvtepi8_epi16(load128(x, 192));
            (w.d, w.dmin) = (f16_at(x, 208), 0.0);
        }
    }
}

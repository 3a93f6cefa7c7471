//! tanh in f32 without a division: on each of 32 intervals of a = |x| a polynomial of
//! degree 5 in t = a - c (`tanh_table`, fitted by tools/fit_tanh_table.py). The
//! interval is read off a's bits (exponent and the two mantissa bits below it: quarter
//! octaves of [1/8, 16), everything below 1/8 in entry 0), so a vector loop looks its
//! six coefficients up with one two-register permute each (`vpermt2ps`). Sixteen
//! lanes cost 20 vector instructions, against about 40 and a division for
//! 1 - 2/(e^{2a} + 1) on an odd polynomial near 0, which this replaced: one thread of
//! the AVX-512 Zen 4 here, 1M values, best of 300, three runs: 0.52 → 0.26–0.27 ms.
//!
//! Accuracy: at most 0.87 ulp (every f32 in [1.2e-4, 16) checked in a harness; from 16
//! on the result is 1; `tests/ulp_sweep.rs`, which covers the rest, asserts the bound
//! listed in lang/SPEC.md). Each center is an f32 whose tanh lies close to an f32, so
//! the constant term is nearly exact, and a - c is exact (Sterbenz). In entry 0
//! (c = 0) the kernel adds t itself after the polynomial, so tiny values come back
//! unchanged and the constant 1 is never rounded into the sum.
//!
//! The scalar form indexes the table; the AVX-512 loop permutes registers, the AVX2
//! loop transposes the lanes' rows of it.
//! All three agree bit for bit on all 2³² inputs (harness; the unit tests sample).

use super::exp_f32::fma;
use super::tanh_table::{CENTER, COEF};

/// a is clamped here (NaN passes): tanh rounds to 1 from about 9.01 on, and the
/// entries of 16 give exactly 1.
const CLAMP: f32 = 16.0;
/// Below this, entry 0: tanh(a) = a + a³·P(a²).
const SMALL: f32 = 0.125;
/// a's bits shifted right by this keep the exponent and two mantissa bits.
const QUARTER_SHIFT: u32 = 21;
/// `bits(1/8) >> QUARTER_SHIFT`, less one: the quarter octaves from 1/8 on are
/// entries 1, 2, ...
const FIRST_QUARTER: u32 = (0.125f32.to_bits() >> QUARTER_SHIFT) - 1;
/// The polynomials' degree.
const DEGREE: usize = COEF.len() - 1;

/// tanh, to within 0.87 ulp; ±1 at ±inf, -0 kept, NaN stays NaN (with x's sign).
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    // A comparison, not f32::min: NaN must pass through.
    let a = if a > CLAMP { CLAMP } else { a };
    // Saturating, so that all of [0, 1/8) is entry 0; the low five bits, as the vector
    // permute takes them, for a NaN (which comes out NaN from any entry).
    let i = ((a.to_bits() >> QUARTER_SHIFT).saturating_sub(FIRST_QUARTER) & 31) as usize;
    let t = a - CENTER[i];
    let q = COEF[1..DEGREE]
        .iter()
        .rev()
        .fold(COEF[DEGREE][i], |q, c| fma(q, t, c[i]));
    let base = if a < SMALL { t } else { COEF[0][i] };
    fma(q, t, base).copysign(x)
}

/// `tanh` sixteen lanes at a time.
#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use super::*;
    use std::arch::x86_64::*;

    super::super::exp_f32::map_lanes!(
        /// `tanh` of each value.
        tanh,
        tanh_lanes
    );

    /// Entry `i` of each lane of a table row (held in two registers of 16; the loads
    /// leave the loop).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn look_up(row: &[f32; 32], i: __m512i) -> __m512 {
        // SAFETY: a row holds 32 values, two vectors of 16.
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_ps(row.as_ptr()),
                _mm512_loadu_ps(row.as_ptr().add(16)),
            )
        };
        _mm512_permutex2var_ps(lo, i, hi)
    }

    /// `super::tanh`.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq")]
    #[inline]
    fn tanh_lanes(x: __m512) -> __m512 {
        let splat = _mm512_set1_ps;
        let sign = splat(-0.0);
        // min(CLAMP, a) returns a when it is NaN, as the scalar comparison does.
        let a = _mm512_min_ps(splat(CLAMP), _mm512_andnot_ps(sign, x));
        // The shifted bits are below 2^11: a saturating subtraction of 16-bit halves
        // is the scalar `saturating_sub` (the high halves are 0 - 0).
        let bits = _mm512_srli_epi32::<{ QUARTER_SHIFT }>(_mm512_castps_si512(a));
        let i = _mm512_subs_epu16(bits, _mm512_set1_epi32(FIRST_QUARTER as i32));
        let t = _mm512_sub_ps(a, look_up(&CENTER, i));
        let q = COEF[1..DEGREE]
            .iter()
            .rev()
            .fold(look_up(&COEF[DEGREE], i), |q, c| {
                _mm512_fmadd_ps(q, t, look_up(c, i))
            });
        let small = _mm512_cmp_ps_mask::<_CMP_LT_OQ>(a, splat(SMALL));
        let base = _mm512_mask_mov_ps(look_up(&COEF[0], i), small, t);
        let y = _mm512_fmadd_ps(q, t, base);
        // y's sign bit is clear (y ≥ +0 or a NaN from a = |x|): x's sign bit, y's others.
        _mm512_castsi512_ps(_mm512_ternarylogic_epi32::<0xCA>(
            _mm512_castps_si512(sign),
            _mm512_castps_si512(x),
            _mm512_castps_si512(y),
        ))
    }
}

/// `tanh` eight lanes at a time. The AVX2 permute reaches only 8 entries, so each lane
/// loads its entry's whole row (center and six coefficients, `ROWS`) and an 8×8
/// transpose turns the eight rows into one register per coefficient: 8 loads and 23
/// shuffles where four permutes and three blends per coefficient took 49 (the table
/// entries are the same, so the bits are too). Harness, 1M values, one thread of the
/// Zen 3 here, best of 200, three runs: 2.30–2.39 → 1.03–1.13 ms; a gather per
/// coefficient took 3.4 ms.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::*;
    use std::arch::x86_64::*;

    /// Entry e's row: its center, then its coefficients from degree 0 up, then padding
    /// to eight. Aligned so that no row straddles a cache line.
    #[repr(align(32))]
    struct Rows([[f32; 8]; 32]);

    static ROWS: Rows = {
        let mut rows = [[0.0; 8]; 32];
        let mut e = 0;
        while e < 32 {
            rows[e][0] = CENTER[e];
            let mut k = 0;
            while k <= DEGREE {
                rows[e][1 + k] = COEF[k][e];
                k += 1;
            }
            e += 1;
        }
        Rows(rows)
    };

    super::super::exp_f32::map_lanes_avx2!(
        /// `tanh` of each value.
        tanh,
        tanh_lanes,
        super::tanh
    );

    /// The rows of the lanes' entries `i` (each below 32), transposed: element k is the
    /// vector of every lane's row element k (center, then coefficients).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn entries(i: __m256i) -> [__m256; 7] {
        let mut index = [0u32; 8];
        // SAFETY: `index` holds eight u32, one vector.
        unsafe { _mm256_storeu_si256(index.as_mut_ptr().cast(), i) };
        // SAFETY: a row is eight f32, one vector, 32-byte aligned (`Rows`).
        let row = |k: usize| unsafe { _mm256_load_ps(ROWS.0[index[k] as usize].as_ptr()) };
        let pair =
            |lo: __m256, hi: __m256| (_mm256_unpacklo_ps(lo, hi), _mm256_unpackhi_ps(lo, hi));
        // Rows 0–3 and 4–7 each to four vectors of elements (e, e + 4) in their halves...
        let (l01, h01) = pair(row(0), row(1));
        let (l23, h23) = pair(row(2), row(3));
        let (l45, h45) = pair(row(4), row(5));
        let (l67, h67) = pair(row(6), row(7));
        let low = [
            _mm256_shuffle_ps::<0x44>(l01, l23),
            _mm256_shuffle_ps::<0xEE>(l01, l23),
            _mm256_shuffle_ps::<0x44>(h01, h23),
            _mm256_shuffle_ps::<0xEE>(h01, h23),
        ];
        let high = [
            _mm256_shuffle_ps::<0x44>(l45, l67),
            _mm256_shuffle_ps::<0xEE>(l45, l67),
            _mm256_shuffle_ps::<0x44>(h45, h67),
            _mm256_shuffle_ps::<0xEE>(h45, h67),
        ];
        // ...then the low halves of a pair are element e, the high halves element e + 4.
        [
            _mm256_permute2f128_ps::<0x20>(low[0], high[0]),
            _mm256_permute2f128_ps::<0x20>(low[1], high[1]),
            _mm256_permute2f128_ps::<0x20>(low[2], high[2]),
            _mm256_permute2f128_ps::<0x20>(low[3], high[3]),
            _mm256_permute2f128_ps::<0x31>(low[0], high[0]),
            _mm256_permute2f128_ps::<0x31>(low[1], high[1]),
            _mm256_permute2f128_ps::<0x31>(low[2], high[2]),
        ]
    }

    /// `super::tanh`, the steps of the AVX-512 form with the entries from `entries`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn tanh_lanes(x: __m256) -> __m256 {
        let sign = _mm256_set1_ps(-0.0);
        let a = _mm256_min_ps(_mm256_set1_ps(CLAMP), _mm256_andnot_ps(sign, x));
        let bits = _mm256_srli_epi32::<{ QUARTER_SHIFT as i32 }>(_mm256_castps_si256(a));
        // `& 31` as in the scalar form: a NaN's bits give an entry above 31.
        let i = _mm256_and_si256(
            _mm256_subs_epu16(bits, _mm256_set1_epi32(FIRST_QUARTER as i32)),
            _mm256_set1_epi32(31),
        );
        let [center, coef @ ..] = entries(i);
        let t = _mm256_sub_ps(a, center);
        let q = coef[1..DEGREE]
            .iter()
            .rev()
            .fold(coef[DEGREE], |q, &c| _mm256_fmadd_ps(q, t, c));
        let small = _mm256_cmp_ps::<_CMP_LT_OQ>(a, _mm256_set1_ps(SMALL));
        let base = _mm256_blendv_ps(coef[0], t, small);
        let y = _mm256_fmadd_ps(q, t, base);
        // y's sign bit is clear, as in the AVX-512 form.
        _mm256_or_ps(y, _mm256_and_ps(sign, x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::isa::Isa;

    #[test]
    fn edges() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        assert_eq!(tanh(inf), 1.0);
        assert_eq!(tanh(-inf), -1.0);
        assert_eq!(tanh(9.1), 1.0);
        assert!(tanh(-0.0).is_sign_negative() && tanh(-0.0) == 0.0);
        assert!(tanh(nan).is_nan() && tanh(-nan).is_sign_negative());
        assert_eq!(tanh(1e-30), 1e-30);
        assert_eq!(tanh(f32::from_bits(1)), f32::from_bits(1));
        // Either side of each interval's lower edge: within an ulp of f64's tanh.
        for i in 1..29 {
            let edge = f32::from_bits((FIRST_QUARTER + i) << QUARTER_SHIFT);
            for x in [edge, f32::from_bits(edge.to_bits() - 1)] {
                let want = f64::from(x).tanh();
                let ulp = f64::from(f32::EPSILON) * want.abs();
                assert!((f64::from(tanh(x)) - want).abs() <= ulp, "tanh({x})");
            }
        }
    }

    /// The AVX-512 loop against `tanh`, bit for bit, on every 4099th bit pattern and
    /// every tail length.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_loop_has_the_scalar_bits() {
        crate::kernels::math::exp_f32::tests::check_vector_loop(tanh, avx512::tanh, Isa::avx512);
    }

    /// The AVX2 loop against `tanh`.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_loop_has_the_scalar_bits() {
        crate::kernels::math::exp_f32::tests::check_vector_loop(tanh, avx2::tanh, Isa::avx2);
    }
}

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
//! The scalar form indexes the table; the AVX2 and AVX-512 loops permute registers.
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

/// The vector forms' t = a - c and the polynomial up to its last step, from
/// `$look(row, args)`, each lane's entry of a table row.
#[cfg(target_arch = "x86_64")]
macro_rules! table_polynomial {
    ($a:expr, $sub:ident, $fmadd:ident, $look:ident($($arg:expr),*)) => {{
        let t = $sub($a, $look(&CENTER, $($arg),*));
        let mut q = $look(&COEF[DEGREE], $($arg),*);
        for c in COEF[1..DEGREE].iter().rev() {
            q = $fmadd(q, t, $look(c, $($arg),*));
        }
        (t, q)
    }};
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
        let (t, q) = table_polynomial!(a, _mm512_sub_ps, _mm512_fmadd_ps, look_up(i));
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

/// `tanh` eight lanes at a time: each table row is four registers of 8, looked up with
/// `vpermps` and chosen between by the entry's bits 3 and 4. Without it the `twin!`
/// build gathers from the table, 2.8 times slower than the division form it replaced;
/// with it about as fast (harness, 1M values, AVX2 on the Zen 4 here, best of 300,
/// three runs: 1.00–1.15 against 0.88–1.17 ms).
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::*;
    use std::arch::x86_64::*;

    /// `dst[i] = tanh(src[i])` for i < n.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `src` is readable and `dst` writable for n values
    /// (they may be the same memory: each vector is read before it is written).
    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn tanh(src: *const f32, dst: *mut f32, n: usize) {
        let whole = n / 8 * 8;
        for i in (0..whole).step_by(8) {
            // SAFETY: i + 8 ≤ n: inside both buffers (the caller's contract).
            unsafe { _mm256_storeu_ps(dst.add(i), tanh_lanes(_mm256_loadu_ps(src.add(i)))) };
        }
        for i in whole..n {
            // SAFETY: i < n, as above.
            unsafe { *dst.add(i) = super::tanh(*src.add(i)) };
        }
    }

    /// Entry `i` of each lane of a table row; `bit3` and `bit4` hold the entry's bits 3
    /// and 4 in their sign bits.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn look_up(row: &[f32; 32], i: __m256i, bit3: __m256, bit4: __m256) -> __m256 {
        let eighth = |k: usize| {
            // SAFETY: k ≤ 3: the row's 32 values are four vectors of 8.
            let part = unsafe { _mm256_loadu_ps(row.as_ptr().add(8 * k)) };
            _mm256_permutevar8x32_ps(part, i)
        };
        let low = _mm256_blendv_ps(eighth(0), eighth(1), bit3);
        let high = _mm256_blendv_ps(eighth(2), eighth(3), bit3);
        _mm256_blendv_ps(low, high, bit4)
    }

    /// `super::tanh`, the same steps as the AVX-512 form but for the look-up's
    /// selection bits.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn tanh_lanes(x: __m256) -> __m256 {
        let sign = _mm256_set1_ps(-0.0);
        let a = _mm256_min_ps(_mm256_set1_ps(CLAMP), _mm256_andnot_ps(sign, x));
        let bits = _mm256_srli_epi32::<{ QUARTER_SHIFT as i32 }>(_mm256_castps_si256(a));
        let i = _mm256_subs_epu16(bits, _mm256_set1_epi32(FIRST_QUARTER as i32));
        let bit3 = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(i));
        let bit4 = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(i));
        let (t, q) = table_polynomial!(a, _mm256_sub_ps, _mm256_fmadd_ps, look_up(i, bit3, bit4));
        let small = _mm256_cmp_ps::<_CMP_LT_OQ>(a, _mm256_set1_ps(SMALL));
        let base = _mm256_blendv_ps(look_up(&COEF[0], i, bit3, bit4), t, small);
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

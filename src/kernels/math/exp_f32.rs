//! e^x and the functions built on it (sigmoid, silu) computed in f32 itself: eight
//! lanes per AVX2 vector instead of the four of `math`'s f64 route, which is what makes
//! `exp(x)` on a big tensor faster than NumPy's. The price is about one ulp instead of
//! half a ulp (the bounds are asserted by `tests/ulp_sweep.rs` and listed in lang/SPEC.md).
//!
//! Every multiply-add is an explicit `mul_add`, a single rounding: the AVX2 build emits
//! FMA instructions and the scalar twin calls the correctly rounded libm `fmaf`, so the
//! two still agree bit for bit.
//!
//! Only functions whose argument reaches `exp` exactly are here: an argument computed in
//! f32 first (gelu's tanh form) would pass its rounding error on, multiplied by its
//! magnitude, so those stay in `math`'s f64.

/// 1.5·2²³: `z + ROUNDER` rounds |z| < 2²² to an integer held in the low mantissa bits.
const ROUNDER: f32 = 12_582_912.0;
/// ln 2 in two parts (the high part rounded to f32, the low part the rest).
const LN2_HI: f32 = std::f32::consts::LN_2;
const LN2_LO: f32 = -1.904_654_3e-9;
/// Beyond these, e^x is +inf or rounds to 0 (e^-104 is already below half the smallest
/// subnormal; silu needs e^x down to about -109, where x·e^x rounds to 0 too).
const EXP_MAX: f32 = 89.0;
const EXP_MIN: f32 = -120.0;
/// 2^-64, which `sigmoid`'s factor 2^(n+64) is scaled back by.
const TWO_TO_MINUS_64: f32 = f32::from_bits((127 - 64) << 23);
/// 1/d ≈ RECIP_AT_0 - RECIP_SLOPE·d on [1, 2], within 1/17 relative (the minimax line).
const RECIP_AT_0: f32 = 24.0 / 17.0;
const RECIP_SLOPE: f32 = 8.0 / 17.0;
/// P of `exp_near`'s e^r = 1 + r·(1 + r·P(r)), highest degree first.
const EXP_P: [f32; 5] = [
    1.389_341_2e-3,
    8.370_336e-3,
    4.166_709_3e-2,
    1.666_650_5e-1,
    0.499_999_97,
];

/// a·b + c rounded once (`tanh_f32` shares it).
#[inline(always)]
pub(super) fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// 2^n for n in [-126, 127], from its bits.
#[inline(always)]
fn pow2(n: i32) -> f32 {
    f32::from_bits((n.wrapping_add(127) as u32).wrapping_shl(23))
}

/// e^x, to about one ulp, with IEEE edges: inf above the overflow threshold, correctly
/// rounded subnormals below the normal range, 0 at -inf, NaN kept.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    let (p, n) = exp_parts(x);
    times_pow2(p, n)
}

/// e^x as p·2^n with p in [√½, √2] (up to rounding) and n in [-174, 129], so that a
/// caller can multiply p by more factors before the one rounding into f32's range.
#[inline(always)]
fn exp_parts(x: f32) -> (f32, i32) {
    // Comparisons, not f32::clamp: NaN must pass through.
    let c = if x > EXP_MAX { EXP_MAX } else { x };
    exp_near(if c < EXP_MIN { EXP_MIN } else { c })
}

/// `exp_parts` for c in [EXP_MIN, EXP_MAX] or NaN (not clamped).
#[inline(always)]
fn exp_near(c: f32) -> (f32, i32) {
    let t = fma(c, std::f32::consts::LOG2_E, ROUNDER);
    let n = (t.to_bits() as i32).wrapping_sub(ROUNDER.to_bits() as i32);
    let nf = t - ROUNDER;
    // c - n·ln2 in two steps: the first is exact up to its one rounding.
    let r = fma(nf, -LN2_HI, c);
    let r = fma(nf, -LN2_LO, r);
    // e^r for |r| ≤ ln2/2 as 1 + r·(1 + r·P(r)), P of degree 4 fitted (Remez) for the
    // least relative error: 5.1e-9 (2⁻²⁷·⁵) with the coefficients in f32, as small as
    // the truncation of Taylor's degree 7, for one multiply-add fewer — the loop is
    // bound by its multiply-adds. tools/fit_exp_polynomial.py derives them.
    let q = fma(r, EXP_P[0], EXP_P[1]);
    let q = fma(q, r, EXP_P[2]);
    let q = fma(q, r, EXP_P[3]);
    let q = fma(q, r, EXP_P[4]);
    let q = fma(q, r, 1.0);
    (fma(q, r, 1.0), n)
}

/// v·2^n for n in [-174, 129] and |v| within a few powers of two of 1: 2^n as two
/// normal factors, so that the first product is exact and only the second rounds, even
/// when the result is subnormal or overflows.
#[inline(always)]
fn times_pow2(v: f32, n: i32) -> f32 {
    let (lo, hi) = pow2_factors(n);
    v * lo * hi
}

/// 2^n for n in [-174, 129] as two normal factors (see `times_pow2`).
#[inline(always)]
fn pow2_factors(n: i32) -> (f32, f32) {
    let half = n >> 1;
    (pow2(half), pow2(n - half))
}

/// 1/(1 + e^-x) from e = e^-|x| alone: 1/(1+e) for x ≥ 0 and e/(1+e) below, so that
/// neither side loses the tiny values (sigmoid(-100) is a subnormal, not 0).
///
/// e = p·2^n is rounded once, as p·2^(n+64) times 2^-64 (n is in [-173, 0] for the
/// clamped -|x|, so p·2^(n+64) is normal and exact), and divided itself: the same bits
/// as scaling the quotient p/(1+e) by 2^n last (`scaled_sigmoid` with c = 1), on all
/// 2³² inputs (checked in a harness against the AVX2 build of that form). Where the
/// result is normal, e is exact and the roundings commute with the power of two; where
/// it is subnormal, 1 + e rounds to 1, the quotient is e, and that form's quotient is
/// p (its correction is below half an ulp), scaled to the same e. The two factors of
/// 2^n, the scaling at the end and its two selects are gone.
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    let (p, n) = exp_near(minus_abs_clamped(x));
    let e = p * pow2(n + 64) * TWO_TO_MINUS_64;
    corrected_quotient(if x >= 0.0 { 1.0 } else { e }, e)
}

/// x · sigmoid(x); silu(-inf) is NaN (-inf · 0), as PyTorch's x / (1 + e^-x) gives.
#[inline(always)]
pub fn silu(x: f32) -> f32 {
    // Below EXP_MIN, x·e^x rounds to -0 (x·p would not stay near 1 for the scaling).
    let v = if x < EXP_MIN {
        -0.0
    } else {
        scaled_sigmoid(x, x)
    };
    let v = if x == f32::NEG_INFINITY { f32::NAN } else { v };
    // A NaN input comes back as itself: which of two NaN operands a multiply returns
    // is up to the instruction, and the two builds must agree. silu(inf) = inf, where
    // the quotient's correction would give inf - inf.
    if x.is_nan() || x == f32::INFINITY {
        x
    } else {
        v
    }
}

/// c·sigmoid(x): with e = e^-|x| = p·2^n, c/(1+e) for x ≥ 0 and c·p/(1+e)·2^n below,
/// scaled last so that a subnormal result rounds only once.
#[inline(always)]
fn scaled_sigmoid(x: f32, c: f32) -> f32 {
    let (p, n) = exp_near(minus_abs_clamped(x));
    // The same two factors scale e and, below 0, the result: computed once.
    let (lo, hi) = pow2_factors(n);
    let e = p * lo * hi;
    let (num, lo, hi) = if x >= 0.0 {
        (c, 1.0, 1.0)
    } else {
        (c * p, lo, hi)
    };
    // (The quotient is infinite only for silu(inf), which `silu` answers itself.)
    corrected_quotient(num, e) * lo * hi
}

/// -|x| clamped below at EXP_MIN, NaN passed through (-|x| ≤ 0: only the lower clamp
/// can apply).
#[inline(always)]
fn minus_abs_clamped(x: f32) -> f32 {
    let minus_abs = -x.abs();
    if minus_abs < EXP_MIN {
        EXP_MIN
    } else {
        minus_abs
    }
}

/// num/(1 + e) for e in [0, 1] with the rounding of 1 + e put back into the quotient
/// (it is exact to recover, as e ≤ 1).
#[inline(always)]
fn corrected_quotient(num: f32, e: f32) -> f32 {
    let d = 1.0 + e;
    let lost = e - (d - 1.0);
    let q = num / d;
    // q·lost/d is below an ulp of q, so a 6%-accurate 1/d (a line on [1, 2]) serves
    // in place of a second division. It is taken negated rather than negating q: in
    // `sigmoid` a NaN then meets only copies of itself (all from -|x|, sign set), and
    // the result does not depend on which operand a multiply-add's NaN comes from —
    // which differs between `fmaf`, `vfmadd` and the `vfnmadd` LLVM folds a negation
    // into. (`silu` answers a NaN itself.)
    let minus_inv_d = fma(d, RECIP_SLOPE, -RECIP_AT_0);
    fma(q, lost * minus_inv_d, q)
}

/// A loop `dst[i] = f(src[i])` over n values, as the hand-written vector loops are:
/// `(src, dst, n)`.
pub type MapLoop = unsafe fn(*const f32, *mut f32, usize);

/// Defines `pub unsafe fn $name(src, dst, n)`: `dst[i] = f(src[i])` for i < n with the
/// 16-lane `$lanes`, in a module with `std::arch::x86_64::*` in scope. `src` and `dst`
/// may be the same memory (each vector is read before it is written).
#[cfg(target_arch = "x86_64")]
macro_rules! map_lanes {
    ($(#[$m:meta])* $name:ident, $lanes:ident) => {
        $(#[$m])*
        ///
        /// # Safety
        /// The CPU has AVX-512 F, BW and DQ; `src` is readable and `dst` writable for n
        /// values.
        #[target_feature(enable = "avx512f,avx512bw,avx512dq")]
        pub unsafe fn $name(src: *const f32, dst: *mut f32, n: usize) {
            let whole = n / 16 * 16;
            for i in (0..whole).step_by(16) {
                // SAFETY: i + 16 ≤ n: inside both buffers (the caller's contract).
                unsafe { _mm512_storeu_ps(dst.add(i), $lanes(_mm512_loadu_ps(src.add(i)))) };
            }
            if whole < n {
                let lanes = (1u16 << (n - whole)) - 1;
                // SAFETY: the lanes set are whole..n, inside both buffers; masked
                // lanes are neither read nor written.
                unsafe {
                    let x = _mm512_maskz_loadu_ps(lanes, src.add(whole));
                    _mm512_mask_storeu_ps(dst.add(whole), lanes, $lanes(x));
                }
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(super) use map_lanes;

/// `map_lanes!` for an 8-lane AVX2 `$lanes` (also in a module with
/// `std::arch::x86_64::*` in scope), the tail (fewer than 8 values) through the scalar
/// `$scalar`, whose bits the lanes have.
#[cfg(target_arch = "x86_64")]
macro_rules! map_lanes_avx2 {
    ($(#[$m:meta])* $name:ident, $lanes:ident, $scalar:path) => {
        $(#[$m])*
        ///
        /// # Safety
        /// The CPU has AVX2 and FMA; `src` is readable and `dst` writable for n values
        /// (they may be the same memory: each vector is read before it is written).
        #[target_feature(enable = "avx2,fma")]
        pub unsafe fn $name(src: *const f32, dst: *mut f32, n: usize) {
            let whole = n / 8 * 8;
            for i in (0..whole).step_by(8) {
                // SAFETY: i + 8 ≤ n: inside both buffers (the caller's contract).
                unsafe { _mm256_storeu_ps(dst.add(i), $lanes(_mm256_loadu_ps(src.add(i)))) };
            }
            for i in whole..n {
                // SAFETY: i < n, as above.
                unsafe { *dst.add(i) = $scalar(*src.add(i)) };
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(super) use map_lanes_avx2;

/// `sigmoid` eight lanes at a time, written out because LLVM's vectorization of the
/// scalar form clamps -|x| with a compare, a blend and a mask where one `max` does, and
/// selects the numerator by a compare where x's sign bit serves. Harness, 1M values,
/// one thread of the Zen 3 here, best of 200, three runs: the `twin!` build of the
/// scaled form (before) 1.09–1.11 ms, of `sigmoid`'s form 0.82–0.84, this loop
/// 0.66–0.70, bit-identical to the first on all 2³² inputs (NaN included); the test
/// checks it against the scalar `sigmoid`.
#[cfg(target_arch = "x86_64")]
pub mod avx2 {
    use super::*;
    use std::arch::x86_64::*;

    map_lanes_avx2!(
        /// `sigmoid` of each value.
        sigmoid,
        sigmoid_lanes,
        super::sigmoid
    );

    /// `super::sigmoid`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    fn sigmoid_lanes(x: __m256) -> __m256 {
        let splat = _mm256_set1_ps;
        let minus_abs = _mm256_or_ps(x, splat(-0.0));
        // max(MIN, ·) returns its second operand when it is NaN, as
        // `minus_abs_clamped` does.
        let c = _mm256_max_ps(splat(EXP_MIN), minus_abs);
        let t = _mm256_fmadd_ps(c, splat(std::f32::consts::LOG2_E), splat(ROUNDER));
        let nf = _mm256_sub_ps(t, splat(ROUNDER));
        let r = _mm256_fmadd_ps(nf, splat(-LN2_HI), c);
        let r = _mm256_fmadd_ps(nf, splat(-LN2_LO), r);
        // `exp_near`'s polynomial.
        let poly = _mm256_fmadd_ps(r, splat(EXP_P[0]), splat(EXP_P[1]));
        let poly = _mm256_fmadd_ps(poly, r, splat(EXP_P[2]));
        let poly = _mm256_fmadd_ps(poly, r, splat(EXP_P[3]));
        let poly = _mm256_fmadd_ps(poly, r, splat(EXP_P[4]));
        let poly = _mm256_fmadd_ps(poly, r, splat(1.0));
        let p = _mm256_fmadd_ps(poly, r, splat(1.0));
        // t's bits are ROUNDER's plus n (t is in [2²³, 2²⁴), where the ulp is 1), so
        // 2^(n+64)'s bits are (t + 191 - ROUNDER's bits) << 23: the scalar `pow2`'s
        // wrapping arithmetic, which also gives the same (never NaN) factor for a NaN.
        let offset = _mm256_set1_epi32(191 - ROUNDER.to_bits() as i32);
        let scale = _mm256_slli_epi32::<23>(_mm256_add_epi32(_mm256_castps_si256(t), offset));
        let e = _mm256_mul_ps(
            _mm256_mul_ps(p, _mm256_castsi256_ps(scale)),
            splat(TWO_TO_MINUS_64),
        );
        let d = _mm256_add_ps(splat(1.0), e);
        let lost = _mm256_sub_ps(e, _mm256_sub_ps(d, splat(1.0)));
        // e where x's sign bit is set: x ≥ 0 takes 1 as in the scalar form, and for
        // x = -0 (e = 1) and a NaN x (e is that NaN, and so is d) either numerator
        // gives the same quotient.
        let q = _mm256_div_ps(_mm256_blendv_ps(splat(1.0), e, x), d);
        let minus_inv_d = _mm256_fmadd_ps(d, splat(RECIP_SLOPE), splat(-RECIP_AT_0));
        _mm256_fmadd_ps(q, _mm256_mul_ps(lost, minus_inv_d), q)
    }
}

/// `exp` and `sigmoid` sixteen lanes at a time with their scaling by 2^n done by
/// `vscalefps`, which rounds v·2^n once, as `times_pow2`'s two factors do: the same
/// bits as the scalar twin on all 2³² inputs (checked in a harness), for the seven
/// integer and float instructions that build and apply the two factors. One thread of
/// the AVX-512 Zen 4 here, 1M values, best of 500, three runs, against the `twin!`
/// build: exp 0.243–0.286 → 0.180–0.195 ms, sigmoid 0.484–0.487 → 0.378–0.381 ms.
/// (Those checks predate the negated 1/d of `corrected_quotient`, taken here too; it
/// changes no finite value, by the symmetry of rounding, and was not run on an AVX-512
/// machine since: `avx512_loops_have_the_scalar_bits` checks it there.)
#[cfg(target_arch = "x86_64")]
pub mod avx512 {
    use super::*;
    use std::arch::x86_64::*;

    map_lanes!(
        /// `exp` of each value.
        exp,
        exp_lanes
    );
    map_lanes!(
        /// `sigmoid` of each value.
        sigmoid,
        sigmoid_lanes
    );

    /// `exp_near`'s p and n (as a float) for c in [EXP_MIN, EXP_MAX] or NaN.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn exp_near_lanes(c: __m512) -> (__m512, __m512) {
        let splat = _mm512_set1_ps;
        let t = _mm512_fmadd_ps(c, splat(std::f32::consts::LOG2_E), splat(ROUNDER));
        let nf = _mm512_sub_ps(t, splat(ROUNDER));
        let r = _mm512_fmadd_ps(nf, splat(-LN2_HI), c);
        let r = _mm512_fmadd_ps(nf, splat(-LN2_LO), r);
        let q = _mm512_fmadd_ps(r, splat(EXP_P[0]), splat(EXP_P[1]));
        let q = _mm512_fmadd_ps(q, r, splat(EXP_P[2]));
        let q = _mm512_fmadd_ps(q, r, splat(EXP_P[3]));
        let q = _mm512_fmadd_ps(q, r, splat(EXP_P[4]));
        let q = _mm512_fmadd_ps(q, r, splat(1.0));
        (_mm512_fmadd_ps(q, r, splat(1.0)), nf)
    }

    /// `super::exp`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn exp_lanes(x: __m512) -> __m512 {
        let splat = _mm512_set1_ps;
        // min(MAX, x) and max(MIN, ·) return x when it is NaN, as `exp_parts` does.
        let c = _mm512_max_ps(splat(EXP_MIN), _mm512_min_ps(splat(EXP_MAX), x));
        let (p, nf) = exp_near_lanes(c);
        _mm512_scalef_ps(p, nf)
    }

    /// `super::sigmoid` in `scaled_sigmoid`'s form with c = 1 (the quotient of p scaled
    /// by 2^n last, which `sigmoid` gives the same bits as).
    #[target_feature(enable = "avx512f,avx512dq")]
    #[inline]
    fn sigmoid_lanes(x: __m512) -> __m512 {
        let splat = _mm512_set1_ps;
        let minus_abs = _mm512_or_ps(x, splat(-0.0));
        // max(MIN, ·) returns its second operand when it is NaN.
        let (p, nf) = exp_near_lanes(_mm512_max_ps(splat(EXP_MIN), minus_abs));
        let e = _mm512_scalef_ps(p, nf);
        let d = _mm512_add_ps(splat(1.0), e);
        let lost = _mm512_sub_ps(e, _mm512_sub_ps(d, splat(1.0)));
        // Ordered: false for NaN, which takes the x < 0 side as in the scalar form.
        let nonnegative = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(x, splat(0.0));
        let q = _mm512_div_ps(_mm512_mask_blend_ps(nonnegative, p, splat(1.0)), d);
        // The negated 1/d of `corrected_quotient`.
        let minus_inv_d = _mm512_fmadd_ps(d, splat(RECIP_SLOPE), splat(-RECIP_AT_0));
        let v = _mm512_fmadd_ps(q, _mm512_mul_ps(lost, minus_inv_d), q);
        _mm512_mask_blend_ps(nonnegative, _mm512_scalef_ps(v, nf), v)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::kernels::isa::Isa;

    #[test]
    fn edges() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        assert_eq!(exp(-inf), 0.0);
        assert_eq!(exp(inf), inf);
        assert_eq!(exp(89.0), inf);
        // Just below the overflow threshold: finite, within an ulp.
        let near_max = f64::from(exp(88.72));
        assert!((near_max / f64::from(88.72f32).exp() - 1.0).abs() < 1.2e-7);
        assert_eq!(exp(-104.0), 0.0);
        assert_eq!(exp(-119.0), 0.0);
        assert_eq!(exp(-100.0), (-100f64).exp() as f32); // a subnormal result
        assert_eq!(exp(-149.0 * std::f32::consts::LN_2), f32::from_bits(1));
        assert_eq!(exp(0.0), 1.0);
        assert!(exp(nan).is_nan());
        assert_eq!(sigmoid(-inf), 0.0);
        assert_eq!(sigmoid(inf), 1.0);
        assert!(sigmoid(nan).is_nan());
        assert!(sigmoid(-100.0) > 0.0);
        assert!(silu(-inf).is_nan() && silu(nan).is_nan());
        assert_eq!(silu(inf), inf);
        assert!(silu(-108.0) < 0.0 && silu(-1e30) == 0.0);
    }

    /// The AVX-512 loops against `exp` and `sigmoid`.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_loops_have_the_scalar_bits() {
        check_vector_loop(exp, avx512::exp, Isa::avx512);
        check_vector_loop(sigmoid, avx512::sigmoid, Isa::avx512);
    }

    /// The AVX2 loop against `sigmoid`.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_loop_has_the_scalar_bits() {
        check_vector_loop(sigmoid, avx2::sigmoid, Isa::avx2);
    }

    /// A vector loop against its scalar function, bit for bit: every 4099th bit
    /// pattern (all exponents, NaN and infinity among them, subnormal results), in
    /// place and into another buffer, and every tail length; skipped when `runs`
    /// says this CPU's `Isa` cannot run it.
    #[cfg(target_arch = "x86_64")]
    pub(in crate::kernels::math) fn check_vector_loop(
        scalar: fn(f32) -> f32,
        simd: MapLoop,
        runs: fn(Isa) -> bool,
    ) {
        if !runs(Isa::detect()) {
            eprintln!("skipped: this CPU cannot run the loop");
            return;
        }
        let xs: Vec<f32> = (0..=u32::MAX)
            .step_by(4099)
            .map(f32::from_bits)
            .chain([f32::INFINITY, f32::NEG_INFINITY, -0.0, 88.72, -103.9])
            .collect();
        let want: Vec<f32> = xs.iter().map(|&x| scalar(x)).collect();
        for n in (0..40).chain([xs.len()]) {
            let mut into = vec![0.0; n];
            let mut in_place = xs[..n].to_vec();
            // SAFETY: the loop's ISA was detected; each buffer holds n values.
            unsafe {
                simd(xs.as_ptr(), into.as_mut_ptr(), n);
                let p = in_place.as_mut_ptr();
                simd(p, p, n);
            }
            // The first difference only (the vectors are long).
            let differs = |got: &[f32]| {
                let at = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits());
                at.map(|i| (xs[i].to_bits(), got[i].to_bits(), want[i].to_bits()))
            };
            assert_eq!(differs(&into), None, "{n} values: (x, got, want) bits");
            assert_eq!(differs(&in_place), None, "{n} values in place");
        }
    }
}

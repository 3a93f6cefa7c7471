//! e^x and the functions built on it (tanh, sigmoid, silu) computed in f32 itself: eight
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
/// Below this |x|, tanh's odd polynomial is more accurate than the exp form.
const TANH_POLY_LIMIT: f32 = 0.625;
/// 1/d ≈ RECIP_AT_0 - RECIP_SLOPE·d on [1, 2], within 1/17 relative (the minimax line).
const RECIP_AT_0: f32 = 24.0 / 17.0;
const RECIP_SLOPE: f32 = 8.0 / 17.0;
/// Beyond this |x|, tanh(x) rounds to ±1.
const TANH_ONE: f32 = 10.0;

#[inline(always)]
fn fma(a: f32, b: f32, c: f32) -> f32 {
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
    let q = fma(r, 1.389_341_2e-3, 8.370_336e-3);
    let q = fma(q, r, 4.166_709_3e-2);
    let q = fma(q, r, 1.666_650_5e-1);
    let q = fma(q, r, 0.499_999_97);
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

/// tanh: an odd polynomial near 0 (Cephes' tanhf coefficients), 1 - 2/(e+1) with
/// e = e^{2|x|} beyond, the sign restored; ±1 at ±inf, -0 kept.
#[inline(always)]
pub fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let z = a * a;
    let p = fma(z, -5.704_988_7e-3, 2.063_909e-2);
    let p = fma(p, z, -5.373_971_6e-2);
    let p = fma(p, z, 1.333_144_2e-1);
    let p = fma(p, z, -3.333_328e-1);
    let small = fma(p * z, a, a);
    // e^{2a} with 2a in [0, 20] (or NaN): no clamping, and 2^n is a normal factor.
    let (p, n) = exp_near(2.0 * if a > TANH_ONE { TANH_ONE } else { a });
    let e = p * pow2(n);
    // 1 - 2/(e+1), with what rounding e + 1 lost (exact, as e ≥ 1) put back into the
    // quotient: that rounding alone would cost up to a whole ulp of the result.
    let d = e + 1.0;
    let lost = 1.0 - (d - e);
    let y = 2.0 / d;
    let large = 1.0 - fma(-0.5 * y * y, lost, y);
    let t = if a < TANH_POLY_LIMIT { small } else { large };
    // NaN is not below the limit: it takes the exp form, which keeps it NaN.
    t.copysign(x)
}

/// 1/(1 + e^-x) from e = e^-|x| alone: 1/(1+e) for x ≥ 0 and e/(1+e) below, so that
/// neither side loses the tiny values (sigmoid(-100) is a subnormal, not 0).
#[inline(always)]
pub fn sigmoid(x: f32) -> f32 {
    scaled_sigmoid(x, 1.0)
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
/// scaled last so that a subnormal result rounds only once. The rounding of 1 + e is
/// put back into the quotient (it is exact to recover, as e ≤ 1).
#[inline(always)]
fn scaled_sigmoid(x: f32, c: f32) -> f32 {
    let minus_abs = -x.abs();
    // -|x| ≤ 0, so only the lower clamp can apply (and NaN passes through).
    let (p, n) = exp_near(if minus_abs < EXP_MIN {
        EXP_MIN
    } else {
        minus_abs
    });
    // The same two factors scale e and, below 0, the result: computed once.
    let (lo, hi) = pow2_factors(n);
    let e = p * lo * hi;
    let d = 1.0 + e;
    let lost = e - (d - 1.0);
    let (num, lo, hi) = if x >= 0.0 {
        (c, 1.0, 1.0)
    } else {
        (c * p, lo, hi)
    };
    let q = num / d;
    // q·lost/d is below an ulp of q, so a 6%-accurate 1/d (a line on [1, 2]) serves
    // in place of a second division.
    let inv_d = fma(d, -RECIP_SLOPE, RECIP_AT_0);
    // (q is infinite only for silu(inf), which `silu` answers itself.)
    fma(-q, lost * inv_d, q) * lo * hi
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(tanh(inf), 1.0);
        assert_eq!(tanh(-inf), -1.0);
        assert!(tanh(-0.0).is_sign_negative() && tanh(-0.0) == 0.0);
        assert!(tanh(nan).is_nan());
        assert_eq!(tanh(1e-30), 1e-30);
        assert_eq!(sigmoid(-inf), 0.0);
        assert_eq!(sigmoid(inf), 1.0);
        assert!(sigmoid(nan).is_nan());
        assert!(sigmoid(-100.0) > 0.0);
        assert!(silu(-inf).is_nan() && silu(nan).is_nan());
        assert_eq!(silu(inf), inf);
        assert!(silu(-108.0) < 0.0 && silu(-1e30) == 0.0);
    }
}

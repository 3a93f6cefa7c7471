//! Vectorizable f32 math: exp2, log, log2, log10, sin, cos, tan and gelu's tanh form,
//! each a branch-free function of one element that LLVM turns into AVX2 code inside
//! `twin!` loops (exp, tanh, sigmoid and silu are in `exp_f32`, computed in f32 for
//! speed; `apply` dispatches to both). These compute in f64 (one f32 → f64 widening, a short
//! polynomial, one rounding back), which makes them accurate to about half an ulp and
//! handles f32 subnormals, overflow and underflow without special cases: the f64
//! intermediate never leaves its normal range where it matters, and the final
//! conversion rounds into f32's subnormals or to ±inf exactly as IEEE says.
//! The max ulp errors measured by `tests/ulp_sweep.rs` are in lang/SPEC.md.
//!
//! Integers are moved in and out of f64 with the 1.5·2⁵² trick (AVX2 has no 64-bit
//! int ↔ float conversion), and every selection is an `if` on values already computed,
//! which LLVM emits as a blend.

/// 1.5·2⁵²: `z + ROUNDER` rounds `z` to an integer held in the low mantissa bits.
const ROUNDER: f64 = 6755399441055744.0;
// fdlibm's ln2_hi has 32 significant bits, so n·LN2_HI is exact.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = 1.908_214_929_270_587_7e-10;
/// fdlibm's three-part π/2: the first two have 33 significant bits, so for |n| < 2¹⁹
/// `x - n·PIO2_1 - n·PIO2_2` is exact and r keeps full relative precision.
const PIO2_1: f64 = 1.570_796_326_734_125_6;
const PIO2_2: f64 = 6.077_100_506_303_966e-11;
const PIO2_3: f64 = 2.022_266_248_711_166_5e-21;
/// Beyond this |x| the π/2 reduction above loses bits: sin, cos and tan fall back to std.
pub(super) const TRIG_FAST_LIMIT: f32 = 524288.0; // 2^19
/// Below this |x|, sin(x) and tan(x) round to x itself in f32.
const TINY: f32 = 2.441_406_3e-4; // 2^-12

/// `z` rounded to the nearest integer (ties to even), as f64 and as i64; |z| < 2⁵¹.
#[inline(always)]
fn round_int(z: f64) -> (f64, i64) {
    let t = z + ROUNDER;
    let n = (t.to_bits() as i64).wrapping_sub(ROUNDER.to_bits() as i64);
    (t - ROUNDER, n)
}

/// `k` as f64 for |k| < 2⁵¹ (AVX2 has no int64 → double conversion).
#[inline(always)]
fn int_to_f64(k: i64) -> f64 {
    f64::from_bits((ROUNDER.to_bits() as i64).wrapping_add(k) as u64) - ROUNDER
}

/// e^r · 2^n for |r| ≤ ln2/2 (plus rounding) and n in [-1022, 1023]: Taylor to degree 9
/// (truncation below 2⁻³⁷ relative).
#[inline(always)]
fn exp_reduced(r: f64, n: i64) -> f64 {
    const C: [f64; 10] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
    ];
    let mut p = C[9];
    for &c in C[..9].iter().rev() {
        p = p * r + c;
    }
    let scale = f64::from_bits((n.wrapping_add(1023) as u64).wrapping_shl(52));
    p * scale
}

/// e^z in f64 to about 2⁻³⁷ relative; inf above 709, 0 below -708 (f64 subnormal
/// results are flushed: nothing computed from them here survives rounding to f32).
#[inline(always)]
pub fn exp_wide(z: f64) -> f64 {
    // Comparisons, not f64::clamp: NaN must pass through.
    let c = if z > 709.0 { 709.0 } else { z };
    let c = if c < -708.0 { -708.0 } else { c };
    let (nf, n) = round_int(c * std::f64::consts::LOG2_E);
    let r = (c - nf * LN2_HI) - nf * LN2_LO;
    let e = exp_reduced(r, n);
    let e = if z > 709.0 { f64::INFINITY } else { e };
    if z < -708.0 {
        0.0
    } else {
        e
    }
}

#[inline(always)]
pub fn exp2(x: f32) -> f32 {
    let z = f64::from(x);
    let c = if z > 1023.0 { 1023.0 } else { z };
    let c = if c < -1022.0 { -1022.0 } else { c };
    let (nf, n) = round_int(c);
    // x - n is exact; one rounding in the product.
    (exp_reduced((c - nf) * std::f64::consts::LN_2, n)) as f32
}

/// ln of a positive, finite, normal f64 as (k, ln m) with x = 2^k · m, m in [√½, √2):
/// ln m = 2·atanh(s), s = (m-1)/(m+1), by its series to s¹¹ (|s| < 0.172, truncation
/// below 2⁻³⁴ relative).
#[inline(always)]
fn ln_parts(x: f64) -> (f64, f64) {
    const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;
    const ONE_BITS: u64 = 0x3ff0_0000_0000_0000;
    // Offset the bits so the exponent field counts from √½ rather than from 1.
    let adj = x.to_bits().wrapping_add(ONE_BITS - SQRT_HALF_BITS);
    let k = ((adj >> 52) as i64).wrapping_sub(1023);
    let m = f64::from_bits((adj & 0x000f_ffff_ffff_ffff).wrapping_add(SQRT_HALF_BITS));
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let p = 1.0
        + z * (1.0 / 3.0 + z * (1.0 / 5.0 + z * (1.0 / 7.0 + z * (1.0 / 9.0 + z * (1.0 / 11.0)))));
    (int_to_f64(k), 2.0 * s * p)
}

/// The value of a log at x ≤ 0, +inf and NaN (IEEE: -inf at ±0, NaN below, inf at inf).
#[inline(always)]
fn log_edges(x: f32, v: f32) -> f32 {
    let v = if x == f32::INFINITY { x } else { v };
    let v = if x == 0.0 { f32::NEG_INFINITY } else { v };
    // `!(x >= 0)` is true for negative x and NaN.
    if x >= 0.0 {
        v
    } else {
        f32::NAN
    }
}

#[inline(always)]
pub fn ln(x: f32) -> f32 {
    let (k, lm) = ln_parts(f64::from(x));
    log_edges(x, (k * std::f64::consts::LN_2 + lm) as f32)
}

/// Exact at powers of two (ln m is then 0).
#[inline(always)]
pub fn log2(x: f32) -> f32 {
    let (k, lm) = ln_parts(f64::from(x));
    log_edges(x, (k + lm * std::f64::consts::LOG2_E) as f32)
}

#[inline(always)]
pub fn log10(x: f32) -> f32 {
    let (k, lm) = ln_parts(f64::from(x));
    let v = k * std::f64::consts::LOG10_2 + lm * std::f64::consts::LOG10_E;
    log_edges(x, v as f32)
}

/// sin and cos of |r| ≤ π/4 (+ rounding): musl's `__sindf`/`__cosdf` minimax
/// polynomials, errors 2⁻³⁷·⁵ and 2⁻³⁴·¹.
#[inline(always)]
fn sin_cos_kernel(r: f64) -> (f64, f64) {
    const S: [f64; 4] = [
        -0.166_666_666_416_265_24,
        0.008_333_329_385_889_463,
        -0.000_198_393_348_360_966_3,
        0.000_002_718_311_493_989_822,
    ];
    const C: [f64; 4] = [
        -0.499_999_997_251_031,
        0.041_666_623_323_739_06,
        -0.001_388_676_377_460_993,
        0.000_024_390_448_796_277_41,
    ];
    let z = r * r;
    let w = z * z;
    let s = z * r;
    let sin = (r + s * (S[0] + z * S[1])) + s * w * (S[2] + z * S[3]);
    let cos = ((1.0 + z * C[0]) + w * C[1]) + (w * z) * (C[2] + z * C[3]);
    (sin, cos)
}

/// x reduced by multiples of π/2: (sin r, cos r, n mod 4). Valid for |x| < 2¹⁹.
#[inline(always)]
fn trig_parts(x: f32) -> (f64, f64, i64) {
    let x = f64::from(x);
    let (nf, n) = round_int(x * std::f64::consts::FRAC_2_PI);
    let r = ((x - nf * PIO2_1) - nf * PIO2_2) - nf * PIO2_3;
    let (s, c) = sin_cos_kernel(r);
    (s, c, n & 3)
}

/// sin for |x| < 2¹⁹ (other lanes are recomputed by `fix_large_trig`).
#[inline(always)]
pub fn sin(x: f32) -> f32 {
    let (s, c, q) = trig_parts(x);
    let v = if q & 1 == 0 { s } else { c };
    let v = if q & 2 == 0 { v } else { -v };
    if x.abs() < TINY {
        x
    } else {
        v as f32
    }
}

#[inline(always)]
pub fn cos(x: f32) -> f32 {
    let (s, c, q) = trig_parts(x);
    let v = if q & 1 == 0 { c } else { -s };
    (if q & 2 == 0 { v } else { -v }) as f32
}

#[inline(always)]
pub fn tan(x: f32) -> f32 {
    let (s, c, q) = trig_parts(x);
    let v = if q & 1 == 0 { s / c } else { -c / s };
    if x.abs() < TINY {
        x
    } else {
        v as f32
    }
}

/// x · sigmoid(2y), y = √(2/π)(x + 0.044715x³): gelu's tanh form without cancellation.
#[inline(always)]
pub fn gelu_tanh(x: f32) -> f32 {
    const K: f64 = 0.797_884_560_802_865_4; // √(2/π)
    let x = f64::from(x);
    let y = K * (x + 0.044715 * x * x * x);
    (x / (1.0 + exp_wide(-2.0 * y))) as f32
}

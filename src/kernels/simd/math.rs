//! Vectorizable f32 math: exp2, log, log2, log10, sin, cos, tan and gelu's tanh form,
//! each a branch-free function of one element that LLVM turns into AVX2 code inside
//! `twin!` loops (exp, tanh, sigmoid and silu are in `exp_f32`, computed in f32 for
//! speed; `apply_f32` dispatches to both). These compute in f64 (one f32 → f64 widening, a short
//! polynomial, one rounding back), which makes them accurate to about half an ulp and
//! handles f32 subnormals, overflow and underflow without special cases: the f64
//! intermediate never leaves its normal range where it matters, and the final
//! conversion rounds into f32's subnormals or to ±inf exactly as IEEE says.
//! The max ulp errors measured by `tests/ulp_sweep.rs` are in lang/SPEC.md.
//!
//! Integers are moved in and out of f64 with the 1.5·2⁵² trick (AVX2 has no 64-bit
//! int ↔ float conversion), and every selection is an `if` on values already computed,
//! which LLVM emits as a blend.

use half::{bf16, f16};

use super::{exp_f32, twin};
use crate::kernels::isa::Isa;
use crate::kernels::nn;

/// The functions with a vector implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Exp,
    Exp2,
    Ln,
    Log2,
    Log10,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Silu,
    /// The exact gelu (through erfc in f64; not vectorized).
    Gelu,
    GeluTanh,
}

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
const TRIG_FAST_LIMIT: f32 = 524288.0; // 2^19
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

twin! {
    /// `xs[i] = f(xs[i])`.
    fn map_in_place[F: Fn(f32) -> f32](xs: &mut [f32], f: F) {
        for x in xs.iter_mut() {
            *x = f(*x);
        }
    }
}

/// Recomputes through std's f64 functions the lanes whose |x| is beyond the vector
/// reduction's range (the inputs are read from `src`, results written to `dst`).
fn fix_large_trig(dst: &mut [f32], src: &[f32], f: fn(f64) -> f64) {
    for (d, &x) in dst.iter_mut().zip(src) {
        if x.abs() >= TRIG_FAST_LIMIT {
            *d = f(f64::from(x)) as f32;
        }
    }
}

/// Block length for functions that need the inputs after the vector pass.
const BLOCK: usize = 256;

/// `xs[i] = f(xs[i])` for f32, vectorized with `isa`.
pub fn apply_f32(isa: Isa, f: MathFn, xs: &mut [f32]) {
    match f {
        MathFn::Exp => map_in_place(isa, xs, exp_f32::exp),
        MathFn::Exp2 => map_in_place(isa, xs, exp2),
        MathFn::Ln => map_in_place(isa, xs, ln),
        MathFn::Log2 => map_in_place(isa, xs, log2),
        MathFn::Log10 => map_in_place(isa, xs, log10),
        MathFn::Tanh => map_in_place(isa, xs, exp_f32::tanh),
        MathFn::Sigmoid => map_in_place(isa, xs, exp_f32::sigmoid),
        MathFn::Silu => map_in_place(isa, xs, exp_f32::silu),
        MathFn::GeluTanh => map_in_place(isa, xs, gelu_tanh),
        MathFn::Gelu => xs.iter_mut().for_each(|x| *x = nn::gelu(*x)),
        MathFn::Sin => trig(isa, xs, sin, f64::sin),
        MathFn::Cos => trig(isa, xs, cos, f64::cos),
        MathFn::Tan => trig(isa, xs, tan, f64::tan),
    }
}

/// A trig function in blocks: the vector pass, then std for the few huge arguments.
fn trig(isa: Isa, xs: &mut [f32], fast: impl Fn(f32) -> f32, exact: fn(f64) -> f64) {
    let mut src = [0f32; BLOCK];
    for block in xs.chunks_mut(BLOCK) {
        let src = &mut src[..block.len()];
        src.copy_from_slice(block);
        map_in_place(isa, block, &fast);
        fix_large_trig(block, src, exact);
    }
}

/// The same functions on f64, element by element with std (already accurate; `isa`
/// is unused).
pub fn apply_f64(_isa: Isa, f: MathFn, xs: &mut [f64]) {
    let g: fn(f64) -> f64 = match f {
        MathFn::Exp => f64::exp,
        MathFn::Exp2 => f64::exp2,
        MathFn::Ln => f64::ln,
        MathFn::Log2 => f64::log2,
        MathFn::Log10 => f64::log10,
        MathFn::Sin => f64::sin,
        MathFn::Cos => f64::cos,
        MathFn::Tan => f64::tan,
        MathFn::Tanh => f64::tanh,
        MathFn::Sigmoid => nn::sigmoid,
        MathFn::Silu => nn::silu,
        MathFn::Gelu => nn::gelu,
        MathFn::GeluTanh => nn::gelu_tanh,
    };
    xs.iter_mut().for_each(|x| *x = g(*x));
}

/// f16/bf16: widen a block to f32 (the `half` crate uses F16C where present), apply
/// the f32 function, round back once.
pub fn apply_half<H: HalfSlice>(isa: Isa, f: MathFn, xs: &mut [H]) {
    let mut buf = [0f32; BLOCK];
    for block in xs.chunks_mut(BLOCK) {
        let wide = &mut buf[..block.len()];
        H::widen(block, wide);
        apply_f32(isa, f, wide);
        H::narrow(wide, block);
    }
}

/// Slice conversions of the half-precision types.
pub trait HalfSlice: Sized {
    fn widen(src: &[Self], dst: &mut [f32]);
    fn narrow(src: &[f32], dst: &mut [Self]);
}

macro_rules! half_slice {
    ($($t:ty),*) => {$(
        impl HalfSlice for $t {
            fn widen(src: &[Self], dst: &mut [f32]) {
                half::slice::HalfFloatSliceExt::convert_to_f32_slice(src, dst);
            }
            fn narrow(src: &[f32], dst: &mut [Self]) {
                half::slice::HalfFloatSliceExt::convert_from_f32_slice(dst, src);
            }
        }
    )*};
}
half_slice!(f16, bf16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_values_follow_ieee_and_numpy() {
        let (inf, nan) = (f32::INFINITY, f32::NAN);
        assert_eq!(exp2(3.0), 8.0);
        assert_eq!(exp2(-149.0), f32::from_bits(1));
        assert_eq!(ln(0.0), f32::NEG_INFINITY);
        assert_eq!(ln(-0.0), f32::NEG_INFINITY);
        assert!(ln(-1.0).is_nan() && ln(nan).is_nan() && ln(-inf).is_nan());
        assert_eq!(ln(inf), inf);
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(
            ln(f32::from_bits(1)),
            (f64::from(f32::from_bits(1))).ln() as f32
        );
        assert_eq!(log2(8.0), 3.0);
        assert_eq!(log2(f32::from_bits(1)), -149.0);
        assert_eq!(log10(1000.0), 3.0);
        assert!(sin(-0.0).is_sign_negative());
        assert!(sin(nan).is_nan() && cos(inf).is_nan());
        assert!(gelu_tanh(-inf).is_nan());
        assert_eq!(cos(0.0), 1.0);
        let mut big = [1e30f32, -3e7, f32::INFINITY];
        apply_f32(Isa::detect(), MathFn::Sin, &mut big);
        assert_eq!(big[0], f64::from(1e30f32).sin() as f32);
        assert_eq!(big[1], (-3e7f64).sin() as f32);
        assert!(big[2].is_nan());
    }

    #[test]
    fn halves_round_once_from_the_f32_function() {
        let xs: Vec<f16> = (0..600)
            .map(|i| f16::from_f32(i as f32 * 0.03 - 9.0))
            .collect();
        let mut got = xs.clone();
        apply_half(Isa::detect(), MathFn::Tanh, &mut got);
        for (g, x) in got.iter().zip(&xs) {
            assert_eq!(*g, f16::from_f32(exp_f32::tanh(x.to_f32())));
        }
    }
}

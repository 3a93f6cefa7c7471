//! `xs[i] = f(xs[i])` over a slice for the functions with a vector implementation:
//! f32 through the `twin!` builds of `wide`, `exp_f32` and `tanh_f32` (exp, sigmoid and
//! tanh on AVX-512, sigmoid and tanh on AVX2 through hand-written loops, the same bits),
//! f16/bf16 through f32 blocks, f64 through std (and `activation`) element by element.

use std::mem::MaybeUninit;

use half::{bf16, f16};

use super::activation;
use super::exp_f32;
use super::tanh_f32;
use super::wide::{cos, exp2, gelu_tanh, ln, log10, log2, sin, tan, TRIG_FAST_LIMIT};
use crate::kernels::alloc::assume_written;
use crate::kernels::isa::Isa;
use crate::kernels::twin::twin;

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

twin! {
    /// `xs[i] = f(xs[i])`.
    fn map_in_place[F: Fn(f32) -> f32](xs: &mut [f32], f: F) {
        for x in xs.iter_mut() {
            *x = f(*x);
        }
    }
}

twin! {
    /// `dst[i] = f(src[i])` (over the shorter of the two).
    fn map_into[F: Fn(f32) -> f32](dst: &mut [MaybeUninit<f32>], src: &[f32], f: F) {
        for (d, &x) in dst.iter_mut().zip(src) {
            d.write(f(x));
        }
    }
}

/// Evaluates `$run` with `$g` bound to the f32 function of the `MathFn` `$f` (a function
/// item, so that the twin it is passed to inlines it). Trig functions give the vector
/// form here; their huge arguments are fixed up afterwards (`exact_trig`).
macro_rules! with_f32_fn {
    ($f:expr, $g:ident => $run:expr) => {
        with_f32_fn!(@match $f, $g, $run;
            Exp: exp_f32::exp, Exp2: exp2, Ln: ln, Log2: log2, Log10: log10,
            Tanh: tanh_f32::tanh, Sigmoid: exp_f32::sigmoid, Silu: exp_f32::silu,
            GeluTanh: gelu_tanh, Gelu: activation::gelu::<f32>, Sin: sin, Cos: cos, Tan: tan)
    };
    (@match $f:expr, $g:ident, $run:expr; $($variant:ident: $fun:path),*) => {
        match $f {
            $(MathFn::$variant => {
                let $g = $fun;
                $run
            })*
        }
    };
}

/// For a trig function, std's f64 form, which the lanes beyond the vector reduction's
/// range are recomputed with.
fn exact_trig(f: MathFn) -> Option<fn(f64) -> f64> {
    match f {
        MathFn::Sin => Some(f64::sin),
        MathFn::Cos => Some(f64::cos),
        MathFn::Tan => Some(f64::tan),
        _ => None,
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

/// The hand-written vector loop of `f` when `isa` allows it and there is one (the
/// scalar twin's bits, see the `avx512` and `avx2` modules of `exp_f32` and `tanh_f32`).
fn vector_form(isa: Isa, f: MathFn) -> Option<exp_f32::MapLoop> {
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() {
        return match f {
            MathFn::Exp => Some(exp_f32::avx512::exp),
            MathFn::Sigmoid => Some(exp_f32::avx512::sigmoid),
            MathFn::Tanh => Some(tanh_f32::avx512::tanh),
            _ => None,
        };
    } else if isa.avx2() {
        return match f {
            MathFn::Sigmoid => Some(exp_f32::avx2::sigmoid),
            MathFn::Tanh => Some(tanh_f32::avx2::tanh),
            _ => None,
        };
    }
    let _ = (isa, f);
    None
}

/// Block length for functions that need the inputs after the vector pass.
const BLOCK: usize = 256;

/// `xs[i] = f(xs[i])` for f32, vectorized with `isa`.
pub fn apply_f32(isa: Isa, f: MathFn, xs: &mut [f32]) {
    if let Some(lanes) = vector_form(isa, f) {
        let p = xs.as_mut_ptr();
        // SAFETY: `vector_form` gives an AVX-512 loop only for an `Isa` with AVX-512
        // (which exists only on a CPU with AVX-512 F/BW/DQ) and the AVX2 one only for an
        // `Isa` with AVX2 and FMA; the slice holds xs.len() values, read and written in
        // place.
        return unsafe { lanes(p, p, xs.len()) };
    }
    if exact_trig(f).is_none() {
        return with_f32_fn!(f, g => map_in_place(isa, xs, g));
    }
    // A trig function reads its inputs again after the vector pass (the few huge
    // arguments go through std): a block at a time, mapped from a copy.
    let mut src = [0f32; BLOCK];
    for block in xs.chunks_mut(BLOCK) {
        let src = &mut src[..block.len()];
        src.copy_from_slice(block);
        // SAFETY: `MaybeUninit<f32>` has the layout of f32, and `apply_f32_into` only
        // writes initialized values through the view, so `block` stays initialized.
        let dst = unsafe { &mut *(block as *mut [f32] as *mut [MaybeUninit<f32>]) };
        apply_f32_into(isa, f, src, dst);
    }
}

/// `dst[i] = f(src[i])` for f32, vectorized with `isa`: one pass over memory where a
/// copy and `apply_f32` would take two. Writes the first `min(src.len(), dst.len())`
/// elements of `dst` (callers pass equal lengths).
pub fn apply_f32_into(isa: Isa, f: MathFn, src: &[f32], dst: &mut [MaybeUninit<f32>]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    if let Some(lanes) = vector_form(isa, f) {
        // SAFETY: as in `apply_f32`; both slices hold n values, and `MaybeUninit<f32>`
        // has f32's layout.
        return unsafe { lanes(src.as_ptr(), dst.as_mut_ptr().cast(), n) };
    }
    with_f32_fn!(f, g => map_into(isa, dst, src, g));
    if let Some(exact) = exact_trig(f) {
        // SAFETY: `map_into` wrote every element, the slices being of one length.
        fix_large_trig(unsafe { assume_written(dst) }, src, exact);
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
        MathFn::Sigmoid => activation::sigmoid,
        MathFn::Silu => activation::silu,
        MathFn::Gelu => activation::gelu,
        MathFn::GeluTanh => activation::gelu_tanh,
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
    fn mapping_into_a_new_buffer_gives_the_in_place_bits() {
        use MathFn::*;
        let mut xs: Vec<f32> = (0..1001).map(|i| (i as f32 - 500.0) * 0.037).collect();
        let edges = [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-40,
            -1e-40,
        ];
        xs.extend(edges);
        // Arguments beyond the trig functions' vector range take the f64 fix-up.
        xs.extend([1e30, -3e7, 88.7, -103.9, 200.0]);
        let all = [
            Exp, Exp2, Ln, Log2, Log10, Sin, Cos, Tan, Tanh, Sigmoid, Silu, Gelu, GeluTanh,
        ];
        for isa in Isa::supported() {
            for f in all {
                let mut want = xs.clone();
                apply_f32(isa, f, &mut want);
                let mut got = vec![MaybeUninit::new(7.0f32); xs.len()];
                apply_f32_into(isa, f, &xs, &mut got);
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    // SAFETY: the buffer was initialized when it was made.
                    let g = unsafe { g.assume_init() };
                    assert_eq!(
                        g.to_bits(),
                        w.to_bits(),
                        "{f:?} of {} on {}",
                        xs[i],
                        isa.name()
                    );
                }
                if isa == Isa::SCALAR {
                    continue;
                }
                // And the vector build agrees with the scalar twin.
                let mut scalar = xs.clone();
                apply_f32(Isa::SCALAR, f, &mut scalar);
                let same = scalar
                    .iter()
                    .zip(&want)
                    .all(|(s, w)| s.to_bits() == w.to_bits());
                assert!(same, "{f:?} on {} differs from the scalar twin", isa.name());
            }
        }
    }

    #[test]
    fn halves_round_once_from_the_f32_function() {
        let xs: Vec<f16> = (0..600)
            .map(|i| f16::from_f32(i as f32 * 0.03 - 9.0))
            .collect();
        let mut got = xs.clone();
        apply_half(Isa::detect(), MathFn::Tanh, &mut got);
        for (g, x) in got.iter().zip(&xs) {
            assert_eq!(*g, f16::from_f32(tanh_f32::tanh(x.to_f32())));
        }
    }
}

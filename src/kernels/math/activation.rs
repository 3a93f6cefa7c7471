//! The scalar activations in a float compute type (f32, or f64 for f64 inputs): the
//! definitions the vector twins are tested against and the f64 path uses.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::erf::erfc;
use crate::tensor::Elem;

/// The types activations compute in: f32 and f64, with operators and std's `exp`.
pub trait Real:
    Elem
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn exp(self) -> Self;
}

impl Real for f32 {
    fn exp(self) -> Self {
        f32::exp(self)
    }
}

impl Real for f64 {
    fn exp(self) -> Self {
        f64::exp(self)
    }
}

fn constant<F: Real>(c: f64) -> F {
    F::from_f64(c)
}

/// 1 / (1 + e^-x), written so that e^±x never overflows for the sign of x.
pub fn sigmoid<F: Real>(x: F) -> F {
    let one = constant::<F>(1.0);
    if x >= F::default() {
        one / (one + (-x).exp())
    } else {
        let e = x.exp();
        e / (one + e)
    }
}

/// x · sigmoid(x) as PyTorch computes it, x / (1 + e^-x) (so silu(-inf) is NaN).
pub fn silu<F: Real>(x: F) -> F {
    x / (constant::<F>(1.0) + (-x).exp())
}

/// The exact gelu, x/2 · (1 + erf(x/√2)), computed as x/2 · erfc(−x/√2) so that
/// negative x do not lose digits to cancellation; in f64 for every type.
pub fn gelu<F: Real>(x: F) -> F {
    let x = x.to_f64();
    F::from_f64(0.5 * x * erfc(-x * std::f64::consts::FRAC_1_SQRT_2))
}

/// gelu's tanh approximation, x/2 · (1 + tanh(y)) with y = √(2/π) · (x + 0.044715 x³),
/// computed as x · sigmoid(2y) (the same function, without the cancellation of
/// 1 + tanh(y) for negative y); in f64 like `gelu`.
pub fn gelu_tanh<F: Real>(x: F) -> F {
    let x = x.to_f64();
    let y = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
    F::from_f64(x * sigmoid(2.0 * y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::math::erf::erf;

    fn close(a: f64, b: f64, rtol: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * b.abs().max(1e-300)
    }

    #[test]
    fn activations_match_their_formulas() {
        for i in -80..=80 {
            let x = i as f64 * 0.25;
            let s = 1.0 / (1.0 + (-x).exp());
            assert!(close(sigmoid(x), s, 1e-15), "sigmoid({x})");
            assert!(close(silu(x), x * s, 1e-14), "silu({x})");
            // 1 + erf(x/√2) and 1 + tanh(y) cancel for negative x: compare absolutely.
            let g = 0.5 * x * (1.0 + erf(x / 2f64.sqrt()));
            assert!((gelu(x) - g).abs() <= 1e-15 * x.abs().max(1.0), "gelu({x})");
            let inner = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x.powi(3));
            let t = 0.5 * x * (1.0 + inner.tanh());
            assert!(
                (gelu_tanh(x) - t).abs() <= 1e-15 * x.abs().max(1.0),
                "gelu_tanh({x})"
            );
            // f32 results: within f32 rounding of values near 1; gelu rounds once from f64.
            assert!(
                (f64::from(sigmoid(x as f32)) - s).abs() < 1e-7,
                "f32 sigmoid({x})"
            );
            assert_eq!(gelu(x as f32), gelu(x) as f32, "f32 gelu({x})");
        }
    }

    #[test]
    fn activation_limits() {
        let (inf, nan) = (f64::INFINITY, f64::NAN);
        assert_eq!(sigmoid(-1000.0f32), 0.0);
        assert_eq!(sigmoid(1000.0f32), 1.0);
        assert_eq!(sigmoid(-inf), 0.0);
        assert_eq!(sigmoid(inf), 1.0);
        assert!(sigmoid(nan).is_nan());
        assert_eq!(silu(-1000.0f64), 0.0);
        assert_eq!(silu(inf), inf);
        assert!(silu(-inf).is_nan() && gelu(-inf).is_nan() && gelu_tanh(-inf).is_nan());
        assert_eq!(gelu(inf), inf);
        assert_eq!(gelu_tanh(1e30f32), 1e30);
        assert_eq!(gelu(-40.0f32), 0.0);
        // Negative inputs keep their relative accuracy (values from mpmath; the
        // rounding of x/√2 is amplified by 2(x/√2)² at most), where 1 + erf(x/√2)
        // would cancel to nothing.
        for (x, want) in [
            (-10.0, -7.619853024160526e-23),
            (-3.0, -0.0040496940948902835),
            (-0.5, -0.15426876936299344),
        ] {
            assert!(close(gelu(x), want, 2e-14), "gelu({x}) = {:e}", gelu(x));
        }
    }
}

//! Scalar f64 definitions of the special functions the elementwise ops compute
//! element by element (every float type goes through f64 and rounds once; see
//! `Float::via_f64`): lgamma, digamma, trigamma, sinc and logaddexp. erf and erfc are in
//! `erf`.

use std::f64::consts::{LN_2, PI};

/// ln|Γ(x)|, as C's `lgamma` (the sign of Γ is dropped): +inf at 0 and the negative
/// integers, +inf at ±inf, NaN for NaN. musl's method through the `libm` crate
/// (within 1 ulp in f64 away from its zeros near 1 and 2, where the error is
/// relative to the neighbouring values' size).
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// ψ(x) = d/dx ln Γ(x), the derivative of lgamma (torch's digamma): -inf at 0,
/// NaN at the negative integers and -inf, +inf at +inf. Negative x by the
/// reflection ψ(x) = ψ(1 − x) − π/tan(πx); x below 10 raised by ψ(x) = ψ(x + 1)
/// − 1/x; then the asymptotic series to x⁻¹⁶ (its next term is below 1e-16
/// relative from 10 on).
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        return digamma(1.0 - x) - PI / (PI * x).tan();
    }
    let (mut x, mut shift) = (x, 0.0);
    while x < 10.0 {
        shift -= 1.0 / x;
        x += 1.0;
    }
    if x == f64::INFINITY {
        return x;
    }
    // −1/(2x) − Σ B₂ₖ/(2k·x²ᵏ), by Horner in 1/x².
    const B: [f64; 7] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
        1.0 / 12.0,
    ];
    let r = 1.0 / (x * x);
    let series = B.iter().rev().fold(0.0, |acc, &b| acc * r + b) * r;
    shift + x.ln() - 0.5 / x - series
}

/// ψ′(x), the derivative of digamma: +inf at 0 and the negative integers, NaN
/// at -inf, 0 at +inf. Negative x by the reflection ψ′(x) = π²/sin²(πx) −
/// ψ′(1 − x); x below 10 raised by ψ′(x) = ψ′(x + 1) + 1/x²; then the
/// asymptotic series to x⁻¹⁷.
pub fn trigamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x <= 0.0 && x == x.floor() {
        return f64::INFINITY;
    }
    if x < 0.0 {
        let s = (PI * x).sin();
        return PI * PI / (s * s) - trigamma(1.0 - x);
    }
    let (mut x, mut shift) = (x, 0.0);
    while x < 10.0 {
        shift += 1.0 / (x * x);
        x += 1.0;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    // 1/x + 1/(2x²) + Σ B₂ₖ/x²ᵏ⁺¹, by Horner in 1/x².
    const B: [f64; 7] = [
        1.0 / 6.0,
        -1.0 / 30.0,
        1.0 / 42.0,
        -1.0 / 30.0,
        5.0 / 66.0,
        -691.0 / 2730.0,
        7.0 / 6.0,
    ];
    let r = 1.0 / (x * x);
    let series = B.iter().rev().fold(0.0, |acc, &b| acc * r + b) * r / x;
    shift + 1.0 / x + 0.5 * r + series
}

/// sin(πx)/(πx) with the value 1 at 0 (NumPy's normalized sinc): NaN at ±inf.
pub fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        return 1.0;
    }
    let y = PI * x;
    y.sin() / y
}

/// ln(e^x + e^y) without overflow, NumPy's `npy_logaddexp`: x + ln 2 when x == y
/// (which keeps ±inf), otherwise the larger plus log1p(exp(-|x - y|)); NaN
/// propagates.
pub fn logaddexp(x: f64, y: f64) -> f64 {
    if x == y {
        return x + LN_2;
    }
    let d = x - y;
    if d > 0.0 {
        x + (-d).exp().ln_1p()
    } else if d <= 0.0 {
        y + d.exp().ln_1p()
    } else {
        // NaN: one input is NaN.
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digamma_values_poles_and_recurrence() {
        // ψ(1) = −γ, ψ(1/2) = −γ − 2 ln 2.
        let euler = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + euler).abs() < 1e-15);
        assert!((digamma(0.5) + euler + 2.0 * LN_2).abs() < 1e-15);
        for x in [0.3, 2.7, 9.9, 10.0, 35.0, -0.4, -3.3] {
            let step = digamma(x + 1.0) - digamma(x) - 1.0 / x;
            assert!(step.abs() < 1e-13 * (1.0 + digamma(x).abs()), "{x}: {step}");
        }
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert!(digamma(-2.0).is_nan() && digamma(f64::NAN).is_nan());
        assert_eq!(digamma(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn trigamma_values_and_recurrence() {
        // ψ′(1) = π²/6, ψ′(1/2) = π²/2.
        assert!((trigamma(1.0) - PI * PI / 6.0).abs() < 1e-14);
        assert!((trigamma(0.5) - PI * PI / 2.0).abs() < 1e-14);
        for x in [0.3, 2.7, 9.9, 10.0, 35.0, -0.4, -3.3] {
            let step = trigamma(x) - trigamma(x + 1.0) - 1.0 / (x * x);
            assert!(
                step.abs() < 1e-12 * (1.0 + trigamma(x).abs()),
                "{x}: {step}"
            );
        }
        assert_eq!(trigamma(-2.0), f64::INFINITY);
    }

    #[test]
    fn lgamma_values_and_poles() {
        assert_eq!(lgamma(1.0), 0.0);
        assert_eq!(lgamma(2.0), 0.0);
        assert!((lgamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-15);
        assert!((lgamma(10.0) - 362880f64.ln()).abs() < 1e-13);
        // |Γ(-0.5)| = 2√π.
        assert!((lgamma(-0.5) - (2.0 * PI.sqrt()).ln()).abs() < 1e-15);
        for pole in [0.0, -0.0, -1.0, -7.0, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(lgamma(pole), f64::INFINITY, "lgamma({pole})");
        }
        assert!(lgamma(f64::NAN).is_nan());
    }

    #[test]
    fn sinc_and_logaddexp_edges() {
        assert_eq!(sinc(0.0), 1.0);
        assert_eq!(sinc(-0.0), 1.0);
        assert!((sinc(0.5) - 2.0 / PI).abs() < 1e-16);
        assert!(sinc(3.0).abs() < 1e-16);
        assert!(sinc(f64::INFINITY).is_nan() && sinc(f64::NAN).is_nan());
        let inf = f64::INFINITY;
        assert_eq!(logaddexp(inf, inf), inf);
        assert_eq!(logaddexp(-inf, -inf), -inf);
        assert_eq!(logaddexp(-inf, 2.0), 2.0);
        assert_eq!(logaddexp(1000.0, 0.0), 1000.0);
        assert_eq!(logaddexp(0.0, 0.0), LN_2);
        assert!(logaddexp(f64::NAN, 1.0).is_nan() && logaddexp(inf, f64::NAN).is_nan());
        assert!((logaddexp(1.0, 2.0) - (1f64.exp() + 2f64.exp()).ln()).abs() < 1e-15);
    }
}

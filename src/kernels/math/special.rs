//! Scalar f64 definitions of the special functions the elementwise ops compute
//! element by element (every float type goes through f64 and rounds once; see
//! `Float::via_f64`): lgamma, sinc and logaddexp. erf and erfc are in `erf`.

use std::f64::consts::{LN_2, PI};

/// ln|Γ(x)|, as C's `lgamma` (the sign of Γ is dropped): +inf at 0 and the negative
/// integers, +inf at ±inf, NaN for NaN. musl's method through the `libm` crate
/// (within 1 ulp in f64 away from its zeros near 1 and 2, where the error is
/// relative to the neighbouring values' size).
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
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

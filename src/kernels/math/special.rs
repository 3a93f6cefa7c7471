//! Scalar f64 definitions of the special functions the elementwise ops compute
//! element by element (every float type goes through f64 and rounds once; see
//! `Float::via_f64`): lgamma, digamma, trigamma, polygamma, sinc and logaddexp. erf and
//! erfc are in `erf`.

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

/// ψ⁽ⁿ⁾(x) for n ≥ 1, the n-th derivative of digamma (torch's polygamma):
/// (−1)ⁿ⁺¹ n! ζ(n + 1, x) with ζ the Hurwitz zeta function, as torch computes it
/// (so ±inf at 0 and the negative integers: +inf for odd n, −inf for even). NaN
/// at −inf, 0 at +inf.
pub fn polygamma(n: u32, x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let factorial: f64 = (1..=n).map(f64::from).product();
    let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
    sign * factorial * hurwitz_zeta(n + 1, x)
}

/// ζ(s, q) = Σₖ (q + k)⁻ˢ for an integer s ≥ 2, by Euler–Maclaurin summation: the
/// terms summed directly until q + k reaches max(10, s), then the integral of the
/// tail, half its first term and twelve Bernoulli corrections (each smaller than
/// the last by about (s / 2π(q + k))², below 1e-14 relative from there). A
/// non-positive integer q is a pole (+inf); a negative q is summed through, or
/// past 64 poles split as q = f − N: ζ(s, f) + (−1)ˢ (ζ(s, 1 − f) − ζ(s, N + 1 − f))
/// (so that a far negative q takes no more time than a near one).
fn hurwitz_zeta(s: u32, q: f64) -> f64 {
    if q <= 0.0 && q == q.floor() {
        return f64::INFINITY;
    }
    if q < -64.0 {
        let f = q - q.floor();
        let n = -q.floor();
        let sign = if s.is_multiple_of(2) { 1.0 } else { -1.0 };
        return hurwitz_zeta(s, f)
            + sign * (hurwitz_zeta(s, 1.0 - f) - hurwitz_zeta(s, n + 1.0 - f));
    }
    let power = -(s as i32);
    let sf = f64::from(s);
    let (mut a, mut sum) = (q, 0.0);
    while a < sf.max(10.0) {
        sum += a.powi(power);
        a += 1.0;
    }
    // The tail from a: ∫ₐ^∞ t⁻ˢ dt + a⁻ˢ/2 + Σⱼ B₂ⱼ/(2j)! · s(s+1)…(s+2j−2) · a^(−s−2j+1).
    let first = a.powi(power);
    sum += first * a / (sf - 1.0) + 0.5 * first;
    // B₂ⱼ / (2j)! for j = 1..12.
    const B: [f64; 12] = [
        1.0 / 12.0,
        -1.0 / 720.0,
        1.0 / 30_240.0,
        -1.0 / 1_209_600.0,
        1.0 / 47_900_160.0,
        -691.0 / 1_307_674_368_000.0,
        1.0 / 74_724_249_600.0,
        -3617.0 / 10_670_622_842_880_000.0,
        43_867.0 / 5_109_094_217_170_944_000.0,
        -174_611.0 / 802_857_662_698_291_200_000.0,
        77_683.0 / 14_101_100_039_391_805_440_000.0,
        -236_364_091.0 / 1_693_824_136_731_743_669_452_800_000.0,
    ];
    // rising: s(s+1)…(s+2j−2); power_a: a^(−s−2j+1).
    let (mut rising, mut power_a) = (sf, first / a);
    for (j, &b) in B.iter().enumerate() {
        sum += b * rising * power_a;
        let k = sf + 2.0 * j as f64;
        rising *= (k + 1.0) * (k + 2.0);
        power_a /= a * a;
    }
    sum
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
    fn polygamma_matches_trigamma_zeta_and_recurrence() {
        // ψ′ two ways; ψ″(1) = −2ζ(3), ψ‴(1) = 6ζ(4) = π⁴/15.
        for x in [0.3, 1.0, 2.7, 9.9, 10.0, 35.0, -0.4, -3.3] {
            let (a, b) = (polygamma(1, x), trigamma(x));
            assert!((a - b).abs() < 1e-12 * b.abs(), "{x}: {a} {b}");
        }
        assert!((polygamma(2, 1.0) + 2.0 * 1.202_056_903_159_594_2).abs() < 1e-13);
        assert!((polygamma(3, 1.0) - PI.powi(4) / 15.0).abs() < 1e-12);
        // ψ⁽ⁿ⁾(x + 1) = ψ⁽ⁿ⁾(x) + (−1)ⁿ n! / xⁿ⁺¹.
        for n in 2..7u32 {
            let factorial: f64 = (1..=n).map(f64::from).product();
            for x in [0.45, 1.7, 8.2, -2.6] {
                let sign = if n % 2 == 1 { -1.0 } else { 1.0 };
                let step = polygamma(n, x + 1.0)
                    - polygamma(n, x)
                    - sign * factorial / x.powi(n as i32 + 1);
                assert!(
                    step.abs() < 1e-11 * polygamma(n, x).abs(),
                    "{n} {x}: {step}"
                );
            }
        }
        assert_eq!(polygamma(2, 0.0), f64::NEG_INFINITY);
        assert_eq!(polygamma(3, -2.0), f64::INFINITY);
        assert_eq!(polygamma(2, f64::INFINITY), 0.0);
        // Far negative x, split at its poles: the direct sum's value, in no time.
        let near = polygamma(2, -63.3);
        let split = -2.0 * hurwitz_zeta(3, -63.3 - 1.0) + 2.0 / (-64.3f64).powi(3);
        assert!((near - split).abs() < 1e-9 * near.abs(), "{near} {split}");
        assert!(polygamma(3, -1.0e15 + 0.5).is_finite());
        assert!(polygamma(2, f64::NAN).is_nan() && polygamma(2, f64::NEG_INFINITY).is_nan());
    }

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

//! Deterministic `ln` and `sin`/`cos` for the normal sampler.
//!
//! The platform libm (behind `f64::ln`, `f64::sin`, ...) may differ in the last bit
//! between machines and Rust versions, which would change `randn`'s stream. These use
//! only IEEE-754 `+ - * /` (correctly rounded everywhere; Rust never fuses them into
//! FMA) with fixed polynomials, so they give the same bits on every platform. The
//! polynomials and the split constants are fdlibm's (Sun Microsystems, public):
//! within one ulp of the true result, checked against std below.

/// `ln 2` split so that `k * LN2_HI` is exact for any binary exponent `k`.
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// Coefficients of `ln((1 + s) / (1 - s)) = 2s + s * R(s^2)`, `R(z) = LG1 z + ... + LG7 z^7`.
const LG: [f64; 7] = [
    f64::from_bits(0x3fe5_5555_5555_5593),
    f64::from_bits(0x3fd9_9999_9997_fa04),
    f64::from_bits(0x3fd2_4924_9422_9359),
    f64::from_bits(0x3fcc_71c5_1d8e_78af),
    f64::from_bits(0x3fc7_4664_96cb_03de),
    f64::from_bits(0x3fc3_9a09_d078_c69f),
    f64::from_bits(0x3fc2_f112_df3e_5244),
];
const TWO54: f64 = f64::from_bits(0x4350_0000_0000_0000);
const EXP_MASK: u64 = 0x7ff0_0000_0000_0000;
const FRAC_MASK: u64 = 0x000f_ffff_ffff_ffff;
const ONE_BITS: u64 = 0x3ff0_0000_0000_0000;

/// The natural logarithm (NaN below 0, -inf at 0).
pub fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x == f64::INFINITY {
        return x;
    }
    // x = 2^k * m with m in [sqrt(2)/2, sqrt(2)); subnormals are scaled up first.
    let (x, mut k) = if x < f64::MIN_POSITIVE {
        (x * TWO54, -54)
    } else {
        (x, 0)
    };
    let bits = x.to_bits();
    k += ((bits & EXP_MASK) >> 52) as i32 - 1023;
    let mut m = f64::from_bits((bits & FRAC_MASK) | ONE_BITS);
    if m > std::f64::consts::SQRT_2 {
        m *= 0.5;
        k += 1;
    }
    // ln(m) = ln(1 + f) = 2 atanh(s) with s = f / (2 + f); f is exact (Sterbenz).
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let even = w * (LG[1] + w * (LG[3] + w * LG[5]));
    let odd = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
    let r = even + odd;
    let hfsq = 0.5 * f * f;
    let dk = f64::from(k);
    // f - f^2/2 + s (f^2/2 + R), arranged so the large terms cancel last.
    dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
}

/// 2/pi, and pi/2 split in three: `PIO2_1` and `PIO2_2` have at most 32 significant
/// bits, so their products with a quadrant count below 2^20 are exact.
const INV_PIO2: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
const PIO2_2T: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);
/// sin(x) = x + x^3 (S1 + S2 x^2 + ... + S6 x^10) on [-pi/4, pi/4].
const S: [f64; 6] = [
    f64::from_bits(0xbfc5_5555_5555_5549),
    f64::from_bits(0x3f81_1111_1110_f8a6),
    f64::from_bits(0xbf2a_01a0_19c1_61d5),
    f64::from_bits(0x3ec7_1de3_57b1_fe7d),
    f64::from_bits(0xbe5a_e5e6_8a2b_9ceb),
    f64::from_bits(0x3de5_d93a_5acf_d57c),
];
/// cos(x) = 1 - x^2/2 + x^4 (C1 + C2 x^2 + ... + C6 x^10) on [-pi/4, pi/4].
const C: [f64; 6] = [
    f64::from_bits(0x3fa5_5555_5555_554c),
    f64::from_bits(0xbf56_c16c_16c1_5177),
    f64::from_bits(0x3efa_01a0_19cb_1590),
    f64::from_bits(0xbe92_7e4f_809c_52ad),
    f64::from_bits(0x3e21_ee9e_bdb4_b1c4),
    f64::from_bits(0xbda8_fae9_be88_38d4),
];

/// `a + b` and its exact rounding error (Knuth's two-sum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// sin(x + y) for |x| <= pi/4 and a tail |y| much smaller than ulp(x).
fn kernel_sin(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = S[1] + z * (S[2] + z * S[3]) + z * w * (S[4] + z * S[5]);
    let v = z * x;
    x - ((z * (0.5 * y - v * r) - y) - v * S[0])
}

/// cos(x + y) for |x| <= pi/4 and a tail |y| much smaller than ulp(x).
fn kernel_cos(x: f64, y: f64) -> f64 {
    let z = x * x;
    let w = z * z;
    let r = z * (C[0] + z * (C[1] + z * C[2])) + w * w * (C[3] + z * (C[4] + z * C[5]));
    let hz = 0.5 * z;
    let one_minus = 1.0 - hz;
    one_minus + (((1.0 - one_minus) - hz) + (z * r - x * y))
}

/// `(sin x, cos x)` for |x| < 2^20 (the sampler needs [0, 2pi)): x is reduced by the
/// nearest multiple n of pi/2 to a head and tail in [-pi/4, pi/4], then the quadrant
/// n mod 4 picks the signs.
pub fn sin_cos(x: f64) -> (f64, f64) {
    let n = (x * INV_PIO2).round();
    // Exact: n * PIO2_1 has few bits and lies within a factor 2 of x.
    let r = x - n * PIO2_1;
    let (head, err) = two_sum(r, -(n * PIO2_2));
    let tail = err - n * PIO2_2T;
    let hi = head + tail;
    let lo = (head - hi) + tail;
    let (s, c) = (kernel_sin(hi, lo), kernel_cos(hi, lo));
    // n is a small whole number, so the cast is exact.
    match (n as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance between two doubles in units in the last place.
    fn ulps(a: f64, b: f64) -> u64 {
        fn ordered(x: f64) -> i64 {
            let b = x.to_bits() as i64;
            if b < 0 {
                i64::MIN - b
            } else {
                b
            }
        }
        ordered(a).abs_diff(ordered(b))
    }

    /// Every double the sampler can pass to ln is k * 2^-53 for k in 1..=2^53; this
    /// covers that range densely, near 1 ulp by ulp, and the whole positive range.
    fn ln_inputs() -> Vec<f64> {
        let mut xs: Vec<f64> = (1..=1_000_000).map(|i| f64::from(i) * 1e-6).collect();
        xs.extend((1..=200_000u64).map(|k| (k as f64) * 2f64.powi(-53)));
        xs.extend((0..200_000u64).map(|i| f64::from_bits(1f64.to_bits() - i)));
        xs.extend((0..200_000u64).map(|i| f64::from_bits(1f64.to_bits() + i)));
        xs.extend((0..200_000u64).map(|i| {
            // Spread over every exponent, subnormals included.
            f64::from_bits(1 + i * (f64::MAX.to_bits() / 200_000))
        }));
        xs
    }

    #[test]
    fn ln_is_within_one_ulp_of_std() {
        let worst = ln_inputs()
            .into_iter()
            .map(|x| (ulps(ln(x), x.ln()), x))
            .max_by_key(|&(u, _)| u)
            .unwrap();
        assert!(worst.0 <= 1, "ln: {} ulp at {:e}", worst.0, worst.1);
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan() && ln(f64::NAN).is_nan());
        assert_eq!(ln(f64::INFINITY), f64::INFINITY);
    }

    /// A dense sweep of [-2pi, 2pi], and the doubles next to multiples of pi/2, where
    /// a sloppy reduction would show as a large relative error in the small result.
    fn angles() -> Vec<f64> {
        let tau = std::f64::consts::TAU;
        let mut xs: Vec<f64> = (-1_000_000..=1_000_000)
            .map(|i| f64::from(i) * tau / 1e6)
            .collect();
        for k in -2000..=2000 {
            let near = f64::from(k) * std::f64::consts::FRAC_PI_2;
            for d in -20i64..=20 {
                xs.push(f64::from_bits(near.to_bits().wrapping_add_signed(d)));
            }
        }
        xs.retain(|x| x.is_finite());
        xs
    }

    #[test]
    fn sin_cos_are_within_one_ulp_of_std() {
        let (mut worst_sin, mut worst_cos) = ((0, 0.0), (0, 0.0));
        for x in angles() {
            let (s, c) = sin_cos(x);
            let (us, uc) = (ulps(s, x.sin()), ulps(c, x.cos()));
            if us > worst_sin.0 {
                worst_sin = (us, x);
            }
            if uc > worst_cos.0 {
                worst_cos = (uc, x);
            }
        }
        assert!(
            worst_sin.0 <= 1,
            "sin: {} ulp at {:e}",
            worst_sin.0,
            worst_sin.1
        );
        assert!(
            worst_cos.0 <= 1,
            "cos: {} ulp at {:e}",
            worst_cos.0,
            worst_cos.1
        );
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
    }
}

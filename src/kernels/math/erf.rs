//! The error function and its complement in f64, for the exact `gelu`. Rust's std
//! has no `erf`, so this is the method of Sun's fdlibm `s_erf.c` (also in FreeBSD,
//! musl and glibc):
//! rational approximations on four intervals of |x|, with the tail written as
//! `1 - exp(-x² + r(x)) / x` and `-x²` split so that its rounding error does not
//! reach the result. erf is within 1 ulp and erfc within 2 ulps of the exact values
//! (tests check points of every interval against high-precision values).
//!
//! The coefficients are fdlibm's, which carries this notice:
//! Copyright (C) 1993 by Sun Microsystems, Inc. All rights reserved.
//! Developed at SunPro, a Sun Microsystems, Inc. business.
//! Permission to use, copy, modify, and distribute this software is freely granted,
//! provided that this notice is preserved.

/// erf(x) = x + x·PP(x²)/QQ(x²) for |x| < 0.84375.
const PP: [f64; 5] = [
    0.12837916709551256,
    -0.3250421072470015,
    -0.02848174957559851,
    -0.005770270296489442,
    -2.3763016656650163e-05,
];
const QQ: [f64; 6] = [
    1.0,
    0.39791722395915535,
    0.0650222499887673,
    0.005081306281875766,
    0.00013249473800432164,
    -3.960228278775368e-06,
];
/// 2⁻²⁸: below it erf(x) = x + x·EFX to within rounding.
const TWO_POW_M28: f64 = 3.725290298461914e-09;
/// 2/√π − 1.
const EFX: f64 = 0.1283791670955126;

/// erf(x) = ERX + PA(s)/QA(s) with s = |x| − 1, for 0.84375 ≤ |x| < 1.25.
const ERX: f64 = 0.8450629115104675;
const PA: [f64; 7] = [
    -0.0023621185607526594,
    0.41485611868374833,
    -0.3722078760357013,
    0.31834661990116175,
    -0.11089469428239668,
    0.035478304325618236,
    -0.002166375594868791,
];
const QA: [f64; 7] = [
    1.0,
    0.10642088040084423,
    0.540397917702171,
    0.07182865441419627,
    0.12617121980876164,
    0.01363708391202905,
    0.011984499846799107,
];

/// erfc(x)·x·exp(x² + 0.5625) = exp(RA(s)/SA(s)) with s = 1/x², for 1.25 ≤ |x| < 1/0.35.
const RA: [f64; 8] = [
    -0.009864944034847148,
    -0.6938585727071818,
    -10.558626225323291,
    -62.375332450326006,
    -162.39666946257347,
    -184.60509290671104,
    -81.2874355063066,
    -9.814329344169145,
];
const SA: [f64; 9] = [
    1.0,
    19.651271667439257,
    137.65775414351904,
    434.56587747522923,
    645.3872717332679,
    429.00814002756783,
    108.63500554177944,
    6.570249770319282,
    -0.0604244152148581,
];

/// The same for 1/0.35 ≤ |x| < 6.
const RB: [f64; 7] = [
    -0.0098649429247001,
    -0.799283237680523,
    -17.757954917754752,
    -160.63638485582192,
    -637.5664433683896,
    -1025.0951316110772,
    -483.5191916086514,
];
const SB: [f64; 8] = [
    1.0,
    30.33806074348246,
    325.7925129965739,
    1536.729586084437,
    3199.8582195085955,
    2553.0504064331644,
    474.52854120695537,
    -22.44095244658582,
];

/// The polynomial with coefficients `c` (lowest degree first) at `x`, by Horner's rule.
fn poly(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &ci| acc * x + ci)
}

/// The error function, 2/√π ∫₀ˣ exp(−t²) dt: odd, ±1 at ±inf, NaN for NaN.
pub fn erf(x: f64) -> f64 {
    let a = x.abs();
    let magnitude = if a.is_nan() {
        return x;
    } else if a < 0.84375 {
        if a < TWO_POW_M28 {
            // |x| < 2⁻²⁸: the series stops after its first term. Scaling by 16 keeps
            // subnormal inputs accurate.
            return (16.0 * x + 16.0 * EFX * x) * 0.0625;
        }
        let z = x * x;
        return x + x * (poly(&PP, z) / poly(&QQ, z));
    } else if a < 1.25 {
        let s = a - 1.0;
        ERX + poly(&PA, s) / poly(&QA, s)
    } else if a < 6.0 {
        1.0 - erfc_tail(a)
    } else {
        // erf(6) = 1 − 2e-17: 1 after rounding (and at infinity).
        1.0
    };
    magnitude.copysign(x)
}

/// The complementary error function 1 − erf(x), without the cancellation of computing
/// it that way for large x (fdlibm's `erfc`): 2 at -inf, 0 from x ≈ 27.3 on.
pub fn erfc(x: f64) -> f64 {
    if x < 0.25 || x.is_nan() {
        // erf(x) < 0.28 here (or negative): 1 − erf(x) loses at most a bit.
        1.0 - erf(x)
    } else if x < 0.84375 {
        let z = x * x;
        let r = x * (poly(&PP, z) / poly(&QQ, z));
        0.5 - (r + (x - 0.5))
    } else if x < 1.25 {
        let s = x - 1.0;
        (1.0 - ERX) - poly(&PA, s) / poly(&QA, s)
    } else if x < 28.0 {
        erfc_tail(x)
    } else {
        0.0
    }
}

/// erfc(a) for 1.25 ≤ a < 28, as exp(−a² − 0.5625 + R/S) / a. `a²` is computed as
/// z² + (z − a)(z + a) with z = a truncated to 21 significant bits, so z² is exact.
fn erfc_tail(a: f64) -> f64 {
    let s = 1.0 / (a * a);
    let r = if a < 1.0 / 0.35 {
        poly(&RA, s) / poly(&SA, s)
    } else {
        poly(&RB, s) / poly(&SB, s)
    };
    let z = f64::from_bits(a.to_bits() & 0xffff_ffff_0000_0000);
    (-z * z - 0.5625).exp() * ((z - a) * (z + a) + r).exp() / a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (x, erf(x)) with erf rounded from 40 significant digits (mpmath), across every
    /// interval of the approximation and its boundaries.
    const REFERENCE: [(f64, f64); 20] = [
        (1e-300, 1.1283791670955126e-300),
        (1e-10, 1.1283791670955126e-10),
        (3.725290298461914e-09, 4.203539964167448e-09),
        (0.1, 0.1124629160182849),
        (0.3, 0.3286267594591274),
        (0.5, 0.5204998778130465),
        (0.8437, 0.7671979750524579),
        (0.84375, 0.7672256612323416),
        (1.0, 0.8427007929497149),
        (1.2, 0.9103139782296353),
        (1.2499, 0.922876473187532),
        (1.25, 0.9229001282564583),
        (1.7, 0.9837904585907745),
        (2.0, 0.9953222650189527),
        (2.857, 0.9999466417399131),
        (2.86, 0.9999475988269556),
        (3.5, 0.9999992569016276),
        (4.5, 0.9999999998033839),
        (5.9, 0.9999999999999999),
        (6.0, 1.0),
    ];

    /// (x, erfc(x)) rounded from 40 significant digits (mpmath).
    const REFERENCE_ERFC: [(f64, f64); 16] = [
        (-3.0, 1.9999779095030015),
        (-1.0, 1.8427007929497148),
        (-0.1, 1.1124629160182848),
        (0.1, 0.887537083981715),
        (0.3, 0.6713732405408726),
        (0.5, 0.4795001221869535),
        (0.84, 0.23485728854500548),
        (0.9, 0.20309178757716786),
        (1.2, 0.08968602177036464),
        (1.5, 0.033894853524689274),
        (2.5, 0.0004069520174449589),
        (3.0, 2.209049699858544e-05),
        (5.0, 1.537459794428035e-12),
        (10.0, 2.088487583762545e-45),
        (20.0, 5.395865611607901e-176),
        (26.5, 2.2109076642637343e-307),
    ];

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn within_one_ulp_of_high_precision_values() {
        for (x, want) in REFERENCE {
            assert!(
                ulps(erf(x), want) <= 1,
                "erf({x}) = {:e}, want {want:e}",
                erf(x)
            );
            assert!(ulps(erf(-x), -want) <= 1, "erf(-{x})");
        }
    }

    #[test]
    fn erfc_within_two_ulps_of_high_precision_values() {
        for (x, want) in REFERENCE_ERFC {
            assert!(
                ulps(erfc(x), want) <= 2,
                "erfc({x}) = {:e}, want {want:e}",
                erfc(x)
            );
        }
        assert_eq!(erfc(f64::NEG_INFINITY), 2.0);
        assert_eq!(erfc(f64::INFINITY), 0.0);
        assert_eq!(erfc(30.0), 0.0);
        assert!(erfc(f64::NAN).is_nan());
    }

    #[test]
    fn special_values() {
        assert_eq!(erf(0.0), 0.0);
        assert!(erf(-0.0).is_sign_negative());
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert_eq!(erf(40.0), 1.0);
        assert!(erf(f64::NAN).is_nan());
        let tiny = f64::from_bits(1); // the smallest subnormal
        assert_eq!(erf(tiny), tiny);
    }

    #[test]
    fn odd_and_monotonic() {
        let mut prev = -1.0;
        for i in -700..=700 {
            let x = i as f64 * 0.01;
            assert_eq!(erf(-x), -erf(x));
            assert!(erf(x) >= prev, "erf decreases at {x}");
            prev = erf(x);
        }
    }
}

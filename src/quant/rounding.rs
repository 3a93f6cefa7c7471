//! The number conversions ggml's reference code performs, reproduced exactly: its
//! `nearest_int` trick, C's float → small-integer casts as x86 executes them, and
//! f32 ↔ f16 with ggml's NaN encoding.

use half::f16;

/// ggml's `nearest_int`: adds 1.5·2^23 and reads the low mantissa bits, which rounds
/// to nearest with ties to even for |v| < 2^22. Outside that range (and for NaN or
/// infinities) it returns whatever those bits say, exactly as ggml does.
#[inline(always)]
pub fn nearest_int(v: f32) -> i32 {
    let bits = (v + 12_582_912.0).to_bits() as i32;
    (bits & 0x007f_ffff) - 0x0040_0000
}

/// C's `(int)v` on x86 (cvttss2si): truncates toward zero; NaN and values outside the
/// i32 range give i32::MIN. Callers narrow the result with `as u8` / `as i8`, which
/// keeps the low byte as C's narrowing conversion does.
#[inline(always)]
pub fn c_trunc(v: f32) -> i32 {
    // The range test is false for NaN too.
    if !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        i32::MIN
    } else {
        v as i32
    }
}

/// C's `(int)roundf(v)` on x86: rounds half away from zero, then `c_trunc`. Adding the
/// largest float below ½ with v's sign and truncating is exact for every f32 (it is how
/// compilers inline `roundf`), and avoids a libm call per value.
#[inline(always)]
pub fn c_round(v: f32) -> i32 {
    c_trunc(v + 0.499_999_97f32.copysign(v))
}

/// ggml's `GGML_FP32_TO_FP16`: round to nearest even; NaN becomes the sign with 0x7E00.
#[inline(always)]
pub fn fp16(v: f32) -> f16 {
    if v.is_nan() {
        f16::from_bits(((v.to_bits() >> 16) & 0x8000) as u16 | 0x7e00)
    } else {
        f16::from_f32(v)
    }
}

/// f16 → f32, exact and inlinable (unlike a library call per block). Only integer
/// operations and an exact int → float conversion: no subnormal f32 ever appears as an
/// operand (on Intel CPUs those cost a microcode assist).
#[inline(always)]
pub fn f16_to_f32(h: f16) -> f32 {
    let bits = h.to_bits() as u32;
    let sign = (bits & 0x8000) << 16;
    let rest = bits & 0x7fff;
    let magnitude = if rest >= 0x7c00 {
        0x7f80_0000 | ((rest & 0x3ff) << 13)
    } else if rest >= 0x0400 {
        // Normal: rebias the exponent from 15 to 127.
        (rest + (112 << 10)) << 13
    } else {
        // Subnormal: mantissa · 2^-24.
        (rest as f32 * f32::from_bits(0x3380_0000)).to_bits()
    };
    f32::from_bits(magnitude | sign)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_int_rounds_half_to_even() {
        assert_eq!(nearest_int(0.5), 0);
        assert_eq!(nearest_int(1.5), 2);
        assert_eq!(nearest_int(2.5), 2);
        assert_eq!(nearest_int(-0.5), 0);
        assert_eq!(nearest_int(-1.5), -2);
        assert_eq!(nearest_int(-3.7), -4);
        assert_eq!(nearest_int(4_194_303.0), 4_194_303);
        // Out of range and non-finite inputs follow the bit trick, without panicking.
        assert_eq!(nearest_int(f32::NAN), 0);
        assert_eq!(nearest_int(f32::INFINITY), -0x0040_0000);
    }

    #[test]
    fn c_trunc_matches_x86() {
        assert_eq!(c_trunc(8.9), 8);
        assert_eq!(c_trunc(-8.9), -8);
        assert_eq!(c_trunc(f32::NAN), i32::MIN);
        assert_eq!(c_trunc(f32::INFINITY), i32::MIN);
        assert_eq!(c_trunc(300.0) as u8, 44);
        assert_eq!(c_trunc(f32::NEG_INFINITY) as i8, 0);
    }

    #[test]
    fn f16_to_f32_is_exact() {
        for bits in 0..=u16::MAX {
            let h = f16::from_bits(bits);
            let (a, b) = (f16_to_f32(h), h.to_f32());
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{bits:#x}"
            );
        }
    }

    #[test]
    fn c_round_matches_roundf() {
        let mut cases = vec![
            0.5f32,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.499_999_97,
            -0.499_999_97,
            8_388_607.5,
            126.5,
            127.49,
        ];
        cases.extend((0..100_000).map(|i| (i as f32 - 50_000.0) * 0.013_7));
        for v in cases {
            assert_eq!(c_round(v), c_trunc(v.round()), "{v}");
        }
        assert_eq!(c_round(f32::NAN), i32::MIN);
    }

    #[test]
    fn fp16_rounds_and_encodes_nan_like_ggml() {
        assert_eq!(fp16(1.0).to_bits(), 0x3c00);
        assert_eq!(fp16(65520.0).to_bits(), 0x7c00);
        assert_eq!(fp16(1e-8).to_bits(), 0x0000);
        assert_eq!(fp16(6e-8).to_bits(), 0x0001);
        assert_eq!(fp16(f32::NAN).to_bits(), 0x7e00);
        assert_eq!(fp16(-f32::NAN).to_bits(), 0xfe00);
    }
}

//! Exact float-to-decimal conversion with NumPy's Dragon4 semantics: shortest digits
//! that round-trip *in the value's own float type*, optionally cut off after a
//! number of digits (rounded half-to-even on the exact value) or extended to a
//! minimum, then laid out positionally (`12.5`) or in scientific form (`1.25e+01`).

use super::bignum::BigUint;

/// A finite float as `mantissa * 2^exponent`, with what rounding needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    pub negative: bool,
    pub mantissa: u64,
    pub exponent: i32,
    /// The gap to the next float below is half the gap above (a power of two
    /// that is not the smallest normal).
    pub unequal_margins: bool,
}

/// A float classified for printing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Nan,
    Inf { negative: bool },
    Finite(Decoded),
}

/// Splits IEEE-754 bits with `mant_bits` stored mantissa bits and `exp_bits` exponent bits.
pub fn classify(bits: u64, mant_bits: u32, exp_bits: u32) -> Class {
    let mant_mask = (1u64 << mant_bits) - 1;
    let exp_mask = (1u64 << exp_bits) - 1;
    let negative = (bits >> (mant_bits + exp_bits)) & 1 == 1;
    let stored_mant = bits & mant_mask;
    let stored_exp = (bits >> mant_bits) & exp_mask;
    let bias = (exp_mask >> 1) as i32;
    if stored_exp == exp_mask {
        return if stored_mant == 0 {
            Class::Inf { negative }
        } else {
            Class::Nan
        };
    }
    let decoded = if stored_exp == 0 {
        Decoded {
            negative,
            mantissa: stored_mant,
            exponent: 1 - bias - mant_bits as i32,
            unequal_margins: false,
        }
    } else {
        Decoded {
            negative,
            mantissa: stored_mant | (1u64 << mant_bits),
            exponent: stored_exp as i32 - bias - mant_bits as i32,
            unequal_margins: stored_exp != 1 && stored_mant == 0,
        }
    };
    Class::Finite(decoded)
}

/// What a digit limit counts: digits after the decimal point, or all significant digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cutoff {
    Fraction,
    Total,
}

/// Decimal digits (ASCII) of a value and the power of ten of the first one.
struct Digits {
    digits: Vec<u8>,
    exponent: i32,
}

/// Shortest round-trip digits of `d`, stopping at `max` digits (counted per `mode`)
/// and continuing to at least `min` digits.
///
/// An algorithm port: Dragon4 (Steele & White's free-format printing) as NumPy's
/// `dragon4.c` implements it, kept as one function so it reads against that source.
fn shortest_digits(d: &Decoded, mode: Cutoff, max: Option<i32>, min: Option<i32>) -> Digits {
    if d.mantissa == 0 {
        return Digits {
            digits: vec![b'0'],
            exponent: 0,
        };
    }
    // The value is value/scale, and low/high (over the same scale) are half the gaps
    // to the neighbouring floats; everything is doubled (quadrupled with unequal
    // margins) so that the half gaps are integers.
    let e = d.exponent;
    let shift = if d.unequal_margins { 2 } else { 1 };
    let mut value = BigUint::from_u64(d.mantissa);
    let (mut scale, mut low) = if e > 0 {
        value.shl(e as u32 + shift);
        (BigUint::from_u64(1 << shift), BigUint::pow2(e as u32))
    } else {
        value.shl(shift);
        (
            BigUint::pow2(e.unsigned_abs() + shift),
            BigUint::from_u64(1),
        )
    };
    let mut high = low.clone();
    if d.unequal_margins {
        high.mul_small(2);
    }

    // k = the power of ten just above the value: start from an estimate that is
    // never too high, then step up. A fractional cutoff never needs digits before
    // 10^-max, so k does not go below -max + 1 (leading zeros are then produced).
    let top_bit = 63 - d.mantissa.leading_zeros() as i32;
    let mut k = (f64::from(top_bit + e) * std::f64::consts::LOG10_2 - 1e-9).floor() as i32;
    if let (Cutoff::Fraction, Some(max)) = (mode, max) {
        k = k.max(1i32.saturating_sub(max));
    }
    if k > 0 {
        scale.mul_pow10(k as u32);
    } else {
        let up = k.unsigned_abs();
        value.mul_pow10(up);
        low.mul_pow10(up);
        high.mul_pow10(up);
    }
    while value >= scale {
        scale.mul_small(10);
        k += 1;
    }

    let last_allowed = match (mode, max) {
        (_, None) => i32::MIN,
        (Cutoff::Fraction, Some(m)) => -m,
        (Cutoff::Total, Some(m)) => k.saturating_sub(m),
    };
    let must_reach = match (mode, min) {
        (_, None) => k,
        (Cutoff::Fraction, Some(m)) => k.min(-m),
        (Cutoff::Total, Some(m)) => k.min(k.saturating_sub(m)),
    };

    // Boundaries are inclusive for even mantissas: the reader rounds half to even.
    let even = d.mantissa & 1 == 0;
    let mut digits = Vec::new();
    let mut exp = k;
    let (digit, low_ok, high_ok) = loop {
        exp -= 1;
        value.mul_small(10);
        low.mul_small(10);
        high.mul_small(10);
        let digit = value.div_rem_small_quotient(&scale);
        let cmp_low = value.cmp(&low);
        let cmp_high = value.add(&high).cmp(&scale);
        let low_ok = if even {
            cmp_low.is_le()
        } else {
            cmp_low.is_lt()
        };
        let high_ok = if even {
            cmp_high.is_ge()
        } else {
            cmp_high.is_gt()
        };
        if ((low_ok || high_ok) && exp <= must_reach) || exp <= last_allowed {
            break (digit, low_ok, high_ok);
        }
        digits.push(b'0' + digit as u8);
    };

    // Round the last digit: towards whichever neighbour still identifies the value,
    // or to nearest (ties to an even digit) when both or neither do.
    let round_down = if low_ok == high_ok {
        let mut twice = value;
        twice.mul_small(2);
        match twice.cmp(&scale) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            std::cmp::Ordering::Equal => digit % 2 == 0,
        }
    } else {
        low_ok
    };
    let mut exponent = k - 1;
    if round_down {
        digits.push(b'0' + digit as u8);
    } else if digit < 9 {
        digits.push(b'0' + digit as u8 + 1);
    } else {
        // Carry: drop trailing nines and bump the digit before them.
        while digits.last() == Some(&b'9') {
            digits.pop();
        }
        match digits.last_mut() {
            Some(last) => *last += 1,
            None => {
                digits.push(b'1');
                exponent += 1;
            }
        }
    }
    Digits { digits, exponent }
}

/// How trailing zeros and the decimal point are trimmed (NumPy's `trim` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trim {
    /// `'k'`: keep trailing zeros (padding to `min_digits`).
    Keep,
    /// `'.'`: drop trailing zeros, keep the point: `1.`.
    Zeros,
    /// `'0'`: drop trailing zeros but keep one after the point: `1.0`.
    LeaveOneZero,
    /// `'-'`: drop trailing zeros and a bare point: `1`.
    DptZeros,
}

/// Options of NumPy's `format_float_positional` / `format_float_scientific`
/// (always in unique mode, `fractional=True`, sign only for negatives).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Style {
    pub scientific: bool,
    /// At most this many digits after the point (positional) or mantissa digits
    /// after the first (scientific).
    pub precision: Option<i32>,
    /// At least this many such digits (more than unique are rounded).
    pub min_digits: Option<i32>,
    pub trim: Trim,
    /// Pad with spaces to this many characters before the point (sign included).
    pub pad_left: Option<usize>,
    /// Pad with spaces to this many characters after the point (positional only).
    pub pad_right: Option<usize>,
    /// At least this many exponent digits (default 2).
    pub exp_digits: Option<usize>,
}

impl Style {
    pub const fn plain(scientific: bool, trim: Trim) -> Style {
        Style {
            scientific,
            precision: None,
            min_digits: None,
            trim,
            pad_left: None,
            pad_right: None,
            exp_digits: None,
        }
    }
}

/// Formats a finite value.
pub fn render(d: &Decoded, style: &Style) -> String {
    if style.scientific {
        scientific(d, style)
    } else {
        positional(d, style)
    }
}

fn positional(d: &Decoded, style: &Style) -> String {
    let Digits { digits, exponent } =
        shortest_digits(d, Cutoff::Fraction, style.precision, style.min_digits);
    let (mut whole, mut frac): (Vec<u8>, Vec<u8>) = if exponent >= 0 {
        let n_whole = exponent as usize + 1;
        if digits.len() <= n_whole {
            let mut w = digits;
            w.resize(n_whole, b'0');
            (w, Vec::new())
        } else {
            let f = digits[n_whole..].to_vec();
            let mut w = digits;
            w.truncate(n_whole);
            (w, f)
        }
    } else {
        let zeros = (-(exponent + 1)) as usize;
        let mut f = vec![b'0'; zeros];
        f.extend_from_slice(&digits);
        (vec![b'0'], f)
    };
    if d.negative {
        whole.insert(0, b'-');
    }
    let has_point = finish_fraction(&mut frac, false, style);

    let mut out = String::new();
    if let Some(left) = style.pad_left {
        out.extend(std::iter::repeat_n(' ', left.saturating_sub(whole.len())));
    }
    out.extend(whole.iter().map(|&b| b as char));
    if has_point {
        out.push('.');
    }
    out.extend(frac.iter().map(|&b| b as char));
    if let Some(right) = style.pad_right {
        if right >= frac.len() {
            if !has_point {
                out.push(' ');
            }
            out.extend(std::iter::repeat_n(' ', right - frac.len()));
        }
    }
    out
}

fn scientific(d: &Decoded, style: &Style) -> String {
    let Digits { digits, exponent } = shortest_digits(
        d,
        Cutoff::Total,
        style.precision.map(|p| p.saturating_add(1)),
        style.min_digits.map(|m| m.saturating_add(1)),
    );
    let mut out = String::new();
    let lead = 1 + usize::from(d.negative);
    if let Some(left) = style.pad_left {
        out.extend(std::iter::repeat_n(' ', left.saturating_sub(lead)));
    }
    if d.negative {
        out.push('-');
    }
    let (first, rest) = digits.split_first().unwrap_or((&b'0', &[]));
    out.push(*first as char);
    let mut frac = rest.to_vec();
    let has_point = finish_fraction(&mut frac, true, style);
    if has_point {
        out.push('.');
    }
    out.extend(frac.iter().map(|&b| b as char));

    let width = style.exp_digits.unwrap_or(2).min(5);
    let sign = if exponent < 0 { '-' } else { '+' };
    out.push_str(&format!("e{sign}{:0width$}", exponent.unsigned_abs()));
    out
}

/// Applies the trim mode (and zero padding for `Trim::Keep`) to the fraction digits;
/// returns whether the decimal point is written.
fn finish_fraction(frac: &mut Vec<u8>, scientific: bool, style: &Style) -> bool {
    let had_digits = !frac.is_empty();
    match style.trim {
        Trim::Keep => {
            let want = style.min_digits.unwrap_or(0).max(0) as usize;
            if frac.len() < want {
                frac.resize(want, b'0');
            }
            true
        }
        Trim::Zeros => {
            trim_zeros(frac);
            true
        }
        Trim::LeaveOneZero => {
            trim_zeros(frac);
            if frac.is_empty() {
                frac.push(b'0');
            }
            true
        }
        // NumPy drops a bare point in positional form only; a scientific mantissa
        // whose fraction digits were all zeros keeps it (`1.e+05`).
        Trim::DptZeros => {
            trim_zeros(frac);
            !frac.is_empty() || (scientific && had_digits)
        }
    }
}

fn trim_zeros(frac: &mut Vec<u8>) {
    while frac.last() == Some(&b'0') {
        frac.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec64(v: f64) -> Decoded {
        match classify(v.to_bits(), 52, 11) {
            Class::Finite(d) => d,
            other => panic!("not finite: {other:?}"),
        }
    }

    fn dec32(v: f32) -> Decoded {
        match classify(u64::from(v.to_bits()), 23, 8) {
            Class::Finite(d) => d,
            other => panic!("not finite: {other:?}"),
        }
    }

    fn dec16(v: f32) -> Decoded {
        let bits = half::f16::from_f32(v).to_bits();
        match classify(u64::from(bits), 10, 5) {
            Class::Finite(d) => d,
            other => panic!("not finite: {other:?}"),
        }
    }

    fn shortest(d: &Decoded) -> String {
        let r = shortest_digits(d, Cutoff::Total, None, None);
        format!("{}e{}", String::from_utf8_lossy(&r.digits), r.exponent)
    }

    #[test]
    fn shortest_digits_depend_on_the_type() {
        assert_eq!(shortest(&dec16(0.1)), "1e-1");
        assert_eq!(shortest(&dec32(0.1)), "1e-1");
        assert_eq!(shortest(&dec64(0.1)), "1e-1");
        assert_eq!(
            shortest(&dec64(half::f16::from_f32(0.1).to_f64())),
            "999755859375e-2"
        );
        assert_eq!(shortest(&dec16(std::f32::consts::PI)), "314e0");
        assert_eq!(shortest(&dec32(std::f32::consts::PI)), "31415927e0");
        assert_eq!(shortest(&dec64(std::f64::consts::PI)), "3141592653589793e0");
        // 49984 sits next to a half-way point that is exactly 5e4 (inclusive boundary).
        assert_eq!(shortest(&dec16(49984.0)), "5e4");
        assert_eq!(shortest(&dec64(5e-324)), "5e-324");
        assert_eq!(shortest(&dec64(1e23)), "1e23");
    }

    #[test]
    fn shortest_matches_rust_for_many_f32_and_f64() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x >> 2);
            let g = f32::from_bits((x >> 34) as u32);
            for (d, rust) in [(dec64(f), format!("{f:e}")), (dec32(g), format!("{g:e}"))] {
                let r = shortest_digits(&d, Cutoff::Total, None, None);
                let (mant, exp) = rust.split_once('e').unwrap();
                let mant: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
                assert_eq!(String::from_utf8_lossy(&r.digits), mant, "{rust}");
                assert_eq!(r.exponent.to_string(), exp, "{rust}");
            }
        }
    }

    #[test]
    fn positional_cutoff_and_padding() {
        let s = |v: f64, p: i32, trim| {
            let st = Style {
                precision: Some(p),
                min_digits: Some(0),
                ..Style::plain(false, trim)
            };
            render(&dec64(v), &st)
        };
        assert_eq!(s(1.0 / 3.0, 8, Trim::Zeros), "0.33333333");
        assert_eq!(s(2.0 / 3.0, 3, Trim::Zeros), "0.667");
        assert_eq!(s(0.5, 8, Trim::Zeros), "0.5");
        assert_eq!(s(3.0, 8, Trim::Zeros), "3.");
        assert_eq!(s(3e-10, 8, Trim::Zeros), "0.");
        assert_eq!(s(9.9999999999, 8, Trim::Zeros), "10.");
        assert_eq!(s(-0.0, 8, Trim::Zeros), "-0.");
        let padded = Style {
            precision: Some(8),
            min_digits: Some(0),
            pad_left: Some(3),
            pad_right: Some(4),
            ..Style::plain(false, Trim::Zeros)
        };
        assert_eq!(render(&dec64(1.5), &padded), "  1.5   ");
    }

    #[test]
    fn scientific_forms() {
        assert_eq!(
            render(&dec64(1e20), &Style::plain(true, Trim::DptZeros)),
            "1e+20"
        );
        assert_eq!(
            render(&dec64(1.5e-5), &Style::plain(true, Trim::DptZeros)),
            "1.5e-05"
        );
        assert_eq!(
            render(&dec64(1.5e300), &Style::plain(true, Trim::DptZeros)),
            "1.5e+300"
        );
        let fixed = Style {
            precision: Some(3),
            min_digits: Some(3),
            exp_digits: Some(2),
            pad_left: Some(2),
            ..Style::plain(true, Trim::Keep)
        };
        assert_eq!(render(&dec64(12345.0), &fixed), " 1.234e+04");
        assert_eq!(render(&dec64(-2.0), &fixed), "-2.000e+00");
    }
}

//! Float elements as NumPy prints them: one shared style per array (fixed or
//! scientific, common padding) chosen from the values, and the `str` of a scalar.

use half::f16;

use super::dragon4::{classify, render, Class, Decoded, Style, Trim};
use super::PrintOptions;

/// A float type NumPy prints with its own digit generation and thresholds.
pub trait PrintFloat: Copy {
    /// Arrays switch to scientific at this magnitude: 10^min(8, decimal digits of the type).
    const ARRAY_SCI_AT: f64;
    /// A scalar's `str` switches to scientific at this magnitude.
    const SCALAR_SCI_AT: f64;
    fn class(self) -> Class;
    /// The exact value.
    fn to_f64(self) -> f64;
    /// `min < 0.0001` with the literal converted to this type (NumPy's weak scalars).
    fn below_1e_4(min: f64) -> bool;
    /// `max / min > 1000` with the division done in this type.
    fn ratio_above_1000(max: f64, min: f64) -> bool;
}

impl PrintFloat for f16 {
    const ARRAY_SCI_AT: f64 = 1e3;
    const SCALAR_SCI_AT: f64 = 1e3;
    fn class(self) -> Class {
        classify(u64::from(self.to_bits()), 10, 5)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    fn below_1e_4(min: f64) -> bool {
        min < f16::from_f64(1e-4).to_f64()
    }
    fn ratio_above_1000(max: f64, min: f64) -> bool {
        // NumPy divides halves in f32 and rounds the quotient to f16.
        f16::from_f32(max as f32 / min as f32).to_f64() > 1000.0
    }
}

impl PrintFloat for f32 {
    const ARRAY_SCI_AT: f64 = 1e6;
    const SCALAR_SCI_AT: f64 = 1e6;
    fn class(self) -> Class {
        classify(u64::from(self.to_bits()), 23, 8)
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn below_1e_4(min: f64) -> bool {
        (min as f32) < 1e-4f32
    }
    fn ratio_above_1000(max: f64, min: f64) -> bool {
        max as f32 / min as f32 > 1000.0
    }
}

impl PrintFloat for f64 {
    const ARRAY_SCI_AT: f64 = 1e8;
    const SCALAR_SCI_AT: f64 = 1e16;
    fn class(self) -> Class {
        classify(self.to_bits(), 52, 11)
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn below_1e_4(min: f64) -> bool {
        min < 1e-4
    }
    fn ratio_above_1000(max: f64, min: f64) -> bool {
        max / min > 1000.0
    }
}

/// Python's `repr(float)`: shortest round-trip digits, positional between 1e-4 and
/// 1e16, e.g. `3.5`, `1.0`, `1e+16`, `1e-05`, `-0.0`, `inf`, `nan`.
pub fn format_float_repr(v: f64) -> String {
    scalar_str(v)
}

/// `str` of a NumPy float scalar (also what a 0-d array prints).
pub fn scalar_str<T: PrintFloat>(x: T) -> String {
    match x.class() {
        Class::Nan => "nan".to_string(),
        Class::Inf { negative } => if negative { "-inf" } else { "inf" }.to_string(),
        Class::Finite(d) => {
            let a = x.to_f64().abs();
            let positional = a == 0.0 || (a < T::SCALAR_SCI_AT && a >= 1e-4);
            let style = if positional {
                Style::plain(false, Trim::LeaveOneZero)
            } else {
                Style::plain(true, Trim::DptZeros)
            };
            render(&d, &style)
        }
    }
}

/// The style shared by all elements of one printed array (NumPy's `FloatingFormat`
/// with floatmode `maxprec`).
pub struct FloatFormat {
    style: Style,
    /// Width of a formatted finite element, for right-aligning nan/inf.
    width: usize,
}

impl FloatFormat {
    /// Chooses the style from the values that will be shown.
    pub fn new<T: PrintFloat>(data: &[T], opts: &PrintOptions) -> FloatFormat {
        let precision = i32::try_from(opts.precision).unwrap_or(i32::MAX);
        let (finite, values): (Vec<Decoded>, Vec<f64>) = data
            .iter()
            .filter_map(|x| match x.class() {
                Class::Finite(d) => Some((d, x.to_f64())),
                _ => None,
            })
            .unzip();
        let scientific = use_scientific::<T>(&values, opts.suppress);

        let (style, pad_right) = if finite.is_empty() {
            (Style::plain(false, Trim::Zeros), 0)
        } else if scientific {
            scientific_style(&finite, precision)
        } else {
            positional_style(&finite, precision)
        };

        let mut pad_left = style.pad_left.unwrap_or(0);
        if finite.len() != data.len() {
            // Make room for "nan", "inf" and "-inf" right-aligned in the column.
            let neg_inf = data
                .iter()
                .any(|x| matches!(x.class(), Class::Inf { negative: true }));
            let needed = 3 + usize::from(neg_inf);
            pad_left = pad_left.max(needed.saturating_sub(pad_right + 1));
        }
        FloatFormat {
            style: Style {
                pad_left: Some(pad_left),
                ..style
            },
            width: pad_left + pad_right + 1,
        }
    }

    pub fn format<T: PrintFloat>(&self, x: T) -> String {
        let special = match x.class() {
            Class::Finite(d) => return render(&d, &self.style),
            Class::Nan => "nan",
            Class::Inf { negative: false } => "inf",
            Class::Inf { negative: true } => "-inf",
        };
        format!("{special:>width$}", width = self.width)
    }
}

/// Scientific style for an array, and the width after the point. A first pass
/// finds the unique digits (capped at `precision`) of every element; all elements
/// then show as many mantissa and exponent digits as the longest needs.
fn scientific_style(finite: &[Decoded], precision: i32) -> (Style, usize) {
    let first = Style {
        precision: Some(precision),
        ..Style::plain(true, Trim::Zeros)
    };
    let (mut left, mut frac, mut exp) = (0, 0, 0);
    for d in finite {
        let s = render(d, &first);
        let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, ""));
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        left = left.max(int_part.len());
        frac = frac.max(frac_part.len());
        exp = exp.max(exponent.len().saturating_sub(1)); // minus the exponent's sign
    }
    let digits = i32::try_from(frac).unwrap_or(i32::MAX);
    let style = Style {
        scientific: true,
        precision: Some(digits),
        min_digits: Some(digits),
        trim: Trim::Keep,
        pad_left: Some(left),
        pad_right: None,
        exp_digits: Some(exp),
    };
    (style, exp + 2 + frac)
}

/// Positional style for an array, and the width after the point: each element keeps
/// its own unique digits (capped at `precision`), padded to align the points.
fn positional_style(finite: &[Decoded], precision: i32) -> (Style, usize) {
    let first = Style {
        precision: Some(precision),
        ..Style::plain(false, Trim::Zeros)
    };
    let (mut left, mut right) = (0, 0);
    for d in finite {
        let s = render(d, &first);
        let (int_part, frac_part) = s.split_once('.').unwrap_or((&s, ""));
        left = left.max(int_part.len());
        right = right.max(frac_part.len());
    }
    let style = Style {
        precision: Some(precision),
        min_digits: Some(0),
        pad_left: Some(left),
        pad_right: Some(right),
        ..Style::plain(false, Trim::Zeros)
    };
    (style, right)
}

/// NumPy's switch to scientific notation, decided on the finite nonzero magnitudes.
fn use_scientific<T: PrintFloat>(finite: &[f64], suppress: bool) -> bool {
    let mut range: Option<(f64, f64)> = None;
    for v in finite.iter().map(|v| v.abs()).filter(|&a| a != 0.0) {
        range = Some(match range {
            None => (v, v),
            Some((lo, hi)) => (lo.min(v), hi.max(v)),
        });
    }
    let Some((min, max)) = range else {
        return false;
    };
    max >= T::ARRAY_SCI_AT || (!suppress && (T::below_1e_4(min) || T::ratio_above_1000(max, min)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<T: PrintFloat>(data: &[T]) -> Vec<String> {
        let f = FloatFormat::new(data, &PrintOptions::default());
        data.iter().map(|&x| f.format(x)).collect()
    }

    #[test]
    fn repr_matches_python() {
        let cases = [
            (3.5, "3.5"),
            (0.1, "0.1"),
            (1.0, "1.0"),
            (1e16, "1e+16"),
            (1e-5, "1e-05"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-0.0, "-0.0"),
            (123456789.0, "123456789.0"),
            (0.0001, "0.0001"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.5e-7, "1.5e-07"),
            (1e300 * 1.7, "1.7e+300"),
            (5e-324, "5e-324"),
            (0.30000000000000004, "0.30000000000000004"),
        ];
        for (v, want) in cases {
            assert_eq!(format_float_repr(v), want);
        }
    }

    #[test]
    fn scalar_str_thresholds_per_type() {
        assert_eq!(scalar_str(f16::from_f32(0.1)), "0.1");
        assert_eq!(scalar_str(f16::from_f32(999.5)), "999.5");
        assert_eq!(scalar_str(f16::from_f32(1000.0)), "1e+03");
        assert_eq!(scalar_str(f16::from_f32(65504.0)), "6.55e+04");
        assert_eq!(scalar_str(1e-4f32), "1e-04");
        assert_eq!(scalar_str(999999.94f32), "999999.94");
        assert_eq!(scalar_str(123456789.0f32), "1.2345679e+08");
        assert_eq!(scalar_str(f32::MIN_POSITIVE / 2.0), "5.877472e-39");
    }

    #[test]
    fn arrays_share_padding() {
        assert_eq!(row(&[1.0f64, 2.5, -3.25]), [" 1.  ", " 2.5 ", "-3.25"]);
        assert_eq!(
            row(&[f64::NAN, 1.0, f64::NEG_INFINITY]),
            [" nan", "  1.", "-inf"]
        );
        assert_eq!(row(&[1e10f64, 2.5e10]), ["1.0e+10", "2.5e+10"]);
        assert_eq!(
            row(&[f16::from_f32(1000.0), f16::from_f32(1.0)]),
            ["1.e+03", "1.e+00"]
        );
        assert_eq!(row(&[1e-4f32, 2e-4]), ["0.0001", "0.0002"]);
        assert_eq!(row(&[f64::NAN]), ["nan"]);
    }
}

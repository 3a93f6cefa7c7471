//! The printf subset `savetxt` formats with, as Python's `%` operator (and so
//! `numpy.savetxt`) writes it: flags `-+ 0`, a width, a precision and the
//! conversions `d i u e E f F g G`, plus `%%`. A float given to `%d` is truncated
//! toward zero; an int given to a float conversion is converted to f64 first.

/// A number to format: ints stay exact under `%d`.
#[derive(Clone, Copy, Debug)]
pub enum Num {
    Int(i64),
    Float(f64),
}

/// A parsed format: literal text and conversions in order.
#[derive(Debug)]
pub struct Format {
    parts: Vec<Part>,
}

#[derive(Debug)]
enum Part {
    Text(String),
    Conv(Spec),
}

#[derive(Debug, Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conv: char,
}

/// Widths and precisions beyond this are refused (a typo, not a format).
const MAX_WIDTH: usize = 1000;

impl Format {
    /// Parses `fmt`; an unsupported or unfinished conversion is an error naming it.
    pub fn parse(fmt: &str) -> Result<Format, String> {
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut chars = fmt.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            if chars.peek() == Some(&'%') {
                chars.next();
                text.push('%');
                continue;
            }
            let mut spec = Spec::default();
            while let Some(&f) = chars.peek() {
                match f {
                    '-' => spec.left = true,
                    '+' => spec.plus = true,
                    ' ' => spec.space = true,
                    '0' => spec.zero = true,
                    _ => break,
                }
                chars.next();
            }
            spec.width = number(&mut chars).unwrap_or(0);
            if chars.peek() == Some(&'.') {
                chars.next();
                spec.precision = Some(number(&mut chars).unwrap_or(0));
            }
            if spec.width > MAX_WIDTH || spec.precision.unwrap_or(0) > MAX_WIDTH {
                return Err(format!(
                    "the format \"{fmt}\" has a width or precision over {MAX_WIDTH}"
                ));
            }
            spec.conv = match chars.next() {
                Some(c @ ('d' | 'i' | 'u' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G')) => c,
                Some(c) => {
                    return Err(format!(
                        "the format \"{fmt}\" has the conversion `%{c}`; savetxt supports \
                         %d %i %u %e %E %f %F %g %G with flags -+ 0, a width and a precision"
                    ))
                }
                None => return Err(format!("the format \"{fmt}\" ends inside a conversion")),
            };
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut text)));
            }
            parts.push(Part::Conv(spec));
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        Ok(Format { parts })
    }

    /// How many values one use of the format takes.
    pub fn conversions(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p, Part::Conv(_)))
            .count()
    }

    /// Appends the format applied to `values` (one per conversion, in order) to `out`.
    pub fn write(&self, values: &[Num], out: &mut String) -> Result<(), String> {
        let mut values = values.iter();
        for part in &self.parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Conv(spec) => {
                    let v = values
                        .next()
                        .ok_or("the format has more conversions than values")?;
                    spec.write(*v, out)?;
                }
            }
        }
        Ok(())
    }
}

fn number(chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<usize> {
    let mut n: Option<usize> = None;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        chars.next();
        n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d as usize));
    }
    n
}

impl Spec {
    fn write(&self, v: Num, out: &mut String) -> Result<(), String> {
        let (negative, body) = match self.conv {
            'd' | 'i' | 'u' => integer(v, self.precision)?,
            conv => {
                let x = match v {
                    Num::Int(i) => i as f64,
                    Num::Float(f) => f,
                };
                let body = if x.is_finite() {
                    float(x.abs(), conv, self.precision.unwrap_or(6))
                } else if x.is_nan() {
                    "nan".to_string()
                } else {
                    "inf".to_string()
                };
                let upper = conv.is_ascii_uppercase();
                let body = if upper { body.to_uppercase() } else { body };
                (x.is_sign_negative() && !x.is_nan(), body)
            }
        };
        let sign = match (negative, self.plus, self.space) {
            (true, _, _) => "-",
            (false, true, _) => "+",
            (false, false, true) => " ",
            _ => "",
        };
        let len = sign.len() + body.chars().count();
        let pad = self.width.saturating_sub(len);
        if self.left {
            out.push_str(sign);
            out.push_str(&body);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if self.zero {
            out.push_str(sign);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(&body);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(sign);
            out.push_str(&body);
        }
        Ok(())
    }
}

/// `%d`: the sign and the digits (at least `precision` of them) of `v` truncated
/// toward zero, exactly (a float of any size prints all its integer digits).
fn integer(v: Num, precision: Option<usize>) -> Result<(bool, String), String> {
    let (negative, digits) = match v {
        Num::Int(i) => (i < 0, i.unsigned_abs().to_string()),
        Num::Float(f) if f.is_finite() => {
            let t = f.trunc();
            (t < 0.0, format!("{:.0}", t.abs()))
        }
        Num::Float(f) => return Err(format!("cannot format {f} with %d (not a finite number)")),
    };
    let min = precision.unwrap_or(1);
    let zeros = min.saturating_sub(digits.len());
    Ok((negative, "0".repeat(zeros) + &digits))
}

/// A finite, non-negative `x` under `%e`, `%f` or `%g` (any case) with `precision`.
fn float(x: f64, conv: char, precision: usize) -> String {
    match conv {
        'e' | 'E' => exponent(x, precision),
        'f' | 'F' => format!("{x:.precision$}"),
        _ => general(x, precision),
    }
}

/// `%e`: one digit, the point, `precision` digits, and an exponent of at least two digits.
fn exponent(x: f64, precision: usize) -> String {
    let s = format!("{x:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// `%g`: `%e` or `%f` by the exponent, with `precision` significant digits and the
/// trailing zeros (and a trailing point) removed, as C's printf does.
fn general(x: f64, precision: usize) -> String {
    let p = precision.max(1);
    let e = format!("{x:.prec$e}", prec = p - 1);
    let exp: i64 = e
        .split_once('e')
        .and_then(|(_, x)| x.parse().ok())
        .unwrap_or(0);
    let s = if -4 <= exp && exp < p as i64 {
        let decimals = (p as i64 - 1 - exp) as usize;
        format!("{x:.decimals$}")
    } else {
        exponent(x, p - 1)
    };
    let (mantissa, tail) = match s.find('e') {
        Some(i) => s.split_at(i),
        None => (s.as_str(), ""),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{mantissa}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, v: Num) -> String {
        let mut out = String::new();
        Format::parse(f).unwrap().write(&[v], &mut out).unwrap();
        out
    }

    // Expected strings from Python's `%` operator.
    #[test]
    fn matches_python() {
        use Num::{Float as F, Int as I};
        assert_eq!(fmt("%.18e", F(0.1)), "1.000000000000000056e-01");
        assert_eq!(fmt("%e", F(1e-300)), "1.000000e-300");
        assert_eq!(fmt("%5.1e", F(123456.0)), "1.2e+05");
        assert_eq!(fmt("%E", F(f64::NAN)), "NAN");
        assert_eq!(fmt("%+e", F(f64::INFINITY)), "+inf");
        assert_eq!(fmt("%010f", F(f64::NEG_INFINITY)), "-000000inf");
        assert_eq!(fmt("%-8.2f|", F(1.5)), "1.50    |");
        assert_eq!(fmt("% d", I(5)), " 5");
        assert_eq!(fmt("%.3d", I(5)), "005");
        assert_eq!(fmt("%05d", I(-42)), "-0042");
        assert_eq!(fmt("%+05d", I(42)), "+0042");
        assert_eq!(fmt("%d", F(-3.7)), "-3");
        assert_eq!(fmt("%d", F(1e20)), "100000000000000000000");
        assert_eq!(fmt("%g", F(100000.0)), "100000");
        assert_eq!(fmt("%g", F(1000000.0)), "1e+06");
        assert_eq!(fmt("%g", F(0.0001)), "0.0001");
        assert_eq!(fmt("%g", F(0.00001)), "1e-05");
        assert_eq!(fmt("%.3g", F(1234.5)), "1.23e+03");
        assert_eq!(fmt("%g", F(-0.0)), "-0");
        assert_eq!(fmt("%.0g", F(0.5)), "0.5");
        assert_eq!(fmt("%.0e", F(2.5)), "2e+00");
        assert_eq!(fmt("%.0f", F(0.5)), "0");
        assert_eq!(fmt("%.0f", F(1.5)), "2");
        assert_eq!(fmt("%.1f", F(0.25)), "0.2");
        assert_eq!(fmt("%.2f%%", F(12.5)), "12.50%");
    }

    #[test]
    fn unsupported_conversions_are_errors() {
        assert!(Format::parse("%s").unwrap_err().contains("`%s`"));
        assert!(Format::parse("%.2").unwrap_err().contains("ends inside"));
        assert!(Format::parse("%99999d").is_err());
        let mut out = String::new();
        let nan = Format::parse("%d")
            .unwrap()
            .write(&[Num::Float(f64::NAN)], &mut out);
        assert!(nan.is_err());
    }
}

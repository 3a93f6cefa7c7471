//! f-string format specs, a subset of Python's mini-language:
//! `[[fill]align][sign][0][width][.precision][type]` with types `f e g d % s`
//! (and `F E G`), e.g. `f"{loss:.4f}"`, `f"{n:>8d}"`, `f"{x:+.2e}"`.

use crate::tensor::format::PrintOptions;

use crate::runtime::text_size::display_checked;
use crate::runtime::value::Value;

struct Spec {
    fill: char,
    align: Option<char>,
    sign: char,
    width: usize,
    precision: Option<usize>,
    kind: Option<char>,
}

/// The widest field and the most digits a spec may ask for: beyond them a typo (an
/// extra digit or ten) would build a huge string rather than say what is wrong.
const MAX_WIDTH: usize = 10_000;
const MAX_PRECISION: usize = 1_000;

fn too_large(what: &str, digits: &[char], max: usize) -> String {
    let digits: String = digits.iter().collect();
    format!("format spec: the {what} {digits} is too large (at most {max})")
}

fn parse(spec: &str) -> Result<Spec, String> {
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let mut s = Spec {
        fill: ' ',
        align: None,
        sign: '-',
        width: 0,
        precision: None,
        kind: None,
    };
    let is_align = |c: char| matches!(c, '<' | '>' | '^' | '=');
    if chars.len() >= 2 && is_align(chars[1]) {
        s.fill = chars[0];
        s.align = Some(chars[1]);
        i = 2;
    } else if chars.first().is_some_and(|&c| is_align(c)) {
        s.align = Some(chars[0]);
        i = 1;
    }
    if let Some(&c) = chars.get(i).filter(|c| matches!(c, '+' | '-' | ' ')) {
        s.sign = c;
        i += 1;
    }
    if chars.get(i) == Some(&'0') {
        s.fill = '0';
        s.align.get_or_insert('=');
        i += 1;
    }
    let digits = |i: &mut usize| -> Option<usize> {
        let start = *i;
        while chars.get(*i).is_some_and(|c| c.is_ascii_digit()) {
            *i += 1;
        }
        let text: String = chars[start..*i].iter().collect();
        text.parse().ok()
    };
    let width_at = i;
    s.width = match digits(&mut i) {
        Some(w) if w <= MAX_WIDTH => w,
        Some(_) => return Err(too_large("width", &chars[width_at..i], MAX_WIDTH)),
        None if i > width_at => return Err(too_large("width", &chars[width_at..i], MAX_WIDTH)),
        None => 0,
    };
    if chars.get(i) == Some(&'.') {
        i += 1;
        let at = i;
        s.precision = match digits(&mut i) {
            Some(p) if p <= MAX_PRECISION => Some(p),
            None if i == at => return Err("format spec: expected digits after `.`".into()),
            _ => return Err(too_large("precision", &chars[at..i], MAX_PRECISION)),
        };
    }
    if let Some(&c) = chars.get(i) {
        if !"fFeEgGd%s".contains(c) {
            return Err(format!("format spec: unknown type `{c}` in \"{spec}\""));
        }
        s.kind = Some(c);
        i += 1;
    }
    if i != chars.len() {
        return Err(format!("format spec: cannot read \"{spec}\""));
    }
    Ok(s)
}

/// Formats `v` for `{v:spec}` (or plain `{v}` when `spec` is None).
pub fn format_value(v: &Value, spec: Option<&str>, opts: &PrintOptions) -> Result<String, String> {
    let shown = |v: &Value| display_checked(v, opts, "f-string").map_err(|e| e.to_string());
    let Some(spec) = spec else {
        return shown(v);
    };
    let s = parse(spec)?;
    let number = match v {
        Value::Int(i) => Some((*i as f64, Some(*i))),
        Value::Float(f) => Some((*f, None)),
        Value::Bool(_) => None,
        other => other.as_f64().map(|f| (f, other.as_int())),
    };
    let body = match (s.kind, number) {
        (Some('s') | None, _)
            if number.is_none() || (s.kind.is_none() && s.precision.is_none()) =>
        {
            let mut text = shown(v)?;
            if let Some(p) = s.precision {
                text = text.chars().take(p).collect();
            }
            return Ok(pad(&s, text, false));
        }
        (Some('d'), Some((_, Some(i)))) => i.unsigned_abs().to_string(),
        (Some('d'), _) => {
            return Err(format!(
                "format spec `d` needs an integer, got {}",
                v.describe()
            ))
        }
        (Some(kind), Some((x, _))) => float_body(x.abs(), kind, s.precision),
        (None, Some((x, _))) => float_body(x.abs(), 'g', s.precision),
        (_, None) => {
            return Err(format!(
                "format spec \"{spec}\" needs a number, got {}",
                v.describe()
            ))
        }
    };
    let negative = number.is_some_and(|(x, _)| x.is_sign_negative() && !x.is_nan());
    let sign = match (negative, s.sign) {
        (true, _) => "-",
        (false, '+') => "+",
        (false, ' ') => " ",
        _ => "",
    };
    Ok(pad(&s, format!("{sign}{body}"), true))
}

/// Digits of a non-negative float in the given presentation type.
fn float_body(x: f64, kind: char, precision: Option<usize>) -> String {
    let upper = kind.is_ascii_uppercase();
    let text = if !x.is_finite() {
        if x.is_nan() { "nan" } else { "inf" }.to_string()
    } else {
        let p = precision.unwrap_or(6);
        match kind.to_ascii_lowercase() {
            'f' => format!("{x:.p$}"),
            'e' => sci(x, p),
            '%' => format!("{:.p$}%", x * 100.0),
            _ => general(x, p.max(1)),
        }
    };
    if upper {
        text.to_uppercase()
    } else {
        text
    }
}

/// `1.234500e+03`: Rust's `{:e}` with Python's exponent (sign and two digits).
fn sci(x: f64, p: usize) -> String {
    let s = format!("{x:.p$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let e: i32 = exp.parse().unwrap_or(0);
            format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
        }
        None => s,
    }
}

/// Python's `g`: `p` significant digits, fixed or scientific by the exponent,
/// trailing zeros removed.
fn general(x: f64, p: usize) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let e: i32 = format!("{x:.*e}", p - 1)
        .split_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let trim = |s: String| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if e >= -4 && e < p as i32 {
        let decimals = (p as i32 - 1 - e).max(0) as usize;
        trim(format!("{x:.decimals$}"))
    } else {
        let s = sci(x, p - 1);
        match s.split_once('e') {
            Some((m, exp)) => format!("{}e{exp}", trim(m.to_string())),
            None => s,
        }
    }
}

fn pad(s: &Spec, text: String, numeric: bool) -> String {
    let len = text.chars().count();
    if len >= s.width {
        return text;
    }
    let n = s.width - len;
    let fill = |k: usize| s.fill.to_string().repeat(k);
    match s.align.unwrap_or(if numeric { '>' } else { '<' }) {
        '<' => format!("{text}{}", fill(n)),
        '^' => format!("{}{text}{}", fill(n / 2), fill(n - n / 2)),
        '=' if numeric => {
            let split = text
                .find(|c: char| !matches!(c, '+' | '-' | ' '))
                .unwrap_or(0);
            format!("{}{}{}", &text[..split], fill(n), &text[split..])
        }
        _ => format!("{}{text}", fill(n)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(v: Value, spec: &str) -> String {
        format_value(&v, Some(spec), &PrintOptions::default()).unwrap()
    }

    #[test]
    fn python_compatible() {
        assert_eq!(f(Value::Float(1.23456), ".2f"), "1.23");
        assert_eq!(f(Value::Float(-1.23456), "8.3f"), "  -1.235");
        assert_eq!(f(Value::Float(1234.5), ".3e"), "1.234e+03");
        assert_eq!(f(Value::Float(0.000012345), "g"), "1.2345e-05");
        assert_eq!(f(Value::Float(123456789.0), ".3g"), "1.23e+08");
        assert_eq!(f(Value::Float(0.5), ".1%"), "50.0%");
        assert_eq!(f(Value::Int(42), "05d"), "00042");
        assert_eq!(f(Value::Int(-42), "+d"), "-42");
        assert_eq!(f(Value::Int(7), "<4d"), "7   ");
        assert_eq!(f(Value::Int(7), "*^5"), "**7**");
        assert_eq!(f(Value::str("ab"), ">4"), "  ab");
        assert_eq!(f(Value::Float(f64::INFINITY), ".2f"), "inf");
        assert!(format_value(&Value::Float(1.0), Some(".2q"), &PrintOptions::default()).is_err());
        assert!(format_value(&Value::Float(1.0), Some("d"), &PrintOptions::default()).is_err());
    }
}

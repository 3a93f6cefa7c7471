//! Tolerant comparison of two outputs: text must match, numbers may differ within
//! `|actual - expected| <= atol + rtol * |expected|`.
//!
//! Outputs are split into tokens: numbers (ints, floats, scientific, `nan`, `inf`,
//! with a sign) and the text between them, with spaces and tabs as separators. Text
//! compares exactly and line breaks count, but the spaces themselves do not: NumPy pads
//! columns to the widest number, so a last-digit change can move the padding (even add
//! or remove a space before a `]`) without the output meaning anything else.

/// Tolerances for number tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            rtol: 1e-5,
            atol: 1e-8,
        }
    }
}

impl Tolerance {
    /// nan equals nan; infinities equal only the same infinity.
    pub fn close(&self, actual: f64, expected: f64) -> bool {
        crate::ops::close::is_close(actual, expected, self.rtol, self.atol)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Token<'a> {
    /// The number's value and its text as written.
    Number(f64, &'a str),
    /// Anything else, compared exactly (newlines included).
    Text(&'a str),
}

/// Splits text into numbers and other text, dropping spaces and tabs. A number cannot start
/// right after a letter, digit, `_` or `.`, so `f32`, `x1` and `v2.0` stay text.
pub fn tokenize<'a>(s: &'a str) -> Vec<Token<'a>> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    let flush = |out: &mut Vec<Token<'a>>, from: usize, to: usize| {
        if to > from {
            out.push(Token::Text(&s[from..to]));
        }
    };
    while i < bytes.len() {
        let c = bytes[i];
        if c == b' ' || c == b'\t' {
            flush(&mut out, text_start, i);
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            text_start = i;
            continue;
        }
        let prev_is_word = i > 0 && {
            let p = bytes[i - 1];
            p.is_ascii_alphanumeric() || p == b'_' || p == b'.'
        };
        if !prev_is_word {
            if let Some(len) = number_len(&bytes[i..]) {
                if let Ok(v) = parse_number(&s[i..i + len]) {
                    flush(&mut out, text_start, i);
                    out.push(Token::Number(v, &s[i..i + len]));
                    i += len;
                    text_start = i;
                    continue;
                }
            }
        }
        // Advance by one UTF-8 character.
        i += s[i..].chars().next().map_or(1, char::len_utf8);
    }
    flush(&mut out, text_start, bytes.len());
    out
}

/// Length of the number starting at `b[0]`, if one does (and it ends at a word boundary).
fn number_len(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let word = |w: &[u8]| b[i..].starts_with(w);
    let len = if word(b"nan") || word(b"inf") {
        i + 3
    } else {
        let digits = |j: &mut usize| {
            let start = *j;
            while b.get(*j).is_some_and(u8::is_ascii_digit) {
                *j += 1;
            }
            *j - start
        };
        let mut j = i;
        let int_digits = digits(&mut j);
        let mut frac_digits = 0;
        if b.get(j) == Some(&b'.') {
            let mut k = j + 1;
            frac_digits = digits(&mut k);
            // `1.` is a number (NumPy prints it); a lone `.` is not.
            if int_digits > 0 || frac_digits > 0 {
                j = k;
            }
        }
        if int_digits == 0 && frac_digits == 0 {
            return None;
        }
        if matches!(b.get(j), Some(b'e' | b'E')) {
            let mut k = j + 1;
            if matches!(b.get(k), Some(b'+' | b'-')) {
                k += 1;
            }
            if digits(&mut k) > 0 {
                j = k;
            }
        }
        j
    };
    let ends_word = b
        .get(len)
        .is_none_or(|&c| !(c.is_ascii_alphanumeric() || c == b'_'));
    ends_word.then_some(len)
}

fn parse_number(text: &str) -> Result<f64, std::num::ParseFloatError> {
    let (sign, body) = match text.as_bytes().first() {
        Some(b'-') => (-1.0, &text[1..]),
        Some(b'+') => (1.0, &text[1..]),
        _ => (1.0, text),
    };
    let v = match body {
        "nan" => f64::NAN,
        "inf" => f64::INFINITY,
        _ => body.parse::<f64>()?,
    };
    Ok(sign * v)
}

/// True when the token sequences match under the tolerance.
pub fn tokens_match(actual: &[Token], expected: &[Token], tol: &Tolerance) -> bool {
    actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|(a, e)| token_match(a, e, tol))
}

pub fn token_match(a: &Token, e: &Token, tol: &Tolerance) -> bool {
    match (a, e) {
        (Token::Number(x, _), Token::Number(y, _)) => tol.close(*x, *y),
        (Token::Text(x), Token::Text(y)) => x == y,
        _ => false,
    }
}

/// The tokens of one line of output. Spaces between tokens are dropped, but whether a
/// line starts or ends with spaces is kept (as a `" "` token): "a b" differs from "ab",
/// so " \[2\]" differs from "\[2\]".
pub fn line_tokens(line: &str) -> Vec<Token<'_>> {
    let blank = |c: char| c == ' ' || c == '\t';
    let mut tokens = Vec::new();
    if line.starts_with(blank) {
        tokens.push(Token::Text(" "));
    }
    tokens.extend(tokenize(line));
    if line.ends_with(blank) && !line.trim_matches(blank).is_empty() {
        tokens.push(Token::Text(" "));
    }
    tokens
}

/// Whole-output comparison: the same number of lines, each matching. The diff
/// (`diff::report`) compares lines the same way, so the two always agree.
pub fn outputs_match(actual: &str, expected: &str, tol: &Tolerance) -> bool {
    let (a, e) = (actual.split('\n'), expected.split('\n'));
    a.clone().count() == e.clone().count()
        && a.zip(e)
            .all(|(a, e)| tokens_match(&line_tokens(a), &line_tokens(e), tol))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(s: &str) -> Vec<f64> {
        tokenize(s)
            .into_iter()
            .filter_map(|t| match t {
                Token::Number(v, _) => Some(v),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn finds_numbers_but_not_names() {
        let v = nums("[ 1.  -2.5e-03 +3 nan -inf]");
        assert_eq!(v.len(), 5);
        assert_eq!(
            (v[0], v[1], v[2], v[4]),
            (1.0, -2.5e-3, 3.0, f64::NEG_INFINITY)
        );
        assert!(v[3].is_nan());
        assert_eq!(
            nums("f32[2, 3] x1 v2.0 banana information step 500"),
            vec![2.0, 3.0, 500.0]
        );
        assert_eq!(nums("1.e-10 .5 1e5x"), vec![1e-10, 0.5]);
        assert_eq!(nums("a-1"), vec![1.0]); // the `-` after a word is text
        assert_eq!(nums("(1, -2)"), vec![1.0, -2.0]);
    }

    #[test]
    fn tolerance_rules() {
        let t = Tolerance::default();
        assert!(t.close(1.000001, 1.0));
        assert!(!t.close(1.0001, 1.0));
        assert!(t.close(f64::NAN, f64::NAN));
        assert!(!t.close(f64::INFINITY, f64::NEG_INFINITY));
        assert!(t.close(1e-9, 0.0));
    }

    #[test]
    fn compares_text_exactly_and_spacing_loosely() {
        let t = Tolerance::default();
        assert!(outputs_match(
            "[0.30000001 1.        ]\n",
            "[0.3 1. ]\n",
            &t
        ));
        assert!(outputs_match("[1.0000001 2.5      ]", "[1.  2.5]", &t));
        assert!(!outputs_match("ab", "a b", &t));
        assert!(!outputs_match("]\n[", "]\n [", &t));
        assert!(!outputs_match("a \nb", "a\nb", &t));
        assert!(!outputs_match("a\n  \nb", "a\n\nb", &t));
        assert!(outputs_match("  [1 2]  \n", "\t[1   2] \n", &t));
        assert!(!outputs_match("loss 0.3\n", "loss 0.3\n\n", &t));
        assert!(!outputs_match("mean 0.3\n", "loss 0.3\n", &t));
        assert!(!outputs_match("[1 2 3]", "[1 2]", &t));
        assert!(!outputs_match("[1 2]", "[1 3]", &t));
        let exact = Tolerance {
            rtol: 0.0,
            atol: 0.0,
        };
        assert!(!outputs_match("0.30000001", "0.3", &exact));
    }
}

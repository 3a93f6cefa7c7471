//! Python's string methods (`s.strip()` is `strip(s)`): join, strip, replace,
//! startswith/endswith, find, count, upper/lower, ord and chr, and the string form
//! of `split` (declared with its tensor form in `shape`). Positions are counted in
//! code points, as Python counts them. A string or tuple that can outgrow its input
//! is held to the memory limit before it is built.

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::runtime::builtin;
use crate::runtime::value::{Key, Value};
use crate::tensor::budget;

/// `strip` and its one-sided forms, which differ only in the ends they trim.
macro_rules! strip_builtin {
    ($name:literal, $ends:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, _a; s: &str, chars: Option<&str> = none) {
                Ok(Value::str(trim(s, chars, $ends)))
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "join",
        doc: "The strings of items (a tuple of strings, a dict's keys or a string's characters) with sep between them: `\",\".join((\"a\", \"b\"))` is \"a,b\".",
        fn(_, a; sep: &str, items: &Value) {
            let parts = join_parts(&a, items)?;
            let text: usize = parts.iter().map(|p| p.len()).sum();
            let seps = sep.len().saturating_mul(parts.len().saturating_sub(1));
            held_to_limit(&a, text.saturating_add(seps))?;
            Ok(Value::str(&parts.join(sep)))
        }
    },
    strip_builtin!(
        "strip",
        Ends::Both,
        "s without leading and trailing whitespace, or without any of the characters in chars."
    ),
    strip_builtin!(
        "lstrip",
        Ends::Start,
        "s without leading whitespace, or without any of the characters in chars at its start."
    ),
    strip_builtin!(
        "rstrip",
        Ends::End,
        "s without trailing whitespace, or without any of the characters in chars at its end."
    ),
    builtin! {
        name: "replace",
        doc: "s with the first count (-1: every) non-overlapping occurrences of old replaced by new; an empty old matches between characters, as in Python.",
        fn(_, a; s: &str, old: &str, new: &str, count: i64 = -1) {
            // A negative count replaces every occurrence.
            let limit = usize::try_from(count).unwrap_or(usize::MAX);
            let n = s.matches(old).take(limit).count() as u128;
            let bytes = s.len() as u128 - n * old.len() as u128 + n * new.len() as u128;
            held_to_limit(&a, usize::try_from(bytes).unwrap_or(usize::MAX))?;
            Ok(Value::str(&s.replacen(old, new, limit)))
        }
    },
    builtin! {
        name: "startswith",
        doc: "Whether s starts with prefix, or with one of the strings of a tuple prefix.",
        fn(_, a; s: &str, prefix: &Value) {
            any_affix(&a, "prefix", prefix, |p| s.starts_with(p))
        }
    },
    builtin! {
        name: "endswith",
        doc: "Whether s ends with suffix, or with one of the strings of a tuple suffix.",
        fn(_, a; s: &str, suffix: &Value) {
            any_affix(&a, "suffix", suffix, |p| s.ends_with(p))
        }
    },
    builtin! {
        name: "find",
        doc: "The index (in characters) of the first occurrence of sub in s, or -1.",
        fn(_, _a; s: &str, sub: &str) {
            let at = s.find(sub).map_or(-1, |byte| s[..byte].chars().count() as i64);
            Ok(Value::Int(at))
        }
    },
    builtin! {
        name: "count",
        doc: "The number of non-overlapping occurrences of sub in s; an empty sub counts len(s) + 1, as in Python.",
        fn(_, _a; s: &str, sub: &str) {
            // An empty pattern matches at every character boundary: len + 1 times.
            Ok(Value::Int(s.matches(sub).count() as i64))
        }
    },
    builtin! {
        name: "upper",
        doc: "s in upper case (Unicode's full mapping: \"ß\" becomes \"SS\").",
        fn(_, a; s: &str) {
            recased(&a, s, Case::Upper)
        }
    },
    builtin! {
        name: "lower",
        doc: "s in lower case (Unicode's full mapping, a final sigma included).",
        fn(_, a; s: &str) {
            recased(&a, s, Case::Lower)
        }
    },
    builtin! {
        name: "ord",
        doc: "The code point (an int) of c, a string of one character.",
        fn(_, a; c: &str) {
            let mut chars = c.chars();
            match (chars.next(), chars.next()) {
                (Some(ch), None) => Ok(Value::Int(i64::from(u32::from(ch)))),
                _ => Err(a.arg_err(
                    "c",
                    format!("ord expects one character, got a string of length {}", c.chars().count()),
                )),
            }
        }
    },
    builtin! {
        name: "chr",
        doc: "The one-character string of code point i (0 to 0x10FFFF, surrogates excluded).",
        fn(_, a; i: i64) {
            let ch = u32::try_from(i).ok().and_then(char::from_u32).ok_or_else(|| {
                let why = if (0xD800..=0xDFFF).contains(&i) {
                    format!("{i:#X} is a surrogate, not a character")
                } else {
                    format!("{i} is not in range(0x110000)")
                };
                a.arg_err("i", format!("chr: {why}"))
            })?;
            Ok(Value::str(&ch.to_string()))
        }
    },
];

/// Python's `str.split(sep, maxsplit)` for `split`: `sep` none splits at runs of
/// whitespace and drops empty ends; `maxsplit` none or negative splits everywhere.
pub(super) fn split(
    a: &Bound,
    s: &str,
    sep: Option<&Value>,
    maxsplit: Option<&Value>,
) -> Result<Value, Diagnostic> {
    let limit = match maxsplit {
        None => None,
        Some(v) => {
            let n = v.as_int().ok_or_else(|| {
                let got = v.describe();
                a.arg_err("axis", format!("split: maxsplit must be an int, got {got}"))
            })?;
            usize::try_from(n).ok()
        }
    };
    match sep {
        None => string_tuple(a, whitespace_parts(s, limit)),
        Some(Value::Str(sep)) if sep.is_empty() => {
            Err(a.arg_err("sections", "split: empty separator"))
        }
        Some(Value::Str(sep)) => match limit {
            None => string_tuple(a, s.split(&**sep)),
            Some(n) => string_tuple(a, s.splitn(n.saturating_add(1), &**sep)),
        },
        Some(other) => Err(a.arg_err(
            "sections",
            format!(
                "split: the separator of a string must be a string or none, got {}",
                other.describe()
            ),
        )),
    }
}

/// The parts of `s` between runs of whitespace, leading and trailing runs dropped;
/// after `maxsplit` parts the rest (leading whitespace dropped) is the last part.
fn whitespace_parts(s: &str, maxsplit: Option<usize>) -> impl Iterator<Item = &str> + Clone {
    let mut rest = s.trim_start_matches(is_space);
    let mut splits_left = maxsplit;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if splits_left == Some(0) {
            return Some(std::mem::take(&mut rest));
        }
        let end = rest.find(is_space).unwrap_or(rest.len());
        let (part, tail) = rest.split_at(end);
        rest = tail.trim_start_matches(is_space);
        splits_left = splits_left.map(|n| n - 1);
        Some(part)
    })
}

/// Python's `str.isspace` for one character: Unicode's White_Space and the four
/// ASCII information separators (0x1C..=0x1F), which Python counts too.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Bytes a tuple item of a short string costs beyond its text: the value and the
/// string's reference counts.
const STRING_ITEM_BYTES: usize = std::mem::size_of::<Value>() + 2 * std::mem::size_of::<usize>();

/// `parts` as a tuple of strings, held to the memory limit first: a tuple of many
/// short strings takes far more memory than the text it was cut from.
fn string_tuple<'s>(
    a: &Bound,
    parts: impl Iterator<Item = &'s str> + Clone,
) -> Result<Value, Diagnostic> {
    let n = parts.clone().count();
    budget::check_items(a.builtin.name, "a tuple", n, STRING_ITEM_BYTES)
        .map_err(|e| a.tensor_err(e))?;
    Ok(Value::Tuple(Rc::new(parts.map(Value::str).collect())))
}

/// An error when a string of `bytes` bytes would be over the memory limit.
fn held_to_limit(a: &Bound, bytes: usize) -> Result<(), Diagnostic> {
    budget::check_items(a.builtin.name, "a string", bytes, 1).map_err(|e| a.tensor_err(e))
}

enum Case {
    Upper,
    Lower,
}

/// `s` in `case`, held to the memory limit first: a character's mapping can be
/// longer than it ("ß" in upper case is "SS").
fn recased(a: &Bound, s: &str, case: Case) -> Result<Value, Diagnostic> {
    let bytes = match case {
        Case::Upper => s
            .chars()
            .flat_map(char::to_uppercase)
            .map(char::len_utf8)
            .sum(),
        Case::Lower => s
            .chars()
            .flat_map(char::to_lowercase)
            .map(char::len_utf8)
            .sum(),
    };
    held_to_limit(a, bytes)?;
    Ok(Value::str(&match case {
        Case::Upper => s.to_uppercase(),
        Case::Lower => s.to_lowercase(),
    }))
}

/// Which ends `strip` and its one-sided forms trim.
enum Ends {
    Both,
    Start,
    End,
}

/// `s` without the whitespace (or the characters of `chars`) at `ends`.
fn trim<'s>(s: &'s str, chars: Option<&str>, ends: Ends) -> &'s str {
    let strips = |c: char| chars.map_or_else(|| is_space(c), |set| set.contains(c));
    match ends {
        Ends::Both => s.trim_matches(strips),
        Ends::Start => s.trim_start_matches(strips),
        Ends::End => s.trim_end_matches(strips),
    }
}

/// The strings `join` puts together: a tuple's items, a dict's keys or a string's
/// characters; the first item that is not a string is an error naming its index.
fn join_parts<'v>(a: &Bound, items: &'v Value) -> Result<Vec<&'v str>, Diagnostic> {
    match items {
        Value::Tuple(t) => string_items(a, "items", t),
        Value::Dict(d) => d
            .iter()
            .enumerate()
            .map(|(i, (k, _))| match k {
                Key::Str(s) => Ok(&**s),
                other => Err(not_a_string(a, "items", i, &other.to_value())),
            })
            .collect(),
        Value::Str(s) => Ok(s
            .char_indices()
            .map(|(i, c)| &s[i..i + c.len_utf8()])
            .collect()),
        other => Err(a.arg_err(
            "items",
            format!(
                "join: items must be a tuple of strings, got {}",
                other.describe()
            ),
        )),
    }
}

/// Whether `test` holds for `startswith`'s prefix (or `endswith`'s suffix): a
/// string, or one of the strings of a tuple.
fn any_affix(
    a: &Bound,
    param: &str,
    affix: &Value,
    test: impl Fn(&str) -> bool,
) -> Result<Value, Diagnostic> {
    let found = match affix {
        Value::Str(s) => test(s),
        Value::Tuple(t) => string_items(a, param, t)?.into_iter().any(test),
        other => {
            return Err(a.arg_err(
                param,
                format!(
                    "{}: {param} must be a string or a tuple of strings, got {}",
                    a.builtin.name,
                    other.describe()
                ),
            ))
        }
    };
    Ok(Value::Bool(found))
}

/// The items of a tuple parameter that must hold strings.
fn string_items<'v>(
    a: &Bound,
    param: &str,
    items: &'v [Value],
) -> Result<Vec<&'v str>, Diagnostic> {
    items
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Str(s) => Ok(&**s),
            other => Err(not_a_string(a, param, i, other)),
        })
        .collect()
}

fn not_a_string(a: &Bound, param: &str, index: usize, got: &Value) -> Diagnostic {
    a.arg_err(
        param,
        format!(
            "{}: item {index} of {param} is not a string, got {}",
            a.builtin.name,
            got.describe()
        ),
    )
}

//! Reading a declared default (a tsr literal such as `none`, `-1`, `1e-5`,
//! `"valid"`, `f32` or `{}`) as the value a caller would have passed.

use std::rc::Rc;

use crate::tensor::DType;

use super::value::{Dict, Value};

/// The value of a default literal; `None` for text that is not one.
pub fn parse_default(text: &str) -> Option<Value> {
    Some(match text {
        "none" => Value::None,
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "{}" => Value::Dict(Rc::new(Dict::default())),
        _ if text.starts_with('"') => Value::str(&unquote(text)?),
        _ => match (
            text.parse::<i64>(),
            text.parse::<f64>(),
            DType::from_name(text),
        ) {
            (Ok(i), _, _) => Value::Int(i),
            (_, Ok(f), _) => Value::Float(f),
            (_, _, Some(d)) => Value::DType(d),
            _ => return None,
        },
    })
}

/// The text of a string literal, with `\n`, `\t`, `\"` and `\\` escapes.
fn unquote(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        out.push(match c {
            '\\' => match chars.next()? {
                'n' => '\n',
                't' => '\t',
                c @ ('"' | '\\') => c,
                _ => return None,
            },
            c => c,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_read_as_literals() {
        assert!(matches!(parse_default("none"), Some(Value::None)));
        assert!(matches!(parse_default("-1"), Some(Value::Int(-1))));
        assert!(matches!(parse_default("1e-5"), Some(Value::Float(f)) if f == 1e-5));
        assert!(matches!(
            parse_default("f32"),
            Some(Value::DType(DType::F32))
        ));
        assert!(matches!(parse_default("\"\\n\""), Some(Value::Str(s)) if &*s == "\n"));
        assert!(parse_default("nonsense").is_none());
    }
}

//! JSON files (RFC 8259, parsed by serde_json): a tree with objects in file order,
//! read with serde_json's nesting limit of 128 (deeper input is an error, never a
//! deep recursion), and written indented, with arrays of plain values on one line.

use std::cell::Cell;
use std::fmt;
use std::io::{self, Write};
use std::path::Path;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::text_file::{located, read_text, values_over_limit};
use crate::tensor::format::scalar_str;

/// serde_json's nesting limit, which tsr also keeps when writing so that
/// everything `save_json` writes, `load_json` reads.
pub const MAX_DEPTH: usize = 128;

/// A JSON value. Integers that fit an i64 are `Int`; other numbers are `Float`
/// (a larger integer becomes the nearest f64, as in JavaScript).
#[derive(Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    /// A finite number.
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    /// Members in file order; a repeated key is kept as often as it appears.
    Object(Vec<(String, Json)>),
}

/// Reads the JSON file at `path`. Errors start with "json: " and name the file, the
/// line and the column.
pub fn load_json(path: &Path) -> Result<Json, String> {
    parse_json(&read_text(path, "json")?, path)
}

/// [`load_json`] on text already read; `path` names it in errors.
pub fn parse_json(text: &str, path: &Path) -> Result<Json, String> {
    let nodes = Cell::new(0);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Seed { nodes: &nodes }
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| {
            let full = e.to_string();
            let suffix = format!(" at line {} column {}", e.line(), e.column());
            let msg = full.strip_suffix(&suffix).unwrap_or(&full);
            let msg = match msg {
                "recursion limit exceeded" => {
                    format!("the value is nested more than {MAX_DEPTH} deep (tsr's limit)")
                }
                "number out of range" => "the number is out of range (beyond f64)".to_string(),
                "expected ident" => "expected a JSON value (null, true, false, a number, \
                                     a string, an array or an object)"
                    .to_string(),
                m => m.to_string(),
            };
            located("json", path, e.line(), Some(e.column()), &msg)
        })?;
    Ok(value)
}

/// Builds [`Json`] values, counting them against the memory limit.
#[derive(Clone, Copy)]
struct Seed<'c> {
    nodes: &'c Cell<usize>,
}

impl Seed<'_> {
    fn count<E: de::Error>(self) -> Result<(), E> {
        self.nodes.set(self.nodes.get() + 1);
        match values_over_limit(self.nodes.get(), std::mem::size_of::<Json>()) {
            Some(msg) => Err(E::custom(msg)),
            None => Ok(()),
        }
    }
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Json;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Int(n))
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Json, E> {
        Ok(i64::try_from(n).map_or(Json::Float(n as f64), Json::Int))
    }

    fn visit_f64<E: de::Error>(self, x: f64) -> Result<Json, E> {
        Ok(Json::Float(x))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Json, E> {
        Ok(Json::Str(s.to_string()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            self.count()?;
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut members = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self)?;
            self.count()?;
            members.push((key, value));
        }
        Ok(Json::Object(members))
    }
}

/// Writes `value` to `path` (indented by two spaces, a newline at the end),
/// atomically.
pub fn save_json(path: &Path, value: &Json) -> Result<(), String> {
    super::write_atomically(path, |w| {
        write_value(w, value, 0)?;
        w.write_all(b"\n")
    })
    .map_err(|e| format!("json: cannot write the file: {e}"))
}

fn write_value(w: &mut impl Write, value: &Json, indent: usize) -> io::Result<()> {
    match value {
        Json::Null => w.write_all(b"null"),
        Json::Bool(b) => write!(w, "{b}"),
        Json::Int(n) => write!(w, "{n}"),
        Json::Float(x) => w.write_all(scalar_str(*x).as_bytes()),
        Json::Str(s) => write_str(w, s),
        Json::Array(items) if items.is_empty() => w.write_all(b"[]"),
        Json::Array(items) if items.iter().all(is_plain) => {
            w.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    w.write_all(b", ")?;
                }
                write_value(w, item, indent)?;
            }
            w.write_all(b"]")
        }
        Json::Array(items) => {
            w.write_all(b"[")?;
            for (i, item) in items.iter().enumerate() {
                w.write_all(if i > 0 { b",\n" } else { b"\n" })?;
                write_indent(w, indent + 1)?;
                write_value(w, item, indent + 1)?;
            }
            w.write_all(b"\n")?;
            write_indent(w, indent)?;
            w.write_all(b"]")
        }
        Json::Object(members) if members.is_empty() => w.write_all(b"{}"),
        Json::Object(members) => {
            w.write_all(b"{")?;
            for (i, (key, item)) in members.iter().enumerate() {
                w.write_all(if i > 0 { b",\n" } else { b"\n" })?;
                write_indent(w, indent + 1)?;
                write_str(w, key)?;
                w.write_all(b": ")?;
                write_value(w, item, indent + 1)?;
            }
            w.write_all(b"\n")?;
            write_indent(w, indent)?;
            w.write_all(b"}")
        }
    }
}

/// A value that is not an array or an object.
fn is_plain(v: &Json) -> bool {
    !matches!(v, Json::Array(_) | Json::Object(_))
}

fn write_indent(w: &mut impl Write, level: usize) -> io::Result<()> {
    for _ in 0..level {
        w.write_all(b"  ")?;
    }
    Ok(())
}

fn write_str(w: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(w, s).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Json, String> {
        parse_json(text, Path::new("t.json"))
    }

    fn to_text(value: &Json) -> String {
        let mut out = Vec::new();
        write_value(&mut out, value, 0).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn values_keep_their_kind_and_order() {
        let v =
            parse(r#"{"b": [1, -2, 2.5, 1e3, 18446744073709551615], "a": {"x": null, "y": true}}"#);
        let expected = Json::Object(vec![
            (
                "b".into(),
                Json::Array(vec![
                    Json::Int(1),
                    Json::Int(-2),
                    Json::Float(2.5),
                    Json::Float(1000.0),
                    Json::Float(18446744073709551615.0),
                ]),
            ),
            (
                "a".into(),
                Json::Object(vec![
                    ("x".into(), Json::Null),
                    ("y".into(), Json::Bool(true)),
                ]),
            ),
        ]);
        assert_eq!(v, Ok(expected));
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            parse("{\n  \"a\": [1, 2,\n}"),
            Err("json: t.json:3:1: expected value".to_string())
        );
        assert_eq!(
            parse("[1e400]"),
            Err("json: t.json:1:6: the number is out of range (beyond f64)".to_string())
        );
        let deep = "[".repeat(200) + &"]".repeat(200);
        assert!(parse(&deep)
            .unwrap_err()
            .contains("nested more than 128 deep"));
        assert!(parse(&("[".repeat(127) + &"]".repeat(127))).is_ok());
        assert!(parse("[1] x").unwrap_err().contains("trailing characters"));
    }

    #[test]
    fn writes_indented_with_flat_arrays_inline() {
        let v = parse(r#"{"a": [1, 2.5, "x\"y"], "b": [[1], {}], "c": {}}"#).unwrap();
        let text = to_text(&v);
        assert_eq!(
            text,
            "{\n  \"a\": [1, 2.5, \"x\\\"y\"],\n  \"b\": [\n    [1],\n    {}\n  ],\n  \"c\": {}\n}"
        );
        assert_eq!(parse(&text), Ok(v));
    }
}

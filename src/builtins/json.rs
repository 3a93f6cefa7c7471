//! `load_json` and `save_json`: JSON values to tsr values and back. Objects are
//! dicts, arrays tuples, numbers ints or floats, strings, bools and `null` none;
//! a tensor is written as nested lists.

use crate::runtime::text_size::check_text_size;
use std::path::Path;
use std::rc::Rc;

use super::io::path_err;
use super::Builtin;
use crate::io::json::{self, Json, MAX_DEPTH};
use crate::runtime::builtin;
use crate::runtime::value::{Dict, Key, Value};
use crate::tensor::format::scalar_str;
use crate::tensor::{budget, DType, Tensor};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "load_json",
        doc: "Reads a JSON file: objects become dicts (in file order), arrays tuples, integers ints, other numbers floats, null none.",
        fn(_, a; path: String) {
            json::load_json(Path::new(&path)).map(to_value).map_err(|e| a.err(e))
        }
    },
    builtin! {
        name: "save_json",
        doc: "Writes dicts (string keys), tuples, numbers, strings, bools and none as JSON (indented), tensors as nested lists; nan and inf are errors. Atomically.",
        fn(ctx, a; path: String, value: &Value) {
            // A tuple that holds one tuple many times over is small but writes exponentially.
            check_text_size(value, ctx.print_options(), "save_json").map_err(|e| a.tensor_err(e))?;
            let tree = to_json(value, &mut String::from("value"), 0).map_err(|e| a.arg_err("value", e))?;
            json::save_json(Path::new(&path), &tree).map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
];

fn to_value(j: Json) -> Value {
    match j {
        Json::Null => Value::None,
        Json::Bool(b) => Value::Bool(b),
        Json::Int(i) => Value::Int(i),
        Json::Float(f) => Value::Float(f),
        Json::Str(s) => Value::str(&s),
        Json::Array(items) => Value::Tuple(Rc::new(items.into_iter().map(to_value).collect())),
        Json::Object(members) => {
            // A repeated key keeps its first place and its last value, as in Python.
            let mut d = Dict::default();
            for (k, v) in members {
                d.insert(Key::Str(Rc::from(k.as_str())), to_value(v));
            }
            Value::Dict(Rc::new(d))
        }
    }
}

/// `v` as JSON; `at` is where it is inside the saved value (`value["a"][2]`), for
/// errors, and `depth` how deeply it is nested there.
fn to_json(v: &Value, at: &mut String, depth: usize) -> Result<Json, String> {
    if depth > MAX_DEPTH {
        return Err(format!(
            "{at} is nested more than {MAX_DEPTH} deep, more than load_json reads"
        ));
    }
    let len = at.len();
    let result = match v {
        Value::None => Ok(Json::Null),
        Value::Bool(b) => Ok(Json::Bool(*b)),
        Value::Int(i) => Ok(Json::Int(*i)),
        Value::Float(f) => finite(*f, at),
        Value::Str(s) => Ok(Json::Str(s.to_string())),
        Value::Tuple(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                at.truncate(len);
                at.push_str(&format!("[{i}]"));
                to_json(item, at, depth + 1)
            })
            .collect::<Result<_, _>>()
            .map(Json::Array),
        Value::Dict(d) => d
            .iter()
            .map(|(k, item)| {
                let Key::Str(name) = k else {
                    let key = k.to_value().repr(&Default::default());
                    return Err(format!(
                        "{at} has the key {key}; JSON object keys are strings"
                    ));
                };
                at.truncate(len);
                at.push_str(&format!("[{name:?}]"));
                Ok((name.to_string(), to_json(item, at, depth + 1)?))
            })
            .collect::<Result<_, _>>()
            .map(Json::Object),
        Value::Tensor(t) => tensor_json(t, at, depth),
        other => Err(format!(
            "{at} is {}, which JSON cannot hold",
            other.describe()
        )),
    };
    at.truncate(len);
    result
}

/// A float, which JSON can hold only when it is finite.
fn finite(x: f64, at: &str) -> Result<Json, String> {
    if x.is_finite() {
        Ok(Json::Float(x))
    } else {
        Err(format!(
            "{at} is {}; JSON has no nan or inf (replace them first, e.g. with nan_to_num)",
            scalar_str(x)
        ))
    }
}

/// A tensor as nested arrays (a 0-d tensor as a number). f32, f16 and bf16
/// values are written with the shortest digits that read back as the same f32.
fn tensor_json(t: &Tensor, at: &str, depth: usize) -> Result<Json, String> {
    if depth + t.ndim() > MAX_DEPTH {
        return Err(format!(
            "{at} is nested more than {MAX_DEPTH} deep, more than load_json reads"
        ));
    }
    budget::check_bytes("save_json", t.shape(), std::mem::size_of::<Json>())
        .map_err(|e| e.to_string())?;
    let flat: Vec<Json> = match t.dtype() {
        DType::Bool => t.to_vec::<bool>().into_iter().map(Json::Bool).collect(),
        DType::F64 => (t.to_vec::<f64>().into_iter())
            .map(|x| finite(x, at))
            .collect::<Result<_, _>>()?,
        d if d.is_float() => (t.to_vec::<f32>().into_iter())
            .map(|x| finite(scalar_str(x).parse().unwrap_or(f64::from(x)), at))
            .collect::<Result<_, _>>()?,
        _ => t.to_vec::<i64>().into_iter().map(Json::Int).collect(),
    };
    Ok(nest(&mut flat.into_iter(), t.shape()))
}

/// The next values of `flat` as nested arrays of `shape`.
fn nest(flat: &mut impl Iterator<Item = Json>, shape: &[usize]) -> Json {
    match shape.split_first() {
        None => flat.next().unwrap_or(Json::Null),
        Some((&n, rest)) => Json::Array((0..n).map(|_| nest(flat, rest)).collect()),
    }
}

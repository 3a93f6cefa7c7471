//! Conversions as Python writes them: `int(x)`, `float(x)`, `bool(x)` of a number,
//! a string or a one-element tensor; `x.item()` and `x.tolist()`. (`str(x)` is in
//! `core`; `x.astype(dt)` beside `x.to(dt)` in `shape`.)

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::runtime::builtin;
use crate::runtime::value::Value;
use crate::tensor::shape::{numel, shape_str};
use crate::tensor::{Category, DType, Tensor};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "int",
        doc: "x as an int: a float truncates toward zero, a string is read as Python's int() reads it (`int(\" 7 \")`, `int(\"1_000\")`), a one-element tensor gives its element.",
        fn(_, a; x: &Value) {
            match number(&a, "int", x)? {
                Value::Str(s) => parse_int(&s).map(Value::Int),
                Value::Float(f) => float_to_int(f),
                n => Ok(Value::Int(n.as_scalar().map_or(0, |s| s.to_i64()))),
            }
            .map_err(|m| a.arg_err("x", format!("int: {m}")))
        }
    },
    builtin! {
        name: "float",
        doc: "x as a float (f64): a string is read as Python's float() reads it (`float(\"2.5e3\")`, `float(\"inf\")`), a one-element tensor gives its element exactly.",
        fn(_, a; x: &Value) {
            match number(&a, "float", x)? {
                Value::Str(s) => parse_float(&s).map(Value::Float),
                n => Ok(Value::Float(n.as_scalar().map_or(0.0, |s| s.to_f64()))),
            }
            .map_err(|m| a.arg_err("x", format!("float: {m}")))
        }
    },
    builtin! {
        name: "bool",
        doc: "The truth value of x, as `if x` takes it: false for 0, 0.0, \"\", none and empty tuples and dicts; a tensor must have one element. Also the dtype `bool`.",
        fn(_, a; x: Option<&Value> = none) {
            let x = x.unwrap_or(&Value::None);
            if let Value::Tensor(t) = x {
                one_element(&a, "bool", t)?;
            }
            x.truthy().map(Value::Bool).map_err(|m| a.arg_err("x", m))
        }
    },
    builtin! {
        name: "item",
        doc: "The element of a one-element tensor as a number (`x.item()`): a float (f64, exact) for float dtypes, an int for integer dtypes, a bool for bool.",
        fn(_, a; x: &Value) {
            match x {
                Value::Tensor(t) => one_element(&a, "item", t),
                Value::Int(_) | Value::Float(_) | Value::Bool(_) => Ok(x.clone()),
                other => Err(a.arg_err("x", format!("item: {} has no item", other.describe()))),
            }
        }
    },
    builtin! {
        name: "tolist",
        doc: "A tensor's elements as nested tuples of numbers (`x.tolist()`), one level per axis; a 0-d tensor gives its number.",
        fn(_, a; x: &Value) {
            match x {
                Value::Tensor(t) => Ok(nested(&elements(t), t.shape())),
                Value::Int(_) | Value::Float(_) | Value::Bool(_) => Ok(x.clone()),
                other => Err(a.arg_err("x", format!("tolist: {} is not a tensor", other.describe()))),
            }
        }
    },
];

/// x as a scalar or a string, for `int` and `float`: a one-element tensor gives its
/// element; other values are an error.
fn number(a: &Bound, name: &str, x: &Value) -> Result<Value, Diagnostic> {
    match x {
        Value::Tensor(t) => one_element(a, name, t),
        Value::Int(_) | Value::Float(_) | Value::Bool(_) | Value::Str(_) => Ok(x.clone()),
        other => Err(a.arg_err(
            "x",
            format!(
                "{name}: cannot convert {} (it takes a number, a string or a one-element tensor)",
                other.describe()
            ),
        )),
    }
}

/// The element of a one-element tensor; more or fewer is an error naming the shape.
fn one_element(a: &Bound, name: &str, t: &Tensor) -> Result<Value, Diagnostic> {
    Value::from_item(t).ok_or_else(|| {
        a.arg_err(
            "x",
            format!(
                "{name}: the tensor has shape {} ({} elements); only a one-element tensor converts to a number",
                shape_str(t.shape()),
                t.numel()
            ),
        )
    })
}

/// Python's `int(f)`: toward zero; nan, infinities and values beyond an int are errors.
fn float_to_int(f: f64) -> Result<Value, String> {
    // 2^63 is exact in f64; every float in [-2^63, 2^63) converts exactly after trunc.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() {
        Err("cannot convert nan to an int".into())
    } else if f.trunc() >= LIMIT || f.trunc() < -LIMIT {
        Err(format!("{f} does not fit in an int (64-bit)"))
    } else {
        Ok(Value::Int(f.trunc() as i64))
    }
}

/// A string's number text: surrounding whitespace removed, and Python's digit
/// separators (`1_000`: one `_` between two digits) dropped.
fn number_text(s: &str) -> Option<String> {
    let t = s.trim();
    let b = t.as_bytes();
    let separator_ok = |i: usize| {
        i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit)
    };
    (0..b.len())
        .filter(|&i| b[i] == b'_')
        .all(separator_ok)
        .then(|| t.replace('_', ""))
}

/// The string as `int()` quotes it in an error: at most 40 characters.
fn quoted(s: &str) -> String {
    let mut q: String = s.chars().take(40).collect();
    if q.len() < s.len() {
        q.push('…');
    }
    format!("{q:?}")
}

fn parse_int(s: &str) -> Result<i64, String> {
    let bad = || format!("cannot read {} as an int", quoted(s));
    let text = number_text(s).ok_or_else(bad)?;
    let digits = text.strip_prefix(['+', '-']).unwrap_or(&text);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    text.parse::<i64>()
        .map_err(|_| format!("{} does not fit in an int (64-bit)", quoted(s)))
}

fn parse_float(s: &str) -> Result<f64, String> {
    let bad = || format!("cannot read {} as a float", quoted(s));
    let text = number_text(s).ok_or_else(bad)?;
    text.parse::<f64>().map_err(|_| bad())
}

/// A tensor's elements as scalars, in order.
fn elements(t: &Tensor) -> Vec<Value> {
    match t.dtype().category() {
        Category::Float => t.to_vec::<f64>().into_iter().map(Value::Float).collect(),
        Category::Int if t.dtype() == DType::U64 => {
            t.to_vec::<u64>().into_iter().map(Value::from_u64).collect()
        }
        Category::Int => t.to_vec::<i64>().into_iter().map(Value::Int).collect(),
        Category::Bool => t.to_vec::<bool>().into_iter().map(Value::Bool).collect(),
    }
}

/// `flat` as nested tuples of `shape`.
fn nested(flat: &[Value], shape: &[usize]) -> Value {
    let Some((&n, rest)) = shape.split_first() else {
        return flat.first().cloned().unwrap_or_default();
    };
    let step = numel(rest);
    let rows = (0..n)
        .map(|i| nested(flat.get(i * step..(i + 1) * step).unwrap_or_default(), rest))
        .collect();
    Value::Tuple(Rc::new(rows))
}

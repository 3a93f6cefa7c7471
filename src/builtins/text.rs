//! Numbers as text: `loadtxt`/`savetxt` (NumPy's) and `load_csv`/`save_csv`.

use std::path::Path;
use std::rc::Rc;

use super::io::path_err;
use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::io::csv::{self, Cells};
use crate::io::loadtxt::{load_txt, TxtOptions};
use crate::io::savetxt::save_txt;
use crate::runtime::value::{Dict, Key, Value};
use crate::runtime::{builtin, Axes};
use crate::tensor::format::format_float_repr;
use crate::tensor::{DType, Tensor};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "loadtxt",
        doc: "numpy.loadtxt: numbers separated by whitespace (or one delimiter character), one row a line; # starts a comment; one row or column gives 1-D.",
        fn(_, a;
            path: String,
            delimiter: Option<String> = none,
            skiprows: usize = 0,
            usecols: Option<Axes> = none,
            dtype: DType = f32,
        ) {
            let delimiter = match delimiter {
                Some(d) => Some(one_char(&a, &d)?),
                None => None,
            };
            let opts = TxtOptions {
                delimiter,
                skiprows,
                usecols: usecols.as_ref().map(|u| u.0.as_slice()),
                dtype,
            };
            load_txt(Path::new(&path), &opts).map(Value::from).map_err(|e| a.err(e))
        }
    },
    builtin! {
        name: "savetxt",
        doc: "numpy.savetxt: writes a 1-D (one value a line) or 2-D tensor as text with a printf format (%d %e %f %g, flags, width, precision), header lines as # comments; atomically.",
        fn(_, a; path: String, x: Tensor, delimiter: String = " ", header: String = "", fmt: String = "%.18e") {
            save_txt(Path::new(&path), &x, &delimiter, &header, &fmt)
                .map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "load_csv",
        doc: "Reads a CSV file with a header row into a dict column -> i64 tensor (all integers), f64 tensor (numbers; an empty field is nan) or tuple of strings.",
        fn(_, a; path: String, delimiter: String = ",") {
            let d = one_char(&a, &delimiter)?;
            let Some(d) = d.is_ascii().then_some(d as u8) else {
                return Err(a.arg_err("delimiter", "the CSV delimiter must be an ASCII character"));
            };
            let columns = csv::load_csv(Path::new(&path), d).map_err(|e| a.err(e))?;
            let mut dict = Dict::default();
            for (name, cells) in columns {
                dict.insert(Key::Str(Rc::from(name.as_str())), column_value(&a, cells)?);
            }
            Ok(Value::Dict(Rc::new(dict)))
        }
    },
    builtin! {
        name: "save_csv",
        doc: "Writes a dict column name -> 1-D tensor or tuple (all of one length) as a CSV file with a header row, atomically.",
        fn(_, a; path: String, columns: &Value) {
            let Value::Dict(d) = columns else {
                let msg = format!("expected a dict column name -> 1-D tensor or tuple, got {}", columns.describe());
                return Err(a.arg_err("columns", msg));
            };
            let mut out: Vec<(String, Cells)> = Vec::new();
            for (key, v) in d.iter() {
                let Key::Str(name) = key else {
                    let msg = format!("column names must be strings, got {}", key.to_value().repr(&Default::default()));
                    return Err(a.arg_err("columns", msg));
                };
                let cells = cells(v).map_err(|e| a.arg_err("columns", format!("column \"{name}\": {e}")))?;
                if let Some((first, c)) = out.first() {
                    if c.len() != cells.len() {
                        let msg = format!(
                            "columns differ in length: \"{first}\" has {}, \"{name}\" has {}",
                            c.len(),
                            cells.len()
                        );
                        return Err(a.arg_err("columns", msg));
                    }
                }
                out.push((name.to_string(), cells));
            }
            if out.is_empty() {
                return Err(a.arg_err("columns", "save_csv needs at least one column"));
            }
            csv::save_csv(Path::new(&path), &out).map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
];

/// The one character a delimiter must be.
fn one_char(a: &Bound, d: &str) -> Result<char, Diagnostic> {
    let mut chars = d.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(a.arg_err(
            "delimiter",
            format!("the delimiter must be one character, got \"{d}\""),
        )),
    }
}

/// A CSV column as a value: a 1-D tensor, or a tuple of strings for text.
fn column_value(a: &Bound, cells: Cells) -> Result<Value, Diagnostic> {
    let n = cells.len();
    let t = match cells {
        Cells::Ints(v) => Tensor::from_vec(v, &[n]),
        Cells::Floats(v) => Tensor::from_vec(v, &[n]),
        Cells::Floats32(v) => Tensor::from_vec(v, &[n]),
        Cells::Bools(v) => Tensor::from_vec(v, &[n]),
        Cells::Text(v) => {
            return Ok(Value::Tuple(Rc::new(
                v.iter().map(|s| Value::str(s)).collect(),
            )))
        }
    };
    t.map(Value::from).map_err(|e| a.tensor_err(e))
}

/// A column to write: a 1-D tensor, or a tuple of strings, numbers, bools and nones.
fn cells(v: &Value) -> Result<Cells, String> {
    match v {
        Value::Tensor(t) if t.ndim() == 1 => Ok(match t.dtype() {
            DType::F64 => Cells::Floats(t.to_vec()),
            d if d.is_float() => Cells::Floats32(t.to_vec()),
            DType::Bool => Cells::Bools(t.to_vec()),
            _ => Cells::Ints(t.to_vec()),
        }),
        Value::Tuple(items) => items
            .iter()
            .map(|item| match item {
                Value::Str(s) => Ok(s.to_string()),
                Value::Int(i) => Ok(i.to_string()),
                Value::Float(f) => Ok(format_float_repr(*f)),
                Value::Bool(b) => Ok(b.to_string()),
                Value::None => Ok(String::new()),
                other => Err(format!(
                    "a tuple column holds strings, numbers, bools or none, not {}",
                    other.describe()
                )),
            })
            .collect::<Result<_, _>>()
            .map(Cells::Text),
        other => Err(format!(
            "expected a 1-D tensor or a tuple, got {}",
            other.describe()
        )),
    }
}

//! `info(x)`: tables of what a tensor, a quantized tensor, a dict of tensors or a
//! model from `load_gguf` holds. Mapped tensors are described from their file
//! header and never loaded. `tsr inspect` prints the same tables for a file.

use std::rc::Rc;

use super::gguf_meta::shortest_f64;
use super::grid::Grid;
use super::Builtin;
use crate::io::display_safe;
use crate::runtime::value::{Dict, Key, Value};
use crate::runtime::{builtin, Display};
use crate::tensor::format::PrintOptions;
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, SliceSpec, Tensor};

pub const BUILTINS: &[Builtin] = &[builtin! {
    name: "info",
    doc: "Prints a table of a tensor (dtype, shape, strides, bytes, view or owner), a quantized tensor, a dict of tensors or a model (tensors: name, type, shape, bytes; metadata: key, value).",
    fn(ctx, a; x: &Value) {
        let grids = tables(x).map_err(|e| a.arg_err("x", e))?;
        let text = as_text(&grids);
        let html: String = grids.iter().map(Grid::html).collect();
        if !ctx.display(Display::Table { text: &text, html: &html }) {
            ctx.out()
                .write_all(text.as_bytes())
                .map_err(|e| a.err(format!("info: cannot write output: {e}")))?;
        }
        Ok(Value::None)
    }
}];

/// Items of a metadata array shown before the rest are counted.
const SHOWN_ITEMS: usize = 4;
/// Characters of a metadata string shown before the rest are counted.
const SHOWN_CHARS: usize = 60;

/// The tables `info(v)` prints, each ending in a newline; an error for values
/// that are none of the kinds it describes.
pub fn describe(v: &Value) -> Result<String, String> {
    tables(v).map(|grids| as_text(&grids))
}

/// The text of tables, a blank line between them.
fn as_text(grids: &[Grid]) -> String {
    let texts: Vec<String> = grids.iter().map(Grid::text).collect();
    texts.join("\n")
}

/// The tables describing `v` (a model has two: metadata, then tensors).
fn tables(v: &Value) -> Result<Vec<Grid>, String> {
    match v {
        Value::Dict(d) => match (field(d, "metadata"), field(d, "tensors"), d.entries.len()) {
            (Some(Value::Dict(meta)), Some(Value::Dict(tensors)), 2) => {
                Ok(vec![metadata_table(meta), tensors_table(tensors)?])
            }
            _ => Ok(vec![tensors_table(d)?]),
        },
        Value::Quant(_) | Value::Lazy(_) => {
            let (type_name, shape, bytes) = entry(v).unwrap_or_default();
            let mut grid = Grid::new(&["type", "shape", "bytes"]);
            grid.rows
                .push(vec![type_name, shape_str(&shape), bytes.to_string()]);
            Ok(vec![grid])
        }
        other => other
            .to_tensor()
            .map(|t| vec![tensor_table(&t)])
            .ok_or_else(|| {
                format!(
                    "info() describes a tensor, a quantized tensor, a dict of tensors or a model \
                     (load_gguf), not {}",
                    other.describe()
                )
            }),
    }
}

fn field<'d>(d: &'d Dict, name: &str) -> Option<&'d Value> {
    d.get(&Key::Str(Rc::from(name)))
}

fn tensor_table(t: &Tensor) -> Grid {
    array_table(t.dtype(), t.shape(), t.strides(), t.nbytes(), t.owns_data())
}

/// The table of one array: what `info` shows for a tensor.
pub fn array_table(
    dtype: DType,
    shape: &[usize],
    strides: &[isize],
    bytes: usize,
    owner: bool,
) -> Grid {
    let strides: Vec<String> = strides.iter().map(|s| s.to_string()).collect();
    let mut grid = Grid::new(&["dtype", "shape", "strides", "bytes", "data"]);
    grid.rows.push(vec![
        dtype.to_string(),
        shape_str(shape),
        format!("[{}]", strides.join(", ")),
        bytes.to_string(),
        if owner { "owner" } else { "view" }.to_string(),
    ]);
    grid
}

/// Type name, shape and bytes of a tensor, quantized tensor or mapped tensor.
fn entry(v: &Value) -> Option<(String, Vec<usize>, usize)> {
    match v {
        Value::Tensor(t) => Some((t.dtype().to_string(), t.shape().to_vec(), t.nbytes())),
        Value::Quant(q) => Some((q.q.qtype.name().to_string(), q.shape(), q.q.nbytes())),
        Value::Lazy(l) => Some((l.type_name.to_string(), l.shape.clone(), l.nbytes)),
        _ => None,
    }
}

fn tensors_table(d: &Dict) -> Result<Grid, String> {
    let opts = PrintOptions::default();
    let rows = d
        .entries
        .iter()
        .map(|(k, v)| {
            let (type_name, shape, bytes) = entry(v).ok_or_else(|| {
                format!(
                    "info() describes a dict of tensors, but entry {} is {}",
                    k.to_value().repr(&opts),
                    v.describe()
                )
            })?;
            Ok((k.to_value().display(&opts), type_name, shape, bytes))
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(listing_table(&rows))
}

/// One row per tensor (name, type, shape, bytes) and a total line. Names come
/// from files, so they are shown with their control characters escaped.
pub fn listing_table(rows: &[(String, String, Vec<usize>, usize)]) -> Grid {
    let mut grid = Grid::new(&["name", "type", "shape", "bytes"]);
    let mut total = 0usize;
    for (name, type_name, shape, bytes) in rows {
        total = total.saturating_add(*bytes);
        grid.rows.push(vec![
            display_safe(name).into_owned(),
            type_name.clone(),
            shape_str(shape),
            bytes.to_string(),
        ]);
    }
    grid.right = Some(3);
    let n = rows.len();
    let plural = if n == 1 { "" } else { "s" };
    grid.footer = Some(format!(
        "{n} tensor{plural}, {total} bytes{}",
        human_size(total)
    ));
    grid
}

/// ` (3.5 MiB)` for sizes of a KiB and more.
fn human_size(bytes: usize) -> String {
    if bytes < 1024 {
        return String::new();
    }
    format!(" ({})", crate::tensor::budget::human_bytes(bytes as u128))
}

fn metadata_table(meta: &Dict) -> Grid {
    let opts = PrintOptions::default();
    let mut grid = Grid::new(&["key", "value"]);
    for (k, v) in &meta.entries {
        let key = k.to_value().display(&opts);
        let value = short_value(v, &opts);
        grid.rows.push(vec![
            display_safe(&key).into_owned(),
            display_safe(&value).into_owned(),
        ]);
    }
    grid
}

/// A metadata value on one line: long strings cut, long arrays as their first items
/// and a count (`[1, 2, 3, 4, ... (32000 items)]`).
fn short_value(v: &Value, opts: &PrintOptions) -> String {
    match v {
        Value::Str(s) if s.chars().count() > SHOWN_CHARS => {
            let head: String = s.chars().take(SHOWN_CHARS).collect();
            format!("{head:?}... ({} chars)", s.chars().count())
        }
        Value::Tensor(t) if t.ndim() == 1 => {
            let head = t
                .slice(
                    0,
                    SliceSpec {
                        start: None,
                        stop: Some(SHOWN_ITEMS as i64),
                        step: 1,
                    },
                )
                .unwrap_or_else(|_| t.tensor().clone());
            list(&tensor_items(&head), t.numel(), opts)
        }
        Value::Tuple(items) => list(&items[..items.len().min(SHOWN_ITEMS)], items.len(), opts),
        other => other.repr(opts),
    }
}

/// `[a, b, c]`, or `[a, b, ... (n items)]` when `shown` are the first of `n`.
fn list(shown: &[Value], n: usize, opts: &PrintOptions) -> String {
    let mut parts: Vec<String> = shown.iter().map(|v| short_value(v, opts)).collect();
    if shown.len() < n {
        parts.push(format!("... ({n} items)"));
    }
    format!("[{}]", parts.join(", "))
}

/// The elements of a 1-D tensor as scalars (floats by their shortest digits).
fn tensor_items(t: &Tensor) -> Vec<Value> {
    match t.dtype() {
        DType::Bool => t.to_vec::<bool>().into_iter().map(Value::Bool).collect(),
        DType::F64 => t.to_vec::<f64>().into_iter().map(Value::Float).collect(),
        d if d.is_float() => t
            .to_vec::<f32>()
            .into_iter()
            .map(|x| Value::Float(shortest_f64(x)))
            .collect(),
        _ => t.to_vec::<i64>().into_iter().map(Value::Int).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_in_binary_units() {
        assert_eq!(human_size(0), "");
        assert_eq!(human_size(1023), "");
        assert_eq!(human_size(3 << 29), " (1.5 GiB)");
    }

    #[test]
    fn long_metadata_is_shortened() {
        let opts = PrintOptions::default();
        let words = Value::Tuple(Rc::new(
            (0..100).map(|i| Value::str(&format!("t{i}"))).collect(),
        ));
        assert_eq!(
            short_value(&words, &opts),
            r#"["t0", "t1", "t2", "t3", ... (100 items)]"#
        );
        let floats = Tensor::from_vec(vec![1e-5f32, 0.1, -2.0], &[3]).unwrap();
        assert_eq!(
            short_value(&Value::from(floats), &opts),
            "[1e-05, 0.1, -2.0]"
        );
        let ints = Tensor::from_vec((0..10i32).collect(), &[10]).unwrap();
        assert_eq!(
            short_value(&Value::from(ints), &opts),
            "[0, 1, 2, 3, ... (10 items)]"
        );
        let text = Value::str(&"ab\n".repeat(30));
        let short = short_value(&text, &opts);
        assert!(short.starts_with(r#""ab\nab\n"#), "{short}");
        assert!(short.ends_with(r#"ab\n"... (90 chars)"#), "{short}");
        assert_eq!(short_value(&Value::Int(7), &opts), "7");
    }
}

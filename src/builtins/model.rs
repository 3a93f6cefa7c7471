//! Model files: `load_gguf` gives a dict with `metadata` and `tensors`; quantized
//! tensors stay in the memory map, dense ones are read the first time they are used.
//! `save_gguf` writes such a dict (or any tensors and metadata) back out.

use std::path::Path;
use std::rc::Rc;

use super::gguf_meta;
use super::io::path_err;
use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::io::gguf::{open_gguf, save_gguf_reporting, GgufFile, GgufTensor, GgufValue};
use crate::progress::Progress;
use crate::runtime::builtin;
use crate::runtime::value::{Dict, Key, Lazy, QuantValue, Value};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "load_gguf",
        doc: "Opens a GGUF model file (memory-mapped): a dict with metadata (dict) and tensors (dict name -> tensor or quantized tensor, read on use).",
        fn(_, a; path: String) {
            let file = open_gguf(Path::new(&path)).map_err(|e| path_err(&a, e, &path))?;
            Ok(model_value(file))
        }
    },
    builtin! {
        name: "save_gguf",
        doc: "Writes a GGUF v3 file atomically: tensors (dict name -> tensor or quantized tensor) and metadata (dict key -> number, string, bool, 1-D tensor or tuple).",
        fn(_, a; path: String, tensors: &Value, metadata: &Value = {}) {
            save_gguf(&a, &path, tensors, metadata)
        }
    },
];

fn key(s: &str) -> Key {
    Key::Str(Rc::from(s))
}

fn tensor_value(file: &GgufFile, name: &str) -> Result<Value, String> {
    Ok(match file.tensor(name)? {
        GgufTensor::Dense(t) => Value::from(t),
        GgufTensor::Quantized(q) => Value::Quant(QuantValue {
            q: Rc::new(q),
            transposed: false,
        }),
    })
}

/// The dict `load_gguf` gives for an open file: `metadata` and lazy `tensors`.
pub fn model_value(file: GgufFile) -> Value {
    let file = Rc::new(file);
    let mut metadata = Dict::default();
    for (k, v) in file.metadata() {
        metadata.insert(key(k), gguf_meta::to_value(v));
    }
    let mut tensors = Dict::default();
    for info in file.tensors() {
        let (file, name) = (file.clone(), info.name.clone());
        let lazy = Lazy::new(
            info.qtype.name(),
            info.shape.clone(),
            info.nbytes,
            Box::new(move || tensor_value(&file, &name)),
        );
        tensors.insert(key(&info.name), Value::Lazy(Rc::new(lazy)));
    }
    let mut model = Dict::default();
    model.insert(key("metadata"), Value::Dict(Rc::new(metadata)));
    model.insert(key("tensors"), Value::Dict(Rc::new(tensors)));
    Value::Dict(Rc::new(model))
}

/// The entries of dict argument `param` (`what` describes it), with their string keys.
fn string_keyed<'a>(
    a: &Bound,
    param: &str,
    value: &'a Value,
    what: &str,
) -> Result<Vec<(String, &'a Value)>, Diagnostic> {
    let d = match value {
        Value::Dict(d) => d,
        other => {
            return Err(a.arg_err(
                param,
                format!("expected a dict {what}, got {}", other.describe()),
            ))
        }
    };
    d.entries
        .iter()
        .map(|(k, v)| match k {
            Key::Str(s) => Ok((s.to_string(), v)),
            other => Err(a.arg_err(
                param,
                format!(
                    "the keys of {what} must be strings, got the {} key {}",
                    other.to_value().kind(),
                    other.to_value().repr(&Default::default())
                ),
            )),
        })
        .collect()
}

/// A tensor to write: dense, quantized, or mapped (loaded now).
fn gguf_tensor(name: &str, v: &Value) -> Result<GgufTensor, String> {
    match v {
        Value::Tensor(t) => Ok(GgufTensor::Dense(t.tensor().clone())),
        Value::Quant(q) if q.transposed => Err(format!(
            "entry \"{name}\" is a transposed view (q.T) of a quantized tensor; save the \
             [N, K] tensor itself"
        )),
        Value::Quant(q) => Ok(GgufTensor::Quantized((*q.q).clone())),
        Value::Lazy(l) => gguf_tensor(name, &l.force()?),
        other => Err(format!(
            "entry \"{name}\" is {}, not a tensor or quantized tensor",
            other.describe()
        )),
    }
}

fn save_gguf(
    a: &Bound,
    path: &str,
    tensors: &Value,
    metadata: &Value,
) -> Result<Value, Diagnostic> {
    let tensors = string_keyed(a, "tensors", tensors, "name -> tensor")?
        .into_iter()
        .map(|(name, v)| {
            let t = gguf_tensor(&name, v).map_err(|e| a.arg_err("tensors", e))?;
            Ok((name, t))
        })
        .collect::<Result<Vec<_>, Diagnostic>>()?;
    let metadata: Vec<(String, GgufValue)> = string_keyed(a, "metadata", metadata, "key -> value")?
        .into_iter()
        .map(|(k, v)| {
            let g = gguf_meta::from_value(v)
                .map_err(|e| a.arg_err("metadata", format!("metadata \"{k}\": {e}")))?;
            Ok((k, g))
        })
        .collect::<Result<_, Diagnostic>>()?;
    let progress = Progress::new("save_gguf");
    save_gguf_reporting(Path::new(path), &tensors, &metadata, &|done, total| {
        progress.update(done, total)
    })
    .map_err(|e| path_err(a, e, path))?;
    Ok(Value::None)
}

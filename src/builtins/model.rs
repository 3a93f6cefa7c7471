//! Model files: `load_gguf` gives a dict with `metadata` and `tensors`; quantized
//! tensors stay in the memory map, dense ones are read the first time they are used.
//! `save_gguf` writes such a dict (or any tensors and metadata) back out.

use std::path::Path;
use std::rc::Rc;

use super::gguf_meta;
use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::io::gguf::{open_gguf, save_gguf_reporting, GgufFile, GgufTensor, GgufValue};
use crate::progress::Progress;
use crate::runtime::value::{Dict, Key, Lazy, QuantValue, Value};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "load_gguf",
        params: &["path"],
        doc: "Opens a GGUF model file (memory-mapped): a dict with metadata (dict) and tensors (dict name -> tensor or quantized tensor, read on use).",
        func: load_gguf,
    },
    Builtin {
        name: "save_gguf",
        params: &["path", "tensors", "metadata={}"],
        doc: "Writes a GGUF v3 file atomically: tensors (dict name -> tensor or quantized tensor) and metadata (dict key -> number, string, bool, 1-D tensor or tuple).",
        func: save_gguf,
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

fn load_gguf(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let file = open_gguf(Path::new(&path)).map_err(|e| a.arg_err(0, format!("{e} ({path})")))?;
    Ok(model_value(file))
}

/// The entries of dict argument `i` (`what` describes it), with their string keys.
fn string_keyed<'a>(
    a: &'a Bound,
    i: usize,
    what: &str,
) -> Result<Vec<(String, &'a Value)>, Diagnostic> {
    let d = match &a.req(i)?.value {
        Value::Dict(d) => d,
        other => {
            return Err(a.arg_err(
                i,
                format!("expected a dict {what}, got {}", other.describe()),
            ))
        }
    };
    d.entries
        .iter()
        .map(|(k, v)| match k {
            Key::Str(s) => Ok((s.to_string(), v)),
            other => Err(a.arg_err(
                i,
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
        Value::Tensor(t) => Ok(GgufTensor::Dense((**t).clone())),
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

fn save_gguf(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let tensors = string_keyed(&a, 1, "name -> tensor")?
        .into_iter()
        .map(|(name, v)| {
            let t = gguf_tensor(&name, v).map_err(|e| a.arg_err(1, e))?;
            Ok((name, t))
        })
        .collect::<Result<Vec<_>, Diagnostic>>()?;
    let metadata: Vec<(String, GgufValue)> = match a.get(2) {
        Some(_) => string_keyed(&a, 2, "key -> value")?
            .into_iter()
            .map(|(k, v)| {
                let g = gguf_meta::from_value(v)
                    .map_err(|e| a.arg_err(2, format!("metadata \"{k}\": {e}")))?;
                Ok((k, g))
            })
            .collect::<Result<_, Diagnostic>>()?,
        None => Vec::new(),
    };
    let progress = Progress::new("save_gguf");
    save_gguf_reporting(Path::new(&path), &tensors, &metadata, &|done, total| {
        progress.update(done, total)
    })
    .map_err(|e| a.arg_err(0, format!("{e} ({path})")))?;
    Ok(Value::None)
}

//! Model files: `load_gguf` gives a dict with `metadata` and `tensors`; quantized
//! tensors stay in the memory map, dense ones are read the first time they are used.

use std::path::Path;
use std::rc::Rc;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::interp::value::{Dict, Key, Lazy, QuantValue, Value};
use crate::io::gguf::{open_gguf, GgufArray, GgufFile, GgufTensor, GgufValue};
use crate::tensor::shape::shape_str;
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[Builtin {
    name: "load_gguf",
    params: &["path"],
    doc: "Opens a GGUF model file (memory-mapped): a dict with metadata (dict) and tensors (dict name -> tensor or quantized tensor, read on use).",
    func: load_gguf,
}];

fn key(s: &str) -> Key {
    Key::Str(Rc::from(s))
}

fn int_value(v: i128) -> Value {
    i64::try_from(v).map_or(Value::Float(v as f64), Value::Int)
}

/// Metadata as language values: numbers, strings, bools; arrays of numbers become
/// 1-D tensors, arrays of strings or arrays become tuples.
fn metadata_value(v: &GgufValue) -> Value {
    match v {
        GgufValue::U8(x) => Value::Int(*x as i64),
        GgufValue::I8(x) => Value::Int(*x as i64),
        GgufValue::U16(x) => Value::Int(*x as i64),
        GgufValue::I16(x) => Value::Int(*x as i64),
        GgufValue::U32(x) => Value::Int(*x as i64),
        GgufValue::I32(x) => Value::Int(*x as i64),
        GgufValue::U64(x) => int_value(*x as i128),
        GgufValue::I64(x) => Value::Int(*x),
        GgufValue::F32(x) => Value::Float(*x as f64),
        GgufValue::F64(x) => Value::Float(*x),
        GgufValue::Bool(b) => Value::Bool(*b),
        GgufValue::String(s) => Value::str(s),
        GgufValue::Array(a) => array_value(a),
    }
}

fn array_value(a: &GgufArray) -> Value {
    let n = a.len();
    let tensor = |t: Result<Tensor, crate::tensor::TensorError>| match t {
        Ok(t) => Value::Tensor(t),
        Err(_) => Value::None,
    };
    match a {
        GgufArray::U8(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::I8(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::U16(v) => tensor(Tensor::from_vec(
            v.iter().map(|&x| x as i32).collect(),
            &[n],
        )),
        GgufArray::I16(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::U32(v) => tensor(Tensor::from_vec(
            v.iter().map(|&x| x as i64).collect(),
            &[n],
        )),
        GgufArray::I32(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        // u64 fits i64 unless a value is above i64::MAX; then the array is given as f64.
        GgufArray::U64(v) => match v
            .iter()
            .map(|&x| i64::try_from(x))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(ints) => tensor(Tensor::from_vec(ints, &[n])),
            Err(_) => tensor(Tensor::from_vec(
                v.iter().map(|&x| x as f64).collect(),
                &[n],
            )),
        },
        GgufArray::I64(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::F32(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::F64(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::Bool(v) => tensor(Tensor::from_vec(v.clone(), &[n])),
        GgufArray::String(v) => Value::Tuple(Rc::new(v.iter().map(|s| Value::str(s)).collect())),
        GgufArray::Array(v) => Value::Tuple(Rc::new(v.iter().map(array_value).collect())),
    }
}

fn tensor_value(file: &Rc<GgufFile>, name: &str) -> Result<Value, String> {
    Ok(match file.tensor(name)? {
        GgufTensor::Dense(t) => Value::Tensor(t),
        GgufTensor::Quantized(q) => Value::Quant(QuantValue {
            q: Rc::new(q),
            transposed: false,
        }),
    })
}

fn load_gguf(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let file =
        Rc::new(open_gguf(Path::new(&path)).map_err(|e| a.arg_err(0, format!("{e} ({path})")))?);
    let mut metadata = Dict::default();
    for (k, v) in file.metadata() {
        metadata.insert(key(k), metadata_value(v));
    }
    let mut tensors = Dict::default();
    for info in file.tensors() {
        let summary = format!("{}{}", info.qtype.name(), shape_str(&info.shape));
        let (file, name) = (file.clone(), info.name.clone());
        let lazy = Lazy::new(summary, Box::new(move || tensor_value(&file, &name)));
        tensors.insert(key(&info.name), Value::Lazy(Rc::new(lazy)));
    }
    let mut model = Dict::default();
    model.insert(key("metadata"), Value::Dict(Rc::new(metadata)));
    model.insert(key("tensors"), Value::Dict(Rc::new(tensors)));
    Ok(Value::Dict(Rc::new(model)))
}

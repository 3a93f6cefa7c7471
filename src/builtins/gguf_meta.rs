//! GGUF metadata as language values, and language values as GGUF metadata.
//!
//! Reading keeps every value: numbers, strings and bools as scalars, arrays of
//! numbers as 1-D tensors, arrays of strings or of arrays as tuples. Writing picks
//! the types llama.cpp's readers ask for (counts are u32, hyperparameters f32), so
//! a loaded model saved again is accepted where the original was:
//!
//! | value | GGUF type |
//! |---|---|
//! | int | u32 when in 0..=u32::MAX, else i32 when it fits, else i64 |
//! | float | f32 |
//! | bool, string | bool, string |
//! | 0-d tensor | a scalar of its dtype (i64 follows the int rule, f16/bf16 give f32) |
//! | 1-D tensor | an array of its dtype (i64 follows the int rule for the whole array, f16/bf16 give f32) |
//! | tuple of strings, of bools | array of string, of bool (an empty tuple: of string) |
//! | tuple of numbers | as a 1-D tensor of them: ints by the int rule, any float makes it f32 |
//! | tuple of tuples or 1-D tensors | array of arrays |

use std::rc::Rc;

use crate::io::gguf::{GgufArray, GgufValue};
use crate::runtime::value::Value;
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Tensor};

/// A metadata value as a language value.
pub fn to_value(v: &GgufValue) -> Value {
    match v {
        GgufValue::U8(x) => Value::Int(*x as i64),
        GgufValue::I8(x) => Value::Int(*x as i64),
        GgufValue::U16(x) => Value::Int(*x as i64),
        GgufValue::I16(x) => Value::Int(*x as i64),
        GgufValue::U32(x) => Value::Int(*x as i64),
        GgufValue::I32(x) => Value::Int(*x as i64),
        GgufValue::U64(x) => i64::try_from(*x).map_or(Value::Float(*x as f64), Value::Int),
        GgufValue::I64(x) => Value::Int(*x),
        GgufValue::F32(x) => Value::Float(shortest_f64(*x)),
        GgufValue::F64(x) => Value::Float(*x),
        GgufValue::Bool(b) => Value::Bool(*b),
        GgufValue::String(s) => Value::str(s),
        GgufValue::Array(a) => array_to_value(a),
    }
}

/// The f64 with `x`'s shortest decimal digits: 1e-05 rather than the exact
/// 9.999999747378752e-06 (it converts back to the same f32).
pub fn shortest_f64(x: f32) -> f64 {
    x.to_string().parse().unwrap_or(f64::from(x))
}

fn array_to_value(a: &GgufArray) -> Value {
    let n = a.len();
    let tensor = |t: Result<Tensor, crate::tensor::TensorError>| match t {
        Ok(t) => Value::from(t),
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
        GgufArray::Array(v) => Value::Tuple(Rc::new(v.iter().map(array_to_value).collect())),
    }
}

/// A language value as a metadata value (the table in the module doc). The error
/// says what cannot be stored and why.
pub fn from_value(v: &Value) -> Result<GgufValue, String> {
    match v {
        Value::Bool(b) => Ok(GgufValue::Bool(*b)),
        Value::Int(i) => Ok(int_value(*i)),
        Value::Float(f) => Ok(GgufValue::F32(*f as f32)),
        Value::Str(s) => Ok(GgufValue::String(s.to_string())),
        // One element, so the array has exactly one item.
        Value::Tensor(t) if t.ndim() == 0 => tensor_array(t)
            .get(0)
            .ok_or_else(|| "an empty 0-d tensor".to_string()),
        Value::Tensor(_) | Value::Tuple(_) => array(v).map(GgufValue::Array),
        other => Err(format!(
            "{} cannot be stored in GGUF metadata (numbers, strings, bools, 0-d and 1-D \
             tensors and tuples can)",
            other.describe()
        )),
    }
}

/// The int rule: u32 when it fits (llama.cpp reads counts as u32), else i32, else i64.
fn int_value(i: i64) -> GgufValue {
    if let Ok(u) = u32::try_from(i) {
        GgufValue::U32(u)
    } else if let Ok(s) = i32::try_from(i) {
        GgufValue::I32(s)
    } else {
        GgufValue::I64(i)
    }
}

/// The int rule over a whole array: the first of u32, i32, i64 that holds every item.
fn int_array(v: Vec<i64>) -> GgufArray {
    if let Ok(u) = v.iter().map(|&x| u32::try_from(x)).collect() {
        GgufArray::U32(u)
    } else if let Ok(s) = v.iter().map(|&x| i32::try_from(x)).collect() {
        GgufArray::I32(s)
    } else {
        GgufArray::I64(v)
    }
}

/// The elements of `t` (any shape) as an array of its dtype.
fn tensor_array(t: &Tensor) -> GgufArray {
    match t.dtype() {
        DType::Bool => GgufArray::Bool(t.to_vec()),
        DType::U8 => GgufArray::U8(t.to_vec()),
        DType::U16 => GgufArray::U16(t.to_vec()),
        DType::U32 => GgufArray::U32(t.to_vec()),
        DType::U64 => GgufArray::U64(t.to_vec()),
        DType::I8 => GgufArray::I8(t.to_vec()),
        DType::I16 => GgufArray::I16(t.to_vec()),
        DType::I32 => GgufArray::I32(t.to_vec()),
        DType::I64 => int_array(t.to_vec()),
        DType::F16 | DType::BF16 | DType::F32 => GgufArray::F32(t.to_vec()),
        DType::F64 => GgufArray::F64(t.to_vec()),
    }
}

fn array(v: &Value) -> Result<GgufArray, String> {
    match v {
        Value::Tensor(t) if t.ndim() == 1 => Ok(tensor_array(t)),
        Value::Tensor(t) => Err(format!(
            "a tensor of shape {} cannot be stored in GGUF metadata (0-d and 1-D tensors can)",
            shape_str(t.shape())
        )),
        Value::Tuple(items) => tuple_array(items),
        other => Err(format!(
            "{} cannot be an item of a nested GGUF array (tuples and 1-D tensors can)",
            other.describe()
        )),
    }
}

fn tuple_array(items: &[Value]) -> Result<GgufArray, String> {
    let all = |f: fn(&Value) -> bool| items.iter().all(f);
    if all(|v| matches!(v, Value::Str(_))) {
        return Ok(GgufArray::String(
            items
                .iter()
                .filter_map(|v| match v {
                    Value::Str(s) => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
        ));
    }
    if all(|v| matches!(v, Value::Bool(_))) {
        return Ok(GgufArray::Bool(
            items
                .iter()
                .map(|v| matches!(v, Value::Bool(true)))
                .collect(),
        ));
    }
    if all(|v| matches!(v, Value::Int(_))) {
        return Ok(int_array(items.iter().filter_map(Value::as_int).collect()));
    }
    if all(|v| matches!(v, Value::Int(_) | Value::Float(_))) {
        return Ok(GgufArray::F32(
            items
                .iter()
                .filter_map(|v| v.as_f64().map(|x| x as f32))
                .collect(),
        ));
    }
    if all(|v| matches!(v, Value::Tuple(_) | Value::Tensor(_))) {
        return items
            .iter()
            .map(array)
            .collect::<Result<_, _>>()
            .map(GgufArray::Array);
    }
    let kinds: Vec<&str> = items.iter().map(Value::kind).collect();
    Err(format!(
        "a tuple of {} cannot be stored in GGUF metadata: an array holds items of one kind \
         (strings, bools, numbers, or tuples and 1-D tensors)",
        kinds.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(items: Vec<Value>) -> Value {
        Value::Tuple(Rc::new(items.into()))
    }

    #[test]
    fn ints_take_the_types_llama_cpp_reads() {
        assert_eq!(from_value(&Value::Int(0)), Ok(GgufValue::U32(0)));
        assert_eq!(
            from_value(&Value::Int(u32::MAX as i64)),
            Ok(GgufValue::U32(u32::MAX))
        );
        assert_eq!(from_value(&Value::Int(-1)), Ok(GgufValue::I32(-1)));
        assert_eq!(
            from_value(&Value::Int(1 << 32)),
            Ok(GgufValue::I64(1 << 32))
        );
        assert_eq!(
            from_value(&Value::Int(i32::MIN as i64 - 1)),
            Ok(GgufValue::I64(i32::MIN as i64 - 1))
        );
        assert_eq!(from_value(&Value::Float(0.1)), Ok(GgufValue::F32(0.1)));
    }

    #[test]
    fn tensors_keep_their_dtype_and_i64_narrows() {
        let t = |v: Vec<i64>| Value::from(Tensor::from_vec(v.clone(), &[v.len()]).unwrap());
        assert_eq!(
            from_value(&t(vec![1, 2])),
            Ok(GgufValue::Array(GgufArray::U32(vec![1, 2])))
        );
        assert_eq!(
            from_value(&t(vec![-1, 2])),
            Ok(GgufValue::Array(GgufArray::I32(vec![-1, 2])))
        );
        assert_eq!(
            from_value(&t(vec![-1, 1 << 40])),
            Ok(GgufValue::Array(GgufArray::I64(vec![-1, 1 << 40])))
        );
        let f64s = Value::from(Tensor::from_vec(vec![0.1f64], &[1]).unwrap());
        assert_eq!(
            from_value(&f64s),
            Ok(GgufValue::Array(GgufArray::F64(vec![0.1])))
        );
        let scalar = Value::from(Tensor::scalar(7u8));
        assert_eq!(from_value(&scalar), Ok(GgufValue::U8(7)));
        let matrix = Value::from(Tensor::zeros(DType::F32, &[2, 2]).unwrap());
        assert!(from_value(&matrix).unwrap_err().contains("shape [2, 2]"));
    }

    #[test]
    fn tuples_become_arrays() {
        let s = |x: &str| Value::str(x);
        assert_eq!(
            from_value(&tuple(vec![s("a"), s("b")])),
            Ok(GgufValue::Array(GgufArray::String(vec![
                "a".into(),
                "b".into()
            ])))
        );
        assert_eq!(
            from_value(&tuple(vec![])),
            Ok(GgufValue::Array(GgufArray::String(vec![])))
        );
        assert_eq!(
            from_value(&tuple(vec![Value::Int(1), Value::Float(0.5)])),
            Ok(GgufValue::Array(GgufArray::F32(vec![1.0, 0.5])))
        );
        assert_eq!(
            from_value(&tuple(vec![Value::Bool(true), Value::Bool(false)])),
            Ok(GgufValue::Array(GgufArray::Bool(vec![true, false])))
        );
        let nested = tuple(vec![tuple(vec![s("x")]), tuple(vec![Value::Int(-3)])]);
        assert_eq!(
            from_value(&nested),
            Ok(GgufValue::Array(GgufArray::Array(vec![
                GgufArray::String(vec!["x".into()]),
                GgufArray::I32(vec![-3]),
            ])))
        );
        let mixed = from_value(&tuple(vec![s("a"), Value::Int(1)])).unwrap_err();
        assert!(mixed.contains("a tuple of string, int"), "{mixed}");
        let inner = from_value(&tuple(vec![tuple(vec![Value::None])])).unwrap_err();
        assert!(inner.contains("none"), "{inner}");
        assert!(from_value(&Value::None)
            .unwrap_err()
            .contains("none cannot"));
    }

    #[test]
    fn f32_values_read_as_their_shortest_digits() {
        assert_eq!(to_value(&GgufValue::F32(1e-5)).as_f64(), Some(1e-5));
        assert_eq!(shortest_f64(0.1), 0.1);
        assert!(shortest_f64(f32::NAN).is_nan());
        assert_eq!(shortest_f64(f32::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(shortest_f64(f32::MAX) as f32, f32::MAX);
    }

    #[test]
    fn loaded_values_save_as_their_own_types() {
        for v in [
            GgufValue::U32(7),
            GgufValue::I32(-7),
            GgufValue::F32(1.5),
            GgufValue::Bool(true),
            GgufValue::String("s".into()),
            GgufValue::Array(GgufArray::U8(vec![1, 255])),
            GgufValue::Array(GgufArray::I8(vec![-1])),
            GgufValue::Array(GgufArray::I16(vec![-1])),
            GgufValue::Array(GgufArray::U32(vec![7, u32::MAX])),
            GgufValue::Array(GgufArray::I32(vec![-1, 0])),
            GgufValue::Array(GgufArray::F32(vec![0.5])),
            GgufValue::Array(GgufArray::F64(vec![0.1])),
            GgufValue::Array(GgufArray::Bool(vec![false])),
            GgufValue::Array(GgufArray::String(vec!["a".into()])),
            GgufValue::Array(GgufArray::Array(vec![GgufArray::I32(vec![-2])])),
        ] {
            assert_eq!(from_value(&to_value(&v)), Ok(v.clone()), "{v}");
        }
    }
}

//! Operators on tuples and strings: `+` and `* n` (held to the memory limit
//! first), `in` / `not in` for every container, and `<`-style comparisons by
//! Python's ordering.

use std::collections::HashSet;
use std::rc::Rc;

use crate::ops::{self, BinaryOp, Operand, ReduceOp};
use crate::syntax::ast::BinOp;
use crate::tensor::{budget, TensorError};

use super::order;
use super::value::{deeper, range_len, Key, Value};

/// Why an operator on sequences failed: a message, or a tensor error (the memory
/// limit among them).
pub enum SeqError {
    Message(String),
    Tensor(TensorError),
}

impl From<TensorError> for SeqError {
    fn from(e: TensorError) -> SeqError {
        SeqError::Tensor(e)
    }
}

/// `a + b` on two tuples.
pub fn concat_tuples(a: &[Value], b: &[Value]) -> Result<Value, SeqError> {
    let n = a.len().saturating_add(b.len());
    budget::check_items("+", "a tuple", n, std::mem::size_of::<Value>())?;
    Ok(Value::Tuple(Rc::new(a.iter().chain(b).cloned().collect())))
}

/// `t * n` or `s * n`: the tuple or string repeated (empty for n <= 0).
pub fn repeat(v: &Value, n: i64) -> Result<Value, SeqError> {
    let times = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
    Ok(match v {
        Value::Tuple(items) => {
            let len = items.len().saturating_mul(times);
            budget::check_items("*", "a tuple", len, std::mem::size_of::<Value>())?;
            let mut out = Vec::with_capacity(len);
            for _ in 0..times {
                out.extend(items.iter().cloned());
            }
            Value::Tuple(Rc::new(out.into()))
        }
        Value::Str(s) => {
            budget::check_items("*", "a string", s.len().saturating_mul(times), 1)?;
            Value::str(&s.repeat(times))
        }
        other => {
            return Err(SeqError::Message(format!(
                "{} cannot be repeated",
                other.describe()
            )))
        }
    })
}

/// `item in container`.
pub fn contains(item: &Value, container: &Value) -> Result<bool, SeqError> {
    match container {
        Value::Tuple(items) => {
            for x in items.iter() {
                if equal(item, x)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Dict(d) => Ok(Key::from_value(item).is_some_and(|k| d.entries.contains_key(&k))),
        Value::Str(s) => match item {
            Value::Str(sub) => Ok(s.contains(&**sub)),
            other => Err(SeqError::Message(format!(
                "`in` a string needs a string on the left, not {}",
                other.describe()
            ))),
        },
        Value::Range(start, stop, step) => Ok(in_range(item, *start, *stop, *step)),
        Value::Tensor(t) => {
            let found = match item.as_operand() {
                Some(x) => ops::binary(BinaryOp::Eq, Operand::Tensor(t), x)?,
                None => {
                    return Err(SeqError::Message(format!(
                        "`in` a tensor needs a number or a tensor on the left, not {}",
                        item.describe()
                    )))
                }
            };
            let any = ops::reduce(ReduceOp::Any, &found, None, false)?;
            Ok(any.item_f64().is_some_and(|v| v != 0.0))
        }
        other => Err(SeqError::Message(format!(
            "`in` needs a tuple, dict, string, range or tensor on the right, not {}",
            other.describe()
        ))),
    }
}

/// Whether an int (or a float with an int's value) is one of the range's values.
fn in_range(item: &Value, start: i64, stop: i64, step: i64) -> bool {
    let i = match item {
        Value::Int(i) => *i,
        Value::Bool(b) => *b as i64,
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => *f as i64,
        _ => return false,
    };
    let offset = i as i128 - start as i128;
    let n = range_len(start, stop, step) as i128;
    offset % step as i128 == 0 && (0..n).contains(&(offset / step as i128))
}

/// `==` between items of a tuple: numbers by value, tensors by shape and elements
/// (NumPy's `array_equal`), the rest as `==` takes them. A tuple or dict is equal
/// to itself without a look inside (as Python's containers), and each pair of them
/// found equal is remembered: a tuple that holds one tuple twice, nested forty
/// deep, compares in forty steps, not 2^40.
pub fn equal(a: &Value, b: &Value) -> Result<bool, SeqError> {
    equal_pairs(a, b, &mut HashSet::new())
}

fn equal_pairs(a: &Value, b: &Value, seen: &mut HashSet<(usize, usize)>) -> Result<bool, SeqError> {
    if let (Some(x), Some(y)) = (a.as_scalar(), b.as_scalar()) {
        return Ok(x.to_f64() == y.to_f64() && order::compare_numbers(x, y).is_eq());
    }
    Ok(match (a, b) {
        (Value::Tensor(x), Value::Tensor(y)) => {
            x.shape() == y.shape() && {
                let eq = ops::binary(BinaryOp::Eq, Operand::Tensor(x), Operand::Tensor(y))?;
                let all = ops::reduce(ReduceOp::All, &eq, None, false)?;
                all.item_f64().is_some_and(|v| v != 0.0)
            }
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            let pair = (Rc::as_ptr(x) as usize, Rc::as_ptr(y) as usize);
            if pair.0 == pair.1 || seen.contains(&pair) {
                return Ok(true);
            }
            if x.len() != y.len() {
                return Ok(false);
            }
            for (p, q) in x.iter().zip(y.iter()) {
                if !deeper(|| equal_pairs(p, q, seen))? {
                    return Ok(false);
                }
            }
            seen.insert(pair);
            true
        }
        (Value::None, Value::None) => true,
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::DType(x), Value::DType(y)) => x == y,
        (Value::Dict(x), Value::Dict(y)) => {
            let pair = (Rc::as_ptr(x) as usize, Rc::as_ptr(y) as usize);
            if pair.0 == pair.1 || seen.contains(&pair) {
                return Ok(true);
            }
            if x.entries.len() != y.entries.len() {
                return Ok(false);
            }
            for (k, v) in x.iter() {
                match y.get(k) {
                    Some(w) if deeper(|| equal_pairs(v, w, seen))? => {}
                    _ => return Ok(false),
                }
            }
            seen.insert(pair);
            true
        }
        _ => false,
    })
}

/// `a < b` (and `<=`, `>`, `>=`) on strings or tuples, by Python's ordering.
pub fn ordered(op: BinOp, a: &Value, b: &Value) -> Result<bool, SeqError> {
    let o = order::compare(a, b).map_err(SeqError::Message)?;
    Ok(match op {
        BinOp::Lt => o.is_lt(),
        BinOp::Le => o.is_le(),
        BinOp::Gt => o.is_gt(),
        _ => o.is_ge(),
    })
}

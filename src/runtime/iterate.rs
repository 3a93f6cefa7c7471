//! The items of an iterable value, as `for` visits them: a tuple's items, a range's
//! ints, a tensor's rows (views), a string's characters, a dict's keys. For the
//! builtins that take a whole sequence (`sorted`, `zip`, `sum` of a tuple, ...).

use std::rc::Rc;

use crate::tensor::{budget, TensorError};

use super::value::{range_len, Value};

/// Why a value gives no items.
pub enum NotIterable {
    /// It is not a sequence at all (the message names what it is).
    Kind(String),
    /// Its items would not fit in the memory limit, or a row could not be taken.
    Tensor(TensorError),
}

/// Every item of `v`, in `for`'s order; held to the memory limit first.
pub fn items(v: &Value) -> Result<Vec<Value>, NotIterable> {
    let count = |n: u64| -> Result<usize, NotIterable> {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        budget::check_items("items", "a sequence", n, std::mem::size_of::<Value>())
            .map_err(NotIterable::Tensor)?;
        Ok(n)
    };
    Ok(match v {
        Value::Tuple(items) => items.to_vec(),
        Value::Range(start, stop, step) => {
            let n = count(range_len(*start, *stop, *step))?;
            // n values of the range fit in an i64, so no step overflows.
            (0..n as i64)
                .map(|i| Value::Int(start + i * step))
                .collect()
        }
        Value::Tensor(t) if t.ndim() > 0 => {
            count(t.shape()[0] as u64)?;
            (0..t.shape()[0] as i64)
                .map(|i| crate::autograd::rules::row(t, i).map(Value::from))
                .collect::<Result<_, _>>()
                .map_err(NotIterable::Tensor)?
        }
        Value::Str(s) => {
            count(s.len() as u64)?;
            s.chars()
                .map(|c| Value::Str(Rc::from(c.to_string())))
                .collect()
        }
        Value::Dict(d) => d.entries.keys().map(|k| k.to_value()).collect(),
        Value::Tensor(_) => return Err(NotIterable::Kind("a 0-d tensor".into())),
        other => return Err(NotIterable::Kind(other.describe())),
    })
}

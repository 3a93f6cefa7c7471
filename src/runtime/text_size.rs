//! How long a value's text is before it is written: a tuple can hold the same
//! tuple twice, so `t = (t, t)` forty times over is a value of a few kilobytes
//! whose text has 2^40 items. `print`, `str`, f-strings, the REPL's echo and
//! `save_json` check it first and report a value whose text would not fit the
//! memory limit, instead of writing until memory runs out.

use std::collections::HashMap;

use crate::tensor::format::PrintOptions;
use crate::tensor::{budget, TensorError};

use super::value::{deeper, Value};

/// `v.display(opts)` (what `print` writes), or an error when that text would be
/// larger than the memory limit allows.
pub fn display_checked(v: &Value, opts: &PrintOptions, op: &str) -> Result<String, TensorError> {
    check_text_size(v, opts, op)?;
    Ok(v.display(opts))
}

/// `v.repr(opts)` (the REPL's echo), or an error as [`display_checked`].
pub fn repr_checked(v: &Value, opts: &PrintOptions, op: &str) -> Result<String, TensorError> {
    check_text_size(v, opts, op)?;
    Ok(v.repr(opts))
}

/// An error when the text of `v` would be larger than the memory limit allows.
pub fn check_text_size(v: &Value, opts: &PrintOptions, op: &str) -> Result<(), TensorError> {
    if let Value::Str(_) = v {
        // Written as it is: the text is already in memory.
        return Ok(());
    }
    let bytes = text_len(v, opts, &mut HashMap::new());
    let bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
    budget::check_items(op, "the text of this value", bytes, 1)
}

/// An upper bound on the bytes of `v`'s text; each shared tuple or dict is measured
/// once (`memo`, by address), so the cost is the number of distinct values.
fn text_len(v: &Value, opts: &PrintOptions, memo: &mut HashMap<usize, u128>) -> u128 {
    // Room for a number, a name or a `<function ...>`-style value.
    const SMALL: u128 = 64;
    match v {
        // Quoted, with each control character escaped in at most 6 bytes (`\u{1b}`).
        Value::Str(s) => (s.len() as u128).saturating_mul(6).saturating_add(2),
        Value::Tensor(t) => {
            // Printing summarizes past the threshold, keeping `edgeitems` per end of
            // each axis; every element takes at most a few dozen bytes.
            let shown = if t.numel() > opts.threshold {
                let per_axis = (2 * opts.edgeitems + 1) as u128;
                t.shape()
                    .iter()
                    .map(|&d| (d as u128).min(per_axis))
                    .product::<u128>()
            } else {
                t.numel() as u128
            };
            shown
                .saturating_mul(48)
                .saturating_add(SMALL * (1 + t.ndim() as u128))
        }
        Value::Tuple(items) => {
            let at = std::rc::Rc::as_ptr(items) as usize;
            if let Some(&n) = memo.get(&at) {
                return n;
            }
            let n = items.iter().fold(2u128, |total, item| {
                total
                    .saturating_add(deeper(|| text_len(item, opts, memo)))
                    .saturating_add(2)
            });
            memo.insert(at, n);
            n
        }
        Value::Dict(d) => {
            let at = std::rc::Rc::as_ptr(d) as usize;
            if let Some(&n) = memo.get(&at) {
                return n;
            }
            let n = d.iter().fold(2u128, |total, (k, item)| {
                let key = text_len(&k.to_value(), opts, memo);
                total
                    .saturating_add(key)
                    .saturating_add(deeper(|| text_len(item, opts, memo)))
                    .saturating_add(4)
            });
            memo.insert(at, n);
            n
        }
        _ => SMALL,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn a_tuple_holding_itself_twice_is_measured_in_linear_time() {
        let mut t = Value::Tuple(Rc::new(vec![Value::Int(1)].into()));
        for _ in 0..200 {
            t = Value::Tuple(Rc::new(vec![t.clone(), t].into()));
        }
        let opts = PrintOptions::default();
        assert!(check_text_size(&t, &opts, "print").is_err());
        let small = Value::Tuple(Rc::new(vec![Value::Int(1), Value::str("ab")].into()));
        assert!(text_len(&small, &opts, &mut HashMap::new()) >= small.repr(&opts).len() as u128);
        assert!(check_text_size(&small, &opts, "print").is_ok());
    }
}

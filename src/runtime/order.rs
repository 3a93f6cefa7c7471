//! Python's ordering of values, for `<` on strings and tuples, `sorted`, `min` and
//! `max` of sequences: numbers by value (an int and a float compared exactly, NaN
//! after every number), strings by code point, tuples item by item. Other pairs
//! (a string and a number, tensors of more than one element) have no order.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::rc::Rc;

use crate::tensor::Scalar;

use super::value::{deeper, Value};

/// The order of `a` and `b`, or why they have none.
pub fn compare(a: &Value, b: &Value) -> Result<Ordering, String> {
    compare_pairs(a, b, &mut HashSet::new())
}

/// [`compare`], remembering the pairs of tuples found equal: a tuple that holds one
/// tuple many times over (nested `(t, t)`) compares in steps linear in its depth.
fn compare_pairs(
    a: &Value,
    b: &Value,
    equal: &mut HashSet<(usize, usize)>,
) -> Result<Ordering, String> {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return Ok(compare_numbers(x, y));
    }
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        (Value::Tuple(x), Value::Tuple(y)) => {
            let pair = (Rc::as_ptr(x) as usize, Rc::as_ptr(y) as usize);
            if pair.0 == pair.1 || equal.contains(&pair) {
                return Ok(Ordering::Equal);
            }
            for (p, q) in x.iter().zip(y.iter()) {
                match deeper(|| compare_pairs(p, q, equal))? {
                    Ordering::Equal => {}
                    unequal => return Ok(unequal),
                }
            }
            let o = x.len().cmp(&y.len());
            if o.is_eq() {
                equal.insert(pair);
            }
            Ok(o)
        }
        _ => Err(format!(
            "{} and {} cannot be ordered",
            a.describe(),
            b.describe()
        )),
    }
}

/// A number, or a one-element tensor's element (as `if` would read it).
fn number(v: &Value) -> Option<Scalar> {
    match v {
        Value::Tensor(t) if t.numel() == 1 => Value::from_item(t).and_then(|v| v.as_scalar()),
        other => other.as_scalar(),
    }
}

/// A total order on numbers: exact between ints and floats, NaN last.
pub fn compare_numbers(a: Scalar, b: Scalar) -> Ordering {
    match (a, b) {
        (Scalar::Float(x), Scalar::Float(y)) => compare_floats(x, y),
        (Scalar::Float(x), other) => compare_int_float(other.to_i64(), x).reverse(),
        (other, Scalar::Float(y)) => compare_int_float(other.to_i64(), y),
        (x, y) => x.to_i64().cmp(&y.to_i64()),
    }
}

/// Floats by value (-0.0 equals 0.0), NaN after every number.
fn compare_floats(x: f64, y: f64) -> Ordering {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
    }
}

/// An int against a float without rounding the int (2**53 + 1 is more than 2.0**53).
fn compare_int_float(i: i64, f: f64) -> Ordering {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if f.is_nan() || f >= TWO_63 {
        return Ordering::Less;
    }
    if f < -TWO_63 {
        return Ordering::Greater;
    }
    // In range, the integer part of f is an exact i64.
    let whole = f.trunc();
    i.cmp(&(whole as i64))
        .then_with(|| compare_floats(whole, f))
}

/// A stable merge sort with a comparison that may fail (the first failure is
/// returned). The standard sorts may panic on a comparison that is not a total
/// order; a user's key function gives no such promise.
pub fn sort_by<T: Clone>(
    items: &mut [T],
    cmp: &mut dyn FnMut(&T, &T) -> Result<Ordering, String>,
) -> Result<(), String> {
    if items.len() < 2 {
        return Ok(());
    }
    let mid = items.len() / 2;
    sort_by(&mut items[..mid], cmp)?;
    sort_by(&mut items[mid..], cmp)?;
    if cmp(&items[mid - 1], &items[mid])? != Ordering::Greater {
        return Ok(());
    }
    let left = items[..mid].to_vec();
    let (mut l, mut r, mut out) = (0, mid, 0);
    while l < left.len() && r < items.len() {
        // Ties take the left item first: the sort is stable.
        if cmp(&items[r], &left[l])? == Ordering::Less {
            items[out] = items[r].clone();
            r += 1;
        } else {
            items[out] = left[l].clone();
            l += 1;
        }
        out += 1;
    }
    for item in &left[l..] {
        items[out] = item.clone();
        out += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_and_floats_compare_exactly_and_nan_goes_last() {
        let big = (1i64 << 53) + 1;
        let f = (1i64 << 53) as f64;
        assert_eq!(
            compare_numbers(Scalar::Int(big), Scalar::Float(f)),
            Ordering::Greater
        );
        assert_eq!(
            compare_numbers(Scalar::Float(f), Scalar::Int(big)),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(Scalar::Int(2), Scalar::Float(2.5)),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(Scalar::Int(-2), Scalar::Float(-2.5)),
            Ordering::Greater
        );
        assert_eq!(
            compare_numbers(Scalar::Int(3), Scalar::Float(3.0)),
            Ordering::Equal
        );
        assert_eq!(
            compare_numbers(Scalar::Int(i64::MAX), Scalar::Float(f64::NAN)),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(Scalar::Float(f64::NAN), Scalar::Float(f64::INFINITY)),
            Ordering::Greater
        );
        assert_eq!(
            compare_numbers(Scalar::Int(i64::MAX), Scalar::Float(9.3e18)),
            Ordering::Less
        );
        assert_eq!(
            compare_numbers(Scalar::Float(-0.0), Scalar::Float(0.0)),
            Ordering::Equal
        );
    }

    #[test]
    fn merge_sort_is_stable_and_matches_the_standard_sort() {
        let mut xs: Vec<(i32, usize)> = (0..200).map(|i| ((i * 7919 % 13) as i32, i)).collect();
        let mut want = xs.clone();
        want.sort_by_key(|p| p.0);
        sort_by(&mut xs, &mut |a, b| Ok(a.0.cmp(&b.0))).unwrap();
        assert_eq!(xs, want);
        let mut fails = vec![3, 1, 2];
        let err = sort_by(&mut fails, &mut |_, _| Err("no order".to_string()));
        assert_eq!(err, Err("no order".to_string()));
    }
}

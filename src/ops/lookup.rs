//! Turning values into positions or flags: `digitize` (which bin), `isin` (is it
//! among these), `unravel_index` (which coordinates) and torch's `one_hot` (which
//! class). The searches reuse `searchsorted` on sorted values.

use super::gather::check_index_dtype;
use super::output_buffer;
use super::sort::{searchsorted, sort};
use crate::tensor::{Result, SliceSpec, Tensor, TensorError};

/// NumPy `digitize`: for each element of x, the i64 index of the bin it falls in, for
/// `bins` 1-D and monotonic (increasing or decreasing; NaN sorts last as in
/// searchsorted). Increasing bins give i with `bins[i-1] <= x < bins[i]`
/// (`bins[i-1] < x <= bins[i]` when `right`); decreasing ones mirror that.
pub fn digitize(x: &Tensor, bins: &Tensor, right: bool) -> Result<Tensor> {
    let op = "digitize";
    if bins.ndim() != 1 {
        return Err(TensorError::value(
            op,
            format!("bins must be 1-D, got shape {:?}", bins.shape()),
        ));
    }
    // side="left" finds the first bin edge >= x, so x == edge counts as below it.
    let side = if right { "left" } else { "right" };
    match monotonicity(&bins.to_vec::<f64>()) {
        Some(Monotonic::Increasing) => searchsorted(bins, x, side),
        Some(Monotonic::Decreasing) => {
            let reversed = bins.slice(
                0,
                SliceSpec {
                    start: None,
                    stop: None,
                    step: -1,
                },
            )?;
            let n = bins.numel() as i64;
            let found = searchsorted(&reversed, x, side)?.to_vec::<i64>();
            Tensor::from_vec(found.into_iter().map(|i| n - i).collect(), x.shape())
        }
        None => Err(TensorError::value(
            op,
            "bins must be monotonically increasing or decreasing",
        )),
    }
}

enum Monotonic {
    Increasing,
    Decreasing,
}

/// NumPy's check of digitize's bins (`check_array_monotonic`): equal leading values
/// are skipped, the first change sets the direction, and comparisons with NaN, being
/// false, never break it.
fn monotonicity(b: &[f64]) -> Option<Monotonic> {
    let Some(first_change) = (1..b.len()).find(|&i| b[i] != b[i - 1]) else {
        return Some(Monotonic::Increasing);
    };
    let rest = b[first_change - 1..].windows(2);
    if b[first_change - 1] < b[first_change] {
        (!rest.clone().any(|w| w[0] > w[1])).then_some(Monotonic::Increasing)
    } else {
        (!rest.clone().any(|w| w[0] < w[1])).then_some(Monotonic::Decreasing)
    }
}

/// NumPy `isin`: a bool tensor of x's shape, true where the element equals one of
/// `test` (any shape); false where `invert`. Compared in f64 when either is a float,
/// else in i64; NaN equals nothing.
pub fn isin(x: &Tensor, test: &Tensor, invert: bool) -> Result<Tensor> {
    let op = "isin";
    let sorted = sort(test, None, false, true)?;
    let at = searchsorted(&sorted, x, "left")?.to_vec::<i64>();
    let found: Vec<bool> = if x.dtype().is_float() || test.dtype().is_float() {
        let (s, v) = (sorted.to_vec::<f64>(), x.to_vec::<f64>());
        at.iter()
            .zip(v)
            .map(|(&i, v)| s.get(i as usize) == Some(&v))
            .collect()
    } else {
        let (s, v) = (sorted.to_vec::<i64>(), x.to_vec::<i64>());
        at.iter()
            .zip(v)
            .map(|(&i, v)| s.get(i as usize) == Some(&v))
            .collect()
    };
    let mut out = output_buffer(op, x.shape(), false)?;
    for (o, f) in out.iter_mut().zip(found) {
        *o = f != invert;
    }
    Tensor::from_vec(out, x.shape())
}

/// NumPy `unravel_index`: the coordinates in `shape` (row-major) of each flat index,
/// as one i64 tensor of indices' shape per dimension.
pub fn unravel_index(indices: &Tensor, shape: &[usize]) -> Result<Vec<Tensor>> {
    let op = "unravel_index";
    check_index_dtype(op, indices)?;
    let size = shape
        .iter()
        .try_fold(1u64, |n, &d| n.checked_mul(d as u64))
        .ok_or_else(|| TensorError::value(op, "the shape's size overflows"))?;
    let flat = indices.to_vec::<i64>();
    // A u64 index keeps its bits as i64: one past i64::MAX reads as negative, and
    // is out of bounds either way.
    if let Some(&bad) = flat.iter().find(|&&i| i < 0 || i as u64 >= size) {
        let shown = if indices.dtype().is_unsigned() {
            (bad as u64).to_string()
        } else {
            bad.to_string()
        };
        return Err(TensorError::value(
            op,
            format!("index {shown} is out of bounds for a tensor of size {size}"),
        ));
    }
    let mut coords: Vec<Vec<i64>> = Vec::with_capacity(shape.len());
    for _ in shape {
        coords.push(output_buffer(op, indices.shape(), 0i64)?);
    }
    for (k, &i) in flat.iter().enumerate() {
        let mut rest = i as u64;
        for (c, &d) in coords.iter_mut().zip(shape).rev() {
            c[k] = (rest % d as u64) as i64;
            rest /= d as u64;
        }
    }
    coords
        .into_iter()
        .map(|c| Tensor::from_vec(c, indices.shape()))
        .collect()
}

/// torch `one_hot`: i64 of labels' shape plus a last axis of `num_classes` (the
/// largest label + 1 when -1), 1 at each label and 0 elsewhere.
pub fn one_hot(labels: &Tensor, num_classes: i64) -> Result<Tensor> {
    let op = "one_hot";
    check_index_dtype(op, labels)?;
    let values = labels.to_vec::<i64>();
    let negative = values.iter().any(|&v| v < 0)
        || labels.dtype().is_unsigned() && values.iter().any(|&v| v as u64 > i64::MAX as u64);
    if negative {
        return Err(TensorError::value(op, "class values must be non-negative"));
    }
    let classes = match num_classes {
        -1 => match values.iter().max() {
            Some(&m) => m.saturating_add(1),
            None => {
                return Err(TensorError::value(
                    op,
                    "cannot infer the number of classes from an empty tensor; pass num_classes",
                ))
            }
        },
        n if n < -1 => {
            return Err(TensorError::value(
                op,
                format!("num_classes must be -1 or non-negative, got {n}"),
            ))
        }
        n => {
            if let Some(&big) = values.iter().find(|&&v| v >= n) {
                return Err(TensorError::value(
                    op,
                    format!("class value {big} must be smaller than num_classes ({n})"),
                ));
            }
            n
        }
    };
    let classes = usize::try_from(classes).unwrap_or(usize::MAX);
    let shape = [labels.shape(), &[classes]].concat();
    let mut out = output_buffer(op, &shape, 0i64)?;
    for (row, &v) in values.iter().enumerate() {
        out[row * classes + v as usize] = 1;
    }
    Tensor::from_vec(out, &shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn monotonicity_follows_numpy() {
        let nan = f64::NAN;
        assert!(matches!(monotonicity(&[]), Some(Monotonic::Increasing)));
        assert!(matches!(
            monotonicity(&[2.0, 2.0, 1.0]),
            Some(Monotonic::Decreasing)
        ));
        assert!(matches!(
            monotonicity(&[1.0, 2.0, nan]),
            Some(Monotonic::Increasing)
        ));
        assert!(monotonicity(&[1.0, 3.0, 2.0]).is_none());
    }

    #[test]
    fn one_hot_infers_classes() {
        let l = Tensor::from_vec(vec![2i64, 0], &[2]).unwrap();
        let r = one_hot(&l, -1).unwrap();
        assert_eq!(r.shape(), &[2, 3]);
        assert_eq!(r.to_vec::<i64>(), vec![0, 0, 1, 1, 0, 0]);
        assert!(one_hot(&l, 2).is_err());
    }
}

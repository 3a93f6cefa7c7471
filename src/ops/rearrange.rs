//! Views that reorder, add, merge or walk axes backwards: NumPy's `.T` (all axes
//! reversed), torch's `.mT` (the last two swapped), moveaxis, expand_dims, flip,
//! rot90, diagonal, and torch's flatten over a range of axes. Nothing here copies
//! (except flatten of a layout no reshape can view): each result is a Layout over
//! the same storage.

use crate::tensor::shape::{check_op_rank, normalize_axis};
use crate::tensor::{Layout, Result, SliceSpec, Tensor, TensorError};

/// torch's `x.mT`: the last two axes swapped, for a matrix or a batch of them.
pub fn swap_last_two(x: &Tensor) -> Result<Tensor> {
    if x.ndim() < 2 {
        return Err(TensorError::shape(
            "mT",
            format!(
                "needs a matrix or a batch of matrices, got a {}-d tensor",
                x.ndim()
            ),
        ));
    }
    x.transpose(-2, -1)
}

/// `axes` normalized against `ndim`, each at most once (NumPy's
/// `normalize_axis_tuple`).
fn distinct_axes(op: &str, axes: &[i64], ndim: usize) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = normalize_axis(op, a, ndim)?;
        if out.contains(&n) {
            return Err(TensorError::value(op, format!("axis {a} is repeated")));
        }
        out.push(n);
    }
    Ok(out)
}

/// Two different axes, normalized.
fn two_axes(op: &str, a: i64, b: i64, ndim: usize) -> Result<(usize, usize)> {
    let (p, q) = (normalize_axis(op, a, ndim)?, normalize_axis(op, b, ndim)?);
    if p == q {
        return Err(TensorError::value(
            op,
            format!("axes {a} and {b} are the same axis"),
        ));
    }
    Ok((p, q))
}

/// `numpy.moveaxis`: the axes `source` moved to the positions `destination`,
/// the others keeping their order.
pub fn moveaxis(x: &Tensor, source: &[i64], destination: &[i64]) -> Result<Tensor> {
    if source.len() != destination.len() {
        return Err(TensorError::value(
            "moveaxis",
            format!(
                "source has {} axes but destination has {}; they must pair up",
                source.len(),
                destination.len()
            ),
        ));
    }
    let source = distinct_axes("moveaxis", source, x.ndim())?;
    let destination = distinct_axes("moveaxis", destination, x.ndim())?;
    let mut order: Vec<usize> = (0..x.ndim()).filter(|a| !source.contains(a)).collect();
    let mut moves: Vec<(usize, usize)> = destination.into_iter().zip(source).collect();
    moves.sort_unstable();
    for (dest, src) in moves {
        order.insert(dest, src);
    }
    x.permute(&order.iter().map(|&a| a as i64).collect::<Vec<_>>())
}

/// `numpy.expand_dims`: size-1 axes inserted so that they sit at `axes` of the
/// result (negative axes count from the result's end).
pub fn expand_dims(x: &Tensor, axes: &[i64]) -> Result<Tensor> {
    let rank = x.ndim() + axes.len();
    check_op_rank("expand_dims", rank)?;
    let mut at = distinct_axes("expand_dims", axes, rank)?;
    at.sort_unstable();
    at.into_iter()
        .try_fold(x.clone(), |t, a| t.unsqueeze(a as i64))
}

/// `numpy.flip`: the order of elements reversed along `axes` (all when `None`).
pub fn flip(x: &Tensor, axes: Option<&[i64]>) -> Result<Tensor> {
    let axes = match axes {
        Some(axes) => distinct_axes("flip", axes, x.ndim())?,
        None => (0..x.ndim()).collect(),
    };
    let backwards = SliceSpec {
        start: None,
        stop: None,
        step: -1,
    };
    axes.into_iter()
        .try_fold(x.clone(), |t, a| t.slice(a as i64, backwards))
}

/// `numpy.rot90`: rotated by 90° k times in the plane of `axes`, from the first
/// axis towards the second.
pub fn rot90(x: &Tensor, k: i64, axes: &[i64]) -> Result<Tensor> {
    let [a0, a1] = axes else {
        return Err(TensorError::value(
            "rot90",
            format!("axes must name two axes, got {}", axes.len()),
        ));
    };
    if x.ndim() < 2 {
        return Err(TensorError::shape(
            "rot90",
            format!("needs at least 2 dimensions, got a {}-d tensor", x.ndim()),
        ));
    }
    let (p, q) = two_axes("rot90", *a0, *a1, x.ndim())?;
    let (p, q) = (p as i64, q as i64);
    match k.rem_euclid(4) {
        0 => Ok(x.clone()),
        1 => flip(x, Some(&[q]))?.transpose(p, q),
        2 => flip(x, Some(&[p, q])),
        _ => flip(&x.transpose(p, q)?, Some(&[q])),
    }
}

/// `numpy.diagonal`: the elements `x[..., i, i + offset, ...]` of the planes of
/// `axis1` and `axis2`; those two axes are removed and the diagonal is the last.
pub fn diagonal(x: &Tensor, offset: i64, axis1: i64, axis2: i64) -> Result<Tensor> {
    if x.ndim() < 2 {
        return Err(TensorError::shape(
            "diagonal",
            format!("needs at least 2 dimensions, got a {}-d tensor", x.ndim()),
        ));
    }
    let (a, b) = two_axes("diagonal", axis1, axis2, x.ndim())?;
    let l = x.layout();
    let (rows, cols) = (l.shape[a], l.shape[b]);
    // The diagonal starts at row `skip_rows`, column `skip_cols`.
    let shift = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
    let (skip_rows, skip_cols) = if offset >= 0 { (0, shift) } else { (shift, 0) };
    let len = rows
        .saturating_sub(skip_rows)
        .min(cols.saturating_sub(skip_cols));
    let mut out = Layout {
        shape: Vec::with_capacity(l.ndim() - 1),
        strides: Vec::with_capacity(l.ndim() - 1),
        offset: l.offset,
    };
    for d in (0..l.ndim()).filter(|&d| d != a && d != b) {
        out.shape.push(l.shape[d]);
        out.strides.push(l.strides[d]);
    }
    out.shape.push(len);
    out.strides.push(l.strides[a] + l.strides[b]);
    if len > 0 && out.numel() > 0 {
        // The first element exists, so its offset is inside the storage.
        let first = l.offset as isize
            + skip_rows as isize * l.strides[a]
            + skip_cols as isize * l.strides[b];
        out.offset = first as usize;
    }
    Ok(x.with_layout(out))
}

/// torch's `flatten(x, start_dim, end_dim)`: the axes from start_dim to end_dim
/// (inclusive) merged into one; a 0-d x becomes 1-D. A view when the strides allow.
pub fn flatten(x: &Tensor, start_dim: i64, end_dim: i64) -> Result<Tensor> {
    let rank = x.ndim().max(1);
    let start = normalize_axis("flatten", start_dim, rank)?;
    let end = normalize_axis("flatten", end_dim, rank)?;
    if start > end {
        return Err(TensorError::value(
            "flatten",
            format!("start_dim {start_dim} comes after end_dim {end_dim}"),
        ));
    }
    let dims = x.shape().iter().map(|&d| d as i64);
    let mut shape: Vec<i64> = dims.clone().take(start).collect();
    shape.push(-1);
    shape.extend(dims.skip(end + 1));
    if x.numel() == 0 {
        // -1 cannot be inferred from zero elements: name the merged size.
        shape[start] = x.shape()[start..=end.min(x.ndim().saturating_sub(1))]
            .iter()
            .product::<usize>() as i64;
    }
    x.reshape(&shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};
    use crate::tensor::DType;

    fn arange(shape: &[usize]) -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|i| i as f64).collect();
        tensor(&v, shape, DType::I64)
    }

    #[test]
    fn transposes() {
        let x = arange(&[2, 3, 4]);
        assert_eq!(swap_last_two(&x).unwrap().shape(), &[2, 4, 3]);
        assert!(swap_last_two(&arange(&[3])).is_err());
    }

    #[test]
    fn moveaxis_and_expand_dims() {
        let x = arange(&[2, 3, 4]);
        assert_eq!(moveaxis(&x, &[0], &[-1]).unwrap().shape(), &[3, 4, 2]);
        assert_eq!(
            moveaxis(&x, &[0, 1], &[-1, -2]).unwrap().shape(),
            &[4, 3, 2]
        );
        assert!(moveaxis(&x, &[0, 0], &[1, 2]).is_err());
        assert!(moveaxis(&x, &[0], &[1, 2]).is_err());
        assert_eq!(expand_dims(&x, &[0, -1]).unwrap().shape(), &[1, 2, 3, 4, 1]);
        assert!(expand_dims(&x, &[5]).is_err());
        assert!(expand_dims(&x, &[1, 1]).is_err());
    }

    #[test]
    fn flip_and_rot90_are_views() {
        let m = arange(&[2, 3]);
        let f = flip(&m, None).unwrap();
        assert!(!f.owns_data());
        assert_eq!(values(&f), [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]);
        assert!(flip(&m, Some(&[0, -2])).is_err());
        let r = rot90(&m, 1, &[0, 1]).unwrap();
        assert_eq!(
            (r.shape().to_vec(), values(&r)),
            (vec![3, 2], vec![2.0, 5.0, 1.0, 4.0, 0.0, 3.0])
        );
        let r = rot90(&m, -1, &[0, 1]).unwrap();
        assert_eq!(values(&r), [3.0, 0.0, 4.0, 1.0, 5.0, 2.0]);
        assert_eq!(
            values(&rot90(&m, 6, &[1, 0]).unwrap()),
            values(&flip(&m, None).unwrap())
        );
        assert!(rot90(&m, 1, &[0, 0]).is_err());
        assert!(rot90(&m, 1, &[0]).is_err());
        assert!(rot90(&arange(&[3]), 1, &[0, 1]).is_err());
    }

    #[test]
    fn diagonal_of_every_layout() {
        let m = arange(&[3, 4]);
        for v in views(&m) {
            assert_eq!(values(&diagonal(&v, 0, 0, 1).unwrap()), [0.0, 5.0, 10.0]);
            assert_eq!(values(&diagonal(&v, 2, 0, 1).unwrap()), [2.0, 7.0]);
            assert_eq!(values(&diagonal(&v, -1, 0, 1).unwrap()), [4.0, 9.0]);
            assert_eq!(values(&diagonal(&v, 1, 1, 0).unwrap()), [4.0, 9.0]);
            assert_eq!(diagonal(&v, 9, 0, 1).unwrap().shape(), &[0]);
            assert_eq!(diagonal(&v, i64::MIN, 0, 1).unwrap().shape(), &[0]);
        }
        let x = arange(&[2, 2, 3]);
        let d = diagonal(&x, 0, -1, 0).unwrap();
        assert_eq!(
            (d.shape().to_vec(), values(&d)),
            (vec![2, 2], vec![0.0, 7.0, 3.0, 10.0])
        );
        assert!(diagonal(&m, 0, 1, -1).is_err());
        assert!(diagonal(&arange(&[3]), 0, 0, 1).is_err());
    }

    #[test]
    fn flatten_a_range_of_axes() {
        let x = arange(&[2, 3, 4]);
        assert_eq!(flatten(&x, 0, -1).unwrap().shape(), &[24]);
        assert_eq!(flatten(&x, 1, 2).unwrap().shape(), &[2, 12]);
        assert_eq!(flatten(&x, -2, -2).unwrap().shape(), &[2, 3, 4]);
        assert_eq!(flatten(&Tensor::scalar(1i64), 0, -1).unwrap().shape(), &[1]);
        let e = Tensor::zeros(DType::F32, &[2, 0, 3]).unwrap();
        assert_eq!(flatten(&e, 0, 1).unwrap().shape(), &[0, 3]);
        assert!(flatten(&x, 2, 1).is_err());
        assert!(flatten(&x, 0, 3).is_err());
    }
}

//! Dimension arithmetic: element counts, axis normalization, the broadcast rule.

use super::error::TensorError;

/// The most dimensions a tensor may have, read from a file or made by an op (NumPy's
/// limit too).
pub const MAX_RANK: usize = 64;

/// An error naming `what` (`npy: the shape`) when it has more than [`MAX_RANK`]
/// dimensions.
pub fn check_rank(what: &str, rank: usize) -> Result<(), String> {
    if rank > MAX_RANK {
        return Err(format!(
            "{what} has {rank} dimensions; tsr supports at most {MAX_RANK}"
        ));
    }
    Ok(())
}

/// [`check_rank`] for an op making a shape of `rank` dimensions.
pub fn check_op_rank(op: &str, rank: usize) -> Result<(), TensorError> {
    check_rank("the result", rank).map_err(|msg| TensorError::shape(op, msg))
}

/// Number of elements of a shape, or `None` when the product overflows.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
}

/// Number of elements of a shape that is already known to be valid.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Row-major (C order) strides, in elements.
pub fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc = acc.saturating_mul(d.max(1) as isize);
    }
    strides
}

/// Maps a possibly negative axis onto `0..ndim`.
pub fn normalize_axis(op: &str, axis: i64, ndim: usize) -> Result<usize, TensorError> {
    let n = ndim as i64;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        return Err(TensorError::Axis {
            op: op.to_string(),
            axis,
            ndim,
        });
    }
    Ok(a as usize)
}

/// NumPy broadcasting: align trailing dims; each pair must be equal or contain a 1.
pub fn broadcast_shapes(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>, TensorError> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(TensorError::Broadcast {
                op: op.to_string(),
                lhs: a.to_vec(),
                rhs: b.to_vec(),
            });
        };
    }
    Ok(out)
}

/// Formats a shape the way diagnostics show it: `[2, 3]`.
pub fn shape_str(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_rule() {
        assert_eq!(
            broadcast_shapes("add", &[2, 1, 3], &[4, 1]).unwrap(),
            vec![2, 4, 3]
        );
        assert_eq!(broadcast_shapes("add", &[], &[5]).unwrap(), vec![5]);
        assert_eq!(broadcast_shapes("add", &[0], &[1]).unwrap(), vec![0]);
        assert!(broadcast_shapes("add", &[2], &[3]).is_err());
    }

    #[test]
    fn strides_and_axes() {
        assert_eq!(contiguous_strides(&[2, 3, 4]), vec![12, 4, 1]);
        assert_eq!(normalize_axis("sum", -1, 3).unwrap(), 2);
        assert!(normalize_axis("sum", 3, 3).is_err());
        assert!(normalize_axis("sum", 0, 0).is_err());
        assert_eq!(checked_numel(&[usize::MAX, 2]), None);
    }
}

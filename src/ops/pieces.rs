//! Joining tensors after giving them a common rank (NumPy's hstack, vstack,
//! dstack, column_stack), cutting one into a tuple of views (array_split, torch's
//! chunk and unbind), and the coordinate grids of meshgrid.

use super::shape::{concat, split, Sections};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{budget, Result, Tensor, TensorError};

/// `x` with size-1 axes added so that it has at least `rank` dims, as NumPy's
/// atleast_1d/2d/3d do: a 0-d x becomes `[1, ...]`, a vector `[1, n]` (2-D) or
/// `[1, n, 1]` (3-D), a matrix `[m, n, 1]` (3-D).
fn at_least(x: &Tensor, rank: usize) -> Result<Tensor> {
    let mut t = x.clone();
    if t.ndim() == 0 {
        t = t.reshape(&[1])?;
    }
    if rank >= 2 && t.ndim() == 1 {
        t = t.unsqueeze(0)?;
    }
    if rank >= 3 && t.ndim() == 2 {
        t = t.unsqueeze(-1)?;
    }
    Ok(t)
}

fn all_at_least(parts: &[Tensor], rank: usize) -> Result<Vec<Tensor>> {
    parts.iter().map(|p| at_least(p, rank)).collect()
}

/// `numpy.hstack`: joined along axis 1, or axis 0 for vectors.
pub fn hstack(parts: &[Tensor]) -> Result<Tensor> {
    let parts = all_at_least(parts, 1)?;
    let axis = match parts.first() {
        Some(p) if p.ndim() == 1 => 0,
        _ => 1,
    };
    concat(&parts, axis)
}

/// `numpy.vstack`: joined along axis 0, vectors becoming rows.
pub fn vstack(parts: &[Tensor]) -> Result<Tensor> {
    concat(&all_at_least(parts, 2)?, 0)
}

/// `numpy.dstack`: joined along axis 2, a vector `[n]` becoming `[1, n, 1]` and a
/// matrix `[m, n]` becoming `[m, n, 1]`.
pub fn dstack(parts: &[Tensor]) -> Result<Tensor> {
    concat(&all_at_least(parts, 3)?, 2)
}

/// `numpy.column_stack`: vectors become columns, then everything is joined along
/// axis 1.
pub fn column_stack(parts: &[Tensor]) -> Result<Tensor> {
    let columns = parts
        .iter()
        .map(|p| match p.ndim() {
            0 => p.reshape(&[1, 1]),
            1 => p.unsqueeze(1),
            _ => Ok(p.clone()),
        })
        .collect::<Result<Vec<_>>>()?;
    concat(&columns, 1)
}

/// How `array_split` cuts an axis.
#[derive(Clone)]
pub enum SplitInto {
    /// This many parts as equal as can be: the first `len % n` one longer.
    Parts(i64),
    /// Cut before each of these indices, as `split`.
    At(Vec<i64>),
}

/// `numpy.array_split`: views of consecutive parts of x along axis; unlike split,
/// a count need not divide the axis.
pub fn array_split(x: &Tensor, how: SplitInto, axis: i64) -> Result<Vec<Tensor>> {
    let cuts = match how {
        SplitInto::At(cuts) => cuts,
        SplitInto::Parts(n) => {
            let a = normalize_axis("array_split", axis, x.ndim())?;
            let len = x.shape()[a];
            if n <= 0 {
                return Err(TensorError::value(
                    "array_split",
                    format!("the number of sections must be positive, got {n}"),
                ));
            }
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            check_parts("array_split", n)?;
            let (size, extra) = (len / n, len % n);
            (1..n).map(|k| (k * size + k.min(extra)) as i64).collect()
        }
    };
    split(x, &Sections::At(cuts), axis)
}

/// An error when a tuple of `n` views would be over the memory limit.
fn check_parts(op: &str, n: usize) -> Result<()> {
    budget::check_items(op, "a tuple of views", n, std::mem::size_of::<Tensor>())
}

/// torch's `chunk`: x cut along dim into parts of `ceil(len / chunks)` (the last
/// may be shorter), so there may be fewer than `chunks` parts; an empty axis gives
/// `chunks` empty parts.
pub fn chunk(x: &Tensor, chunks: i64, dim: i64) -> Result<Vec<Tensor>> {
    if x.ndim() == 0 {
        return Err(TensorError::shape(
            "chunk",
            "needs at least 1 dimension, got a 0-d tensor",
        ));
    }
    let a = normalize_axis("chunk", dim, x.ndim())?;
    let len = x.shape()[a] as u64;
    let chunks = u64::try_from(chunks)
        .ok()
        .filter(|&c| c > 0)
        .ok_or_else(|| {
            TensorError::value("chunk", format!("chunks must be positive, got {chunks}"))
        })?;
    if len == 0 {
        check_parts("chunk", usize::try_from(chunks).unwrap_or(usize::MAX))?;
        return Ok(vec![x.clone(); chunks as usize]);
    }
    let size = len.div_ceil(chunks);
    let cuts = (1..len.div_ceil(size)).map(|k| (k * size) as i64).collect();
    split(x, &Sections::At(cuts), dim)
}

/// torch's `unbind`: the slices of x along dim, each with that axis removed.
pub fn unbind(x: &Tensor, dim: i64) -> Result<Vec<Tensor>> {
    if x.ndim() == 0 {
        return Err(TensorError::shape(
            "unbind",
            "needs at least 1 dimension, got a 0-d tensor",
        ));
    }
    let a = normalize_axis("unbind", dim, x.ndim())?;
    (0..x.shape()[a] as i64)
        .map(|k| x.select(a as i64, k))
        .collect()
}

/// `numpy.meshgrid`: for vectors of lengths n0, n1, ..., one grid per input of
/// shape `[n0, n1, ...]` (`ij` indexing) or `[n1, n0, ...]` (`xy`, the default:
/// the first two swapped), holding that input's values along its axis. The grids
/// are copies, as NumPy's are by default.
pub fn meshgrid(xs: &[Tensor], indexing: &str) -> Result<Vec<Tensor>> {
    let xy = match indexing {
        "xy" => true,
        "ij" => false,
        other => {
            return Err(TensorError::value(
                "meshgrid",
                format!("indexing must be \"xy\" or \"ij\", got \"{other}\""),
            ))
        }
    };
    let rank = xs.len();
    crate::tensor::shape::check_op_rank("meshgrid", rank)?;
    // The axis input k runs along.
    let axis_of = |k: usize| match k {
        0 | 1 if xy && rank > 1 => 1 - k,
        _ => k,
    };
    let flat = xs
        .iter()
        .map(|x| x.reshape(&[-1]))
        .collect::<Result<Vec<_>>>()?;
    let mut shape = vec![0; rank];
    for (k, x) in flat.iter().enumerate() {
        shape[axis_of(k)] = x.numel();
    }
    flat.iter()
        .enumerate()
        .map(|(k, x)| {
            let mut dims = vec![1i64; rank];
            dims[axis_of(k)] = -1;
            Ok(x.reshape(&dims)?.broadcast_to(&shape)?.contiguous())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values};
    use crate::tensor::DType;

    fn v(vals: &[f64]) -> Tensor {
        tensor(vals, &[vals.len()], DType::I32)
    }

    fn shapes(parts: &[Tensor]) -> Vec<Vec<usize>> {
        parts.iter().map(|p| p.shape().to_vec()).collect()
    }

    #[test]
    fn stacks_raise_the_rank_first() {
        let (a, b) = (v(&[1.0, 2.0]), v(&[3.0, 4.0]));
        let pair = [a.clone(), b.clone()];
        assert_eq!(values(&hstack(&pair).unwrap()), [1.0, 2.0, 3.0, 4.0]);
        assert_eq!(vstack(&pair).unwrap().shape(), &[2, 2]);
        assert_eq!(dstack(&pair).unwrap().shape(), &[1, 2, 2]);
        let c = column_stack(&pair).unwrap();
        assert_eq!(
            (c.shape().to_vec(), values(&c)),
            (vec![2, 2], vec![1.0, 3.0, 2.0, 4.0])
        );
        assert_eq!(hstack(&[Tensor::scalar(1i32), a]).unwrap().shape(), &[3]);
        assert!(vstack(&[]).is_err());
        assert!(vstack(&[v(&[1.0]), b]).is_err());
    }

    #[test]
    fn splits_into_tuples_of_views() {
        let x = v(&[0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(
            shapes(&array_split(&x, SplitInto::Parts(3), 0).unwrap()),
            [[2], [2], [1]]
        );
        assert_eq!(
            shapes(&array_split(&x, SplitInto::Parts(7), 0).unwrap()).len(),
            7
        );
        assert!(array_split(&x, SplitInto::Parts(0), 0).is_err());
        assert!(array_split(&x, SplitInto::Parts(i64::MAX), 0).is_err());
        assert_eq!(
            shapes(&array_split(&x, SplitInto::At(vec![1]), 0).unwrap()),
            [[1], [4]]
        );
        assert_eq!(shapes(&chunk(&x, 3, 0).unwrap()), [[2], [2], [1]]);
        assert_eq!(
            shapes(&chunk(&v(&[0.0; 6]), 4, 0).unwrap()),
            [[2], [2], [2]]
        );
        assert_eq!(
            chunk(&Tensor::zeros(DType::F32, &[0]).unwrap(), 3, 0)
                .unwrap()
                .len(),
            3
        );
        assert!(chunk(&x, 0, 0).is_err());
        assert!(chunk(&Tensor::scalar(1i32), 1, 0).is_err());
        let u = unbind(&tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2], DType::F32), -1).unwrap();
        assert_eq!(values(&u[1]), [2.0, 4.0]);
        assert!(!u[0].owns_data());
    }

    #[test]
    fn meshgrid_xy_swaps_the_first_two() {
        let (a, b) = (v(&[1.0, 2.0, 3.0]), v(&[7.0, 8.0]));
        let g = meshgrid(&[a.clone(), b.clone()], "xy").unwrap();
        assert_eq!(shapes(&g), [[2, 3], [2, 3]]);
        assert_eq!(values(&g[0]), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
        assert_eq!(values(&g[1]), [7.0, 7.0, 7.0, 8.0, 8.0, 8.0]);
        let g = meshgrid(&[a.clone(), b], "ij").unwrap();
        assert_eq!(shapes(&g), [[3, 2], [3, 2]]);
        assert_eq!(
            shapes(&meshgrid(std::slice::from_ref(&a), "xy").unwrap()),
            [[3]]
        );
        assert!(meshgrid(&[], "xy").unwrap().is_empty());
        assert!(meshgrid(&[a], "yx").is_err());
    }
}

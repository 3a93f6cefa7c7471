//! Reading elements at integer positions along one axis: NumPy's `take` and
//! `take_along_axis`, torch's `index_select` and `gather`. Also the index checks
//! that the scatter side (ops/scatter.rs) shares.
//!
//! Two walks cover them: `take_blocks` copies whole blocks (one position picks a
//! slab of every outer row), `gather_walk` picks one element per output element.

use super::{elems, output_buffer};
use crate::tensor::budget;
use crate::tensor::iter::StridedIter;
use crate::tensor::shape::{broadcast_shapes, normalize_axis, shape_str};
use crate::tensor::{DType, Layout, Result, Tensor, TensorError};

/// An error unless `index` holds integers (any integer dtype).
pub(crate) fn check_index_dtype(op: &str, index: &Tensor) -> Result<()> {
    if index.dtype().is_int() {
        Ok(())
    } else {
        Err(TensorError::dtype(
            op,
            index.dtype(),
            "index must be an integer tensor",
        ))
    }
}

/// The entries of the integer tensor `index` in row-major order as positions along an
/// axis of `size` elements: negative entries count from the end (NumPy); an entry
/// outside `-size..size` is an error naming it, the axis and the size.
pub(crate) fn positions(op: &str, index: &Tensor, axis: usize, size: usize) -> Result<Vec<usize>> {
    check_index_dtype(op, index)?;
    budget::check_items(
        op,
        "the positions of the index",
        index.numel(),
        std::mem::size_of::<usize>(),
    )?;
    let out_of_range = |index: i64| TensorError::Index {
        op: op.into(),
        index,
        axis,
        size,
    };
    if index.dtype() == DType::U64 {
        // As i64 a u64 keeps its bits, so 2^64 - 1 would read as -1: check as u64.
        if let Some(&big) = index.to_vec::<u64>().iter().find(|&&i| i >= size as u64) {
            let msg = format!("index {big} is out of bounds for axis {axis} with size {size}");
            return Err(TensorError::value(op, msg));
        }
    }
    let n = size as i64;
    index
        .to_vec::<i64>()
        .into_iter()
        .map(|i| match i {
            _ if (0..n).contains(&i) => Ok(i as usize),
            _ if (-n..0).contains(&i) => Ok((i + n) as usize),
            _ => Err(out_of_range(i)),
        })
        .collect()
}

/// An error unless `a` and `b` have the same number of dimensions.
pub(crate) fn check_same_ndim(op: &str, what: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.ndim() == b.ndim() {
        return Ok(());
    }
    Err(TensorError::shape(
        op,
        format!(
            "{what} must have as many dimensions as x ({}), got shape {}",
            a.ndim(),
            shape_str(b.shape())
        ),
    ))
}

/// Sizes before and after `axis`: `shape` seen as [outer, shape[axis], inner].
pub(crate) fn outer_inner(shape: &[usize], axis: usize) -> (usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, inner)
}

/// NumPy `take`: the elements at `index` along `axis` (of the flattened tensor when
/// `None`); the result's shape is x's with that axis replaced by index's shape.
pub fn take(x: &Tensor, index: &Tensor, axis: Option<i64>) -> Result<Tensor> {
    take_along("take", x, index, axis)
}

/// torch `index_select`: the slices at the 1-D (or 0-d) `index` along `dim`, in
/// index order; the axis keeps its place with one entry per index.
pub fn index_select(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let op = "index_select";
    if index.ndim() > 1 {
        return Err(TensorError::shape(
            op,
            format!(
                "index must be 1-D or 0-d, got shape {}",
                shape_str(index.shape())
            ),
        ));
    }
    take_along(op, x, &index.reshape(&[-1])?, Some(dim))
}

fn take_along(op: &str, x: &Tensor, index: &Tensor, axis: Option<i64>) -> Result<Tensor> {
    check_index_dtype(op, index)?;
    let (x, axis) = match axis {
        None => (x.reshape(&[-1])?, 0),
        Some(a) => (x.clone(), normalize_axis(op, a, x.ndim())?),
    };
    let size = x.shape()[axis];
    let pos = positions(op, index, axis, size)?;
    let shape = [&x.shape()[..axis], index.shape(), &x.shape()[axis + 1..]].concat();
    let (_, inner) = outer_inner(x.shape(), axis);
    let x = x.contiguous();
    crate::dispatch!(x.dtype(), T => {
        let mut out = output_buffer(op, &shape, T::default())?;
        take_blocks(elems::<T>(op, &x)?, &mut out, size, inner, &pos);
        Tensor::from_vec(out, &shape)
    })
}

/// `out[o, j, :] = data[o, pos[j], :]` for rows `data` of [outer, size, inner].
fn take_blocks<T: Copy>(data: &[T], out: &mut [T], size: usize, inner: usize, pos: &[usize]) {
    let row = size * inner;
    let out_row = pos.len() * inner;
    if row == 0 || out_row == 0 {
        return;
    }
    for (src, dst) in data.chunks_exact(row).zip(out.chunks_exact_mut(out_row)) {
        for (&p, block) in pos.iter().zip(dst.chunks_exact_mut(inner)) {
            block.copy_from_slice(&src[p * inner..(p + 1) * inner]);
        }
    }
}

/// NumPy `take_along_axis`: `out[..., j, ...] = x[..., index[..., j, ...], ...]` along
/// `axis`; index has as many dims as x, and the other axes broadcast against x's.
pub fn take_along_axis(x: &Tensor, index: &Tensor, axis: i64) -> Result<Tensor> {
    let op = "take_along_axis";
    check_index_dtype(op, index)?;
    check_same_ndim(op, "index", x, index)?;
    let axis = normalize_axis(op, axis, x.ndim())?;
    let shape = along_axis_shape(op, x.shape(), index, axis)?;
    gather_walk(op, x, axis, &index.broadcast_to(&shape)?)
}

/// torch `gather`: `out[..., j, ...] = x[..., index[..., j, ...], ...]` along `dim`;
/// index has as many dims as x and is no larger than x outside `dim` (no broadcasting).
pub fn gather(x: &Tensor, dim: i64, index: &Tensor) -> Result<Tensor> {
    let op = "gather";
    check_index_dtype(op, index)?;
    check_same_ndim(op, "index", x, index)?;
    let axis = normalize_axis(op, dim, x.ndim())?;
    check_fits(op, "index", index.shape(), "x", x.shape(), Some(axis))?;
    gather_walk(op, x, axis, index)
}

/// The shape NumPy's along-axis indexing produces: index's shape broadcast with x's
/// outside `axis` (index's length along it).
pub(crate) fn along_axis_shape(
    op: &str,
    x: &[usize],
    index: &Tensor,
    axis: usize,
) -> Result<Vec<usize>> {
    let mut x = x.to_vec();
    x[axis] = index.shape()[axis];
    broadcast_shapes(op, &x, index.shape())
}

/// An error unless `small` is no larger than `big` in every dim (but `skip`), as
/// torch's gather and scatter require.
pub(crate) fn check_fits(
    op: &str,
    small_name: &str,
    small: &[usize],
    big_name: &str,
    big: &[usize],
    skip: Option<usize>,
) -> Result<()> {
    let too_big = (0..small.len()).find(|&d| Some(d) != skip && small[d] > big[d]);
    match too_big {
        None => Ok(()),
        Some(d) => Err(TensorError::shape(
            op,
            format!(
                "{small_name} of shape {} is larger than {big_name} of shape {} in dimension {d}",
                shape_str(small),
                shape_str(big)
            ),
        )),
    }
}

/// One element of x per element of `index` (whose shape is the result's): the
/// element at index's coordinates with the one along `axis` replaced by the entry.
/// x's layout is walked in place, size-1 axes repeating where index is longer.
fn gather_walk(op: &str, x: &Tensor, axis: usize, index: &Tensor) -> Result<Tensor> {
    let pos = positions(op, index, axis, x.shape()[axis])?;
    let (walk, axis_stride) = walk_layout(x.layout(), index.shape(), axis);
    crate::dispatch!(x.dtype(), T => {
        let data = elems::<T>(op, x)?;
        let mut out = output_buffer(op, index.shape(), T::default())?;
        for ((o, base), p) in out.iter_mut().zip(StridedIter::new(&walk)).zip(pos) {
            *o = data[offset_at(base, p, axis_stride)];
        }
        Tensor::from_vec(out, index.shape())
    })
}

/// A walk of `shape` over `layout`'s storage that stays at position 0 along `axis`
/// and repeats size-1 axes (stride 0); also the stride along `axis`. Every coordinate
/// of `shape` outside `axis` must be within `layout` or at a size-1 axis.
pub(crate) fn walk_layout(layout: &Layout, shape: &[usize], axis: usize) -> (Layout, isize) {
    let strides = (0..shape.len())
        .map(|d| {
            let repeats = layout.shape[d] == 1 && shape[d] != 1;
            if d == axis || repeats {
                0
            } else {
                layout.strides[d]
            }
        })
        .collect();
    let walk = Layout {
        shape: shape.to_vec(),
        strides,
        offset: layout.offset,
    };
    (walk, layout.strides[axis])
}

/// The storage offset `pos` steps of `stride` from `base` (inside the storage, as
/// `pos` is a checked position).
pub(crate) fn offset_at(base: usize, pos: usize, stride: isize) -> usize {
    (base as isize + pos as isize * stride) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<f32>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    fn idx(v: Vec<i64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn take_wraps_negative_indices_and_names_bad_ones() {
        let x = t((0..6).map(|v| v as f32).collect(), &[2, 3]);
        let r = take(&x, &idx(vec![-1, 0], &[2]), Some(1)).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![2.0, 0.0, 5.0, 3.0]);
        let e = take(&x, &idx(vec![3], &[1]), Some(1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "take: index 3 is out of bounds for axis 1 with size 3"
        );
    }

    #[test]
    fn huge_u64_index_is_out_of_range_not_negative() {
        let x = t(vec![1.0, 2.0], &[2]);
        let i = Tensor::from_vec(vec![u64::MAX], &[1]).unwrap();
        assert!(take(&x, &i, None).is_err());
    }

    #[test]
    fn gather_reads_a_transposed_view_in_place() {
        let x = t((0..6).map(|v| v as f32).collect(), &[2, 3]);
        let xt = x.transpose(0, 1).unwrap(); // [[0, 3], [1, 4], [2, 5]]
        let r = gather(&xt, 1, &idx(vec![1, 0, 0], &[3, 1])).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![3.0, 1.0, 2.0]);
    }

    #[test]
    fn float_index_is_an_error() {
        let x = t(vec![1.0, 2.0], &[2]);
        assert!(take(&x, &x, None).is_err());
        assert!(gather(&x, 0, &x).is_err());
    }
}

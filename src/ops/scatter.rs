//! Writing elements at integer positions along one axis: NumPy's `put_along_axis`,
//! torch's `scatter`, `scatter_add` and `index_add`, and `masked_fill`. Each returns a
//! new tensor: tsr values never alias, so there is no in-place form.
//!
//! Writes go in the row-major order of the index, on one thread: where positions
//! repeat, the last write wins and sums accumulate in index order, so the bits never
//! depend on the thread count.

use super::gather::{
    along_axis_shape, check_fits, check_index_dtype, check_same_ndim, offset_at, outer_inner,
    positions, walk_layout,
};
use super::shape::where_;
use super::{elems, scalar_as, Operand};
use crate::kernels::math::Arith;
use crate::tensor::iter::StridedIter;
use crate::tensor::shape::{normalize_axis, shape_str};
use crate::tensor::{budget, DType, Elem, Layout, Result, Scalar, SliceSpec, Tensor, TensorError};

/// NumPy `put_along_axis`, returning the result: `out[..., index[..., j, ...], ...] =
/// values[..., j, ...]` along `axis`. index has as many dims as x and broadcasts against
/// it outside `axis`; values broadcast to that shape and are cast to x's dtype.
pub fn put_along_axis(x: &Tensor, index: &Tensor, values: &Tensor, axis: i64) -> Result<Tensor> {
    let op = "put_along_axis";
    check_index_dtype(op, index)?;
    check_same_ndim(op, "index", x, index)?;
    let axis = normalize_axis(op, axis, x.ndim())?;
    let shape = along_axis_shape(op, x.shape(), index, axis)?;
    let index = index.broadcast_to(&shape)?;
    let values = values.broadcast_to(&shape).map_err(|_| {
        let msg = format!(
            "values of shape {} cannot be broadcast to the index's shape {}",
            shape_str(values.shape()),
            shape_str(&shape)
        );
        TensorError::shape(op, msg)
    })?;
    crate::dispatch!(x.dtype(), T => {
        scatter_walk(op, x, axis, &index, values.to_vec::<T>(), |_, v| v)
    })
}

/// torch `scatter`: `out[..., index[..., j, ...], ...] = src[..., j, ...]` along `dim`
/// (src a tensor, of which the index-shaped corner is read, or a number); the last
/// write wins where positions repeat.
pub fn scatter(x: &Tensor, dim: i64, index: &Tensor, src: Operand) -> Result<Tensor> {
    let op = "scatter";
    let axis = check_scatter(op, x, dim, index, src)?;
    crate::dispatch!(x.dtype(), T => {
        let values = match src {
            Operand::Tensor(s) => corner(s, index.shape())?.to_vec::<T>(),
            Operand::Scalar(s) => vec![scalar_as::<T>(s); index.numel()],
        };
        scatter_walk(op, x, axis, index, values, |_, v| v)
    })
}

/// torch `scatter_add`: as `scatter`, adding instead of writing, in index order.
pub fn scatter_add(x: &Tensor, dim: i64, index: &Tensor, src: &Tensor) -> Result<Tensor> {
    let op = "scatter_add";
    let axis = check_scatter(op, x, dim, index, Operand::Tensor(src))?;
    crate::dispatch!(x.dtype(), T => {
        let values = corner(src, index.shape())?.to_vec::<T>();
        scatter_walk(op, x, axis, index, values, |o: T, v| o.add(v))
    })
}

/// The axis of torch's scatter forms, after checking their shapes: index and a tensor
/// src have x's number of dims, and index is no larger than src, nor than x outside
/// `dim`.
fn check_scatter(op: &str, x: &Tensor, dim: i64, index: &Tensor, src: Operand) -> Result<usize> {
    check_index_dtype(op, index)?;
    check_same_ndim(op, "index", x, index)?;
    let axis = normalize_axis(op, dim, x.ndim())?;
    check_fits(op, "index", index.shape(), "x", x.shape(), Some(axis))?;
    if let Operand::Tensor(s) = src {
        check_same_ndim(op, "src", x, s)?;
        check_fits(op, "index", index.shape(), "src", s.shape(), None)?;
    }
    Ok(axis)
}

/// The view of `t`'s leading corner of `shape` (each dim cut to its length there).
fn corner(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let mut view = t.clone();
    for (d, &n) in shape.iter().enumerate() {
        let spec = SliceSpec {
            start: Some(0),
            stop: Some(n as i64),
            step: 1,
        };
        view = view.slice(d as i64, spec)?;
    }
    Ok(view)
}

/// A copy of x in which each `values[k]` (row-major over index's shape) is combined
/// into the element at index's k-th coordinates with the one along `axis` replaced by
/// the k-th entry; x's size-1 axes repeat where index is longer (NumPy broadcasting).
fn scatter_walk<T: Elem>(
    op: &str,
    x: &Tensor,
    axis: usize,
    index: &Tensor,
    values: Vec<T>,
    combine: impl Fn(T, T) -> T,
) -> Result<Tensor> {
    let pos = positions(op, index, axis, x.shape()[axis])?;
    let mut out = copy_of::<T>(op, x)?;
    let (walk, stride) = walk_layout(&Layout::contiguous(x.shape()), index.shape(), axis);
    for ((base, p), v) in StridedIter::new(&walk).zip(pos).zip(values) {
        let o = &mut out[offset_at(base, p, stride)];
        *o = combine(*o, v);
    }
    Tensor::from_vec(out, x.shape())
}

/// x's elements in row-major order as `T`, after checking x's shape against the memory
/// limit (a broadcast view may be far larger than its storage).
fn copy_of<T: Elem>(op: &str, x: &Tensor) -> Result<Vec<T>> {
    budget::check(op, x.shape(), T::DTYPE)?;
    Ok(x.to_vec::<T>())
}

/// torch `index_add`: `out[..., index[j], ...] += alpha * src[..., j, ...]` along `dim`,
/// for the 1-D (or 0-d) index, in index order. src has x's shape but index's length
/// along `dim`; alpha is cast to x's dtype (an integer x needs an integer alpha).
pub fn index_add(
    x: &Tensor,
    dim: i64,
    index: &Tensor,
    src: &Tensor,
    alpha: Scalar,
) -> Result<Tensor> {
    let op = "index_add";
    check_index_dtype(op, index)?;
    if index.ndim() > 1 {
        let msg = format!(
            "index must be 1-D or 0-d, got shape {}",
            shape_str(index.shape())
        );
        return Err(TensorError::shape(op, msg));
    }
    let axis = normalize_axis(op, dim, x.ndim())?;
    let size = x.shape()[axis];
    let pos = positions(op, index, axis, size)?;
    let mut want = x.shape().to_vec();
    want[axis] = pos.len();
    if src.shape() != want {
        let msg = format!(
            "src must have shape {} (x's with the index's length along dim {axis}), got {}",
            shape_str(&want),
            shape_str(src.shape())
        );
        return Err(TensorError::shape(op, msg));
    }
    if !x.dtype().is_float() && matches!(alpha, Scalar::Float(_)) {
        let msg = "alpha must be an integer for a tensor that is not a float (torch)";
        return Err(TensorError::dtype(op, x.dtype(), msg));
    }
    let (_, inner) = outer_inner(x.shape(), axis);
    let src = src.to_dtype(x.dtype()).contiguous();
    crate::dispatch!(x.dtype(), T => {
        let mut out = copy_of::<T>(op, x)?;
        let src = elems::<T>(op, &src)?;
        let alpha = scalar_as::<T>(alpha);
        let (row, src_row) = (size * inner, pos.len() * inner);
        if inner > 0 && src_row > 0 {
            for (dst, src) in out.chunks_exact_mut(row).zip(src.chunks_exact(src_row)) {
                for (&p, block) in pos.iter().zip(src.chunks_exact(inner)) {
                    for (o, &s) in dst[p * inner..(p + 1) * inner].iter_mut().zip(block) {
                        *o = o.add(alpha.mul(s));
                    }
                }
            }
        }
        Tensor::from_vec(out, x.shape())
    })
}

/// torch `masked_fill`: x with `value` (a number or a 0-d tensor, cast to x's dtype)
/// where the bool `mask`, broadcast to x's shape, is true.
pub fn masked_fill(x: &Tensor, mask: &Tensor, value: Operand) -> Result<Tensor> {
    let op = "masked_fill";
    if mask.dtype() != DType::Bool {
        return Err(TensorError::dtype(
            op,
            mask.dtype(),
            "mask must be a bool tensor",
        ));
    }
    let mask = mask.broadcast_to(x.shape()).map_err(|_| {
        let msg = format!(
            "mask of shape {} cannot be broadcast to x's shape {}",
            shape_str(mask.shape()),
            shape_str(x.shape())
        );
        TensorError::shape(op, msg)
    })?;
    let value = match value {
        Operand::Tensor(v) if v.ndim() != 0 => {
            let msg = format!(
                "value must be a number or a 0-d tensor, got shape {}",
                shape_str(v.shape())
            );
            return Err(TensorError::shape(op, msg));
        }
        Operand::Tensor(v) => v.to_dtype(x.dtype()),
        Operand::Scalar(s) => crate::dispatch!(x.dtype(), T => Tensor::scalar(scalar_as::<T>(s))),
    };
    where_(&mask, Operand::Tensor(&value), Operand::Tensor(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_add_accumulates_repeated_positions() {
        let x = Tensor::from_vec(vec![0f32; 3], &[3]).unwrap();
        let i = Tensor::from_vec(vec![1i64, 1, -1, 1], &[4]).unwrap();
        let s = Tensor::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[4]).unwrap();
        let r = scatter_add(&x, 0, &i, &s).unwrap();
        assert_eq!(r.to_vec::<f32>(), vec![0.0, 7.0, 3.0]);
    }

    #[test]
    fn scatter_last_write_wins() {
        let x = Tensor::from_vec(vec![0i64; 2], &[2]).unwrap();
        let i = Tensor::from_vec(vec![0i64, 0, 0], &[3]).unwrap();
        let r = scatter(
            &x,
            0,
            &i,
            Operand::Tensor(&Tensor::from_vec(vec![5i64, 6, 7], &[3]).unwrap()),
        )
        .unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![7, 0]);
    }

    #[test]
    fn index_add_rejects_a_float_alpha_for_ints() {
        let x = Tensor::from_vec(vec![0i64; 2], &[2]).unwrap();
        let i = Tensor::from_vec(vec![0i64], &[1]).unwrap();
        let s = Tensor::from_vec(vec![1i64], &[1]).unwrap();
        assert!(index_add(&x, 0, &i, &s, Scalar::Float(0.5)).is_err());
        let r = index_add(&x, 0, &i, &s, Scalar::Int(3)).unwrap();
        assert_eq!(r.to_vec::<i64>(), vec![3, 0]);
    }
}

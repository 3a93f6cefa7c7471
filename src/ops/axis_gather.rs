//! Copies in which every output index along an axis reads one input index along
//! the same axis, or a fill value: the common core of pad, tile, repeat and roll.
//! Such a copy is an outer product of per-axis maps (NumPy's `x[np.ix_(...)]`).

use super::{elems, output_buffer, scalar_as};
use crate::tensor::{Result, Scalar, Tensor, TensorError};

/// A new tensor of `shape` whose element at `[i0, i1, ...]` is
/// `x[source(0, i0), source(1, i1), ...]`, or `fill` (cast like astype) when any
/// `source(axis, i)` is `None`. `shape` has x's rank; the budget is checked before
/// any map is built, so a huge axis of an empty result costs nothing.
pub(super) fn gather_axes(
    op: &str,
    x: &Tensor,
    shape: &[usize],
    fill: Scalar,
    source: impl Fn(usize, usize) -> Option<usize>,
) -> Result<Tensor> {
    crate::dispatch!(x.dtype(), T => {
        let mut out = output_buffer(op, shape, scalar_as::<T>(fill))?;
        if out.is_empty() {
            return Tensor::from_vec(out, shape);
        }
        let data = elems::<T>(op, x)?;
        let layout = x.layout();
        // Per axis, the storage offset each output index reads (None: the fill).
        let steps: Vec<Vec<Option<isize>>> = shape
            .iter()
            .enumerate()
            .map(|(axis, &len)| {
                let stride = layout.strides[axis];
                (0..len).map(|i| source(axis, i).map(|s| s as isize * stride)).collect()
            })
            .collect();
        let internal = || TensorError::value(op, "internal error: index outside the input");
        let read = |offset: isize| -> Result<T> {
            let at = usize::try_from(layout.offset as isize + offset).map_err(|_| internal())?;
            data.get(at).copied().ok_or_else(internal)
        };
        let Some((last, outer)) = steps.split_last() else {
            out[0] = read(0)?;
            return Tensor::from_vec(out, shape);
        };
        // An odometer over the outer axes; each row then walks the last axis.
        let mut index = vec![0usize; outer.len()];
        for row in out.chunks_exact_mut(last.len()) {
            let base = outer
                .iter()
                .zip(&index)
                .try_fold(0isize, |sum, (steps, &i)| steps[i].map(|s| sum + s));
            if let Some(base) = base {
                for (o, step) in row.iter_mut().zip(last) {
                    if let Some(s) = step {
                        *o = read(base + s)?;
                    }
                }
            }
            for (i, len) in index.iter_mut().zip(&shape[..outer.len()]).rev() {
                *i += 1;
                if *i < *len {
                    break;
                }
                *i = 0;
            }
        }
        Tensor::from_vec(out, shape)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};
    use crate::tensor::DType;

    #[test]
    fn gathers_per_axis_with_fill_on_every_layout() {
        let x = tensor(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], DType::I32);
        for v in views(&x) {
            // Rows reversed with a filled row between; columns 2, none, 0.
            let rows = [Some(1), None, Some(0)];
            let cols = [Some(2), None, Some(0)];
            let g = gather_axes("t", &v, &[3, 3], Scalar::Int(-1), |axis, i| {
                if axis == 0 {
                    rows[i]
                } else {
                    cols[i]
                }
            })
            .unwrap();
            assert_eq!(g.dtype(), DType::I32);
            let want = [6.0, -1.0, 4.0, -1.0, -1.0, -1.0, 3.0, -1.0, 1.0];
            assert_eq!(values(&g), want);
        }
        let s = gather_axes("t", &Tensor::scalar(2.5f32), &[], Scalar::Int(0), |_, _| {
            None
        })
        .unwrap();
        assert_eq!(values(&s), vec![2.5]);
        let empty = gather_axes("t", &x, &[0, usize::MAX], Scalar::Int(0), |_, _| Some(0));
        assert_eq!(empty.unwrap().shape(), &[0, usize::MAX]);
        assert!(gather_axes("t", &x, &[1 << 40, 1 << 20], Scalar::Int(0), |_, _| None).is_err());
    }
}

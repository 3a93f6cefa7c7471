//! The tensor value: shared typed storage plus a layout. Cloning is cheap (an Arc bump);
//! writes go through `Arc::make_mut`, so values behave as values (copy-on-write).

use std::sync::Arc;

use super::dtype::{DType, Elem};
use super::error::{Result, TensorError};
use super::iter::{at, strided_rows, StridedIter};
use super::layout::{Layout, SliceSpec};
use super::shape::{check_op_rank, checked_numel, normalize_axis, shape_str};
use super::storage::Storage;

#[derive(Clone, Debug)]
pub struct Tensor {
    storage: Arc<Storage>,
    layout: Layout,
    /// Made by a view op (slice, transpose, reshape, ...) rather than owning a fresh buffer.
    view: bool,
}

impl Tensor {
    /// A contiguous tensor over `data`; `data.len()` must equal the shape's product.
    pub fn from_vec<T: Elem>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        Tensor::from_storage(T::into_storage(data), shape)
    }

    pub fn from_storage(storage: Storage, shape: &[usize]) -> Result<Tensor> {
        check_op_rank("tensor", shape.len())?;
        let n = checked_numel(shape)
            .ok_or_else(|| TensorError::shape("tensor", "shape has too many elements"))?;
        if n != storage.len() {
            return Err(TensorError::shape(
                "tensor",
                format!(
                    "{} elements do not fill shape {}",
                    storage.len(),
                    shape_str(shape)
                ),
            ));
        }
        Ok(Tensor {
            storage: Arc::new(storage),
            layout: Layout::contiguous(shape),
            view: false,
        })
    }

    /// A 0-d tensor.
    pub fn scalar<T: Elem>(value: T) -> Tensor {
        Tensor {
            storage: Arc::new(T::into_storage(vec![value])),
            layout: Layout::contiguous(&[]),
            view: false,
        }
    }

    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        let n = super::budget::check("zeros", shape, dtype)?;
        Ok(Tensor {
            storage: Arc::new(Storage::zeros(dtype, n)),
            layout: Layout::contiguous(shape),
            view: false,
        })
    }

    pub fn shape(&self) -> &[usize] {
        &self.layout.shape
    }

    pub fn strides(&self) -> &[isize] {
        &self.layout.strides
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    pub fn dtype(&self) -> DType {
        self.storage.dtype()
    }

    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }

    pub fn numel(&self) -> usize {
        self.layout.numel()
    }

    pub fn nbytes(&self) -> usize {
        self.numel() * self.dtype().size()
    }

    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// NumPy's `flags.owndata`: false for tensors made by view ops (slices, transposes,
    /// reshapes, broadcasts) until a write gives them a buffer of their own.
    pub fn owns_data(&self) -> bool {
        !self.view
    }

    /// True when the layout is the whole storage in row-major order from offset 0.
    fn covers_storage(&self) -> bool {
        self.layout.offset == 0 && self.layout.is_contiguous() && self.numel() == self.storage.len()
    }

    /// The elements as a slice of `T`, when the dtype is `T` (any layout).
    pub fn storage_slice<T: Elem>(&self) -> Option<&[T]> {
        T::slice(&self.storage)
    }

    /// A view of the same storage with another layout.
    pub fn with_layout(&self, layout: Layout) -> Tensor {
        Tensor {
            storage: Arc::clone(&self.storage),
            layout,
            view: true,
        }
    }

    /// A fresh row-major buffer holding this tensor's elements.
    fn copied(&self) -> Tensor {
        crate::dispatch!(self.dtype(), T => {
            Tensor {
                storage: Arc::new(T::into_storage(self.to_vec::<T>())),
                layout: Layout::contiguous(self.shape()),
                view: false,
            }
        })
    }

    /// Elements in logical order, converted to `T` as `astype` would.
    pub fn to_vec<T: Elem>(&self) -> Vec<T> {
        crate::dispatch!(self.dtype(), S => {
            let data = S::slice(&self.storage).unwrap_or(&[]);
            if self.numel() == 0 {
                Vec::new()
            } else if self.is_contiguous() {
                let start = self.layout.offset;
                data[start..start + self.numel()].iter().map(|&v| v.cast::<T>()).collect()
            } else {
                let (starts, len, stride) = strided_rows(&self.layout);
                let mut out = Vec::with_capacity(self.numel());
                for start in starts {
                    if stride == 1 {
                        out.extend(data[start..start + len].iter().map(|&v| v.cast::<T>()));
                    } else {
                        let start = start as isize;
                        out.extend((0..len).map(|j| data[at(start, stride, j)].cast::<T>()));
                    }
                }
                out
            }
        })
    }

    /// The value of a one-element tensor as f64.
    pub fn item_f64(&self) -> Option<f64> {
        (self.numel() == 1).then(|| self.to_vec::<f64>()[0])
    }

    /// The value of a one-element tensor as i64.
    pub fn item_i64(&self) -> Option<i64> {
        (self.numel() == 1).then(|| self.to_vec::<i64>()[0])
    }

    /// A copy converted to `dtype` (a cheap clone when it already is).
    pub fn to_dtype(&self, dtype: DType) -> Tensor {
        if dtype == self.dtype() {
            return self.clone();
        }
        crate::dispatch!(dtype, T => {
            Tensor {
                storage: Arc::new(T::into_storage(self.to_vec::<T>())),
                layout: Layout::contiguous(self.shape()),
                view: false,
            }
        })
    }

    /// This tensor in row-major order starting at offset 0 (copies only when needed).
    pub fn contiguous(&self) -> Tensor {
        if self.covers_storage() {
            return self.clone();
        }
        self.copied()
    }

    /// Prepares for a write through this value: a buffer shared with other values, or a
    /// broadcast layout that repeats elements, is replaced by a private copy of just
    /// this tensor's elements. Call before computing a region to `assign` to.
    pub fn make_writable(&mut self) {
        let repeats = self
            .layout
            .strides
            .iter()
            .zip(&self.layout.shape)
            .any(|(&s, &d)| s == 0 && d > 1);
        if repeats || Arc::strong_count(&self.storage) > 1 {
            *self = self.copied();
        }
    }

    fn axis(&self, op: &str, axis: i64) -> Result<usize> {
        normalize_axis(op, axis, self.ndim())
    }

    pub fn slice(&self, axis: i64, spec: SliceSpec) -> Result<Tensor> {
        let a = self.axis("slice", axis)?;
        Ok(self.with_layout(self.layout.slice(a, spec)?))
    }

    pub fn select(&self, axis: i64, index: i64) -> Result<Tensor> {
        let a = self.axis("index", axis)?;
        Ok(self.with_layout(self.layout.select(a, index)?))
    }

    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        let a = self.axis("transpose", d0)?;
        let b = self.axis("transpose", d1)?;
        Ok(self.with_layout(self.layout.transpose(a, b)))
    }

    pub fn permute(&self, dims: &[i64]) -> Result<Tensor> {
        Ok(self.with_layout(self.layout.permute(dims)?))
    }

    /// A read-only view of `shape` (stride 0 on the broadcast dims). It is held to the
    /// memory limit although it allocates nothing, so that it can always be copied.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        let layout = self.layout.broadcast_to(shape)?;
        super::budget::check("broadcast", shape, self.dtype())?;
        Ok(self.with_layout(layout))
    }

    pub fn unsqueeze(&self, axis: i64) -> Result<Tensor> {
        check_op_rank("unsqueeze", self.ndim() + 1)?;
        let a = normalize_axis("unsqueeze", axis, self.ndim() + 1)?;
        Ok(self.with_layout(self.layout.unsqueeze(a)))
    }

    pub fn squeeze(&self, axes: Option<&[i64]>) -> Result<Tensor> {
        let axes = axes
            .map(|list| {
                list.iter()
                    .map(|&a| self.axis("squeeze", a))
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?;
        Ok(self.with_layout(self.layout.squeeze(axes.as_deref())?))
    }

    /// NumPy `reshape`: at most one `-1`; a view when the strides allow, else a copy.
    pub fn reshape(&self, dims: &[i64]) -> Result<Tensor> {
        let shape = infer_shape(self.numel(), self.shape(), dims)?;
        match self.layout.reshape_view(&shape) {
            Some(l) => Ok(self.with_layout(l)),
            None => {
                let mut t = self.copied();
                t.layout = Layout::contiguous(&shape);
                Ok(t)
            }
        }
    }

    /// Writes `src` (broadcast to `region`'s shape, cast to this dtype) into the
    /// elements `region` addresses, a layout over this tensor's storage (computed after
    /// `make_writable`). A storage still shared is copied whole first.
    pub fn assign(&mut self, region: &Layout, src: &Tensor) -> Result<()> {
        let src = src.broadcast_to(&region.shape).map_err(|_| {
            TensorError::shape(
                "assign",
                format!(
                    "cannot assign a value of shape {} to a region of shape {}",
                    shape_str(src.shape()),
                    shape_str(&region.shape)
                ),
            )
        })?;
        let storage = Arc::make_mut(&mut self.storage);
        crate::dispatch!(storage.dtype(), T => {
            let values = src.to_vec::<T>();
            if let Some(dst) = T::vec_mut(storage) {
                for (o, v) in StridedIter::new(region).zip(values) {
                    dst[o] = v;
                }
            }
        });
        Ok(())
    }

    /// Mutable access to the whole storage (copied first if shared), for in-place ops.
    pub fn storage_mut(&mut self) -> &mut Storage {
        Arc::make_mut(&mut self.storage)
    }
}

/// Resolves a reshape target with at most one `-1` against `numel` elements.
pub fn infer_shape(numel: usize, from: &[usize], dims: &[i64]) -> Result<Vec<usize>> {
    check_op_rank("reshape", dims.len())?;
    let err = || {
        TensorError::shape(
            "reshape",
            format!(
                "cannot reshape a tensor of shape {} ({numel} elements) into {:?}",
                shape_str(from),
                dims
            ),
        )
    };
    let mut unknown = None;
    let mut known = 1usize;
    for (i, &d) in dims.iter().enumerate() {
        if d == -1 {
            if unknown.replace(i).is_some() {
                return Err(TensorError::shape(
                    "reshape",
                    "only one dimension can be -1",
                ));
            }
        } else if d < 0 {
            return Err(TensorError::shape(
                "reshape",
                format!("invalid dimension {d}"),
            ));
        } else {
            known = known.checked_mul(d as usize).ok_or_else(err)?;
        }
    }
    let mut shape: Vec<usize> = dims.iter().map(|&d| d.max(0) as usize).collect();
    if let Some(i) = unknown {
        if known == 0 || !numel.is_multiple_of(known) {
            return Err(err());
        }
        shape[i] = numel / known;
    } else if known != numel {
        return Err(err());
    }
    Ok(shape)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<i64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn views_share_and_writes_copy() {
        let a = t((0..6).collect(), &[2, 3]);
        let v = a
            .slice(
                1,
                SliceSpec {
                    start: Some(1),
                    stop: None,
                    step: 1,
                },
            )
            .unwrap();
        assert!(!v.owns_data());
        assert_eq!(v.to_vec::<i64>(), vec![1, 2, 4, 5]);
        let mut b = a.clone();
        b.make_writable();
        let region = b.layout().select(0, 0).unwrap();
        b.assign(&region, &Tensor::scalar(9i64)).unwrap();
        assert_eq!(a.to_vec::<i64>(), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(b.to_vec::<i64>(), vec![9, 9, 9, 3, 4, 5]);
    }

    #[test]
    fn reshape_infers_and_copies_when_needed() {
        let a = t((0..6).collect(), &[2, 3]);
        assert_eq!(a.reshape(&[3, -1]).unwrap().shape(), &[3, 2]);
        assert!(a.reshape(&[4, -1]).is_err());
        assert!(a.reshape(&[-1, -1]).is_err());
        let tr = a.transpose(0, 1).unwrap();
        let flat = tr.reshape(&[-1]).unwrap();
        assert_eq!(flat.to_vec::<i64>(), vec![0, 3, 1, 4, 2, 5]);
        assert!(Tensor::zeros(DType::F32, &[0, 3])
            .unwrap()
            .reshape(&[-1, 0])
            .is_err());
    }

    #[test]
    fn casts_through_to_dtype() {
        let a = t(vec![1, -2, 300], &[3]);
        assert_eq!(a.to_dtype(DType::U8).to_vec::<u8>(), vec![1, 254, 44]);
        assert_eq!(
            a.to_dtype(DType::F32).to_vec::<f32>(),
            vec![1.0, -2.0, 300.0]
        );
    }
}

//! The cumulative sum along an axis or over the flattened tensor.

use crate::kernels::math::Arith;
use crate::kernels::reduce::scan_axis;
use crate::ops::{elems, output_buffer};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{Result, Tensor};

/// Running sums along `axis`, or over the flattened tensor when `None` (NumPy). Bool
/// and integers give i64; floats keep their dtype, accumulating in f32 for f16/bf16
/// (each prefix rounded once). The sum is sequential, like NumPy's.
pub fn cumsum(a: &Tensor, axis: Option<i64>) -> Result<Tensor> {
    let (a, axis) = match axis {
        None => (a.reshape(&[-1])?, 0),
        Some(axis) => (a.clone(), normalize_axis("cumsum", axis, a.ndim())?),
    };
    crate::dispatch!(a.dtype(), T => cumsum_as::<T>(&a, axis))
}

fn cumsum_as<T: Arith>(a: &Tensor, axis: usize) -> Result<Tensor> {
    let data = elems::<T>("cumsum", a)?;
    let step = |s: T::Acc, x: T| s.add(x.to_acc());
    let zero = T::Acc::default();
    if T::DTYPE.is_float() {
        let mut out = output_buffer("cumsum", a.shape(), T::default())?;
        scan_axis(&mut out, data, a.layout(), axis, zero, step, T::from_acc);
        Tensor::from_vec(out, a.shape())
    } else {
        let mut out = output_buffer("cumsum", a.shape(), zero)?;
        scan_axis(&mut out, data, a.layout(), axis, zero, step, |s| s);
        Tensor::from_vec(out, a.shape())
    }
}

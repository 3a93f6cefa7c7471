//! Scans along an axis or over the flattened tensor: the running sum, product,
//! maximum and minimum (`cumsum`, `cumprod`, `cummax`, `cummin`), one kernel
//! (`kernels::reduce::scan_axis`) stepped by each operation.

use crate::kernels::math::Arith;
use crate::kernels::reduce::scan_axis;
use crate::ops::{elems, output_buffer};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{Elem, Result, Tensor};

/// The operation a scan accumulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOp {
    Sum,
    Prod,
    Max,
    Min,
}

impl ScanOp {
    pub const fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
            ScanOp::Max => "cummax",
            ScanOp::Min => "cummin",
        }
    }
}

/// Running sums along `axis`, or over the flattened tensor when `None` (NumPy). Bool
/// and integers give i64; floats keep their dtype, accumulating in f32 for f16/bf16
/// (each prefix rounded once). The sum is sequential, like NumPy's.
pub fn cumsum(a: &Tensor, axis: Option<i64>) -> Result<Tensor> {
    scan(ScanOp::Sum, a, axis)
}

/// The running `op` along `axis`, or over the flattened tensor when `None` (NumPy's
/// `cumsum`, `cumprod`, `maximum.accumulate`, `minimum.accumulate`). Sums and products
/// are sequential in the accumulator type (bool and integers give i64, wrapping; f16
/// and bf16 accumulate in f32 and round each prefix once); the running max and min keep
/// the dtype, and a NaN stays from where it first appears (NumPy).
pub fn scan(op: ScanOp, a: &Tensor, axis: Option<i64>) -> Result<Tensor> {
    let (a, axis) = match axis {
        None => (a.reshape(&[-1])?, 0),
        Some(axis) => (a.clone(), normalize_axis(op.name(), axis, a.ndim())?),
    };
    crate::dispatch!(a.dtype(), T => scan_as::<T>(op, &a, axis))
}

fn scan_as<T: Arith>(op: ScanOp, a: &Tensor, axis: usize) -> Result<Tensor> {
    let name = op.name();
    let data = elems::<T>(name, a)?;
    let total = |step: fn(T::Acc, T::Acc) -> T::Acc, init: T::Acc| -> Result<Tensor> {
        let step = |s: T::Acc, x: T| step(s, x.to_acc());
        if T::DTYPE.is_float() {
            let mut out = output_buffer(name, a.shape(), T::default())?;
            scan_axis(&mut out, data, a.layout(), axis, init, step, T::from_acc);
            Tensor::from_vec(out, a.shape())
        } else {
            let mut out = output_buffer(name, a.shape(), init)?;
            scan_axis(&mut out, data, a.layout(), axis, init, step, |s| s);
            Tensor::from_vec(out, a.shape())
        }
    };
    // The running extreme starts from the lane's first element: no identity needed.
    let extreme = |pick: fn(T, T) -> T| -> Result<Tensor> {
        let mut out = output_buffer(name, a.shape(), T::default())?;
        let step = |s: Option<T>, x: T| Some(s.map_or(x, |s| pick(s, x)));
        scan_axis(&mut out, data, a.layout(), axis, None, step, |s| {
            s.unwrap_or_default()
        });
        Tensor::from_vec(out, a.shape())
    };
    match op {
        ScanOp::Sum => total(T::Acc::add, T::Acc::default()),
        ScanOp::Prod => total(T::Acc::mul, T::Acc::from_i64(1)),
        ScanOp::Max => extreme(T::maximum),
        ScanOp::Min => extreme(T::minimum),
    }
}

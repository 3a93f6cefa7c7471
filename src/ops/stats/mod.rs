//! Statistics beyond the reductions and order statistics: `diff`, `histogram`,
//! `bincount`, `cov` and `corrcoef`, `average`, and the folding of several axes into
//! one that lets the order statistics take a list of axes.

mod average;
mod bincount;
mod cov;
mod diff;
mod fold_axes;
mod histogram;

pub use average::average;
pub use bincount::bincount;
pub use cov::{corrcoef, cov};
pub use diff::diff;
pub use fold_axes::{merge_reduced, order_stat_over};
pub use histogram::{histogram, Bins};

use crate::tensor::{DType, Result, Tensor, TensorError};

/// Rounds an f64 to the nearest value of the float `dtype` (identity for f64 and the
/// integer dtypes): an f64 computation rounded after each step does the step exactly as
/// the narrower float would, which is how NumPy's f32/f16 arithmetic is mirrored.
pub(crate) fn rounding(dtype: DType) -> fn(f64) -> f64 {
    match dtype {
        DType::F32 => |v| v as f32 as f64,
        DType::F16 => |v| half::f16::from_f64(v).to_f64(),
        DType::BF16 => |v| half::bf16::from_f64(v).to_f64(),
        _ => |v| v,
    }
}

/// Weights must have the shape of the values they weigh.
fn check_weights(op: &str, x: &Tensor, weights: Option<&Tensor>) -> Result<()> {
    match weights {
        Some(w) if w.shape() != x.shape() => Err(TensorError::shape(
            op,
            format!(
                "weights must have the shape of x, {:?}, got {:?}",
                x.shape(),
                w.shape()
            ),
        )),
        _ => Ok(()),
    }
}

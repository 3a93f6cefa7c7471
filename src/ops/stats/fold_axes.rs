//! Several axes folded into one, so that a statistic of one axis (the order statistics
//! of `ops::sort`) covers a list of axes, with NumPy's `keepdims`.

use crate::ops::reduce::reduced_dims;
use crate::tensor::{Result, Tensor};

/// `stat(t, axis)` over `axes` of `x` (all when `None`): one axis is passed through;
/// several (or none, `[]`) are moved last and merged into one, in a copy. The result
/// keeps whatever `stat` puts before the reduced shape (the shape of `q`); with
/// `keepdim` the reduced axes stay as size 1.
pub fn order_stat_over(
    op: &str,
    x: &Tensor,
    axes: Option<&[i64]>,
    keepdim: bool,
    stat: impl FnOnce(&Tensor, Option<i64>) -> Result<Tensor>,
) -> Result<Tensor> {
    let ndim = x.ndim();
    let reduced = reduced_dims(op, ndim, axes)?;
    let r = match axes {
        None => stat(x, None)?,
        Some(&[a]) => stat(x, Some(a))?,
        Some(_) => stat(&merge_reduced(x, &reduced)?, Some(-1))?,
    };
    if !keepdim {
        return Ok(r);
    }
    // The result is `lead` (q's shape) followed by the kept dims: put back size-1 dims.
    let kept = reduced.iter().filter(|&&f| !f).count();
    let lead = r.ndim() - kept;
    let mut shape: Vec<i64> = r.shape()[..lead].iter().map(|&d| d as i64).collect();
    shape.extend((0..ndim).map(|d| if reduced[d] { 1 } else { x.shape()[d] as i64 }));
    r.reshape(&shape)
}

/// x with the axes flagged in `reduced` moved last and merged into one, in a
/// copy; the other axes keep their order.
pub fn merge_reduced(x: &Tensor, reduced: &[bool]) -> Result<Tensor> {
    let ndim = x.ndim();
    let kept: Vec<usize> = (0..ndim).filter(|&d| !reduced[d]).collect();
    let folded: Vec<usize> = (0..ndim).filter(|&d| reduced[d]).collect();
    let perm: Vec<i64> = kept.iter().chain(&folded).map(|&d| d as i64).collect();
    let mut shape: Vec<i64> = kept.iter().map(|&d| x.shape()[d] as i64).collect();
    shape.push(folded.iter().map(|&d| x.shape()[d] as i64).product());
    x.permute(&perm)?.contiguous().reshape(&shape)
}

//! The adjoints of 2-d pooling, for gradients: max pooling's gradient goes to the
//! element each window took (its first maximum; a NaN wins, as in the forward), an
//! average's is spread evenly over the window's taps. Plane by plane, in output
//! order, so repeated positions accumulate in a fixed order.

use super::pool::{planes, pool_axes, PoolParams};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Result, Tensor, TensorError};

/// For each output element of `max_pool2d(x, p)` in row-major order, the flat index
/// in x of the element its window took (`None` for a window wholly in the padding).
pub fn max_pool2d_positions(x: &Tensor, p: &PoolParams) -> Result<Vec<Option<usize>>> {
    let op = "max_pool2d";
    let (x4, _) = planes(op, x)?;
    let [rows, cols] = pool_axes(op, &x4, p, false)?;
    let (h, w) = (x4.shape()[2], x4.shape()[3]);
    let data = x4.to_vec::<f64>();
    let mut out =
        Vec::with_capacity(x4.shape()[0] * x4.shape()[1] * rows.taps.len() * cols.taps.len());
    for plane in 0..x4.shape()[0] * x4.shape()[1] {
        let base = plane * h * w;
        for r_taps in &rows.taps {
            for c_taps in &cols.taps {
                let mut best: Option<(usize, f64)> = None;
                for &r in r_taps {
                    for &c in c_taps {
                        let at = base + r * w + c;
                        let v = data[at];
                        let better = match best {
                            None => true,
                            Some((_, b)) => !b.is_nan() && (v > b || v.is_nan()),
                        };
                        if better {
                            best = Some((at, v));
                        }
                    }
                }
                out.push(best.map(|(at, _)| at));
            }
        }
    }
    Ok(out)
}

/// Zeros of `shape` with `g`'s elements (row-major) added at `positions`.
pub fn scatter_positions(
    g: &Tensor,
    positions: &[Option<usize>],
    shape: &[usize],
) -> Result<Tensor> {
    check_count("max_pool2d", g, positions.len())?;
    let n: usize = shape.iter().product();
    let mut out = vec![0f64; n];
    for (v, at) in g.to_vec::<f64>().into_iter().zip(positions) {
        if let Some(&i) = at.as_ref() {
            out[i] += v;
        }
    }
    Ok(Tensor::from_vec(out, shape)?.to_dtype(g.dtype()))
}

/// The elements of `x` at `positions`, shaped `shape` (0 for `None`): the adjoint of
/// [`scatter_positions`].
pub fn gather_positions(
    x: &Tensor,
    positions: &[Option<usize>],
    shape: &[usize],
) -> Result<Tensor> {
    let data = x.to_vec::<f64>();
    let out: Vec<f64> = positions
        .iter()
        .map(|at| at.map_or(0.0, |i| data[i]))
        .collect();
    Ok(Tensor::from_vec(out, shape)?.to_dtype(x.dtype()))
}

/// The gradient of `avg_pool2d(x, p, count_include_pad)` for the output gradient `g`:
/// each window's g divided by its divisor, added to each of its taps.
pub fn avg_pool2d_backward(
    x: &Tensor,
    g: &Tensor,
    p: &PoolParams,
    count_include_pad: bool,
) -> Result<Tensor> {
    let op = "avg_pool2d";
    let (x4, _) = planes(op, x)?;
    let [rows, cols] = pool_axes(op, &x4, p, count_include_pad)?;
    let (h, w) = (x4.shape()[2], x4.shape()[3]);
    let planes_n = x4.shape()[0] * x4.shape()[1];
    check_count(op, g, planes_n * rows.taps.len() * cols.taps.len())?;
    let gv = g.to_vec::<f64>();
    let mut out = vec![0f64; x.numel()];
    let mut k = 0;
    for plane in 0..planes_n {
        let base = plane * h * w;
        for (r_taps, &rd) in rows.taps.iter().zip(&rows.divisors) {
            for (c_taps, &cd) in cols.taps.iter().zip(&cols.divisors) {
                let share = gv[k] / (rd as f64 * cd as f64);
                k += 1;
                for &r in r_taps {
                    for &c in c_taps {
                        out[base + r * w + c] += share;
                    }
                }
            }
        }
    }
    let dtype = if g.dtype().is_float() {
        g.dtype()
    } else {
        DType::F32
    };
    Ok(Tensor::from_vec(out, x.shape())?.to_dtype(dtype))
}

fn check_count(op: &str, g: &Tensor, want: usize) -> Result<()> {
    if g.numel() != want {
        return Err(TensorError::shape(
            op,
            format!(
                "internal: a gradient of shape {} for {want} pooled elements",
                shape_str(g.shape())
            ),
        ));
    }
    Ok(())
}

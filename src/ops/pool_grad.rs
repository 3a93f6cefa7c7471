//! The adjoints of 2-d pooling (adaptive too), for gradients: max pooling's gradient goes to the
//! element each window took (its first maximum; a NaN wins, as in the forward), an
//! average's is spread evenly over the window's taps. Plane by plane, in output
//! order, so repeated positions accumulate in a fixed order.

use super::pool::{adaptive_axis, adaptive_size, planes, pool_axes, Axis, PoolParams};
use super::{elems, output_buffer};
use crate::kernels::isa::Isa;
use crate::kernels::math::Arith;
use crate::kernels::pool::{for_each_plane, max_positions};
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Result, Tensor, TensorError};

/// For each output element of `max_pool2d(x, p)` in row-major order, the flat index
/// in x of the element its window took (`None` for a window wholly in the padding).
pub fn max_pool2d_positions(x: &Tensor, p: &PoolParams) -> Result<Vec<Option<usize>>> {
    let op = "max_pool2d";
    let (x4, _) = planes(op, x)?;
    let axes = pool_axes(op, &x4, p, false)?;
    window_positions(op, &x4, &axes)
}

/// For each output element of `adaptive_max_pool2d(x, output_size)` in row-major
/// order, the flat index in x of the element its window took; and the output's shape.
pub fn adaptive_max_pool2d_positions(
    x: &Tensor,
    output_size: [Option<usize>; 2],
) -> Result<(Vec<Option<usize>>, Vec<usize>)> {
    let op = "adaptive_max_pool2d";
    let (x4, [oh, ow], _) = adaptive_size(op, x, output_size)?;
    let planes_n = x4.shape()[0] * x4.shape()[1];
    // Checked before the windows are built: an absurd output_size is an error.
    let count = planes_n
        .checked_mul(oh)
        .and_then(|n| n.checked_mul(ow))
        .ok_or_else(|| TensorError::value(op, "output_size is too large"))?;
    output_buffer(op, &[count], 0u8)?;
    let axes = [
        adaptive_axis(x4.shape()[2], oh),
        adaptive_axis(x4.shape()[3], ow),
    ];
    let positions = window_positions(op, &x4, &axes)?;
    let mut shape = x.shape()[..x.ndim() - 2].to_vec();
    shape.extend([oh, ow]);
    Ok((positions, shape))
}

/// The flat index of each window's element that max pooling takes, windows in
/// row-major output order; planes in parallel (each window's index depends on its
/// plane alone).
fn window_positions(op: &str, x4: &Tensor, [rows, cols]: &[Axis; 2]) -> Result<Vec<Option<usize>>> {
    let x4 = x4.contiguous();
    let planes_n = x4.shape()[0] * x4.shape()[1];
    let plane_len = x4.shape()[2] * x4.shape()[3];
    let w = x4.shape()[3];
    let per_plane = rows.taps.len() * cols.taps.len();
    if planes_n == 0 || plane_len == 0 || per_plane == 0 {
        return Ok(vec![None; planes_n * per_plane]);
    }
    crate::dispatch!(x4.dtype(), T => {
        let data = elems::<T>(op, &x4)?;
        let mut out = vec![None; planes_n * per_plane];
        let isa = Isa::detect();
        for_each_plane(&mut out, per_plane, &data[..planes_n * plane_len], plane_len, |plane, dst| {
            max_positions(isa, dst, plane, w, &rows.taps, &cols.taps)
        });
        // Indices in the plane, made flat.
        for (i, at) in out.iter_mut().enumerate() {
            if let Some(at) = at {
                *at += i / per_plane * plane_len;
            }
        }
        Ok(out)
    })
}

/// Zeros of `shape` with `g`'s elements (row-major) added at `positions`, in g's
/// dtype, in order.
pub fn scatter_positions(
    g: &Tensor,
    positions: &[Option<usize>],
    shape: &[usize],
) -> Result<Tensor> {
    check_count("max_pool2d", g, positions.len())?;
    let g = g.contiguous();
    crate::dispatch!(g.dtype(), T => {
        let src = elems::<T>("max_pool2d", &g)?;
        let mut out = output_buffer("max_pool2d", shape, T::default())?;
        for (&v, at) in src.iter().zip(positions) {
            if let Some(&i) = at.as_ref() {
                let slot = out.get_mut(i).ok_or_else(outside)?;
                *slot = slot.add(v);
            }
        }
        Tensor::from_vec(out, shape)
    })
}

/// The elements of `x` at `positions`, shaped `shape` (0 for `None`): the adjoint of
/// [`scatter_positions`].
pub fn gather_positions(
    x: &Tensor,
    positions: &[Option<usize>],
    shape: &[usize],
) -> Result<Tensor> {
    let x = x.contiguous();
    crate::dispatch!(x.dtype(), T => {
        let src = elems::<T>("max_pool2d", &x)?;
        let out = positions
            .iter()
            .map(|at| match at {
                Some(i) => src.get(*i).copied().ok_or_else(outside),
                None => Ok(T::default()),
            })
            .collect::<Result<Vec<T>>>()?;
        Tensor::from_vec(out, shape)
    })
}

fn outside() -> TensorError {
    TensorError::value("max_pool2d", "internal error: a position outside the input")
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
    let axes = pool_axes(op, &x4, p, count_include_pad)?;
    spread_windows(op, x, &x4, g, &axes)
}

/// The gradient of `adaptive_avg_pool2d(x, output_size)` for the output gradient
/// `g`: each window's g divided by its size, added to each of its taps.
pub fn adaptive_avg_pool2d_backward(
    x: &Tensor,
    g: &Tensor,
    output_size: [Option<usize>; 2],
) -> Result<Tensor> {
    let op = "adaptive_avg_pool2d";
    let (x4, [oh, ow], _) = adaptive_size(op, x, output_size)?;
    check_count(op, g, x4.shape()[0] * x4.shape()[1] * oh * ow)?;
    let axes = [
        adaptive_axis(x4.shape()[2], oh),
        adaptive_axis(x4.shape()[3], ow),
    ];
    spread_windows(op, x, &x4, g, &axes)
}

/// Zeros shaped as x with each window's `g` over its divisor added to its taps.
fn spread_windows(
    op: &str,
    x: &Tensor,
    x4: &Tensor,
    g: &Tensor,
    [rows, cols]: &[Axis; 2],
) -> Result<Tensor> {
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

//! 2-d pooling with `torch.nn.functional` semantics over [N, C, H, W] (or [C, H, W]):
//! max and average pooling with strides, padding, dilation and ceil mode, adaptive
//! average pooling, and global pooling.
//!
//! Dtypes: max pooling keeps the dtype; average pooling gives the float result dtype
//! (ints give f32) and sums in f32 (f64 for f64), rounding once.

use super::conv::{batched, check_lists, dilated_span, positive, too_large, unbatch};
use super::nn::compute;
use super::{elems, new_tensor, output_buffer, reduce, ReduceOp};
use crate::kernels::conv::Dim;
use crate::kernels::isa::Isa;
use crate::kernels::pool::{
    for_each_plane, max_pool_new, max_pool_plane, max_pool_plane_f32, pool2d, ColumnTaps, MaxPool,
    MaxPoolPlane,
};
use crate::kernels::reduce::pairwise_sum;
use crate::tensor::shape::shape_str;
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// The options of `max_pool2d`/`avg_pool2d`, lists with one entry per spatial dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolParams {
    pub kernel_size: Vec<usize>,
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub dilation: Vec<usize>,
    pub ceil_mode: bool,
}

/// The input indices each output position reads along one axis, and the divisor an
/// average over them uses.
pub(super) struct Axis {
    pub taps: Vec<Vec<usize>>,
    pub divisors: Vec<usize>,
}

/// `max_pool2d`: the largest element of each window (NaN if the window holds one); a
/// window lying entirely in the padding gives the dtype's lowest value (-inf).
pub fn max_pool2d(x: &Tensor, p: &PoolParams) -> Result<Tensor> {
    let op = "max_pool2d";
    let (x, unbatched) = planes(op, x)?;
    let [rows, cols] = pool_axes(op, &x, p, false)?;
    let size = [rows.taps.len(), cols.taps.len()];
    // Column windows are regular: tap k of output o reads o * stride + k * dilation - pad.
    // Only the taps that land inside the row for some output are listed (the others
    // read padding), so a huge kernel with as much padding costs nothing. pool_axes
    // bounded the dilated kernel by isize::MAX and (size[1] - 1) * stride by the
    // padded width, so none of this overflows.
    let (width, s, pad, dil) = (x.shape()[3], p.stride[1], p.padding[1], p.dilation[1]);
    let reach = (size[1] - 1) * s;
    let first = pad.saturating_sub(reach).div_ceil(dil);
    let end = ((pad + width - 1) / dil + 1).min(p.kernel_size[1]);
    let cols = ColumnTaps {
        stride: s,
        offsets: (first..end.max(first))
            .map(|k| (k * dil) as isize - pad as isize)
            .collect(),
    };
    let out = match x.dtype() {
        DType::F32 => max_pool_as(&x, size, &rows.taps, &cols, max_pool_plane_f32),
        dtype => crate::dispatch!(dtype, T => {
            max_pool_as::<T>(&x, size, &rows.taps, &cols, max_pool_plane)
        }),
    }?;
    unbatch(out, unbatched)
}

/// Max pooling of every plane with the vectorized `kernel`.
fn max_pool_as<T: Elem>(
    x: &Tensor,
    size: [usize; 2],
    rows: &[Vec<usize>],
    cols: &ColumnTaps,
    kernel: MaxPoolPlane<T>,
) -> Result<Tensor> {
    let op = "max_pool2d";
    let xs = x.shape();
    let shape = [xs[0], xs[1], size[0], size[1]];
    if shape.contains(&0) {
        return Tensor::from_vec(Vec::<T>::new(), &shape);
    }
    let x = x.contiguous();
    let data = elems::<T>(op, &x)?;
    let p = MaxPool {
        width: xs[3],
        rows,
        cols,
        lowest: T::from_f64(lowest(T::DTYPE)),
    };
    let (in_plane, out_plane) = (xs[2] * xs[3], size[0] * size[1]);
    new_tensor(op, &shape, || {
        max_pool_new(Isa::detect(), kernel, data, in_plane, out_plane, &p)
    })
}

/// `avg_pool2d`: the mean of each window. With `count_include_pad` the divisor counts
/// the padding zeros inside the padded input (not the part of a ceil-mode window past
/// it), otherwise only the input elements, as in PyTorch.
pub fn avg_pool2d(x: &Tensor, p: &PoolParams, count_include_pad: bool) -> Result<Tensor> {
    let op = "avg_pool2d";
    let (x, unbatched) = planes(op, x)?;
    let [rows, cols] = pool_axes(op, &x, p, count_include_pad)?;
    let size = [rows.taps.len(), cols.taps.len()];
    unbatch(average(op, &x, size, || [rows, cols])?, unbatched)
}

/// `adaptive_avg_pool2d`: an output of `output_size` (an entry of `None` keeps that
/// input size) where output element `o` of an axis of size `n` averages inputs
/// floor(o·n/out) up to ceil((o+1)·n/out), PyTorch's windows.
pub fn adaptive_avg_pool2d(x: &Tensor, output_size: [Option<usize>; 2]) -> Result<Tensor> {
    let op = "adaptive_avg_pool2d";
    let (x, [oh, ow], unbatched) = adaptive_size(op, x, output_size)?;
    let (h, w) = (x.shape()[2], x.shape()[3]);
    // The axes are built after the output is allocated: an absurd output_size fails
    // there, as an error.
    let axes = || [adaptive_axis(h, oh), adaptive_axis(w, ow)];
    unbatch(average(op, &x, [oh, ow], axes)?, unbatched)
}

/// An adaptive pool's windows along an axis of `n` inputs and `out` outputs:
/// output `o` reads floor(o·n/out) up to ceil((o+1)·n/out).
pub(super) fn adaptive_axis(n: usize, out: usize) -> Axis {
    let taps: Vec<Vec<usize>> = (0..out)
        .map(|o| (o * n / out..((o + 1) * n).div_ceil(out)).collect())
        .collect();
    let divisors = taps.iter().map(Vec::len).collect();
    Axis { taps, divisors }
}

/// The output size of an adaptive pool of `x` (an entry of `None` keeps that
/// input size), checked, and whether x was unbatched.
pub(super) fn adaptive_size(
    op: &str,
    x: &Tensor,
    output_size: [Option<usize>; 2],
) -> Result<(Tensor, [usize; 2], bool)> {
    let (x, unbatched) = planes(op, x)?;
    let (h, w) = (x.shape()[2], x.shape()[3]);
    let size = [output_size[0].unwrap_or(h), output_size[1].unwrap_or(w)];
    positive(op, "output_size", &size)?;
    Ok((x, size, unbatched))
}

/// `global_avg_pool2d` (`ReduceOp::Mean`) and `global_max_pool2d` (`ReduceOp::Max`):
/// one value per channel, shape [N, C, 1, 1] (or [C, 1, 1]).
pub fn global_pool2d(x: &Tensor, op: ReduceOp) -> Result<Tensor> {
    let name = match op {
        ReduceOp::Max => "global_max_pool2d",
        _ => "global_avg_pool2d",
    };
    let (x4, unbatched) = batched(name, x, 2)?;
    if op == ReduceOp::Mean && x.dtype() == DType::F32 && x.numel() > 0 {
        return unbatch(global_mean_f32(&x4)?, unbatched);
    }
    reduce(op, x, Some(&[-2, -1]), true)
}

/// The mean of each (non-empty) [H, W] plane of a non-empty f32 `x`, in parallel over
/// planes: the same bits as `reduce`'s mean (the pairwise sum in f32 over the plane's
/// size in f64, rounded once), without its lane bookkeeping, which on small planes
/// costs more than the sums.
fn global_mean_f32(x: &Tensor) -> Result<Tensor> {
    let op = "global_avg_pool2d";
    let xs = x.shape();
    let shape = [xs[0], xs[1], 1, 1];
    let mut out = output_buffer(op, &shape, 0f32)?;
    let x = x.contiguous();
    let data = elems::<f32>(op, &x)?;
    let plane = xs[2] * xs[3];
    for_each_plane(&mut out, 1, data, plane, |src, dst| {
        dst[0] = (f64::from(pairwise_sum(src, |v| v)) / plane as f64) as f32;
    });
    Tensor::from_vec(out, &shape)
}

/// `x` as [N, C, H, W] with a non-empty plane, and whether it was unbatched.
pub(super) fn planes(op: &str, x: &Tensor) -> Result<(Tensor, bool)> {
    let (x, unbatched) = batched(op, x, 2)?;
    if x.shape()[2] == 0 || x.shape()[3] == 0 {
        let msg = format!(
            "x must have a non-empty height and width, got shape {}",
            shape_str(x.shape())
        );
        return Err(TensorError::shape(op, msg));
    }
    Ok((x, unbatched))
}

/// The average of every window, in the float result dtype.
fn average(
    op: &str,
    x: &Tensor,
    size: [usize; 2],
    axes: impl FnOnce() -> [Axis; 2],
) -> Result<Tensor> {
    let dtype = x.dtype().float_result();
    let out = compute!(dtype, C => {
        let x = x.to_dtype(C::DTYPE);
        pool_as::<C, C>(op, &x, size, axes, |w, count| pairwise_sum(w, |v| v) / count as C)?
    });
    Ok(out.to_dtype(dtype))
}

/// Applies `f(window, divisor)` to every window of every [H, W] plane of `x`, for an
/// output of `size` [out_h, out_w] whose windows `axes` gives.
fn pool_as<T: Elem, O: Elem>(
    op: &str,
    x: &Tensor,
    size: [usize; 2],
    axes: impl FnOnce() -> [Axis; 2],
    f: impl Fn(&[T], u128) -> O + Sync,
) -> Result<Tensor> {
    let xs = x.shape();
    let shape = [xs[0], xs[1], size[0], size[1]];
    let mut out = output_buffer(op, &shape, O::default())?;
    if out.is_empty() {
        return Tensor::from_vec(out, &shape);
    }
    let [rows, cols] = axes();
    // In u128: the padding may make each divisor nearly 2^63.
    let reduce =
        |w: &[T], oh: usize, ow: usize| f(w, rows.divisors[oh] as u128 * cols.divisors[ow] as u128);
    let x = x.contiguous();
    let data = elems::<T>(op, &x)?;
    // The output is not empty and the input plane never is.
    let (plane, out_plane) = (xs[2] * xs[3], shape[2] * shape[3]);
    for_each_plane(&mut out, out_plane, data, plane, |src, dst| {
        pool2d(dst, src, xs[3], &rows.taps, &cols.taps, &reduce)
    });
    Tensor::from_vec(out, &shape)
}

/// The windows of max/avg pooling along H and W, after PyTorch's checks.
pub(super) fn pool_axes(
    op: &str,
    x: &Tensor,
    p: &PoolParams,
    count_pad: bool,
) -> Result<[Axis; 2]> {
    let lists = [
        ("kernel_size", &p.kernel_size[..]),
        ("stride", &p.stride),
        ("padding", &p.padding),
        ("dilation", &p.dilation),
    ];
    check_lists(op, 2, &lists)?;
    positive(op, "kernel_size", &p.kernel_size)?;
    positive(op, "stride", &p.stride)?;
    positive(op, "dilation", &p.dilation)?;
    let axis = |d: usize| -> Result<Axis> {
        let (size, k, s) = (x.shape()[d + 2], p.kernel_size[d], p.stride[d]);
        let (pad, dil) = (p.padding[d], p.dilation[d]);
        let span = dilated_span(op, k, dil)?;
        // Window offsets are signed (see max_pool2d): no window may be longer than that.
        if isize::try_from(span).is_err() {
            return Err(too_large(op));
        }
        if pad > span / 2 {
            let msg = format!(
                "padding must be at most half of the (dilated) kernel size, got padding {:?} with kernel_size {:?} and dilation {:?}",
                p.padding, p.kernel_size, p.dilation
            );
            return Err(TensorError::value(op, msg));
        }
        let out = pool_out(size, span, s, pad, p.ceil_mode);
        if out < 1 {
            let msg = format!(
                "the output would be empty along spatial dim {d}: x of shape {}, kernel_size {:?}, stride {:?}, padding {:?}, dilation {:?}",
                shape_str(x.shape()), p.kernel_size, p.stride, p.padding, p.dilation
            );
            return Err(TensorError::shape(op, msg));
        }
        let dim = Dim {
            image: size,
            kernel: k,
            out: out as usize,
            stride: s,
            pad,
            dilation: dil,
        };
        let taps: Vec<Vec<usize>> = (0..dim.out).map(|o| dim.taps(o).collect()).collect();
        let divisors = (0..dim.out)
            .zip(&taps)
            .map(|(o, t)| {
                // The window [o·s, o·s + k) in padded coordinates, clipped to the padded input.
                let start = o * s;
                let padded_end = size.saturating_add(pad.saturating_mul(2));
                let padded_len = start.saturating_add(k).min(padded_end) - start;
                if count_pad {
                    padded_len
                } else {
                    t.len()
                }
            })
            .collect();
        Ok(Axis { taps, divisors })
    };
    Ok([axis(0)?, axis(1)?])
}

/// PyTorch's pooling output size: floor (or ceil) of (size + 2·pad − span) / stride
/// plus one, where a ceil-mode window must start inside the input or its left padding.
fn pool_out(size: usize, span: usize, stride: usize, pad: usize, ceil_mode: bool) -> i128 {
    let (size, span, stride, pad) = (size as i128, span as i128, stride as i128, pad as i128);
    let room = size + 2 * pad - span + if ceil_mode { stride - 1 } else { 0 };
    let mut out = room.div_euclid(stride) + 1;
    if ceil_mode && (out - 1) * stride >= size + pad {
        out -= 1;
    }
    out
}

/// The lowest value of a dtype as f64: -inf for floats, the minimum for integers.
fn lowest(dtype: DType) -> f64 {
    match dtype {
        DType::Bool | DType::U8 | DType::U16 | DType::U32 | DType::U64 => 0.0,
        DType::I8 => f64::from(i8::MIN),
        DType::I16 => f64::from(i16::MIN),
        DType::I32 => f64::from(i32::MIN),
        DType::I64 => i64::MIN as f64,
        _ => f64::NEG_INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_close, assert_tensor, tensor, values, views};
    use DType::*;

    #[derive(Clone, Copy, Debug)]
    enum Mode {
        Max,
        Avg { count_pad: bool },
    }

    /// PyTorch's CPU pooling loops written out plainly for one [h, w] plane.
    fn naive(
        plane: &[f64],
        h: usize,
        w: usize,
        p: &PoolParams,
        mode: Mode,
    ) -> Option<(usize, usize, Vec<f64>)> {
        let size = |d: usize, n: usize| -> Option<usize> {
            let (k, s, pad, dil) = (p.kernel_size[d], p.stride[d], p.padding[d], p.dilation[d]);
            let span = (dil * (k - 1) + 1) as f64;
            let exact = (n as f64 + 2.0 * pad as f64 - span) / s as f64;
            let mut out = if p.ceil_mode {
                exact.ceil()
            } else {
                exact.floor()
            } as i64
                + 1;
            if p.ceil_mode && (out - 1) * s as i64 >= (n + pad) as i64 {
                out -= 1;
            }
            (out >= 1 && 2 * pad <= span as usize).then_some(out as usize)
        };
        let (oh, ow) = (size(0, h)?, size(1, w)?);
        let mut out = vec![];
        for i in 0..oh {
            for j in 0..ow {
                let h0 = (i * p.stride[0]) as i64 - p.padding[0] as i64;
                let w0 = (j * p.stride[1]) as i64 - p.padding[1] as i64;
                let at = |r: i64, c: i64| {
                    ((0..h as i64).contains(&r) && (0..w as i64).contains(&c))
                        .then(|| plane[r as usize * w + c as usize])
                };
                out.push(match mode {
                    Mode::Max => {
                        let mut m = f64::NEG_INFINITY;
                        for a in 0..p.kernel_size[0] {
                            for b in 0..p.kernel_size[1] {
                                let r = h0 + (a * p.dilation[0]) as i64;
                                let c = w0 + (b * p.dilation[1]) as i64;
                                if let Some(v) = at(r, c) {
                                    m = if v.is_nan() || m.is_nan() {
                                        f64::NAN
                                    } else {
                                        m.max(v)
                                    };
                                }
                            }
                        }
                        m
                    }
                    Mode::Avg { count_pad } => {
                        let h1 = (h0 + p.kernel_size[0] as i64).min((h + p.padding[0]) as i64);
                        let w1 = (w0 + p.kernel_size[1] as i64).min((w + p.padding[1]) as i64);
                        let pool_size = (h1 - h0) * (w1 - w0);
                        let (hs, he) = (h0.max(0), h1.min(h as i64));
                        let (ws, we) = (w0.max(0), w1.min(w as i64));
                        let mut sum = 0.0;
                        for r in hs..he {
                            for c in ws..we {
                                sum += at(r, c).unwrap();
                            }
                        }
                        let count = if count_pad {
                            pool_size
                        } else {
                            (he - hs) * (we - ws)
                        };
                        sum / count as f64
                    }
                });
            }
        }
        Some((oh, ow, out))
    }

    fn random_params(seed: u64, dilated: bool) -> PoolParams {
        let mut s = seed;
        let mut next = |lo: usize, hi: usize| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + ((s >> 33) as usize) % (hi - lo + 1)
        };
        let kernel_size = vec![next(1, 4), next(1, 4)];
        PoolParams {
            stride: vec![next(1, 3), next(1, 3)],
            padding: vec![next(0, 2), next(0, 2)],
            dilation: if dilated {
                vec![next(1, 2), next(1, 2)]
            } else {
                vec![1, 1]
            },
            ceil_mode: next(0, 1) == 1,
            kernel_size,
        }
    }

    #[test]
    fn max_and_avg_pool_match_pytorchs_loops() {
        let (h, w) = (7, 6);
        let vals: Vec<f64> = (0..2 * 3 * h * w)
            .map(|i| ((i * 37) % 23) as f64 - 11.0)
            .collect();
        let x = tensor(&vals, &[2, 3, h, w], F64);
        let mut checked = 0;
        for seed in 0..300 {
            for mode in [
                Mode::Max,
                Mode::Avg { count_pad: true },
                Mode::Avg { count_pad: false },
            ] {
                let p = random_params(seed, matches!(mode, Mode::Max));
                let got = match mode {
                    Mode::Max => max_pool2d(&x, &p),
                    Mode::Avg { count_pad } => avg_pool2d(&x, &p, count_pad),
                };
                let Some((oh, ow, _)) = naive(&vals[..h * w], h, w, &p, mode) else {
                    assert!(got.is_err(), "{p:?} {mode:?}");
                    continue;
                };
                let want: Vec<f64> = vals
                    .chunks(h * w)
                    .flat_map(|plane| naive(plane, h, w, &p, mode).unwrap().2)
                    .collect();
                assert_close(
                    &got.unwrap(),
                    F64,
                    &[2, 3, oh, ow],
                    &want,
                    1e-14,
                    &format!("{p:?} {mode:?}"),
                );
                checked += 1;
            }
        }
        assert!(checked > 400, "only {checked} valid configurations");
    }

    #[test]
    fn dtypes_nan_views_and_unbatched() {
        let vals: Vec<f64> = (0..16).map(|i| ((i * 5) % 16) as f64).collect();
        let p = PoolParams {
            kernel_size: vec![2, 2],
            stride: vec![2, 2],
            padding: vec![0, 0],
            dilation: vec![1, 1],
            ceil_mode: false,
        };
        let x = tensor(&vals, &[1, 1, 4, 4], F64);
        let want_max = values(&max_pool2d(&x, &p).unwrap());
        let want_avg = values(&avg_pool2d(&x, &p, true).unwrap());
        for dtype in [U8, I16, I64, F16, BF16, F32] {
            let xd = x.to_dtype(dtype);
            assert_tensor(
                &max_pool2d(&xd, &p).unwrap(),
                dtype,
                &[1, 1, 2, 2],
                &want_max,
                "max",
            );
            let avg = avg_pool2d(&xd, &p, true).unwrap();
            assert_tensor(&avg, dtype.float_result(), &[1, 1, 2, 2], &want_avg, "avg");
        }
        for v in views(&x) {
            assert_eq!(values(&max_pool2d(&v, &p).unwrap()), want_max);
        }
        let plane = x.select(0, 0).unwrap();
        assert_eq!(max_pool2d(&plane, &p).unwrap().shape(), [1, 2, 2]);
        let mut with_nan = vals.clone();
        with_nan[5] = f64::NAN;
        let xn = tensor(&with_nan, &[1, 1, 4, 4], F32);
        let got = values(&max_pool2d(&xn, &p).unwrap());
        assert!(got[0].is_nan() && !got[1].is_nan());
        let empty = tensor(&[], &[0, 3, 4, 4], F32);
        assert_eq!(avg_pool2d(&empty, &p, true).unwrap().shape(), [0, 3, 2, 2]);
    }

    #[test]
    fn adaptive_windows() {
        // Five inputs into three outputs: windows [0, 2), [1, 4), [3, 5).
        let x = tensor(&[1.0, 2.0, 3.0, 4.0, 5.0], &[1, 1, 1, 5], F32);
        let got = adaptive_avg_pool2d(&x, [Some(1), Some(3)]).unwrap();
        assert_tensor(&got, F32, &[1, 1, 1, 3], &[1.5, 3.0, 4.5], "5 -> 3");
        let kept = adaptive_avg_pool2d(&x, [None, Some(2)]).unwrap();
        assert_tensor(
            &kept,
            F32,
            &[1, 1, 1, 2],
            &[2.0, 4.0],
            "none keeps the size",
        );
        // Upsampling repeats: three inputs into seven outputs.
        let y = tensor(&[1.0, 2.0, 3.0], &[1, 3, 1], I32);
        let up = adaptive_avg_pool2d(&y, [Some(7), Some(1)]).unwrap();
        assert_tensor(
            &up,
            F32,
            &[1, 7, 1],
            &[1.0, 1.0, 1.5, 2.0, 2.5, 3.0, 3.0],
            "3 -> 7",
        );
        assert!(adaptive_avg_pool2d(&x, [Some(0), Some(1)]).is_err());
    }

    #[test]
    fn global_pools() {
        let x = tensor(
            &(0..24).map(f64::from).collect::<Vec<_>>(),
            &[2, 3, 2, 2],
            I32,
        );
        let avg = global_pool2d(&x, ReduceOp::Mean).unwrap();
        let want: Vec<f64> = (0..6).map(|c| 4.0 * c as f64 + 1.5).collect();
        assert_tensor(&avg, F32, &[2, 3, 1, 1], &want, "avg");
        let max = global_pool2d(&x, ReduceOp::Max).unwrap();
        let want: Vec<f64> = (0..6).map(|c| 4.0 * c as f64 + 3.0).collect();
        assert_tensor(&max, I32, &[2, 3, 1, 1], &want, "max");
        assert!(global_pool2d(&tensor(&[1.0], &[1], F32), ReduceOp::Max).is_err());
    }

    /// The f32 global mean's own loop gives `reduce`'s bits: planes shorter and longer
    /// than a pairwise block, size-1 dims, views, unbatched and empty inputs.
    #[test]
    fn global_f32_mean_is_the_reduction() {
        for shape in [
            &[2, 3, 7, 7][..],
            &[1, 1, 1, 1],
            &[2, 2, 3, 100],
            &[3, 1, 300],
            &[2, 0, 2, 2],
            &[1, 2, 0, 3],
        ] {
            let n = shape.iter().product::<usize>();
            let vals: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 1013) as f64 * 0.0371 - 17.3)
                .collect();
            for x in views(&tensor(&vals, shape, F32)) {
                let got = global_pool2d(&x, ReduceOp::Mean).unwrap();
                let want = reduce(ReduceOp::Mean, &x, Some(&[-2, -1]), true).unwrap();
                assert_eq!(got.shape(), want.shape(), "{shape:?}");
                let bits = |t: &Tensor| {
                    t.to_vec::<f32>()
                        .iter()
                        .map(|v| v.to_bits())
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(&got), bits(&want), "{shape:?}");
            }
        }
    }

    #[test]
    fn errors() {
        let x = tensor(&[0.0; 16], &[1, 1, 4, 4], F32);
        let p = PoolParams {
            kernel_size: vec![2, 2],
            stride: vec![2, 2],
            padding: vec![2, 0],
            dilation: vec![1, 1],
            ceil_mode: false,
        };
        let msg = |r: Result<Tensor>| r.unwrap_err().to_string();
        assert!(msg(max_pool2d(&x, &p)).contains("padding must be at most half"));
        let big = PoolParams {
            kernel_size: vec![5, 1],
            padding: vec![0, 0],
            ..p.clone()
        };
        assert!(msg(max_pool2d(&x, &big)).contains("the output would be empty"));
        let zero = PoolParams {
            stride: vec![0, 1],
            padding: vec![0, 0],
            ..p.clone()
        };
        assert!(msg(avg_pool2d(&x, &zero, true)).contains("stride must be positive"));
        let flat = tensor(&[0.0; 4], &[4], F32);
        assert!(msg(max_pool2d(&flat, &big)).contains("expected x of rank 3"));
        let no_plane = tensor(&[], &[1, 1, 0, 4], F32);
        assert!(msg(avg_pool2d(&no_plane, &zero, true)).contains("non-empty height and width"));
        let vast = PoolParams {
            kernel_size: vec![1, 3],
            stride: vec![1, 1],
            padding: vec![0, 1 << 62],
            dilation: vec![1, 1 << 62],
            ceil_mode: false,
        };
        assert!(msg(max_pool2d(&x, &vast)).contains("sizes are too large"));
    }

    #[test]
    fn strides_kernels_and_padding_far_past_the_input() {
        let data: Vec<f64> = (0..20).map(|v| ((v * 7) % 20) as f64).collect();
        let x = tensor(&data, &[1, 1, 4, 5], F32);
        let p = |k: usize, s: usize, pad: usize, ceil_mode| PoolParams {
            kernel_size: vec![2, k],
            stride: vec![2, s],
            padding: vec![0, pad],
            dilation: vec![1, 1],
            ceil_mode,
        };
        // A stride longer than the row takes its first window only.
        for ceil_mode in [false, true] {
            let want = max_pool2d(&x, &p(2, 5, 0, false)).unwrap();
            let far = max_pool2d(&x, &p(2, 1 << 40, 0, ceil_mode)).unwrap();
            assert_eq!(far.to_vec::<f32>(), want.to_vec::<f32>());
            let want = avg_pool2d(&x, &p(2, 5, 0, false), true).unwrap();
            let far = avg_pool2d(&x, &p(2, 1 << 40, 0, ceil_mode), true).unwrap();
            assert_eq!(far.to_vec::<f32>(), want.to_vec::<f32>());
        }
        // A kernel of nearly 2^63 with half of it as padding covers each row whole.
        let (k, pad) = ((1 << 63) - 1, (1 << 62) - 1);
        let whole = max_pool2d(&x, &p(k, 1, pad, false)).unwrap();
        assert_eq!(whole.shape(), &[1, 1, 2, 5]);
        let rows =
            |t: Tensor| -> Vec<f32> { t.to_vec::<f32>().iter().flat_map(|&m| [m; 5]).collect() };
        assert_eq!(
            whole.to_vec::<f32>(),
            rows(max_pool2d(&x, &p(5, 1, 0, false)).unwrap())
        );
        let avg = avg_pool2d(&x, &p(k, 1, pad, false), false).unwrap();
        let want = rows(avg_pool2d(&x, &p(5, 1, 0, false), false).unwrap());
        assert_eq!(avg.to_vec::<f32>(), want);
    }
}

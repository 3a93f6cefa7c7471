//! `im2col` and `col2im` (torch's unfold and fold).

use super::{operands::*, params::*};
use crate::kernels::conv::{col2im as col2im_kernel, im2col as im2col_kernel, Dim, Window};
use crate::kernels::math::Arith;
use crate::ops::{elems, output_buffer};
use crate::tensor::shape::shape_str;
use crate::tensor::{Elem, Result, Tensor, TensorError};

/// `im2col(x, ...)` (torch's unfold): x [N, C, spatial...] (or without N) becomes
/// [N, C · K, L], column l holding the window at position l (K kernel taps per
/// channel, channel-major; padding reads as zero). Keeps the dtype.
pub fn im2col(x: &Tensor, p: &UnfoldParams) -> Result<Tensor> {
    let op = "im2col";
    let spatial = p.kernel_size.len();
    let (x, unbatched) = batched(op, x, spatial)?;
    let xs = x.shape();
    let context = || format!("x of shape {}", shape_str(xs));
    let dims = unfold_dims(op, &xs[2..], p, context)?;
    let win = Window::new(&dims);
    let rows = xs[1]
        .checked_mul(win.kernel_len())
        .ok_or_else(|| too_large(op))?;
    let shape = [xs[0], rows, win.out_len()];
    let out = crate::dispatch!(x.dtype(), T => unfold_as::<T>(&x, &win, &shape))?;
    unbatch(out, unbatched)
}

/// `col2im(cols, output_size, ...)` (torch's fold), the adjoint of `im2col`: cols
/// [N, C · K, L] (or without N) becomes [N, C, output_size...], each column entry
/// added into the element it came from (overlaps sum). L must equal the number of
/// window positions.
pub fn col2im(cols: &Tensor, output_size: &[usize], p: &UnfoldParams) -> Result<Tensor> {
    let op = "col2im";
    let spatial = p.kernel_size.len();
    check_lists(op, spatial, &[("output_size", output_size)])?;
    let (cols, unbatched) = match cols.ndim() {
        2 => (cols.unsqueeze(0)?, true),
        3 => (cols.clone(), false),
        _ => {
            let msg = format!(
                "expected cols of rank 2 (unbatched) or 3 (batched), got shape {}",
                shape_str(cols.shape())
            );
            return Err(TensorError::shape(op, msg));
        }
    };
    let cs = cols.shape();
    let context = || format!("output_size {output_size:?}");
    let dims = unfold_dims(op, output_size, p, context)?;
    let win = Window::new(&dims);
    let (k, l) = (win.kernel_len(), win.out_len());
    if !cs[1].is_multiple_of(k) || cs[2] != l {
        let msg = format!(
            "cols of shape {} do not fit: dim 1 must be channels × {k} (the kernel's size) and dim 2 must be {l} (the number of windows for output_size {output_size:?})",
            shape_str(cs)
        );
        return Err(TensorError::shape(op, msg));
    }
    let mut shape = vec![cs[0], cs[1] / k];
    shape.extend_from_slice(output_size);
    let dtype = cols.dtype();
    let out = crate::dispatch!(compute_dtype(dtype), T => fold_as::<T>(&cols, &win, &shape))?;
    unbatch(out.to_dtype(dtype), unbatched)
}

/// im2col of each sample of `x` [N, C, spatial...] into [N, C · K, L] (`shape`).
pub(super) fn unfold_as<T: Elem>(x: &Tensor, win: &Window, shape: &[usize]) -> Result<Tensor> {
    let op = "im2col";
    let mut out = output_buffer(op, shape, T::default())?;
    let x = x.contiguous();
    let xd = elems::<T>(op, &x)?;
    let (sample_in, sample_out) = (x.shape()[1] * win.image_len(), shape[1] * shape[2]);
    for n in 0..shape[0] {
        let (src, dst) = (n * sample_in, n * sample_out);
        im2col_kernel(
            &mut out[dst..dst + sample_out],
            &xd[src..src + sample_in],
            win,
        );
    }
    Tensor::from_vec(out, shape)
}

/// col2im of each sample of `cols` [N, C · K, L] into [N, C, spatial...] (`shape`).
pub(super) fn fold_as<T: Arith>(cols: &Tensor, win: &Window, shape: &[usize]) -> Result<Tensor> {
    let op = "col2im";
    let mut out = output_buffer(op, shape, T::default())?;
    let cols = cols.to_dtype(T::DTYPE).contiguous();
    let cd = elems::<T>(op, &cols)?;
    let cs = cols.shape();
    let (sample_in, sample_out) = (cs[1] * cs[2], shape[1] * win.image_len());
    for n in 0..shape[0] {
        let (src, dst) = (n * sample_in, n * sample_out);
        col2im_kernel(
            &mut out[dst..dst + sample_out],
            &cd[src..src + sample_in],
            win,
        );
    }
    Tensor::from_vec(out, shape)
}

/// The window of an unfold/fold over an image of `image` size.
pub(super) fn unfold_dims(
    op: &str,
    image: &[usize],
    p: &UnfoldParams,
    context: impl Fn() -> String,
) -> Result<Vec<Dim>> {
    let n = p.kernel_size.len();
    let lists = [
        ("dilation", &p.dilation[..]),
        ("padding", &p.padding),
        ("stride", &p.stride),
    ];
    check_lists(op, n, &lists)?;
    positive(op, "kernel_size", &p.kernel_size)?;
    positive(op, "dilation", &p.dilation)?;
    positive(op, "stride", &p.stride)?;
    let pads: Vec<(usize, usize)> = p.padding.iter().map(|&q| (q, q)).collect();
    window_dims(
        op,
        image,
        &p.kernel_size,
        &p.stride,
        &pads,
        &p.dilation,
        context,
    )
}

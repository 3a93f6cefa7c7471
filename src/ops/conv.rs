//! Convolution with `torch.nn.functional` semantics, for any number of spatial dims:
//! `conv` (grouped, strided, padded, dilated), `conv_transpose` (its adjoint), and
//! `im2col`/`col2im` (torch's unfold/fold). Layouts are [batch, channels, spatial...];
//! an input without the batch dim is one sample, as in PyTorch.
//!
//! Dtypes: operands promote (PyTorch rules); f16/bf16 compute in f32 and round once;
//! integers are exact with wrapping, like `matmul`.

use super::{elems, new_tensor, output_buffer};
use crate::kernels::alloc::zeroed;
use crate::kernels::conv::conv_f32;
use crate::kernels::conv::depthwise::{depthwise_new, plane, plane_f32, PlaneKernel};
use crate::kernels::conv::planes::Planes;
use crate::kernels::conv::{
    col2im as col2im_kernel, conv as conv_kernel, conv_transpose as conv_transpose_kernel,
    im2col as im2col_kernel, Channels, Dim, Window,
};
use crate::kernels::isa::Isa;
use crate::kernels::linalg::MatMul;
use crate::kernels::math::Arith;
use crate::tensor::shape::{checked_numel, shape_str};
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// How a convolution pads its input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    /// This many zeros on both sides of each spatial dim.
    Explicit(Vec<usize>),
    /// No padding (`padding="valid"`).
    Valid,
    /// Enough padding that the output is as large as the input (`padding="same"`,
    /// stride 1 only); an odd total puts the extra zero after, as PyTorch does.
    Same,
}

/// The options of `conv1d/2d/3d`; the lists have one entry per spatial dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConvParams {
    pub stride: Vec<usize>,
    pub padding: Padding,
    pub dilation: Vec<usize>,
    pub groups: usize,
}

/// The options of `conv_transpose2d`; the lists have one entry per spatial dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransposeParams {
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub output_padding: Vec<usize>,
    pub groups: usize,
    pub dilation: Vec<usize>,
}

/// The options of `im2col`/`col2im`; the lists have one entry per spatial dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfoldParams {
    pub kernel_size: Vec<usize>,
    pub dilation: Vec<usize>,
    pub padding: Vec<usize>,
    pub stride: Vec<usize>,
}

/// `conv{n}d(x, weight, bias)`: x is [N, C_in, spatial...] (or without N), weight is
/// [C_out, C_in / groups, kernel...], bias is [C_out]. Output spatial size per dim:
/// (size + padding_total - dilation * (kernel - 1) - 1) / stride + 1.
pub fn conv(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    spatial: usize,
    p: &ConvParams,
) -> Result<Tensor> {
    let op = &format!("conv{spatial}d");
    let padding = match &p.padding {
        Padding::Explicit(pad) => pad.clone(),
        _ => vec![0; spatial],
    };
    check_lists(op, spatial, &[("stride", &p.stride), ("padding", &padding)])?;
    check_lists(op, spatial, &[("dilation", &p.dilation)])?;
    positive(op, "stride", &p.stride)?;
    positive(op, "dilation", &p.dilation)?;
    let (x, unbatched) = batched(op, x, spatial)?;
    let (xs, ws) = (x.shape(), weight.shape());
    check_weight(
        op,
        ws,
        spatial,
        "[out_channels, in_channels / groups, kernel...]",
    )?;
    let (c_in, c_out) = (xs[1], ws[0]);
    check_groups(
        op,
        p.groups,
        c_in,
        c_out,
        &x,
        weight,
        ws[1].saturating_mul(p.groups) != c_in,
    )?;
    check_bias(op, bias, c_out)?;
    let kernel = &ws[2..];
    let pads: Vec<(usize, usize)> = match &p.padding {
        Padding::Explicit(pad) => pad.iter().map(|&q| (q, q)).collect(),
        Padding::Valid => vec![(0, 0); spatial],
        Padding::Same => {
            if p.stride.iter().any(|&s| s != 1) {
                let msg = format!("padding=\"same\" needs stride 1, got stride {:?}", p.stride);
                return Err(TensorError::value(op, msg));
            }
            same_padding(op, kernel, &p.dilation)?
        }
    };
    let context = || {
        format!(
            "x of shape {} and weight of shape {}",
            shape_str(xs),
            shape_str(ws)
        )
    };
    let dims = window_dims(op, &xs[2..], kernel, &p.stride, &pads, &p.dilation, context)?;
    let mut shape = vec![xs[0], c_out];
    shape.extend(dims.iter().map(|d| d.out));
    let dtype = promoted(&[&x, weight], bias);
    let win = Window::new(&dims);
    let ch = Channels {
        c_in,
        c_out,
        groups: p.groups,
    };
    let operands = Operands {
        op,
        x: &x,
        weight,
        bias,
        shape: &shape,
        win: &win,
        ch,
        transpose: false,
    };
    let out = run(&operands, dtype)?;
    unbatch(out.to_dtype(dtype), unbatched)
}

/// The operands of a convolution or transposed convolution, and its output's shape.
struct Operands<'a> {
    op: &'a str,
    x: &'a Tensor,
    weight: &'a Tensor,
    bias: Option<&'a Tensor>,
    shape: &'a [usize],
    win: &'a Window,
    ch: Channels,
    /// Transposed convolution (the adjoint) rather than convolution.
    transpose: bool,
}

/// The convolution (or transposed one) of `o` in `dtype`'s compute type: depthwise
/// ones on `kernels::depthwise`, f32 on the blocked kernels of `conv_f32` where they
/// fit, the others on `kernels::conv`.
fn run(o: &Operands, dtype: DType) -> Result<Tensor> {
    let (win, ch) = (o.win, o.ch);
    // One input channel per group over 1 or 2 spatial dims runs the direct kernel.
    let depthwise = Planes::new(win.dims()).filter(|_| !o.transpose && ch.c_in == ch.groups);
    if let Some(planes) = &depthwise {
        return match compute_dtype(dtype) {
            DType::F32 => run_depthwise(o, planes, plane_f32),
            d => crate::dispatch!(d, T => run_depthwise::<T>(o, planes, plane::<T>)),
        };
    }
    let blocked = if o.transpose {
        conv_f32::fits_transpose(win, ch)
    } else {
        conv_f32::fits(win, ch)
    };
    match compute_dtype(dtype) {
        DType::F32 if blocked => run_kernel::<f32>(o, |n, x, weight, bias| {
            let operands = conv_f32::Operands {
                x,
                weight,
                bias,
                win,
                ch,
            };
            if o.transpose {
                conv_f32::conv_transpose_new(n, operands)
            } else {
                conv_f32::conv_new(n, operands)
            }
        }),
        d => crate::dispatch!(d, T => {
            run_kernel::<T>(o, |n, x, w, b| {
                let mut out = zeroed(n)?;
                let channel_len = if o.transpose {
                    conv_transpose_kernel(&mut out, x, w, win, ch);
                    win.image_len()
                } else {
                    conv_kernel(&mut out, x, w, win, ch);
                    win.out_len()
                };
                add_bias(&mut out, b, channel_len);
                Some(out)
            })
        }),
    }
}

/// `make(n, x, weight, bias)` on contiguous `T` copies of the operands: the kernel's
/// output of `n` elements with the bias added (`None` when it cannot be allocated).
fn run_kernel<T: MatMul>(
    o: &Operands,
    make: impl FnOnce(usize, &[T], &[T], Option<&[T]>) -> Option<Vec<T>>,
) -> Result<Tensor> {
    if o.shape.contains(&0) {
        return Tensor::from_vec(Vec::<T>::new(), o.shape);
    }
    let (x, w) = (
        o.x.to_dtype(T::DTYPE).contiguous(),
        o.weight.to_dtype(T::DTYPE).contiguous(),
    );
    let (xd, wd) = (elems::<T>(o.op, &x)?, elems::<T>(o.op, &w)?);
    let bias = o.bias.map(|b| b.to_vec::<T>());
    // The shape passed the memory limit when `make` runs, so its product fits.
    new_tensor(o.op, o.shape, || {
        make(o.shape.iter().product(), xd, wd, bias.as_deref())
    })
}

/// `kernels::depthwise` on contiguous `T` copies of the operands, the bias included.
fn run_depthwise<T: MatMul>(
    o: &Operands,
    planes: &Planes,
    kernel: PlaneKernel<T>,
) -> Result<Tensor> {
    let (channels, batch) = ([o.ch.c_in, o.ch.c_out], o.shape[0]);
    run_kernel::<T>(o, |_, x, w, bias| {
        depthwise_new(Isa::detect(), kernel, x, w, bias, planes, batch, channels)
    })
}

/// `conv_transpose{n}d(x, weight, bias)`: the adjoint (gradient) of `conv` with the
/// same weight, stride, padding, dilation and groups. x is [N, C_in, spatial...],
/// weight is [C_in, C_out / groups, kernel...] (PyTorch's order), bias is [C_out].
/// Output size per dim: (size - 1) * stride - 2 * padding + dilation * (kernel - 1)
/// + output_padding + 1, where output_padding < max(stride, dilation).
pub fn conv_transpose(
    x: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    spatial: usize,
    p: &TransposeParams,
) -> Result<Tensor> {
    let op = &format!("conv_transpose{spatial}d");
    let lists = [
        ("stride", &p.stride[..]),
        ("padding", &p.padding),
        ("output_padding", &p.output_padding),
        ("dilation", &p.dilation),
    ];
    check_lists(op, spatial, &lists)?;
    positive(op, "stride", &p.stride)?;
    positive(op, "dilation", &p.dilation)?;
    let (x, unbatched) = batched(op, x, spatial)?;
    let (xs, ws) = (x.shape(), weight.shape());
    check_weight(
        op,
        ws,
        spatial,
        "[in_channels, out_channels / groups, kernel...]",
    )?;
    let (c_in, c_out) = (xs[1], ws[1].saturating_mul(p.groups));
    check_groups(op, p.groups, c_in, c_out, &x, weight, ws[0] != c_in)?;
    check_bias(op, bias, c_out)?;
    let mut dims = Vec::with_capacity(spatial);
    for d in 0..spatial {
        let (s, pad, extra, dil) = (
            p.stride[d],
            p.padding[d],
            p.output_padding[d],
            p.dilation[d],
        );
        if extra >= s.max(dil) {
            let msg = format!(
                "output_padding must be smaller than stride or dilation, got output_padding {:?}, stride {:?}, dilation {:?}",
                p.output_padding, p.stride, p.dilation
            );
            return Err(TensorError::value(op, msg));
        }
        let kernel = ws[d + 2];
        let size = xs[d + 2] as i128 - 1;
        let out = size * s as i128 - 2 * pad as i128
            + (dil as i128) * (kernel as i128 - 1)
            + extra as i128
            + 1;
        if out <= 0 {
            let msg = format!(
                "the output would have size {out} along spatial dim {d} (x of shape {}, weight of shape {}, stride {:?}, padding {:?}, dilation {:?})",
                shape_str(xs), shape_str(ws), p.stride, p.padding, p.dilation
            );
            return Err(TensorError::shape(op, msg));
        }
        // The kernel's taps land up to (size - 1)·stride + (kernel - 1)·dilation in the
        // output with its padding, which the kernels compute as a usize.
        if usize::try_from(out + 2 * pad as i128).is_err() {
            return Err(too_large(op));
        }
        dims.push(Dim {
            image: usize::try_from(out).map_err(|_| too_large(op))?,
            kernel,
            out: xs[d + 2],
            stride: s,
            pad,
            dilation: dil,
        });
    }
    check_products(op, &dims)?;
    let mut shape = vec![xs[0], c_out];
    shape.extend(dims.iter().map(|d| d.image));
    let dtype = promoted(&[&x, weight], bias);
    let win = Window::new(&dims);
    let ch = Channels {
        c_in,
        c_out,
        groups: p.groups,
    };
    let operands = Operands {
        op,
        x: &x,
        weight,
        bias,
        shape: &shape,
        win: &win,
        ch,
        transpose: true,
    };
    let out = run(&operands, dtype)?;
    unbatch(out.to_dtype(dtype), unbatched)
}

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
fn unfold_as<T: Elem>(x: &Tensor, win: &Window, shape: &[usize]) -> Result<Tensor> {
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
fn fold_as<T: Arith>(cols: &Tensor, win: &Window, shape: &[usize]) -> Result<Tensor> {
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
fn unfold_dims(
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

/// The window of a convolution along each spatial dim, with the number of positions
/// `(image + pad_before + pad_after - span) / stride + 1` where `span` is the dilated
/// kernel's extent; an error when the span exceeds the padded image.
fn window_dims(
    op: &str,
    image: &[usize],
    kernel: &[usize],
    stride: &[usize],
    pads: &[(usize, usize)],
    dilation: &[usize],
    context: impl Fn() -> String,
) -> Result<Vec<Dim>> {
    let mut dims = Vec::with_capacity(image.len());
    for (d, &size) in image.iter().enumerate() {
        let (k, s, (before, after), dil) = (kernel[d], stride[d], pads[d], dilation[d]);
        let span = dilated_span(op, k, dil)?;
        let padded = size
            .checked_add(before)
            .and_then(|v| v.checked_add(after))
            .ok_or_else(|| too_large(op))?;
        if k == 0 || padded < span {
            let msg = format!(
                "the kernel (size {k}, dilated extent {span}) does not fit the padded input (size {padded}) along spatial dim {d}: {}",
                context()
            );
            return Err(TensorError::shape(op, msg));
        }
        dims.push(Dim {
            image: size,
            kernel: k,
            out: (padded - span) / s + 1,
            stride: s,
            pad: before,
            dilation: dil,
        });
    }
    check_products(op, &dims)?;
    Ok(dims)
}

/// The products of the image, kernel and window sizes index buffers (see `Window`):
/// they must not overflow.
fn check_products(op: &str, dims: &[Dim]) -> Result<()> {
    for sizes in [
        dims.iter().map(|d| d.image).collect::<Vec<_>>(),
        dims.iter().map(|d| d.kernel).collect(),
        dims.iter().map(|d| d.out).collect(),
    ] {
        checked_numel(&sizes).ok_or_else(|| too_large(op))?;
    }
    Ok(())
}

/// `dilation * (kernel - 1) + 1`, the extent of a dilated kernel (0 for no kernel).
pub(super) fn dilated_span(op: &str, kernel: usize, dilation: usize) -> Result<usize> {
    match kernel {
        0 => Ok(0),
        k => dilation
            .checked_mul(k - 1)
            .and_then(|v| v.checked_add(1))
            .ok_or_else(|| too_large(op)),
    }
}

/// PyTorch's `padding="same"`: a total of `dilation * (kernel - 1)` per dim, the
/// smaller half before.
fn same_padding(op: &str, kernel: &[usize], dilation: &[usize]) -> Result<Vec<(usize, usize)>> {
    kernel
        .iter()
        .zip(dilation)
        .map(|(&k, &dil)| {
            let total = dilated_span(op, k, dil)?.saturating_sub(1);
            Ok((total / 2, total - total / 2))
        })
        .collect()
}

pub(super) fn too_large(op: &str) -> TensorError {
    TensorError::value(op, "sizes are too large")
}

/// Checks that each named list has one entry per spatial dim.
pub(super) fn check_lists(op: &str, spatial: usize, lists: &[(&str, &[usize])]) -> Result<()> {
    for (name, list) in lists {
        if list.len() != spatial {
            let msg = format!(
                "{name} must be an int or a list of {spatial} ints (one per spatial dim), got {list:?}"
            );
            return Err(TensorError::value(op, msg));
        }
    }
    Ok(())
}

/// Checks that every entry of a size list is at least 1.
pub(super) fn positive(op: &str, name: &str, list: &[usize]) -> Result<()> {
    if list.contains(&0) {
        let msg = format!("{name} must be positive, got {list:?}");
        return Err(TensorError::value(op, msg));
    }
    Ok(())
}

/// `x` with a batch dim: as it is when it has `spatial + 2` dims, with a size-1 batch
/// dim added (and `true`) when it has `spatial + 1`.
pub(super) fn batched(op: &str, x: &Tensor, spatial: usize) -> Result<(Tensor, bool)> {
    if x.ndim() == spatial + 2 {
        Ok((x.clone(), false))
    } else if x.ndim() == spatial + 1 {
        Ok((x.unsqueeze(0)?, true))
    } else {
        let msg = format!(
            "expected x of rank {} (unbatched [C, spatial...]) or {} (batched [N, C, spatial...]), got shape {}",
            spatial + 1,
            spatial + 2,
            shape_str(x.shape())
        );
        Err(TensorError::shape(op, msg))
    }
}

/// Drops the batch dim `batched` added.
pub(super) fn unbatch(t: Tensor, unbatched: bool) -> Result<Tensor> {
    if unbatched {
        t.squeeze(Some(&[0]))
    } else {
        Ok(t)
    }
}

/// Checks groups against the channel counts; `mismatch` says whether the weight's
/// input-channel dim disagrees with x.
fn check_groups(
    op: &str,
    groups: usize,
    c_in: usize,
    c_out: usize,
    x: &Tensor,
    weight: &Tensor,
    mismatch: bool,
) -> Result<()> {
    let shapes = format!(
        "x of shape {}, weight of shape {}",
        shape_str(x.shape()),
        shape_str(weight.shape())
    );
    let msg = if groups == 0 {
        format!("groups must be positive, got 0 ({shapes})")
    } else if !c_in.is_multiple_of(groups) {
        format!("groups={groups} must divide the {c_in} input channels ({shapes})")
    } else if !c_out.is_multiple_of(groups) {
        format!("groups={groups} must divide the {c_out} output channels ({shapes})")
    } else if mismatch {
        format!(
            "the weight does not match the {c_in} input channels with groups={groups} ({shapes})"
        )
    } else {
        return Ok(());
    };
    Err(TensorError::shape(op, msg))
}

/// The weight has one axis per spatial dim plus two (laid out as `layout` says) and a
/// valid kernel.
fn check_weight(op: &str, ws: &[usize], spatial: usize, layout: &str) -> Result<()> {
    if ws.len() != spatial + 2 {
        let msg = format!(
            "weight must be {}-D {layout}, got shape {}",
            spatial + 2,
            shape_str(ws)
        );
        return Err(TensorError::shape(op, msg));
    }
    check_kernel(op, ws)
}

/// Rejects a weight with an empty kernel dim.
fn check_kernel(op: &str, weight_shape: &[usize]) -> Result<()> {
    if weight_shape[2..].contains(&0) {
        let msg = format!(
            "weight of shape {} has an empty kernel",
            shape_str(weight_shape)
        );
        return Err(TensorError::shape(op, msg));
    }
    Ok(())
}

fn check_bias(op: &str, bias: Option<&Tensor>, c_out: usize) -> Result<()> {
    match bias {
        Some(b) if b.shape() != [c_out] => {
            let msg = format!(
                "bias must have shape [{c_out}] (one value per output channel), got {}",
                shape_str(b.shape())
            );
            Err(TensorError::shape(op, msg))
        }
        _ => Ok(()),
    }
}

/// The result dtype: the operands promoted.
fn promoted(tensors: &[&Tensor], bias: Option<&Tensor>) -> DType {
    tensors
        .iter()
        .copied()
        .chain(bias)
        .map(Tensor::dtype)
        .reduce(DType::promote)
        .unwrap_or(DType::DEFAULT_FLOAT)
}

/// The type to compute in: f32 for f16/bf16 (rounded once at the end), else the dtype.
fn compute_dtype(dtype: DType) -> DType {
    match dtype {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    }
}

/// Adds `bias[c]` to channel `c` (of `len` elements) of every sample in `out`.
fn add_bias<T: Arith>(out: &mut [T], bias: Option<&[T]>, len: usize) {
    let Some(bias) = bias else { return };
    for (channel, &b) in out.chunks_exact_mut(len).zip(bias.iter().cycle()) {
        channel.iter_mut().for_each(|v| *v = v.add(b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};
    use DType::*;

    /// A small deterministic generator for test data and shapes.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn range(&mut self, lo: usize, hi: usize) -> usize {
            lo + self.below(hi - lo + 1)
        }
        fn values(&mut self, n: usize) -> Vec<f64> {
            (0..n)
                .map(|_| self.next() as f64 / (1u64 << 31) as f64 - 0.5)
                .collect()
        }
    }

    /// One convolution problem with up to three spatial dims.
    #[derive(Clone, Debug)]
    struct Problem {
        batch: usize,
        groups: usize,
        c_in: usize,
        c_out: usize,
        image: Vec<usize>,
        kernel: Vec<usize>,
        stride: Vec<usize>,
        pad: Vec<usize>,
        dilation: Vec<usize>,
    }

    impl Problem {
        fn random(rng: &mut Lcg, spatial: usize) -> Problem {
            let groups = rng.range(1, 3);
            let per_dim = |rng: &mut Lcg, lo: usize, hi: usize| -> Vec<usize> {
                (0..spatial).map(|_| rng.range(lo, hi)).collect()
            };
            Problem {
                batch: rng.range(1, 2),
                groups,
                c_in: groups * rng.range(1, 2),
                c_out: groups * rng.range(1, 2),
                image: per_dim(rng, 1, 8),
                kernel: per_dim(rng, 1, 3),
                stride: per_dim(rng, 1, 3),
                pad: per_dim(rng, 0, 2),
                dilation: per_dim(rng, 1, 2),
            }
        }

        fn out(&self) -> Option<Vec<usize>> {
            (0..self.image.len())
                .map(|d| {
                    let span = self.dilation[d] * (self.kernel[d] - 1) + 1;
                    let padded = self.image[d] + 2 * self.pad[d];
                    (padded >= span).then(|| (padded - span) / self.stride[d] + 1)
                })
                .collect()
        }

        fn x_shape(&self) -> Vec<usize> {
            [vec![self.batch, self.c_in], self.image.clone()].concat()
        }

        fn w_shape(&self) -> Vec<usize> {
            [
                vec![self.c_out, self.c_in / self.groups],
                self.kernel.clone(),
            ]
            .concat()
        }

        fn params(&self) -> ConvParams {
            ConvParams {
                stride: self.stride.clone(),
                padding: Padding::Explicit(self.pad.clone()),
                dilation: self.dilation.clone(),
                groups: self.groups,
            }
        }
    }

    /// Three spatial dims, padding `v` (with `fill` for the missing leading ones).
    fn three(v: &[usize], fill: usize) -> [usize; 3] {
        let mut out = [fill; 3];
        out[3 - v.len()..].copy_from_slice(v);
        out
    }

    /// The convolution sum written out from its definition, with symmetric padding.
    fn naive_conv(p: &Problem, x: &[f64], w: &[f64], bias: Option<&[f64]>) -> Vec<f64> {
        let (img, ker) = (three(&p.image, 1), three(&p.kernel, 1));
        let (st, pad, dil) = (three(&p.stride, 1), three(&p.pad, 0), three(&p.dilation, 1));
        let out = three(&p.out().unwrap(), 1);
        let (ci, co) = (p.c_in / p.groups, p.c_out / p.groups);
        let mut result = vec![];
        for n in 0..p.batch {
            for oc in 0..p.c_out {
                let g = oc / co;
                for o0 in 0..out[0] {
                    for o1 in 0..out[1] {
                        for o2 in 0..out[2] {
                            let mut sum = bias.map_or(0.0, |b| b[oc]);
                            for c in 0..ci {
                                for k0 in 0..ker[0] {
                                    for k1 in 0..ker[1] {
                                        for k2 in 0..ker[2] {
                                            let at = |o: usize, k: usize, d: usize| {
                                                let i =
                                                    (o * st[d] + k * dil[d]) as i64 - pad[d] as i64;
                                                (0..img[d] as i64)
                                                    .contains(&i)
                                                    .then_some(i as usize)
                                            };
                                            let (Some(i0), Some(i1), Some(i2)) =
                                                (at(o0, k0, 0), at(o1, k1, 1), at(o2, k2, 2))
                                            else {
                                                continue;
                                            };
                                            let xc = n * p.c_in + g * ci + c;
                                            let xi =
                                                ((xc * img[0] + i0) * img[1] + i1) * img[2] + i2;
                                            let wc = oc * ci + c;
                                            let wi =
                                                ((wc * ker[0] + k0) * ker[1] + k1) * ker[2] + k2;
                                            sum += x[xi] * w[wi];
                                        }
                                    }
                                }
                            }
                            result.push(sum);
                        }
                    }
                }
            }
        }
        result
    }

    fn dot(a: &Tensor, b: &Tensor) -> f64 {
        values(a).iter().zip(values(b)).map(|(x, y)| x * y).sum()
    }

    fn assert_near(got: f64, want: f64, what: &str) {
        assert!(
            (got - want).abs() <= 1e-10 * (1.0 + want.abs()),
            "{what}: {got} vs {want}"
        );
    }

    /// Checks `conv` on random problems against the naive sum, and that a problem
    /// whose kernel does not fit is an error.
    fn check_random_problems(spatial: usize, seed: u64, count: usize) {
        let mut rng = Lcg(seed);
        let mut checked = 0;
        while checked < count {
            let p = Problem::random(&mut rng, spatial);
            let x = tensor(&rng.values(p.x_shape().iter().product()), &p.x_shape(), F64);
            let w = tensor(&rng.values(p.w_shape().iter().product()), &p.w_shape(), F64);
            let b = tensor(&rng.values(p.c_out), &[p.c_out], F64);
            let got = conv(&x, &w, Some(&b), spatial, &p.params());
            let Some(out) = p.out() else {
                assert!(got.is_err(), "{p:?}");
                continue;
            };
            let want = naive_conv(&p, &values(&x), &values(&w), Some(&values(&b)));
            let shape = [vec![p.batch, p.c_out], out].concat();
            let got = got.unwrap();
            assert_eq!(got.shape(), shape, "{p:?}");
            // The GEMM fuses multiply-adds, so sums that cancel differ in the last bits.
            for (g, w) in values(&got).iter().zip(&want) {
                assert_near(*g, *w, &format!("{p:?}"));
            }
            checked += 1;
        }
    }

    #[test]
    fn conv2d_matches_the_naive_sum_on_random_problems() {
        check_random_problems(2, 1, 150);
    }

    #[test]
    fn conv1d_and_conv3d_match_the_naive_sum() {
        check_random_problems(1, 2, 80);
        check_random_problems(3, 3, 40);
    }

    #[test]
    fn conv_transpose_is_the_adjoint_of_conv() {
        // <conv(x, w), y> == <x, conv_transpose(y, w)>, with output_padding chosen so
        // that the transposed convolution gives back x's size.
        let mut rng = Lcg(4);
        let mut checked = 0;
        while checked < 100 {
            let p = Problem::random(&mut rng, 2);
            let Some(out) = p.out() else { continue };
            let x = tensor(&rng.values(p.x_shape().iter().product()), &p.x_shape(), F64);
            let w = tensor(&rng.values(p.w_shape().iter().product()), &p.w_shape(), F64);
            let y_shape = [vec![p.batch, p.c_out], out.clone()].concat();
            let y = tensor(&rng.values(y_shape.iter().product()), &y_shape, F64);
            let output_padding = (0..2)
                .map(|d| {
                    let span = p.dilation[d] * (p.kernel[d] - 1) + 1;
                    let reach = (out[d] - 1) * p.stride[d] + span;
                    p.image[d] + 2 * p.pad[d] - reach
                })
                .collect();
            let t = TransposeParams {
                stride: p.stride.clone(),
                padding: p.pad.clone(),
                output_padding,
                groups: p.groups,
                dilation: p.dilation.clone(),
            };
            let back = conv_transpose(&y, &w, None, 2, &t).unwrap();
            assert_eq!(back.shape(), x.shape(), "{p:?}");
            let forward = conv(&x, &w, None, 2, &p.params()).unwrap();
            assert_near(dot(&forward, &y), dot(&x, &back), &format!("{p:?}"));
            checked += 1;
        }
    }

    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        let mut rng = Lcg(5);
        let mut checked = 0;
        while checked < 60 {
            let p = Problem::random(&mut rng, 2);
            let Some(out) = p.out() else { continue };
            let u = UnfoldParams {
                kernel_size: p.kernel.clone(),
                dilation: p.dilation.clone(),
                padding: p.pad.clone(),
                stride: p.stride.clone(),
            };
            let x = tensor(&rng.values(p.x_shape().iter().product()), &p.x_shape(), F64);
            let k: usize = p.kernel.iter().product();
            let c_shape = [p.batch, p.c_in * k, out.iter().product()];
            let c = tensor(&rng.values(c_shape.iter().product()), &c_shape, F64);
            let cols = im2col(&x, &u).unwrap();
            assert_eq!(cols.shape(), c_shape);
            let back = col2im(&c, &p.image, &u).unwrap();
            assert_eq!(back.shape(), x.shape());
            assert_near(dot(&cols, &c), dot(&x, &back), &format!("{p:?}"));
            checked += 1;
        }
    }

    #[test]
    fn im2col_columns_times_the_weight_is_the_convolution() {
        let p = Problem {
            batch: 2,
            groups: 1,
            c_in: 3,
            c_out: 4,
            image: vec![5, 6],
            kernel: vec![2, 3],
            stride: vec![2, 1],
            pad: vec![1, 1],
            dilation: vec![1, 2],
        };
        let mut rng = Lcg(6);
        let x = tensor(&rng.values(2 * 3 * 30), &p.x_shape(), F64);
        let w = tensor(&rng.values(4 * 3 * 6), &p.w_shape(), F64);
        let u = UnfoldParams {
            kernel_size: p.kernel.clone(),
            dilation: p.dilation.clone(),
            padding: p.pad.clone(),
            stride: p.stride.clone(),
        };
        let cols = im2col(&x, &u).unwrap();
        let w2 = w.reshape(&[4, 18]).unwrap();
        let via_cols = crate::ops::matmul(&w2, &cols).unwrap();
        let direct = conv(&x, &w, None, 2, &p.params()).unwrap();
        assert_eq!(values(&via_cols), values(&direct));
    }

    #[test]
    fn same_and_valid_padding() {
        let mut rng = Lcg(7);
        for (k, dil) in [(3, 1), (4, 1), (2, 3), (5, 2)] {
            let x = tensor(&rng.values(2 * 7 * 6), &[1, 2, 7, 6], F64);
            let w = tensor(&rng.values(3 * 2 * k * k), &[3, 2, k, k], F64);
            let same = ConvParams {
                stride: vec![1, 1],
                padding: Padding::Same,
                dilation: vec![dil, dil],
                groups: 1,
            };
            let got = conv(&x, &w, None, 2, &same).unwrap();
            assert_eq!(got.shape(), [1, 3, 7, 6]);
            // Same = explicit padding of the larger half on both sides, cropped at the end.
            let total = dil * (k - 1);
            let big = ConvParams {
                padding: Padding::Explicit(vec![total / 2; 2]),
                ..same.clone()
            };
            let ext_x = {
                // Pad one extra zero row/column after when the total is odd.
                let extra = total % 2;
                let mut v = vec![0.0; 2 * (7 + extra) * (6 + extra)];
                let xv = values(&x);
                for c in 0..2 {
                    for i in 0..7 {
                        for j in 0..6 {
                            v[(c * (7 + extra) + i) * (6 + extra) + j] = xv[(c * 7 + i) * 6 + j];
                        }
                    }
                }
                tensor(&v, &[1, 2, 7 + extra, 6 + extra], F64)
            };
            let want = conv(&ext_x, &w, None, 2, &big).unwrap();
            assert_eq!(values(&got), values(&want), "k {k} dilation {dil}");
            let valid = ConvParams {
                padding: Padding::Valid,
                ..same.clone()
            };
            let got = conv(&x, &w, None, 2, &valid);
            if total < 6 {
                assert_eq!(got.unwrap().shape()[2], 7 - total);
            } else {
                assert!(got.is_err());
            }
            let strided = ConvParams {
                stride: vec![2, 1],
                ..same
            };
            let err = conv(&x, &w, None, 2, &strided).unwrap_err();
            assert!(err.to_string().contains("padding=\"same\" needs stride 1"));
        }
    }

    #[test]
    fn dtypes_unbatched_inputs_views_and_empty_batches() {
        let p = |groups| ConvParams {
            stride: vec![1, 1],
            padding: Padding::Explicit(vec![1, 0]),
            dilation: vec![1, 1],
            groups,
        };
        let xv: Vec<f64> = (0..2 * 4 * 3).map(|i| (i % 7) as f64 - 3.0).collect();
        let wv: Vec<f64> = (0..3 * 2 * 2 * 2).map(|i| (i % 5) as f64 - 2.0).collect();
        let x = tensor(&xv, &[1, 2, 4, 3], F64);
        let w = tensor(&wv, &[3, 2, 2, 2], F64);
        let want = values(&conv(&x, &w, None, 2, &p(1)).unwrap());
        // Integer data: exact in every dtype; ints stay ints, halves round once.
        for dtype in [I32, I64, F16, BF16, F32] {
            let got = conv(&x.to_dtype(dtype), &w.to_dtype(dtype), None, 2, &p(1)).unwrap();
            assert_eq!(got.dtype(), dtype);
            assert_eq!(values(&got), want, "{dtype}");
        }
        let mixed = conv(&x.to_dtype(F16), &w.to_dtype(I8), None, 2, &p(1)).unwrap();
        assert_eq!(mixed.dtype(), F16);
        for xv in views(&x) {
            assert_eq!(values(&conv(&xv, &w, None, 2, &p(1)).unwrap()), want);
        }
        let unbatched = conv(&x.select(0, 0).unwrap(), &w, None, 2, &p(1)).unwrap();
        assert_eq!(unbatched.shape(), [3, 5, 2]);
        assert_eq!(values(&unbatched), want);
        let empty = tensor(&[], &[0, 2, 4, 3], F32);
        let got = conv(&empty, &w.to_dtype(F32), None, 2, &p(1)).unwrap();
        assert_eq!(got.shape(), [0, 3, 5, 2]);
        // Depthwise: groups = channels.
        let dw = tensor(&wv[..2 * 4], &[2, 1, 2, 2], F64);
        let got = conv(&x, &dw, None, 2, &p(2)).unwrap();
        assert_eq!(got.shape(), [1, 2, 5, 2]);
    }

    /// A 2-d transposed convolution with unit stride and dilation, no padding.
    fn plain_transpose() -> TransposeParams {
        TransposeParams {
            stride: vec![1, 1],
            padding: vec![0, 0],
            output_padding: vec![0, 0],
            groups: 1,
            dilation: vec![1, 1],
        }
    }

    #[test]
    fn empty_images_and_strides_far_past_the_input() {
        // conv_transpose of an empty image: the output is the bias alone.
        let t = plain_transpose();
        let empty = tensor(&[], &[1, 1, 0, 5], F32);
        let (w, b) = (
            tensor(&[1.0; 9], &[1, 1, 3, 3], F32),
            tensor(&[2.0], &[1], F32),
        );
        let got = conv_transpose(&empty, &w, Some(&b), 2, &t).unwrap();
        assert_eq!(got.shape(), [1, 1, 2, 7]);
        assert_eq!(values(&got), vec![2.0; 14]);
        // No input channels: conv gives the bias alone too.
        let p = ConvParams {
            stride: vec![1, 1],
            padding: Padding::Valid,
            dilation: vec![1, 1],
            groups: 1,
        };
        let no_channels = tensor(&[], &[1, 0, 4, 4], F32);
        let w = tensor(&[], &[1, 0, 3, 3], F32);
        let got = conv(&no_channels, &w, Some(&b), 2, &p).unwrap();
        assert_eq!(
            (got.shape(), values(&got)),
            (&[1, 1, 2, 2][..], vec![2.0; 4])
        );
        // Taps 2^62 apart with as much padding and a stride past the image: only the
        // middle row of the kernel reads the image, at its first row.
        let x = tensor(&[1.0; 50], &[1, 2, 5, 5], F32);
        let far = |groups| ConvParams {
            stride: vec![(1 << 63) - 1, 1],
            padding: Padding::Explicit(vec![1 << 62, 0]),
            dilation: vec![1 << 62, 1],
            groups,
        };
        let w = tensor(&[1.0; 18], &[1, 2, 3, 3], F32);
        let got = conv(&x, &w, None, 2, &far(1)).unwrap();
        assert_eq!(
            (got.shape(), values(&got)),
            (&[1, 1, 1, 3][..], vec![6.0; 3])
        );
        let dw = tensor(&[1.0; 18], &[2, 1, 3, 3], F32);
        let got = conv(&x, &dw, None, 2, &far(2)).unwrap();
        assert_eq!(
            (got.shape(), values(&got)),
            (&[1, 2, 1, 3][..], vec![3.0; 6])
        );
        // A transposed convolution whose taps reach past usize is an error.
        let huge = TransposeParams {
            stride: vec![(1 << 63) - 1, 1],
            padding: vec![(1 << 63) - 1, 0],
            dilation: vec![2, 1],
            ..t
        };
        let x = tensor(&[0.0; 3], &[1, 1, 3, 1], F32);
        let w = tensor(&[0.0; 3], &[1, 1, 3, 1], F32);
        let err = conv_transpose(&x, &w, None, 2, &huge)
            .unwrap_err()
            .to_string();
        assert!(err.contains("sizes are too large"), "{err}");
    }

    #[test]
    fn errors_name_the_argument_and_the_shapes() {
        let x = tensor(&[0.0; 48], &[1, 3, 4, 4], F32);
        let w = tensor(&[0.0; 24], &[2, 3, 2, 2], F32);
        let p = ConvParams {
            stride: vec![1, 1],
            padding: Padding::Explicit(vec![0, 0]),
            dilation: vec![1, 1],
            groups: 1,
        };
        let msg = |r: Result<Tensor>| r.unwrap_err().to_string();
        let flat = tensor(&[0.0; 16], &[4, 4], F32);
        assert!(msg(conv(&flat, &w, None, 2, &p)).contains("expected x of rank 3"));
        assert!(msg(conv(&x, &flat, None, 2, &p)).contains("weight must be 4-D"));
        let g2 = ConvParams {
            groups: 2,
            ..p.clone()
        };
        assert!(
            msg(conv(&x, &w, None, 2, &g2)).contains("groups=2 must divide the 3 input channels")
        );
        let w4 = tensor(&[0.0; 32], &[2, 4, 2, 2], F32);
        assert!(msg(conv(&x, &w4, None, 2, &p)).contains("does not match the 3 input channels"));
        let b = tensor(&[0.0; 3], &[3], F32);
        assert!(msg(conv(&x, &w, Some(&b), 2, &p)).contains("bias must have shape [2]"));
        let s0 = ConvParams {
            stride: vec![0, 1],
            ..p.clone()
        };
        assert!(msg(conv(&x, &w, None, 2, &s0)).contains("stride must be positive"));
        let big = tensor(&[0.0; 150], &[2, 3, 5, 5], F32);
        let err = msg(conv(&x, &big, None, 2, &p));
        assert!(
            err.contains("does not fit the padded input (size 4)"),
            "{err}"
        );
        assert!(
            err.contains("[1, 3, 4, 4]") && err.contains("[2, 3, 5, 5]"),
            "{err}"
        );
        let t = TransposeParams {
            stride: vec![2, 2],
            output_padding: vec![2, 0],
            ..plain_transpose()
        };
        let wt = tensor(&[0.0; 24], &[3, 2, 2, 2], F32);
        assert!(
            msg(conv_transpose(&x, &wt, None, 2, &t)).contains("output_padding must be smaller")
        );
        let u = UnfoldParams {
            kernel_size: vec![2, 2],
            dilation: vec![1, 1],
            padding: vec![0, 0],
            stride: vec![1, 1],
        };
        let cols = tensor(&[0.0; 12 * 8], &[1, 12, 8], F32);
        assert!(msg(col2im(&cols, &[4, 4], &u)).contains("do not fit"));
    }
}

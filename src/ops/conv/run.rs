//! The runner shared by convolution and transposed convolution: depthwise kernels,
//! the blocked f32 kernels where they fit, the generic kernel otherwise.

use super::operands::*;
use crate::kernels::alloc::zeroed;
use crate::kernels::conv::conv_f32;
use crate::kernels::conv::depthwise::{depthwise_new, plane, plane_f32, PlaneKernel};
use crate::kernels::conv::planes::Planes;
use crate::kernels::conv::{
    conv as conv_kernel, conv_transpose as conv_transpose_kernel, Channels, Window,
};
use crate::kernels::isa::Isa;
use crate::kernels::linalg::MatMul;
use crate::kernels::math::Arith;
use crate::ops::{elems, new_tensor};
use crate::tensor::{DType, Result, Tensor};

/// The operands of a convolution or transposed convolution, and its output's shape.
pub(super) struct Operands<'a> {
    pub(super) op: &'a str,
    pub(super) x: &'a Tensor,
    pub(super) weight: &'a Tensor,
    pub(super) bias: Option<&'a Tensor>,
    pub(super) shape: &'a [usize],
    pub(super) win: &'a Window,
    pub(super) ch: Channels,
    /// Transposed convolution (the adjoint) rather than convolution.
    pub(super) transpose: bool,
}

/// The convolution (or transposed one) of `o` in `dtype`'s compute type: depthwise
/// ones on `kernels::conv::depthwise`, f32 on the blocked kernels of `conv_f32` where they
/// fit, the others on `kernels::conv`.
pub(super) fn run(o: &Operands, dtype: DType) -> Result<Tensor> {
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
pub(super) fn run_kernel<T: MatMul>(
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

/// `kernels::conv::depthwise` on contiguous `T` copies of the operands, the bias included.
pub(super) fn run_depthwise<T: MatMul>(
    o: &Operands,
    planes: &Planes,
    kernel: PlaneKernel<T>,
) -> Result<Tensor> {
    let (channels, batch) = ([o.ch.c_in, o.ch.c_out], o.shape[0]);
    run_kernel::<T>(o, |_, x, w, bias| {
        depthwise_new(Isa::detect(), kernel, x, w, bias, planes, batch, channels)
    })
}

/// Adds `bias[c]` to channel `c` (of `len` elements) of every sample in `out`.
pub(super) fn add_bias<T: Arith>(out: &mut [T], bias: Option<&[T]>, len: usize) {
    let Some(bias) = bias else { return };
    for (channel, &b) in out.chunks_exact_mut(len).zip(bias.iter().cycle()) {
        channel.iter_mut().for_each(|v| *v = v.add(b));
    }
}

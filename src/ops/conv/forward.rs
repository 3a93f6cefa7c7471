//! Convolution: its checks and output shape, then the shared runner.

use super::{operands::*, params::*, run::*};
use crate::kernels::conv::{Channels, Window};
use crate::tensor::shape::shape_str;
use crate::tensor::{Result, Tensor, TensorError};

/// `conv{n}d(x, weight, bias)`: x is [N, C_in, spatial...] (or without N), weight is
/// [C_out, C_in / groups, kernel...], bias is \[C_out\]. Output spatial size per dim:
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

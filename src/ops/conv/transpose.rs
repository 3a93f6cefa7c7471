//! Transposed convolution, the adjoint of `conv`.

use super::{operands::*, params::*, run::*};
use crate::kernels::conv::{Channels, Dim, Window};
use crate::tensor::shape::shape_str;
use crate::tensor::{Result, Tensor, TensorError};

/// `conv_transpose{n}d(x, weight, bias)`: the adjoint (gradient) of `conv` with the
/// same weight, stride, padding, dilation and groups. x is [N, C_in, spatial...],
/// weight is [C_in, C_out / groups, kernel...] (PyTorch's order), bias is \[C_out\].
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

//! Convolutions and their adjoints. The gradient of conv with respect to x is a
//! transposed convolution with the same weight; with respect to the weight, a
//! convolution of x by the output gradient (batch and channels swapped, stride and
//! dilation trading places). Both are recorded, so gradients of gradients work.

use super::shape::ALL;
use super::{concat, index, permute, reduce, reshape};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{record, recording, with_value};
use crate::autograd::var::Var;
use crate::ops::conv::{self, ConvParams, Padding, TransposeParams, UnfoldParams};
use crate::ops::index::Index;
use crate::ops::ReduceOp;
use crate::tensor::{Scalar, SliceSpec};

/// conv{spatial}d(x, w, b).
pub fn conv(x: &Var, w: &Var, b: Option<&Var>, spatial: usize, p: &ConvParams) -> Result<Var> {
    let y = conv::conv(x, w, b.map(Var::tensor), spatial, p)?;
    let inputs: Vec<&Var> = [Some(x), Some(w), b].into_iter().flatten().collect();
    let op = ["conv1d", "conv2d", "conv3d"][spatial.clamp(1, 3) - 1];
    if let Some(widths) = uneven_same(p, w, spatial, x.ndim()) {
        if recording(&inputs) {
            // Differentiated as the conv of x padded first (the extra zero after,
            // as the forward does), which has symmetric (no) padding.
            let padded = super::moved("pad", x, |t| {
                crate::ops::pad::pad(
                    t,
                    &widths,
                    crate::ops::pad::PadMode::Constant,
                    Scalar::Int(0),
                )
            })?;
            let valid = ConvParams {
                padding: Padding::Valid,
                ..p.clone()
            };
            let composed = conv(&padded, w, b, spatial, &valid)?;
            return Ok(with_value(op, &composed, y));
        }
    }
    let (sx, sw, has_bias, p) = (x.clone(), w.clone(), b.is_some(), p.clone());
    Ok(record(op, &inputs, y, move |g, _| {
        let pad = explicit_padding(op, &p.padding, &sw, spatial, &p.dilation)?;
        let (x, g, unbatched) = batch_both(&sx, g, spatial)?;
        let mut grads = Vec::with_capacity(3);
        grads.push(if sx.is_tracked() {
            let image = &x.shape()[2..];
            let out = &g.shape()[2..];
            let output_padding: Vec<usize> = (0..spatial)
                .map(|d| {
                    let span = p.dilation[d] * (sw.shape()[2 + d] - 1) + 1;
                    let made = out[d].saturating_sub(1) * p.stride[d] + span;
                    (image[d] + 2 * pad[d]).saturating_sub(made)
                })
                .collect();
            let tp = TransposeParams {
                stride: p.stride.clone(),
                padding: pad.clone(),
                output_padding,
                groups: p.groups,
                dilation: p.dilation.clone(),
            };
            Some(unbatch(
                &conv_transpose(&g, &sw, None, spatial, &tp)?,
                unbatched,
            )?)
        } else {
            None
        });
        grads.push(if sw.is_tracked() {
            let per_group = |x: &Var, g: &Var| {
                weight_grad(x, g, &sw.shape()[2..], &p.stride, &pad, &p.dilation)
            };
            Some(grouped(p.groups, &x, &g, per_group)?)
        } else {
            None
        });
        if has_bias {
            grads.push(Some(bias_grad(&g)?));
        }
        Ok(grads)
    }))
}

/// conv_transpose{spatial}d(x, w, b), the adjoint of conv with the same weight.
pub fn conv_transpose(
    x: &Var,
    w: &Var,
    b: Option<&Var>,
    spatial: usize,
    p: &TransposeParams,
) -> Result<Var> {
    let y = conv::conv_transpose(x, w, b.map(Var::tensor), spatial, p)?;
    let inputs: Vec<&Var> = [Some(x), Some(w), b].into_iter().flatten().collect();
    let (sx, sw, has_bias, p) = (x.clone(), w.clone(), b.is_some(), p.clone());
    let op = ["conv_transpose1d", "conv_transpose2d", "conv_transpose3d"][spatial.clamp(1, 3) - 1];
    Ok(record(op, &inputs, y, move |g, _| {
        let (x, g, unbatched) = batch_both(&sx, g, spatial)?;
        let mut grads = Vec::with_capacity(3);
        grads.push(if sx.is_tracked() {
            let cp = ConvParams {
                stride: p.stride.clone(),
                padding: Padding::Explicit(p.padding.clone()),
                dilation: p.dilation.clone(),
                groups: p.groups,
            };
            Some(unbatch(&conv(&g, &sw, None, spatial, &cp)?, unbatched)?)
        } else {
            None
        });
        grads.push(if sw.is_tracked() {
            // y = Aᵀx for A = conv(·, w): d⟨g, Aᵀx⟩/dw = d⟨Ag, x⟩/dw.
            let per_group = |x: &Var, g: &Var| {
                weight_grad(g, x, &sw.shape()[2..], &p.stride, &p.padding, &p.dilation)
            };
            Some(grouped(p.groups, &x, &g, per_group)?)
        } else {
            None
        });
        if has_bias {
            grads.push(Some(bias_grad(&g)?));
        }
        Ok(grads)
    }))
}

/// The gradient of conv(x, w) with respect to w [C_out, C_in, kernel...] for the
/// output gradient `g`: Σ_n g[n, o]·x[n, i, o·stride + k·dilation − pad], a
/// convolution of x (channels as batch) by g (channels as output channels) with
/// stride and dilation swapped, cut to the kernel's size.
fn weight_grad(
    x: &Var,
    g: &Var,
    kernel: &[usize],
    stride: &[usize],
    pad: &[usize],
    dilation: &[usize],
) -> Result<Var> {
    let spatial = kernel.len();
    let mut swap: Vec<i64> = vec![1, 0];
    swap.extend(2..2 + spatial as i64);
    let params = ConvParams {
        stride: dilation.to_vec(),
        padding: Padding::Explicit(pad.to_vec()),
        dilation: stride.to_vec(),
        groups: 1,
    };
    let full = conv(
        &permute(x, &swap)?,
        &permute(g, &swap)?,
        None,
        spatial,
        &params,
    )?;
    let mut items = vec![Index::Slice(ALL); 2];
    items.extend(kernel.iter().map(|&k| {
        Index::Slice(SliceSpec {
            start: None,
            stop: Some(k as i64),
            step: 1,
        })
    }));
    let cut = index(&full, &items).map_err(|e| GradError::Tensor(e.error))?;
    permute(&cut, &swap)
}

/// The bias's gradient: g summed over everything but the channels.
fn bias_grad(g: &Var) -> Result<Var> {
    let axes: Vec<i64> = std::iter::once(0).chain(2..g.ndim() as i64).collect();
    reduce(ReduceOp::Sum, g, Some(&axes), false)
}

/// `f` on each group's channels of x and g, the results joined along axis 0 (the
/// weight's group axis).
fn grouped(groups: usize, x: &Var, g: &Var, f: impl Fn(&Var, &Var) -> Result<Var>) -> Result<Var> {
    if groups == 1 {
        return f(x, g);
    }
    let channels = |v: &Var, j: usize| {
        let n = v.shape()[1] / groups;
        let items = [
            Index::Slice(ALL),
            Index::Slice(SliceSpec {
                start: Some((j * n) as i64),
                stop: Some(((j + 1) * n) as i64),
                step: 1,
            }),
        ];
        index(v, &items).map_err(|e| GradError::Tensor(e.error))
    };
    let parts = (0..groups)
        .map(|j| f(&channels(x, j)?, &channels(g, j)?))
        .collect::<Result<Vec<_>>>()?;
    concat(&parts, 0)
}

/// For `padding="same"` with an odd total in some spatial dim (an even dilated
/// kernel), the (before, after) zeros of every dim of an `ndim`-d x.
fn uneven_same(p: &ConvParams, w: &Var, spatial: usize, ndim: usize) -> Option<Vec<(i64, i64)>> {
    if !matches!(p.padding, Padding::Same) {
        return None;
    }
    let totals: Vec<usize> = (0..spatial)
        .map(|d| p.dilation[d] * w.shape()[2 + d].saturating_sub(1))
        .collect();
    if totals.iter().all(|t| t.is_multiple_of(2)) {
        return None;
    }
    let mut widths = vec![(0, 0); ndim - spatial];
    widths.extend(totals.iter().map(|&t| ((t / 2) as i64, (t - t / 2) as i64)));
    Some(widths)
}

/// The padding per spatial dim as explicit numbers ("same" with an odd total is
/// differentiated through an explicit pad, see `uneven_same`).
fn explicit_padding(
    op: &str,
    padding: &Padding,
    w: &Var,
    spatial: usize,
    dilation: &[usize],
) -> Result<Vec<usize>> {
    match padding {
        Padding::Explicit(p) => Ok(p.clone()),
        Padding::Valid => Ok(vec![0; spatial]),
        Padding::Same => (0..spatial)
            .map(|d| {
                let total = dilation[d] * (w.shape()[2 + d] - 1);
                if total.is_multiple_of(2) {
                    Ok(total / 2)
                } else {
                    Err(GradError::NotDifferentiable {
                        op: format!("{op} (internal: uneven \"same\" padding reached the rule)"),
                    })
                }
            })
            .collect(),
    }
}

/// x and g with a batch axis (an unbatched conv input has none), and whether it
/// was added.
fn batch_both(x: &Var, g: &Var, spatial: usize) -> Result<(Var, Var, bool)> {
    if x.ndim() == spatial + 2 {
        return Ok((x.clone(), g.clone(), false));
    }
    let add = |v: &Var| {
        let mut dims = vec![1i64];
        dims.extend(v.shape().iter().map(|&d| d as i64));
        reshape(v, &dims)
    };
    Ok((add(x)?, add(g)?, true))
}

fn unbatch(v: &Var, unbatched: bool) -> Result<Var> {
    if !unbatched {
        return Ok(v.clone());
    }
    let dims: Vec<i64> = v.shape()[1..].iter().map(|&d| d as i64).collect();
    reshape(v, &dims)
}

/// torch's fold: the columns added back into the image, overlaps summed; its
/// adjoint is im2col (which only moves elements).
pub fn col2im(cols: &Var, output_size: &[usize], p: &UnfoldParams) -> Result<Var> {
    let y = conv::col2im(cols, output_size, p)?;
    let p = p.clone();
    Ok(record("col2im", &[cols], y, move |g, _| {
        Ok(vec![Some(super::moved("im2col", g, |t| {
            conv::im2col(t, &p)
        })?)])
    }))
}

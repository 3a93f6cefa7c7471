//! The options of a convolution and their checks: the window each spatial dim gets,
//! padding rules, and the lists' lengths and values.

use crate::kernels::conv::Dim;
use crate::tensor::shape::checked_numel;
use crate::tensor::{Result, TensorError};

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

/// The window of a convolution along each spatial dim, with the number of positions
/// `(image + pad_before + pad_after - span) / stride + 1` where `span` is the dilated
/// kernel's extent; an error when the span exceeds the padded image.
pub(super) fn window_dims(
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
pub(super) fn check_products(op: &str, dims: &[Dim]) -> Result<()> {
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
pub(in crate::ops) fn dilated_span(op: &str, kernel: usize, dilation: usize) -> Result<usize> {
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
pub(super) fn same_padding(
    op: &str,
    kernel: &[usize],
    dilation: &[usize],
) -> Result<Vec<(usize, usize)>> {
    kernel
        .iter()
        .zip(dilation)
        .map(|(&k, &dil)| {
            let total = dilated_span(op, k, dil)?.saturating_sub(1);
            Ok((total / 2, total - total / 2))
        })
        .collect()
}

pub(in crate::ops) fn too_large(op: &str) -> TensorError {
    TensorError::value(op, "sizes are too large")
}

/// Checks that each named list has one entry per spatial dim.
pub(in crate::ops) fn check_lists(
    op: &str,
    spatial: usize,
    lists: &[(&str, &[usize])],
) -> Result<()> {
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
pub(in crate::ops) fn positive(op: &str, name: &str, list: &[usize]) -> Result<()> {
    if list.contains(&0) {
        let msg = format!("{name} must be positive, got {list:?}");
        return Err(TensorError::value(op, msg));
    }
    Ok(())
}

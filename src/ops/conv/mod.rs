//! Convolution with `torch.nn.functional` semantics, for any number of spatial dims:
//! `conv` (grouped, strided, padded, dilated), `conv_transpose` (its adjoint), and
//! `im2col`/`col2im` (torch's unfold/fold). Layouts are [batch, channels, spatial...];
//! an input without the batch dim is one sample, as in PyTorch.
//!
//! Dtypes: operands promote (PyTorch rules); f16/bf16 compute in f32 and round once;
//! integers are exact with wrapping, like `matmul`.

mod forward;
mod operands;
mod params;
mod run;
#[cfg(test)]
mod tests;
mod transpose;
mod unfold;

pub use forward::conv;
pub(super) use operands::{batched, unbatch};
pub(super) use params::{check_lists, dilated_span, positive, too_large};
pub use params::{ConvParams, Padding, TransposeParams, UnfoldParams};
pub use transpose::conv_transpose;
pub use unfold::{col2im, im2col};

//! The operands of the blocked f32 convolutions, shared by `conv_f32` and `winograd`.

use super::generic::Channels;
use super::window::Window;

/// The operands of a batch's convolution or transposed convolution: `x`, `weight`,
/// `bias` \[c_out\] (added last), the window and the channels.
#[derive(Clone, Copy)]
pub struct Operands<'a> {
    pub x: &'a [f32],
    pub weight: &'a [f32],
    pub bias: Option<&'a [f32]>,
    pub win: &'a Window,
    pub ch: Channels,
}

impl Operands<'_> {
    /// Input and output channels per group.
    pub fn per_group(&self) -> (usize, usize) {
        (
            self.ch.c_in / self.ch.groups,
            self.ch.c_out / self.ch.groups,
        )
    }
}

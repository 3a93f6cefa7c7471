//! The geometry of a sliding window over the spatial dims of an image: one `Dim` per
//! spatial dim and the `Window` over all of them, shared by every convolution and
//! unfold kernel.

use std::ops::Range;

/// True when a zero-padded copy of `padded` elements (`None`: too many to count) stays
/// within twice the `image` plus 4096: the kernels that copy the image padded take
/// only such windows, so their scratch stays proportional to the operands, and leave
/// padding or dilation far past the image to `conv`, which skips the padding.
pub fn padding_is_compact(padded: Option<usize>, image: usize) -> bool {
    padded.is_some_and(|n| n <= image.saturating_mul(2).saturating_add(4096))
}

/// One spatial dim of a sliding window: the image size, the kernel size, the number of
/// window positions, and stride, padding (before the first element) and dilation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim {
    pub image: usize,
    pub kernel: usize,
    pub out: usize,
    pub stride: usize,
    pub pad: usize,
    pub dilation: usize,
}

impl Dim {
    /// A dim of size 1 with a 1-wide kernel: how a missing spatial dim behaves.
    pub const POINT: Dim = Dim {
        image: 1,
        kernel: 1,
        out: 1,
        stride: 1,
        pad: 0,
        dilation: 1,
    };

    /// The padded extent the windows read: the last index a window reaches plus one
    /// (`None` when that overflows, or for an empty output or kernel).
    pub fn reach(&self) -> Option<usize> {
        let last_tap = self.kernel.checked_sub(1)?.checked_mul(self.dilation)?;
        self.out
            .checked_sub(1)?
            .checked_mul(self.stride)?
            .checked_add(last_tap)?
            .checked_add(1)
    }

    /// The image index that kernel tap `k` of window position `o` reads, or `None`
    /// when it falls in the padding.
    pub fn tap(&self, k: usize, o: usize) -> Option<usize> {
        (o * self.stride + k * self.dilation)
            .checked_sub(self.pad)
            .filter(|&i| i < self.image)
    }

    /// The image indices window position `o` reads, in tap order, skipping the taps
    /// in the padding (computed from the bounds, without visiting those taps).
    pub fn taps(&self, o: usize) -> impl Iterator<Item = usize> {
        let (start, d) = (o * self.stride, self.dilation);
        let first = self.pad.saturating_sub(start).div_ceil(d);
        let end = (self.pad.saturating_add(self.image))
            .saturating_sub(start)
            .div_ceil(d)
            .min(self.kernel);
        let pad = self.pad;
        (first..end.max(first)).map(move |j| start + j * d - pad)
    }
}

/// A sliding window over N spatial dims.
pub struct Window {
    dims: Vec<Dim>,
}

impl Window {
    pub fn new(dims: &[Dim]) -> Window {
        Window {
            dims: dims.to_vec(),
        }
    }

    /// The spatial dims, outermost first.
    pub fn dims(&self) -> &[Dim] {
        &self.dims
    }

    /// The stride of the last spatial dim (1 without spatial dims).
    pub(super) fn last_stride(&self) -> usize {
        self.dims.last().map_or(1, |d| d.stride)
    }

    /// Elements of one channel of the image.
    pub fn image_len(&self) -> usize {
        self.dims.iter().map(|d| d.image).product()
    }

    /// Taps of one channel of the kernel.
    pub fn kernel_len(&self) -> usize {
        self.dims.iter().map(|d| d.kernel).product()
    }

    /// Window positions.
    pub fn out_len(&self) -> usize {
        self.dims.iter().map(|d| d.out).product()
    }

    /// The last spatial dim and the ones before it (a window without spatial dims
    /// reads like one over a single point).
    pub fn split_last(&self) -> (Dim, &[Dim]) {
        self.dims
            .split_last()
            .map_or((Dim::POINT, &[][..]), |(last, outer)| (*last, outer))
    }

    /// True when every window is a single element of the image, in order (1×1 kernel,
    /// stride 1, no padding): then im2col is the image itself.
    pub fn is_identity(&self) -> bool {
        self.dims
            .iter()
            .all(|d| d.kernel == 1 && d.stride == 1 && d.pad == 0 && d.out == d.image)
    }

    /// Calls `f(k, o, i, len)` for every kernel tap `k` and every run of `len` window
    /// positions `o..o + len` (flat, row-major, consecutive along the last dim) whose
    /// tap `k` reads image elements `i, i + s, ..., i + (len - 1)·s` (flat; `s` is the
    /// last dim's stride) rather than padding; in order of `k`, then `o`.
    #[inline(always)]
    pub(super) fn for_each_run(&self, mut f: impl FnMut(usize, usize, usize, usize)) {
        let Some((last, outer)) = self.dims.split_last() else {
            // No spatial dims: one tap at one position.
            f(0, 0, 0, 1);
            return;
        };
        let inner = last.out;
        // Row-major strides of the image over the outer dims.
        let mut image_strides = vec![last.image; outer.len()];
        for d in (1..outer.len()).rev() {
            image_strides[d - 1] = image_strides[d] * outer[d].image;
        }
        let mut k_outer = vec![0; outer.len()];
        for k in 0..self.kernel_len() {
            // The tap's index along the last dim, then along the others.
            let k_last = k % last.kernel;
            let mut rest = k / last.kernel;
            for (kd, dim) in k_outer.iter_mut().zip(outer).rev() {
                *kd = rest % dim.kernel;
                rest /= dim.kernel;
            }
            let run = last.inside(k_last);
            let Some(first) = last.tap(k_last, run.start).filter(|_| !run.is_empty()) else {
                continue;
            };
            let Some((mid, rest)) = outer.split_last() else {
                f(k, run.start, first, run.len());
                continue;
            };
            // The innermost outer dim steps incrementally over the positions where the
            // tap is inside; the dims before it are decoded once per row of those.
            let (k_mid, mid_stride) = (k_outer[rest.len()], image_strides[rest.len()]);
            let rows = mid.inside(k_mid);
            let Some(mid_first) = mid.tap(k_mid, rows.start).filter(|_| !rows.is_empty()) else {
                continue;
            };
            let rest_len: usize = rest.iter().map(|d| d.out).product();
            for q in 0..rest_len {
                // The image offset of the position's coordinates along the rest dims.
                let mut left = q;
                let mut base = Some(0);
                for (d, dim) in rest.iter().enumerate().rev() {
                    let tap = dim.tap(k_outer[d], left % dim.out);
                    left /= dim.out;
                    base = base.zip(tap).map(|(b, i)| b + i * image_strides[d]);
                }
                let Some(base) = base else { continue };
                let mut i = base + mid_first * mid_stride + first;
                // Wrapping: the step is the distance between two rows read, so it
                // fits, except past the last row (a stride longer than the image),
                // where `i` is not read again.
                let step = mid.stride.wrapping_mul(mid_stride);
                for pm in rows.clone() {
                    f(k, (q * mid.out + pm) * inner + run.start, i, run.len());
                    i = i.wrapping_add(step);
                }
            }
        }
    }
}

impl Dim {
    /// The window positions whose tap `k` reads the image rather than padding.
    fn inside(&self, k: usize) -> Range<usize> {
        let reach = k * self.dilation; // o·stride + reach - pad must be in 0..image
        let start = self.pad.saturating_sub(reach).div_ceil(self.stride);
        let end = (self.pad + self.image)
            .saturating_sub(reach)
            .div_ceil(self.stride)
            .min(self.out);
        start..end.max(start)
    }
}

/// Values per parallel chunk of a per-channel loop: twice the elementwise chunk, as each
/// chunk sets up scratch of its own (a padded image, gathered rows). At the elementwise
/// chunk (1 << 15) the depthwise 3 × 3 convolution of [1,256,28,28] at 2 threads took
/// 0.100–0.112 ms against 0.056–0.058 (2026-12-05 Xeon, alternating processes).
const CHANNEL_CHUNK_VALUES: usize = 1 << 16;

/// Channels per parallel chunk of a per-channel loop over `len`-element channels.
pub(crate) fn channels_per_chunk(len: usize) -> usize {
    (CHANNEL_CHUNK_VALUES / len.max(1)).max(1)
}

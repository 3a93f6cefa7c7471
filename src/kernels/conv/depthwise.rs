//! Depthwise convolution (one input channel per group) over [height, width] planes
//! with stride 1 along the width, computed directly: each input channel is copied once
//! into a zero-padded plane, then each output row is, a vector of outputs at a time (8
//! in the generic kernel, 16 in the AVX-512 3×3 one), the sum over the kernel's taps of
//! the tap's weight times the padded row at the tap's offset (contiguous loads, the
//! sums held in registers), plus the bias. The loops are `twin!` kernels (and, for 3×3,
//! `depthwise_3x3`'s): every build adds in the same order and gives the same bits.
//! Parallel over fixed blocks of output channels.

use std::mem::MaybeUninit;

use super::planes::Planes;
use super::window::channels_per_chunk;
use crate::kernels::alloc::filled;
use crate::kernels::isa::Isa;
use crate::kernels::math::arith::Arith;
use crate::kernels::parallel::for_each_chunk_mut;
use crate::kernels::twin::twin;

/// Outputs computed together: one AVX2 vector of f32.
const LANES: usize = 8;

/// A kernel computing one output channel: `plane`, or `plane_f32` for f32.
pub type PlaneKernel<T> = fn(Isa, &mut [MaybeUninit<T>], &[T], &[T], T, &Planes);

/// Depthwise convolution of a batch of `batch` samples into a new buffer with `kernel`
/// per output channel: `x` is
/// [batch, c_in, image], `weight` [c_out, taps] and `bias` \[c_out\]; output channel `o`
/// reads input channel `o / (c_out / c_in)`. The output is [batch, c_out, out]: for
/// each output, 0 plus each tap's weight times its (zero-padded) input in tap order,
/// then plus the bias. `None` when the buffer cannot be allocated.
#[allow(clippy::too_many_arguments)]
pub fn depthwise_new<T: Arith>(
    isa: Isa,
    kernel: PlaneKernel<T>,
    x: &[T],
    weight: &[T],
    bias: Option<&[T]>,
    p: &Planes,
    batch: usize,
    [c_in, c_out]: [usize; 2],
) -> Option<Vec<T>> {
    let (image, out_len, taps) = (p.image_len(), p.out_len(), p.taps());
    let mult = c_out / c_in;
    let chunk = channels_per_chunk(out_len * taps) * out_len;
    let fill = |out: &mut [MaybeUninit<T>]| {
        for_each_chunk_mut(out, chunk, |start, chunk| {
            let mut padded = vec![T::default(); p.padded[0] * p.padded[1]];
            let mut copied = None;
            for (i, dst) in chunk.chunks_exact_mut(out_len).enumerate() {
                // The output channel over the whole batch, and its input channel.
                let channel = start / out_len + i;
                let (sample, o) = (channel / c_out, channel % c_out);
                let input = sample * c_in + o / mult;
                if copied != Some(input) {
                    p.pad_into(&mut padded, &x[input * image..][..image]);
                    copied = Some(input);
                }
                let w = &weight[o * taps..][..taps];
                kernel(isa, dst, &padded, w, bias.map_or(T::default(), |b| b[o]), p);
            }
        })
    };
    // SAFETY: `for_each_chunk_mut` hands every chunk of the output to the closure
    // (unless interrupted), which splits it into whole channels, and `plane` writes
    // every output of a channel.
    unsafe { filled(batch * c_out * out_len, fill) }
}

twin! {
    /// One output channel from its zero-padded input plane, weights and bias (+0 for
    /// none: a sum from +0 is never -0, so adding it changes nothing).
    pub fn plane[T: Arith](
        out: &mut [MaybeUninit<T>],
        padded: &[T],
        w: &[T],
        bias: T,
        p: &Planes,
    ) {
        let width = p.cols.out;
        let t = Taps {
            kernel: [p.rows.kernel, p.cols.kernel],
            dilation: [p.rows.dilation, p.cols.dilation],
            padded_width: p.padded[1],
            w,
            bias,
        };
        for (r, dst) in out.chunks_exact_mut(width).enumerate() {
            let from = &padded[r * p.rows.stride * p.padded[1]..];
            if width >= LANES {
                // The last block ends at the row's end, recomputing a few outputs (to
                // the same values).
                let mut c = 0;
                while c < width {
                    let at = c.min(width - LANES);
                    t.block::<LANES>(&mut dst[at..at + LANES], &from[at..]);
                    c = at + LANES;
                }
            } else {
                for (c, d) in dst.chunks_exact_mut(1).enumerate() {
                    t.block::<1>(d, &from[c..]);
                }
            }
        }
    }
}

/// `plane` for f32, with kernels of its own (`depthwise_3x3`) for a 3×3 kernel with
/// stride and dilation 1 when `isa` has AVX-512 or AVX2; the same bits either way.
pub fn plane_f32(
    isa: Isa,
    out: &mut [MaybeUninit<f32>],
    padded: &[f32],
    w: &[f32],
    bias: f32,
    p: &Planes,
) {
    #[cfg(target_arch = "x86_64")]
    if p.is_plain_3x3() {
        use super::depthwise_3x3::{AVX2_LANES, AVX512_LANES};
        if isa.avx512() && p.cols.out >= AVX512_LANES {
            // SAFETY: `Isa::avx512()` is true only when AVX-512 F was detected.
            return unsafe { super::depthwise_3x3::plane_3x3_avx512(out, padded, w, bias, p) };
        }
        if isa.avx2() && p.cols.out >= AVX2_LANES {
            // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
            return unsafe { super::depthwise_3x3::plane_3x3_avx2(out, padded, w, bias, p) };
        }
    }
    plane(isa, out, padded, w, bias, p)
}

/// The kernel of one output channel, over a zero-padded plane `padded_width` wide.
struct Taps<'a, T> {
    kernel: [usize; 2],
    dilation: [usize; 2],
    padded_width: usize,
    w: &'a [T],
    bias: T,
}

impl<T: Arith> Taps<'_, T> {
    /// `L` consecutive outputs of a row into `dst`, the first one's window starting at
    /// `from[0]`: 0, plus each tap's weight times its input in tap order, plus the bias.
    #[inline(always)]
    fn block<const L: usize>(&self, dst: &mut [MaybeUninit<T>], from: &[T]) {
        let ([kh, kw], [dh, dw]) = (self.kernel, self.dilation);
        let mut acc = [T::default(); L];
        for i in 0..kh {
            for j in 0..kw {
                let (wk, start) = (self.w[i * kw + j], i * dh * self.padded_width + j * dw);
                for (a, &v) in acc.iter_mut().zip(&from[start..start + L]) {
                    *a = a.add(wk.mul(v));
                }
            }
        }
        for a in &mut acc {
            *a = a.add(self.bias);
        }
        dst.write_copy_of_slice(&acc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::conv::generic::tests::dim;
    use crate::kernels::conv::window::Dim;

    /// Pseudo-random values of mixed magnitude, so that the order of the sums shows.
    fn test_values(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 7919 + seed * 104_729) % 1013) as f32 * 0.0371 - 17.3)
            .collect()
    }

    /// `dim(image, kernel, stride, pad, dilation)` when the kernel fits in the padded
    /// image.
    fn fitting(image: usize, [kernel, stride, pad, dilation]: [usize; 4]) -> Option<Dim> {
        let fits = image + 2 * pad > dilation * (kernel - 1);
        fits.then(|| dim(image, kernel, stride, pad, dilation))
    }

    /// The convolution written out from its definition, adding in the kernels' order
    /// (0, then each tap's weight times its input or a padding zero, then the bias).
    fn naive(x: &[f32], w: &[f32], bias: Option<&[f32]>, dims: &[Dim], c: [usize; 2]) -> Vec<f32> {
        let (rows, cols) = match *dims {
            [cols] => (dim(1, 1, 1, 0, 1), cols),
            [rows, cols] => (rows, cols),
            _ => unreachable!(),
        };
        let [c_in, c_out] = c;
        let image = rows.image * cols.image;
        let batch = x.len() / (c_in * image);
        let mut out = vec![];
        for (n, o) in (0..batch).flat_map(|n| (0..c_out).map(move |o| (n, o))) {
            let plane = &x[(n * c_in + o / (c_out / c_in)) * image..][..image];
            for (r, q) in (0..rows.out).flat_map(|r| (0..cols.out).map(move |q| (r, q))) {
                let mut acc = 0f32;
                for (i, j) in (0..rows.kernel).flat_map(|i| (0..cols.kernel).map(move |j| (i, j))) {
                    let v = match (rows.tap(i, r), cols.tap(j, q)) {
                        (Some(y), Some(x)) => plane[y * cols.image + x],
                        _ => 0.0,
                    };
                    acc += w[(o * rows.kernel + i) * cols.kernel + j] * v;
                }
                out.push(acc + bias.map_or(0.0, |b| b[o]));
            }
        }
        out
    }

    /// The generic kernel on the scalar and best builds and the f32 one on every ISA of
    /// this CPU (its own 3×3 kernels with AVX-512 and AVX2) against the definition, bit
    /// for bit: 1 and 2 dims, planes narrower than a vector, odd widths, one row or
    /// column, row strides, dilation, padding wider than the kernel reaches, channel
    /// multipliers and bias.
    #[test]
    fn depthwise_matches_the_definition() {
        let mut cases = 0;
        let shapes = [
            (0, 1),
            (0, 13),
            (1, 1),
            (1, 9),
            (2, 3),
            (5, 1),
            (4, 8),
            (5, 9),
            (9, 16),
            (6, 21),
        ];
        for (h, w) in shapes {
            for (kh, kw) in [(1, 1), (3, 3), (2, 3), (3, 1), (1, 4), (5, 5)] {
                for (stride, dil, pad, mult) in (1..=2)
                    .flat_map(|s| (1..=2).map(move |d| (s, d)))
                    .flat_map(|(s, d)| (0..=3).map(move |p| (s, d, p)))
                    .flat_map(|(s, d, p)| (1..=2).map(move |m| (s, d, p, m)))
                {
                    let col = fitting(w, [kw, 1, pad, dil]);
                    let dims: Vec<Dim> = match h {
                        0 if kh == 1 => col.into_iter().collect(),
                        0 => continue,
                        _ => fitting(h, [kh, stride, pad, dil])
                            .into_iter()
                            .chain(col)
                            .collect(),
                    };
                    let Some(planes) = Planes::new(&dims).filter(|_| dims.len() == h.min(1) + 1)
                    else {
                        continue;
                    };
                    let (c_in, batch) = (3, 2);
                    let c = [c_in, c_in * mult];
                    let x = test_values(batch * c_in * h.max(1) * w, h + w);
                    let wt = test_values(c[1] * kh * kw, kh + kw);
                    let bias = (pad % 2 == 1).then(|| test_values(c[1], 7));
                    let want: Vec<u32> = naive(&x, &wt, bias.as_deref(), &dims, c)
                        .iter()
                        .map(|v| v.to_bits())
                        .collect();
                    let run = |isa, kernel: PlaneKernel<f32>| {
                        let out =
                            depthwise_new(isa, kernel, &x, &wt, bias.as_deref(), &planes, batch, c);
                        out.unwrap().iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                    };
                    let case = format!("{h}x{w} kernel {kh}x{kw} stride {stride} dilation {dil} pad {pad} multiplier {mult}");
                    assert_eq!(run(Isa::SCALAR, plane), want, "{case}");
                    assert_eq!(run(Isa::detect(), plane), want, "{case}");
                    for isa in Isa::supported() {
                        assert_eq!(run(isa, plane_f32), want, "{case} {isa:?}");
                    }
                    cases += 1;
                }
            }
        }
        assert!(cases > 500, "{cases}");
    }
}

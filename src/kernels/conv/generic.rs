//! The machinery of convolution, unfold and fold over any element type: `im2col` copies every window into the columns of a matrix (so a
//! convolution is one matrix product), `col2im` adds columns back into an image (its
//! adjoint, for transposed convolution and fold); `conv` and `conv_transpose` run them
//! with the GEMM, and depthwise convolution runs directly. All walk the window in runs
//! along the last dim, the same code for 1, 2 and 3 spatial dims.

use super::window::{channels_per_chunk, Window};
use crate::kernels::isa::Isa;
use crate::kernels::linalg::mat::Mat;
use crate::kernels::linalg::matmul::MatMul;
use crate::kernels::math::arith::Arith;
use crate::kernels::parallel::for_each_chunk_mut;

/// Copies every window of `image` ([channels, spatial...], row-major) into `cols`
/// ([channels × kernel_len, out_len], row-major); taps in the padding are zero.
/// Parallel over fixed groups of channels (a copy: the same for any thread count).
pub fn im2col<T: Copy + Default + Send + Sync>(cols: &mut [T], image: &[T], win: &Window) {
    let (image_len, rows) = (win.image_len(), win.kernel_len() * win.out_len());
    if image_len == 0 || rows == 0 {
        cols.fill(T::default());
        return;
    }
    let (out_len, step) = (win.out_len(), win.last_stride());
    let chunk = channels_per_chunk(rows) * rows;
    for_each_chunk_mut(cols, chunk, |start, cols| {
        let first = start / rows;
        cols.fill(T::default());
        for (c, dst) in cols.chunks_exact_mut(rows).enumerate() {
            let channel = &image[(first + c) * image_len..(first + c + 1) * image_len];
            win.for_each_run(|k, o, i, len| {
                let dst = &mut dst[k * out_len + o..k * out_len + o + len];
                if step == 1 {
                    dst.copy_from_slice(&channel[i..i + len]);
                } else {
                    for (d, &v) in dst.iter_mut().zip(channel[i..].iter().step_by(step)) {
                        *d = v;
                    }
                }
            });
        }
    });
}

/// The adjoint of `im2col`: adds every column entry into the image element it was
/// copied from (overlapping windows sum, in the order of the taps; taps in the padding
/// are dropped). `image` is zeroed first. Parallel over fixed groups of channels.
pub fn col2im<T: Arith>(image: &mut [T], cols: &[T], win: &Window) {
    let (image_len, rows) = (win.image_len(), win.kernel_len() * win.out_len());
    image.fill(T::default());
    if image_len == 0 || rows == 0 {
        return;
    }
    let (out_len, step) = (win.out_len(), win.last_stride());
    let chunk = channels_per_chunk(rows) * image_len;
    for_each_chunk_mut(image, chunk, |start, image| {
        let first = start / image_len;
        for (c, channel) in image.chunks_exact_mut(image_len).enumerate() {
            let src = &cols[(first + c) * rows..(first + c + 1) * rows];
            win.for_each_run(|k, o, i, len| {
                let src = &src[k * out_len + o..k * out_len + o + len];
                for (d, &v) in channel[i..].iter_mut().step_by(step).zip(src) {
                    *d = d.add(v);
                }
            });
        }
    });
}

/// Channels and groups of a convolution: `c_in` input channels in `groups` groups,
/// each producing `c_out / groups` of the `c_out` outputs.
#[derive(Clone, Copy, Debug)]
pub struct Channels {
    pub c_in: usize,
    pub c_out: usize,
    pub groups: usize,
}

/// Convolution of a batch: `x` [N, c_in, image...], `weight` [c_out, c_in/groups ·
/// kernel_len] and `out` [N, c_out, out_len], all row-major. Depthwise (one input
/// channel per group) runs directly; otherwise per sample, im2col and one GEMM per group
/// of weight [c_out/g, c_in/g · K] by columns [c_in/g · K, L]. Samples run in parallel,
/// each computed the same way whatever the thread count.
pub fn conv<T: MatMul>(out: &mut [T], x: &[T], weight: &[T], win: &Window, ch: Channels) {
    let (l, image) = (win.out_len(), win.image_len());
    let (ci, co) = (ch.c_in / ch.groups, ch.c_out / ch.groups);
    let k = ci * win.kernel_len();
    if out.is_empty() {
        return;
    }
    if k == 0 {
        // No input channels (or kernel taps) reach the output: it is all zeros.
        out.fill(T::default());
        return;
    }
    if ci == 1 {
        return depthwise(out, x, weight, win, co, ch.c_out);
    }
    for_each_chunk_mut(out, ch.c_out * l, |start, on| {
        let sample = start / (ch.c_out * l);
        let xn = &x[sample * ch.c_in * image..(sample + 1) * ch.c_in * image];
        let unfolded;
        let cols = if win.is_identity() {
            xn
        } else {
            let mut buf = vec![T::default(); ch.c_in * k / ci * l];
            im2col(&mut buf, xn, win);
            unfolded = buf;
            &unfolded
        };
        for (g, og) in on.chunks_exact_mut(co * l).enumerate() {
            let wg = Mat::row_major(&weight[g * co * k..(g + 1) * co * k], co, k);
            let cg = Mat::row_major(&cols[g * k * l..(g + 1) * k * l], k, l);
            T::matmul(og, wg, cg);
        }
    });
}

/// Transposed convolution of a batch: `x` [N, c_in, L], `weight` [c_in, c_out/groups ·
/// kernel_len] (PyTorch's order) and `out` [N, c_out, image...]. Per sample and group,
/// columns = weightᵀ [c_out/g · K, c_in/g] (a transposed view, not a copy) times the
/// sample [c_in/g, L]; then col2im adds the columns into the image.
pub fn conv_transpose<T: MatMul>(out: &mut [T], x: &[T], weight: &[T], win: &Window, ch: Channels) {
    let (l, image) = (win.out_len(), win.image_len());
    let (ci, co) = (ch.c_in / ch.groups, ch.c_out / ch.groups);
    let k = co * win.kernel_len();
    if out.is_empty() {
        return;
    }
    if k * l == 0 {
        // An empty input image (or kernel) adds nothing: the output is all zeros.
        out.fill(T::default());
        return;
    }
    for_each_chunk_mut(out, ch.c_out * image, |start, on| {
        let sample = start / (ch.c_out * image);
        let xn = &x[sample * ch.c_in * l..(sample + 1) * ch.c_in * l];
        let mut cols = vec![T::default(); ch.groups * k * l];
        for (g, cg) in cols.chunks_exact_mut(k * l).enumerate() {
            // Cannot fire: ops::conv checked the weight's shape, so it holds
            // c_in · c_out/groups · K elements.
            let wg = Mat::new(weight, g * ci * k, (k, ci), (1, k as isize))
                .expect("weight holds c_in × c_out/groups · K elements");
            T::matmul(
                cg,
                wg,
                Mat::row_major(&xn[g * ci * l..(g + 1) * ci * l], ci, l),
            );
        }
        col2im(on, &cols, win);
    });
}

/// Depthwise convolution (one input channel per group, `mult` outputs each, `c_out`
/// in all): per output channel, out[o] = Σ over taps of w[tap] · x[window tap],
/// accumulated tap by tap over runs of outputs (vectorized along the last dim).
/// Parallel over fixed groups of output channels.
fn depthwise<T: Arith>(
    out: &mut [T],
    x: &[T],
    weight: &[T],
    win: &Window,
    mult: usize,
    c_out: usize,
) {
    let (l, image, taps) = (win.out_len(), win.image_len(), win.kernel_len());
    for_each_chunk_mut(out, channels_per_chunk(l * taps) * l, |start, chunk| {
        for (c, oc) in chunk.chunks_exact_mut(l).enumerate() {
            // The output channel over the whole batch; with c_out = c_in · mult, its
            // input channel over the batch is that divided by mult.
            let channel = start / l + c;
            let input = &x[channel / mult * image..(channel / mult + 1) * image];
            let w = &weight[channel % c_out * taps..(channel % c_out + 1) * taps];
            depthwise_channel(oc, input, w, win, Isa::detect());
        }
    });
}

/// One output channel of `depthwise`, with AVX2 when `isa` has it. Multiplies and adds
/// are separate (never fused), so both builds give the same bits.
fn depthwise_channel<T: Arith>(out: &mut [T], x: &[T], w: &[T], win: &Window, isa: Isa) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: an `Isa` with AVX2 exists only on a CPU that has it.
        return unsafe { depthwise_channel_avx2(out, x, w, win) };
    }
    let _ = isa;
    depthwise_runs(out, x, w, win);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn depthwise_channel_avx2<T: Arith>(out: &mut [T], x: &[T], w: &[T], win: &Window) {
    depthwise_runs(out, x, w, win);
}

#[inline(always)]
fn depthwise_runs<T: Arith>(out: &mut [T], x: &[T], w: &[T], win: &Window) {
    out.fill(T::default());
    let step = win.last_stride();
    win.for_each_run(|k, o, i, len| {
        let (wk, out) = (w[k], &mut out[o..o + len]);
        if step == 1 {
            for (d, &v) in out.iter_mut().zip(&x[i..i + len]) {
                *d = d.add(wk.mul(v));
            }
        } else {
            for (d, &v) in out.iter_mut().zip(x[i..].iter().step_by(step)) {
                *d = d.add(wk.mul(v));
            }
        }
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::kernels::conv::window::Dim;

    /// A dim of `image` elements with PyTorch's output count (the kernel must fit).
    pub(crate) fn dim(
        image: usize,
        kernel: usize,
        stride: usize,
        pad: usize,
        dilation: usize,
    ) -> Dim {
        let span = dilation * (kernel - 1) + 1;
        let out = (image + 2 * pad - span) / stride + 1;
        Dim {
            image,
            kernel,
            out,
            stride,
            pad,
            dilation,
        }
    }

    /// im2col written out with multi-indices for up to three dims.
    fn naive_im2col(image: &[f64], channels: usize, dims: &[Dim]) -> Vec<f64> {
        let mut d3 = dims.to_vec();
        while d3.len() < 3 {
            d3.insert(0, dim(1, 1, 1, 0, 1));
        }
        let [a, b, c] = [d3[0], d3[1], d3[2]];
        let mut cols = vec![];
        for ch in 0..channels {
            for (ka, kb, kc) in triples(a.kernel, b.kernel, c.kernel) {
                for (oa, ob, oc) in triples(a.out, b.out, c.out) {
                    let v = match (a.tap(ka, oa), b.tap(kb, ob), c.tap(kc, oc)) {
                        (Some(i), Some(j), Some(k)) => {
                            image[((ch * a.image + i) * b.image + j) * c.image + k]
                        }
                        _ => 0.0,
                    };
                    cols.push(v);
                }
            }
        }
        cols
    }

    fn triples(a: usize, b: usize, c: usize) -> Vec<(usize, usize, usize)> {
        (0..a)
            .flat_map(|i| (0..b).flat_map(move |j| (0..c).map(move |k| (i, j, k))))
            .collect()
    }

    fn cases() -> Vec<Vec<Dim>> {
        vec![
            vec![dim(7, 3, 1, 0, 1)],
            vec![dim(9, 2, 3, 2, 2)],
            vec![dim(5, 3, 1, 1, 1), dim(6, 2, 2, 0, 1)],
            vec![dim(4, 3, 2, 2, 1), dim(5, 2, 1, 1, 3)],
            vec![dim(3, 1, 1, 0, 1), dim(4, 3, 1, 1, 1), dim(5, 2, 2, 1, 2)],
        ]
    }

    #[test]
    fn im2col_matches_index_arithmetic() {
        for dims in cases() {
            let win = Window::new(&dims);
            let channels = 2;
            let image: Vec<f64> = (0..channels * win.image_len())
                .map(|i| i as f64 + 1.0)
                .collect();
            let mut cols = vec![f64::NAN; channels * win.kernel_len() * win.out_len()];
            im2col(&mut cols, &image, &win);
            assert_eq!(cols, naive_im2col(&image, channels, &dims), "{dims:?}");
        }
    }

    #[test]
    fn col2im_is_the_adjoint_of_im2col() {
        // <im2col(x), c> == <x, col2im(c)> for integer data (exact).
        for dims in cases() {
            let win = Window::new(&dims);
            let x: Vec<i64> = (0..3 * win.image_len())
                .map(|i| (i * 7 % 11) as i64 - 5)
                .collect();
            let c: Vec<i64> = (0..3 * win.kernel_len() * win.out_len())
                .map(|i| (i * 5 % 13) as i64 - 6)
                .collect();
            let mut cols = vec![0; c.len()];
            im2col(&mut cols, &x, &win);
            let mut back = vec![0; x.len()];
            col2im(&mut back, &c, &win);
            let lhs: i64 = cols.iter().zip(&c).map(|(a, b)| a * b).sum();
            let rhs: i64 = x.iter().zip(&back).map(|(a, b)| a * b).sum();
            assert_eq!(lhs, rhs, "{dims:?}");
        }
    }

    #[test]
    fn taps_are_the_taps_inside_the_image() {
        for image in 0..6 {
            for (kernel, stride, pad, dilation) in
                [(3, 1, 1, 1), (2, 2, 2, 3), (4, 3, 0, 2), (1, 1, 5, 1)]
            {
                let d = Dim {
                    image,
                    kernel,
                    out: 6,
                    stride,
                    pad,
                    dilation,
                };
                for o in 0..6 {
                    let want: Vec<usize> = (0..kernel).filter_map(|k| d.tap(k, o)).collect();
                    assert_eq!(d.taps(o).collect::<Vec<_>>(), want, "{d:?} at {o}");
                }
            }
        }
    }

    #[test]
    fn windows_entirely_in_the_padding_and_empty_images() {
        let d = Dim {
            image: 0,
            kernel: 2,
            out: 3,
            stride: 1,
            pad: 2,
            dilation: 1,
        };
        let win = Window::new(&[d]);
        let mut cols = vec![7.0; 6];
        im2col(&mut cols, &[], &win);
        assert_eq!(cols, vec![0.0; 6]);
        assert_eq!(d.tap(0, 0), None);
        let mut image: Vec<f32> = vec![];
        col2im(&mut image, &[1.0; 6], &win);
    }

    #[test]
    fn depthwise_is_the_same_with_and_without_avx2() {
        for dims in cases() {
            let win = Window::new(&dims);
            let x: Vec<f32> = (0..win.image_len())
                .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.013)
                .collect();
            let w: Vec<f32> = (0..win.kernel_len())
                .map(|i| 0.7 - i as f32 * 0.11)
                .collect();
            let mut simd = vec![f32::NAN; win.out_len()];
            let mut scalar = simd.clone();
            depthwise_channel(&mut simd, &x, &w, &win, Isa::detect());
            depthwise_channel(&mut scalar, &x, &w, &win, Isa::SCALAR);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&simd), bits(&scalar), "{dims:?}");
            // And it is the convolution: im2col columns weighted by the taps.
            let mut cols = vec![0.0; win.kernel_len() * win.out_len()];
            im2col(&mut cols, &x, &win);
            for (o, &got) in scalar.iter().enumerate() {
                let want: f32 = (0..win.kernel_len())
                    .map(|k| w[k] * cols[k * win.out_len() + o])
                    .sum();
                assert!((got - want).abs() < 1e-5, "{dims:?} at {o}");
            }
        }
    }
}

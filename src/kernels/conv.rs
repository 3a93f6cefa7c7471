//! Sliding windows over the spatial dims of an image, the machinery of convolution,
//! unfold and fold: `im2col` copies every window into the columns of a matrix (so a
//! convolution is one matrix product), `col2im` adds columns back into an image (its
//! adjoint, for transposed convolution and fold).

use super::arith::Arith;

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

    /// Calls `f(k, o, i)` for every kernel tap `k` and window position `o` (flat,
    /// row-major) whose tap reads image element `i` (flat) rather than padding, in
    /// order of `k`, then `o`.
    fn for_each_tap(&self, mut f: impl FnMut(usize, usize, usize)) {
        let Some((last, outer)) = self.dims.split_last() else {
            // No spatial dims: one tap at one position.
            f(0, 0, 0);
            return;
        };
        let (inner, outer_len) = (last.out, outer.iter().map(|d| d.out).product::<usize>());
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
            for p in 0..outer_len {
                // The image offset of the window position's outer coordinates.
                let mut rest = p;
                let mut base = Some(0);
                for (d, dim) in outer.iter().enumerate().rev() {
                    let tap = dim.tap(k_outer[d], rest % dim.out);
                    rest /= dim.out;
                    base = base.zip(tap).map(|(b, i)| b + i * image_strides[d]);
                }
                let Some(base) = base else { continue };
                for j in 0..inner {
                    if let Some(i) = last.tap(k_last, j) {
                        f(k, p * inner + j, base + i);
                    }
                }
            }
        }
    }
}

/// Copies every window of `image` ([channels, spatial...], row-major) into `cols`
/// ([channels × kernel_len, out_len], row-major); taps in the padding are zero.
pub fn im2col<T: Copy + Default>(cols: &mut [T], image: &[T], win: &Window) {
    cols.fill(T::default());
    let (image_len, rows) = (win.image_len(), win.kernel_len() * win.out_len());
    if image_len == 0 || rows == 0 {
        return;
    }
    let out_len = win.out_len();
    for (channel, dst) in image
        .chunks_exact(image_len)
        .zip(cols.chunks_exact_mut(rows))
    {
        win.for_each_tap(|k, o, i| dst[k * out_len + o] = channel[i]);
    }
}

/// The adjoint of `im2col`: adds every column entry into the image element it was
/// copied from (overlapping windows sum; taps in the padding are dropped). `image`
/// is zeroed first.
pub fn col2im<T: Arith>(image: &mut [T], cols: &[T], win: &Window) {
    image.fill(T::default());
    let (image_len, rows) = (win.image_len(), win.kernel_len() * win.out_len());
    if image_len == 0 || rows == 0 {
        return;
    }
    let out_len = win.out_len();
    for (channel, src) in image
        .chunks_exact_mut(image_len)
        .zip(cols.chunks_exact(rows))
    {
        win.for_each_tap(|k, o, i| channel[i] = channel[i].add(src[k * out_len + o]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dim(image: usize, kernel: usize, stride: usize, pad: usize, dilation: usize) -> Dim {
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
}

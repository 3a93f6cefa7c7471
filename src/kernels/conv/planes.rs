//! The plane geometry of the depthwise kernels, shared by the scalar twin and the
//! AVX2 kernel.

use super::window::{padding_is_compact, Dim};

/// The geometry of a depthwise convolution this kernel runs, as rows and columns of a
/// plane (a 1-d convolution is a single row).
#[derive(Clone, Copy, Debug)]
pub struct Planes {
    pub(super) rows: Dim,
    pub(super) cols: Dim,
    /// Rows and columns of the zero-padded plane the windows read.
    pub(super) padded: [usize; 2],
}

impl Planes {
    /// 1 or 2 spatial dims with stride 1 along the last, a non-empty image, kernel and
    /// output, and padding that at most doubles the plane (plus a little); else `None`.
    pub fn new(dims: &[Dim]) -> Option<Planes> {
        let (rows, cols) = match *dims {
            [cols] => (Dim::POINT, cols),
            [rows, cols] => (rows, cols),
            _ => return None,
        };
        let padded = [rows.reach()?, cols.reach()?];
        let image = rows.image * cols.image;
        let fits = padding_is_compact(padded[0].checked_mul(padded[1]), image);
        (cols.stride == 1 && image > 0 && fits).then_some(Planes { rows, cols, padded })
    }

    /// Output rows and columns.
    pub(crate) fn out(&self) -> [usize; 2] {
        [self.rows.out, self.cols.out]
    }

    /// Rows and columns of the zero-padded plane.
    pub(crate) fn padded(&self) -> [usize; 2] {
        self.padded
    }

    /// A 3×3 kernel with stride and dilation 1.
    pub(super) fn is_plain_3x3(&self) -> bool {
        let plain = |d: &Dim| d.kernel == 3 && d.stride == 1 && d.dilation == 1;
        plain(&self.rows) && plain(&self.cols)
    }

    pub(super) fn image_len(&self) -> usize {
        self.rows.image * self.cols.image
    }

    pub(super) fn out_len(&self) -> usize {
        self.rows.out * self.cols.out
    }

    pub(super) fn taps(&self) -> usize {
        self.rows.kernel * self.cols.kernel
    }

    /// Copies `image` into the zero-padded plane `padded` at the padding's offset,
    /// leaving the rest as it is (zeros, written once), and dropping the rows and
    /// columns past the last window.
    pub(super) fn pad_into<T: Copy>(&self, padded: &mut [T], image: &[T]) {
        let [rows, cols] = self.padded;
        let (top, left) = (self.rows.pad, self.cols.pad);
        let width = self.cols.image.min(cols.saturating_sub(left));
        let height = self.rows.image.min(rows.saturating_sub(top));
        for (r, src) in image.chunks_exact(self.cols.image).take(height).enumerate() {
            padded[(top + r) * cols + left..][..width].copy_from_slice(&src[..width]);
        }
    }
}

//! Strided matrix views, the operands of every matrix product kernel.

use std::ops::Range;

/// A matrix inside a slice: element (i, j) is `data[offset + i·row_stride + j·col_stride]`.
/// Strides may be negative (reversed views) or zero (broadcast rows or columns); `new`
/// proves every element is inside `data`, which is what the GEMM's raw pointers rely on.
#[derive(Clone, Copy, Debug)]
pub struct Mat<'a, T> {
    data: &'a [T],
    offset: usize,
    rows: usize,
    cols: usize,
    row_stride: isize,
    col_stride: isize,
}

impl<'a, T: Copy> Mat<'a, T> {
    /// The view, or `None` when some element would fall outside `data`.
    pub fn new(
        data: &'a [T],
        offset: usize,
        (rows, cols): (usize, usize),
        (row_stride, col_stride): (isize, isize),
    ) -> Option<Mat<'a, T>> {
        if rows > 0 && cols > 0 {
            let ends = |n: usize, s: isize| {
                let span = (n as i128 - 1) * s as i128;
                (span.min(0), span.max(0))
            };
            let ((r_lo, r_hi), (c_lo, c_hi)) = (ends(rows, row_stride), ends(cols, col_stride));
            let base = offset as i128;
            if base + r_lo + c_lo < 0 || base + r_hi + c_hi >= data.len() as i128 {
                return None;
            }
        }
        Some(Mat {
            data,
            offset,
            rows,
            cols,
            row_stride,
            col_stride,
        })
    }

    /// A row-major `rows × cols` matrix filling the start of `data`.
    ///
    /// # Panics
    /// When `data` is shorter than `rows · cols`. Callers pass buffers they sized
    /// from the same shape (kernel scratch and ops-allocated outputs), so it cannot
    /// fire from user input.
    pub fn row_major(data: &'a [T], rows: usize, cols: usize) -> Mat<'a, T> {
        // Cannot fire from user input: see "Panics" above.
        Mat::new(data, 0, (rows, cols), (cols as isize, 1)).expect("matrix larger than its data")
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn row_stride(&self) -> isize {
        self.row_stride
    }

    pub fn col_stride(&self) -> isize {
        self.col_stride
    }

    /// The index of element (i, j) in the slice (in bounds for i < rows, j < cols).
    fn index(&self, i: usize, j: usize) -> usize {
        (self.offset as isize + i as isize * self.row_stride + j as isize * self.col_stride)
            as usize
    }

    pub fn at(&self, i: usize, j: usize) -> T {
        self.data[self.index(i, j)]
    }

    /// Row `i` as a slice, when rows are contiguous.
    pub fn row(&self, i: usize) -> Option<&'a [T]> {
        let start = self.index(i, 0);
        (self.col_stride == 1).then(|| &self.data[start..start + self.cols])
    }

    /// The sub-matrix of rows `r` and columns `c` (both within the matrix).
    pub fn block(&self, r: Range<usize>, c: Range<usize>) -> Mat<'a, T> {
        let shape = (r.len(), c.len());
        let offset = if shape.0 > 0 && shape.1 > 0 {
            self.index(r.start, c.start)
        } else {
            0
        };
        Mat {
            offset,
            rows: shape.0,
            cols: shape.1,
            ..*self
        }
    }

    /// The transposed view.
    pub fn t(&self) -> Mat<'a, T> {
        Mat {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..*self
        }
    }

    /// Pointer to element (0, 0); only dereferenced by callers for non-empty views.
    pub fn as_ptr(&self) -> *const T {
        self.data.as_ptr().wrapping_add(self.offset)
    }

    /// The elements converted to `U`, row-major and contiguous.
    pub(super) fn collect_row_major<U>(&self, f: impl Fn(T) -> U) -> Vec<U> {
        (0..self.rows)
            .flat_map(|i| (0..self.cols).map(move |j| (i, j)))
            .map(|(i, j)| f(self.at(i, j)))
            .collect()
    }
}

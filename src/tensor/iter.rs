//! Strided walks over a layout in logical (row-major) order. Adjacent dims that are
//! contiguous with each other are merged first, so the inner loop is as long as possible.

use super::layout::Layout;

/// Merges adjacent dims whose strides make them one run; drops size-1 dims.
/// Returns (shape, strides) with at least one dim.
pub fn merged_dims(layout: &Layout) -> (Vec<usize>, Vec<isize>) {
    let mut shape: Vec<usize> = Vec::with_capacity(layout.ndim());
    let mut strides: Vec<isize> = Vec::with_capacity(layout.ndim());
    for (&d, &s) in layout.shape.iter().zip(&layout.strides) {
        if d == 1 {
            continue;
        }
        if let (Some(last_d), Some(last_s)) = (shape.last_mut(), strides.last_mut()) {
            if *last_s == s * d as isize {
                *last_d *= d;
                *last_s = s;
                continue;
            }
        }
        shape.push(d);
        strides.push(s);
    }
    if shape.is_empty() {
        shape.push(1);
        strides.push(1);
    }
    (shape, strides)
}

/// Iterator over the storage offsets of a layout's elements in logical order.
pub struct StridedIter {
    shape: Vec<usize>,
    strides: Vec<isize>,
    index: Vec<usize>,
    offset: isize,
    remaining: usize,
}

impl StridedIter {
    pub fn new(layout: &Layout) -> StridedIter {
        let (shape, strides) = merged_dims(layout);
        StridedIter {
            index: vec![0; shape.len()],
            shape,
            strides,
            offset: layout.offset as isize,
            remaining: layout.numel(),
        }
    }
}

/// Storage index of element `j` of a run with start `offset` and `stride`.
/// The layouts come from valid tensors, so the index is inside the storage.
#[inline]
pub fn at(offset: isize, stride: isize, j: usize) -> usize {
    (offset + stride * j as isize) as usize
}

/// The layout's elements as rows along its innermost merged dim: the storage offset
/// of each row's first element (in logical order), the row length and the stride
/// within a row. Copies walk rows rather than elements.
pub fn strided_rows(layout: &Layout) -> (StridedIter, usize, isize) {
    let (shape, strides) = merged_dims(layout);
    let (len, stride) = (shape[shape.len() - 1], strides[strides.len() - 1]);
    let rows = Layout {
        shape: shape[..shape.len() - 1].to_vec(),
        strides: strides[..strides.len() - 1].to_vec(),
        offset: layout.offset,
    };
    (StridedIter::new(&rows), len, stride)
}

impl Iterator for StridedIter {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let out = self.offset as usize;
        // Advance the odometer from the innermost dim.
        for k in (0..self.shape.len()).rev() {
            self.index[k] += 1;
            self.offset += self.strides[k];
            if self.index[k] < self.shape[k] {
                return Some(out);
            }
            self.offset -= self.strides[k] * self.shape[k] as isize;
            self.index[k] = 0;
        }
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for StridedIter {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_contiguous_dims() {
        let l = Layout::contiguous(&[2, 3, 4]);
        assert_eq!(merged_dims(&l), (vec![24], vec![1]));
        let t = l.transpose(0, 2);
        assert_eq!(merged_dims(&t).0.len(), 3);
    }

    #[test]
    fn walks_transposed_and_empty() {
        let t = Layout::contiguous(&[2, 3]).transpose(0, 1);
        let v: Vec<usize> = StridedIter::new(&t).collect();
        assert_eq!(v, vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(StridedIter::new(&Layout::contiguous(&[0, 3])).count(), 0);
        assert_eq!(
            StridedIter::new(&Layout::contiguous(&[])).collect::<Vec<_>>(),
            vec![0]
        );
    }

    /// Rows expand to the element walk: transposed, reversed, broadcast, partly
    /// merged, 0-d and empty layouts.
    #[test]
    fn rows_expand_to_the_element_walk() {
        let reversed = Layout {
            shape: vec![3, 2, 4],
            strides: vec![-8, 4, 1],
            offset: 16,
        };
        let layouts = [
            Layout::contiguous(&[2, 3, 4]).transpose(0, 2),
            Layout::contiguous(&[2, 3, 4]).transpose(0, 1),
            reversed,
            Layout::contiguous(&[1, 4]).broadcast_to(&[3, 4]).unwrap(),
            Layout::contiguous(&[3, 1]).broadcast_to(&[3, 5]).unwrap(),
            Layout::contiguous(&[]),
            Layout::contiguous(&[2, 0, 3]).transpose(0, 2),
        ];
        for l in &layouts {
            let (starts, len, stride) = strided_rows(l);
            let walked: Vec<usize> = starts
                .flat_map(|s| (0..len).map(move |j| at(s as isize, stride, j)))
                .collect();
            assert_eq!(walked, StridedIter::new(l).collect::<Vec<_>>(), "{l:?}");
        }
    }
}

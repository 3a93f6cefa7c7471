//! Shape + strides + offset. Every view (slice, transpose, broadcast, reshape) is a
//! pure function from one Layout to another; nothing here touches data.

use super::error::{Result, TensorError};
use super::shape::{broadcast_shapes, contiguous_strides, normalize_axis, numel, shape_str};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub shape: Vec<usize>,
    /// Element strides; negative for reversed slices, 0 for broadcast dims.
    pub strides: Vec<isize>,
    /// Index of the first element in the storage.
    pub offset: usize,
}

/// A resolved `start:stop:step` over one dimension (NumPy semantics).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceSpec {
    pub start: Option<i64>,
    pub stop: Option<i64>,
    pub step: i64,
}

impl SliceSpec {
    pub const FULL: SliceSpec = SliceSpec {
        start: None,
        stop: None,
        step: 1,
    };

    /// First index, step and length of this slice over a dimension of size `n`,
    /// clamping like Python does. Any step is fine (a step of 0 gives length 0;
    /// `Layout::slice` rejects it), including `i64::MIN` and steps longer than `n`.
    pub fn resolve(&self, n: usize) -> (i64, i64, usize) {
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let step = self.step;
        let clamp = |v: i64, lo: i64, hi: i64| v.max(lo).min(hi);
        let norm = |v: i64| if v < 0 { v + n } else { v };
        // ceil(span / |step|) without overflow: `span` is at most n + 1.
        let count = |span: i64| match span {
            d if d > 0 && step != 0 => (d.unsigned_abs() - 1) / step.unsigned_abs() + 1,
            _ => 0,
        };
        let (start, len) = if step > 0 {
            let start = self.start.map_or(0, |s| clamp(norm(s), 0, n));
            let stop = self.stop.map_or(n, |s| clamp(norm(s), 0, n));
            (start, count(stop - start))
        } else {
            let start = self.start.map_or(n - 1, |s| clamp(norm(s), -1, n - 1));
            let stop = self.stop.map_or(-1, |s| clamp(norm(s), -1, n - 1));
            (start, count(start - stop))
        };
        // Cannot truncate: len <= n + 1, and n came from a usize.
        (start, step, len as usize)
    }
}

impl Layout {
    /// A C-contiguous layout starting at offset 0.
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    pub fn numel(&self) -> usize {
        numel(&self.shape)
    }

    /// True when elements sit in row-major order with no gaps.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d == 0 {
                return true;
            }
            if d != 1 && s != expected {
                return false;
            }
            expected *= d as isize;
        }
        true
    }

    /// Smallest storage length this layout needs (0 for an empty tensor).
    pub fn required_len(&self) -> usize {
        if self.numel() == 0 {
            return 0;
        }
        let mut last = self.offset as isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            if s > 0 {
                last += s * (d as isize - 1);
            }
        }
        last as usize + 1
    }

    /// `x[..., start:stop:step, ...]` on one axis; keeps the axis.
    pub fn slice(&self, axis: usize, spec: SliceSpec) -> Result<Layout> {
        if spec.step == 0 {
            return Err(TensorError::value("slice", "slice step cannot be zero"));
        }
        let (start, step, len) = spec.resolve(self.shape[axis]);
        let mut out = self.clone();
        if len > 0 {
            let off = self.offset as isize + start as isize * self.strides[axis];
            out.offset = off as usize;
        }
        out.shape[axis] = len;
        // With two or more elements the product is the distance between two of them,
        // so it fits; it can overflow only for a step far longer than the axis
        // (`x[::2**62]`), which takes at most one element: any stride addresses that.
        out.strides[axis] = self.strides[axis]
            .checked_mul(step as isize)
            .unwrap_or(self.strides[axis]);
        Ok(out)
    }

    /// `x[..., i, ...]`: picks one index along an axis and drops the axis.
    pub fn select(&self, axis: usize, index: i64) -> Result<Layout> {
        let size = self.shape[axis];
        let i = if index < 0 {
            index + size as i64
        } else {
            index
        };
        if i < 0 || i >= size as i64 {
            return Err(TensorError::Index {
                op: "index".into(),
                index,
                axis,
                size,
            });
        }
        let mut out = self.clone();
        out.offset = (self.offset as isize + i as isize * self.strides[axis]) as usize;
        out.shape.remove(axis);
        out.strides.remove(axis);
        Ok(out)
    }

    /// Inserts a size-1 axis at `axis` (0..=ndim).
    pub fn unsqueeze(&self, axis: usize) -> Layout {
        let mut out = self.clone();
        let stride = if axis < self.ndim() {
            self.strides[axis] * self.shape[axis] as isize
        } else {
            1
        };
        out.shape.insert(axis, 1);
        out.strides.insert(axis, stride);
        out
    }

    /// Removes the given size-1 axes (all of them when `axes` is `None`).
    pub fn squeeze(&self, axes: Option<&[usize]>) -> Result<Layout> {
        let mut out = Layout {
            shape: vec![],
            strides: vec![],
            offset: self.offset,
        };
        for (i, (&d, &s)) in self.shape.iter().zip(&self.strides).enumerate() {
            let drop = match axes {
                None => d == 1,
                Some(list) if list.contains(&i) => {
                    if d != 1 {
                        return Err(TensorError::shape(
                            "squeeze",
                            format!("cannot squeeze axis {i} of size {d}"),
                        ));
                    }
                    true
                }
                Some(_) => false,
            };
            if !drop {
                out.shape.push(d);
                out.strides.push(s);
            }
        }
        Ok(out)
    }

    /// Reorders axes: output axis `i` is input axis `dims[i]`.
    pub fn permute(&self, dims: &[i64]) -> Result<Layout> {
        let n = self.ndim();
        if dims.len() != n {
            return Err(TensorError::shape(
                "permute",
                format!("expected {n} axes, got {}", dims.len()),
            ));
        }
        let mut seen = vec![false; n];
        let mut out = Layout {
            shape: Vec::with_capacity(n),
            strides: Vec::with_capacity(n),
            offset: self.offset,
        };
        for &d in dims {
            let a = normalize_axis("permute", d, n)?;
            if seen[a] {
                return Err(TensorError::shape(
                    "permute",
                    format!("axis {d} appears twice"),
                ));
            }
            seen[a] = true;
            out.shape.push(self.shape[a]);
            out.strides.push(self.strides[a]);
        }
        Ok(out)
    }

    /// Swaps two (already normalized) axes.
    pub fn transpose(&self, a: usize, b: usize) -> Layout {
        let mut out = self.clone();
        out.shape.swap(a, b);
        out.strides.swap(a, b);
        out
    }

    /// A read-only view with `shape`, repeating size-1 dims via stride 0.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let target = broadcast_shapes("broadcast_to", &self.shape, shape)?;
        if target != shape {
            return Err(TensorError::shape(
                "broadcast_to",
                format!(
                    "cannot broadcast shape {} to {}",
                    shape_str(&self.shape),
                    shape_str(shape)
                ),
            ));
        }
        let extra = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for i in 0..self.ndim() {
            strides[extra + i] = if self.shape[i] == 1 && shape[extra + i] != 1 {
                0
            } else {
                self.strides[i]
            };
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// A view with a new shape, when the existing strides allow one (NumPy's rule:
    /// each run of merged input dims must itself be contiguous). `None` means a copy is needed.
    pub fn reshape_view(&self, shape: &[usize]) -> Option<Layout> {
        if numel(shape) != self.numel() {
            return None;
        }
        if self.is_contiguous() {
            return Some(Layout {
                shape: shape.to_vec(),
                strides: contiguous_strides(shape),
                offset: self.offset,
            });
        }
        // Drop size-1 dims, then walk both shapes matching groups of equal products.
        let src: Vec<(usize, isize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&d, _)| d != 1)
            .map(|(&d, &s)| (d, s))
            .collect();
        let mut strides = vec![0isize; shape.len()];
        let (mut i, mut j) = (0usize, 0usize);
        while j < shape.len() {
            if shape[j] == 1 {
                strides[j] = 1;
                j += 1;
                continue;
            }
            if i >= src.len() {
                return None;
            }
            // Grow a group of source dims and target dims until their products match.
            let (i0, j0) = (i, j);
            let mut ps = src[i].0;
            let mut pt = shape[j];
            i += 1;
            j += 1;
            while ps != pt {
                if ps < pt {
                    if i >= src.len() {
                        return None;
                    }
                    ps *= src[i].0;
                    i += 1;
                } else {
                    if j >= shape.len() {
                        return None;
                    }
                    pt *= shape[j];
                    j += 1;
                }
            }
            // The source group must be contiguous among itself.
            for k in i0..i - 1 {
                if src[k].1 != src[k + 1].1 * src[k + 1].0 as isize {
                    return None;
                }
            }
            let mut stride = src[i - 1].1;
            for k in (j0..j).rev() {
                strides[k] = stride;
                stride *= shape[k] as isize;
            }
        }
        if i != src.len() {
            return None;
        }
        Some(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// Storage index of the element at a multi-index (no bounds check beyond debug).
    pub fn index_of(&self, idx: &[usize]) -> usize {
        let mut off = self.offset as isize;
        for (&i, &s) in idx.iter().zip(&self.strides) {
            off += i as isize * s;
        }
        off as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(l: &Layout) -> Vec<usize> {
        crate::tensor::iter::StridedIter::new(l).collect()
    }

    #[test]
    fn slices_follow_python() {
        let l = Layout::contiguous(&[10]);
        let s = |a, b, c| SliceSpec {
            start: a,
            stop: b,
            step: c,
        };
        assert_eq!(
            offsets(&l.slice(0, s(Some(2), Some(8), 3)).unwrap()),
            vec![2, 5]
        );
        assert_eq!(
            offsets(&l.slice(0, s(None, None, -3)).unwrap()),
            vec![9, 6, 3, 0]
        );
        assert_eq!(
            offsets(&l.slice(0, s(Some(-2), None, 1)).unwrap()),
            vec![8, 9]
        );
        assert_eq!(
            offsets(&l.slice(0, s(Some(5), Some(2), 1)).unwrap()),
            Vec::<usize>::new()
        );
        assert_eq!(
            offsets(&l.slice(0, s(Some(100), Some(-100), -4)).unwrap()),
            vec![9, 5, 1]
        );
        assert!(l.slice(0, s(None, None, 0)).is_err());
    }

    #[test]
    fn slices_with_extreme_steps_and_bounds() {
        let s = |a, b, c| SliceSpec {
            start: a,
            stop: b,
            step: c,
        };
        let l = Layout::contiguous(&[3, 10]);
        assert_eq!(
            offsets(&l.slice(1, s(None, None, i64::MAX)).unwrap()),
            vec![0, 10, 20]
        );
        assert_eq!(
            offsets(&l.slice(1, s(None, None, i64::MIN)).unwrap()),
            vec![9, 19, 29]
        );
        assert_eq!(
            offsets(
                &l.slice(0, s(Some(i64::MIN), Some(i64::MAX), 1 << 62))
                    .unwrap()
            ),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(
            offsets(&l.slice(1, s(Some(i64::MAX), Some(i64::MIN), -1)).unwrap()),
            (0..3)
                .flat_map(|r| (0..10).rev().map(move |c| r * 10 + c))
                .collect::<Vec<_>>()
        );
        assert_eq!(s(None, None, 0).resolve(5).2, 0);
        // A one-element slice keeps a stride that addresses its element.
        let one = l.slice(1, s(Some(1), None, 1 << 62)).unwrap();
        assert_eq!(
            (one.shape.clone(), offsets(&one)),
            (vec![3, 1], vec![1, 11, 21])
        );
    }

    #[test]
    fn reshape_views_when_possible() {
        let l = Layout::contiguous(&[4, 6]);
        let t = l.transpose(0, 1); // [6, 4], not contiguous
        assert!(t.reshape_view(&[24]).is_none());
        assert!(t.reshape_view(&[2, 3, 4]).is_some());
        let r = t.reshape_view(&[2, 3, 4]).unwrap();
        assert_eq!(r.strides, vec![3, 1, 6]);
        let sl = l
            .slice(
                1,
                SliceSpec {
                    start: None,
                    stop: None,
                    step: 2,
                },
            )
            .unwrap(); // [4,3] strides [6,2]
        let v = sl.reshape_view(&[2, 2, 3]).unwrap();
        assert_eq!(offsets(&v), offsets(&sl));
    }

    #[test]
    fn broadcast_and_permute() {
        let l = Layout::contiguous(&[3, 1]);
        let b = l.broadcast_to(&[2, 3, 4]).unwrap();
        assert_eq!(b.strides, vec![0, 1, 0]);
        assert!(l.broadcast_to(&[2, 4]).is_err());
        let p = Layout::contiguous(&[2, 3, 4]).permute(&[2, 0, 1]).unwrap();
        assert_eq!(p.shape, vec![4, 2, 3]);
        assert!(Layout::contiguous(&[2, 3]).permute(&[0, 0]).is_err());
    }
}

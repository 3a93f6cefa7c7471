//! Joint walks over several layouts of the same shape, one innermost run at a time.
//! Dims that are contiguous with each other in *every* layout are merged first, so a
//! contiguous tensor (or a broadcast scalar) is a single run and the per-element loop
//! in the caller can specialize on the run's strides.

use crate::tensor::Layout;

/// One innermost run: `len` elements, the `j`-th of layout `i` at storage index
/// `offsets[i] + j * strides[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run<const N: usize> {
    pub offsets: [isize; N],
    pub strides: [isize; N],
    pub len: usize,
}

/// Storage index of element `j` of a run with start `offset` and `stride`.
/// The layouts come from valid tensors, so the index is inside the storage.
#[inline]
pub fn at(offset: isize, stride: isize, j: usize) -> usize {
    (offset + stride * j as isize) as usize
}

/// Calls `f` for every run of the common shape of `layouts` in row-major order; the
/// runs of one call partition the logical elements, so a caller writing a contiguous
/// output just advances by `run.len`. Nothing is called for an empty shape.
/// All layouts must have the same shape.
pub fn for_each_run<const N: usize>(layouts: [&Layout; N], mut f: impl FnMut(Run<N>)) {
    let shape = &layouts[0].shape;
    if shape.contains(&0) {
        return;
    }
    let (dims, strides) = merge_dims(shape, layouts);
    let mut offsets: [isize; N] = std::array::from_fn(|i| layouts[i].offset as isize);
    let Some((&len, outer)) = dims.split_last() else {
        // 0-d, or only size-1 dims: a single element.
        f(Run {
            offsets,
            strides: [0; N],
            len: 1,
        });
        return;
    };
    let inner = strides[outer.len()];
    let mut index = vec![0usize; outer.len()];
    loop {
        f(Run {
            offsets,
            strides: inner,
            len,
        });
        // Advance the odometer over the outer dims, innermost first.
        let mut k = outer.len();
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            index[k] += 1;
            for (o, s) in offsets.iter_mut().zip(strides[k]) {
                *o += s;
            }
            if index[k] < outer[k] {
                break;
            }
            for (o, s) in offsets.iter_mut().zip(strides[k]) {
                *o -= s * outer[k] as isize;
            }
            index[k] = 0;
        }
    }
}

/// Drops size-1 dims and merges neighbours that form one run in every layout.
fn merge_dims<const N: usize>(
    shape: &[usize],
    layouts: [&Layout; N],
) -> (Vec<usize>, Vec<[isize; N]>) {
    let mut dims: Vec<usize> = Vec::with_capacity(shape.len());
    let mut strides: Vec<[isize; N]> = Vec::with_capacity(shape.len());
    for (axis, &d) in shape.iter().enumerate() {
        if d == 1 {
            continue;
        }
        let s: [isize; N] = std::array::from_fn(|i| layouts[i].strides[axis]);
        if let (Some(last_d), Some(last_s)) = (dims.last_mut(), strides.last_mut()) {
            if (0..N).all(|i| last_s[i] == s[i] * d as isize) {
                *last_d *= d;
                *last_s = s;
                continue;
            }
        }
        dims.push(d);
        strides.push(s);
    }
    (dims, strides)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::iter::StridedIter;
    use crate::tensor::SliceSpec;

    fn runs<const N: usize>(layouts: [&Layout; N]) -> Vec<Run<N>> {
        let mut out = vec![];
        for_each_run(layouts, |r| out.push(r));
        out
    }

    /// Expands runs back into per-layout offsets.
    fn offsets<const N: usize>(layouts: [&Layout; N]) -> Vec<[usize; N]> {
        let mut out = vec![];
        for_each_run(layouts, |r| {
            for j in 0..r.len {
                out.push(std::array::from_fn(|i| at(r.offsets[i], r.strides[i], j)));
            }
        });
        out
    }

    #[test]
    fn contiguous_and_scalar_broadcast_are_one_run() {
        let c = Layout::contiguous(&[2, 3, 4]);
        let s = Layout::contiguous(&[]).broadcast_to(&[2, 3, 4]).unwrap();
        assert_eq!(
            runs([&c, &s]),
            vec![Run {
                offsets: [0, 0],
                strides: [1, 0],
                len: 24
            }]
        );
    }

    #[test]
    fn zero_d_and_empty() {
        let z = Layout::contiguous(&[]);
        assert_eq!(runs([&z]).len(), 1);
        assert_eq!(runs([&z])[0].len, 1);
        assert!(runs([&Layout::contiguous(&[3, 0])]).is_empty());
    }

    #[test]
    fn matches_strided_iter_on_views() {
        let base = Layout::contiguous(&[3, 4, 5]);
        let t = base.permute(&[2, 0, 1]).unwrap();
        let rev = base
            .slice(
                1,
                SliceSpec {
                    start: None,
                    stop: None,
                    step: -2,
                },
            )
            .unwrap();
        let row = Layout::contiguous(&[5]).broadcast_to(&[3, 2, 5]).unwrap();
        for l in [&t, &rev] {
            let want: Vec<[usize; 1]> = StridedIter::new(l).map(|o| [o]).collect();
            assert_eq!(offsets([l]), want);
        }
        let want: Vec<[usize; 2]> = StridedIter::new(&rev)
            .zip(StridedIter::new(&row))
            .map(|(a, b)| [a, b])
            .collect();
        assert_eq!(offsets([&rev, &row]), want);
    }
}

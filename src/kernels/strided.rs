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

pub use crate::tensor::iter::at;

/// Calls `f` for every run of the common shape of `layouts` in row-major order; the
/// runs of one call partition the logical elements, so a caller writing a contiguous
/// output just advances by `run.len`. Nothing is called for an empty shape.
/// All layouts must have the same shape.
pub fn for_each_run<const N: usize>(layouts: [&Layout; N], f: impl FnMut(Run<N>)) {
    let numel = layouts[0].shape.iter().product();
    for_each_run_in(
        layouts,
        Span {
            start: 0,
            count: numel,
        },
        f,
    );
}

/// A range of logical (row-major) element positions.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub start: usize,
    pub count: usize,
}

/// Like `for_each_run`, but only over the logical elements `span.start ..
/// span.start + span.count` (within the shape's element count): the first and last
/// runs may be partial rows. This is what lets output chunks be computed
/// independently, in parallel, from any starting element.
pub fn for_each_run_in<const N: usize>(
    layouts: [&Layout; N],
    span: Span,
    mut f: impl FnMut(Run<N>),
) {
    walk_runs(layouts, span, &mut f);
}

/// The walk itself, behind a `dyn` callback: it is called once per run (a whole
/// row), not per element, and a generic walk was instantiated for every closure of
/// every kernel and dtype — tens of thousands of copies that made the test build
/// gigabytes larger without making anything faster.
fn walk_runs<const N: usize>(layouts: [&Layout; N], span: Span, f: &mut dyn FnMut(Run<N>)) {
    let shape = &layouts[0].shape;
    if span.count == 0 || shape.contains(&0) {
        return;
    }
    let merged = Merged::new(shape, layouts);
    let mut offsets: [isize; N] = std::array::from_fn(|i| layouts[i].offset as isize);
    let Some((&len, outer)) = merged.dims.split_last() else {
        // 0-d, or only size-1 dims: a single element.
        f(Run {
            offsets,
            strides: [0; N],
            len: 1,
        });
        return;
    };
    let strides = &merged.strides[..];
    let inner = strides[outer.len()];
    // Place the odometer on the row holding `span.start`.
    let mut index = Small::new(0usize, outer.len());
    let mut row = span.start / len;
    for k in (0..outer.len()).rev() {
        index[k] = row % outer[k];
        row /= outer[k];
        for (o, s) in offsets.iter_mut().zip(strides[k]) {
            *o += s * index[k] as isize;
        }
    }
    let mut first = span.start % len;
    let mut left = span.count;
    loop {
        let take = (len - first).min(left);
        f(Run {
            offsets: std::array::from_fn(|i| offsets[i] + inner[i] * first as isize),
            strides: inner,
            len: take,
        });
        left -= take;
        first = 0;
        if left == 0 {
            return;
        }
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

/// A short list on the stack, spilling to the heap past `INLINE` items: merged layouts
/// almost never have more than a few dims, and small ops should not allocate.
enum Small<T: Copy> {
    Inline([T; INLINE], usize),
    Heap(Vec<T>),
}

const INLINE: usize = 8;

impl<T: Copy> Small<T> {
    /// `len` copies of `fill`.
    fn new(fill: T, len: usize) -> Small<T> {
        if len <= INLINE {
            Small::Inline([fill; INLINE], len)
        } else {
            Small::Heap(vec![fill; len])
        }
    }

    fn push(&mut self, x: T) {
        match self {
            Small::Inline(items, len) if *len < INLINE => {
                items[*len] = x;
                *len += 1;
            }
            Small::Inline(items, len) => {
                let mut v = items[..*len].to_vec();
                v.push(x);
                *self = Small::Heap(v);
            }
            Small::Heap(v) => v.push(x),
        }
    }
}

impl<T: Copy> std::ops::Deref for Small<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Small::Inline(items, len) => &items[..*len],
            Small::Heap(v) => v,
        }
    }
}

impl<T: Copy> std::ops::DerefMut for Small<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Small::Inline(items, len) => &mut items[..*len],
            Small::Heap(v) => v,
        }
    }
}

/// The shape with size-1 dims dropped and neighbours that form one run in every
/// layout merged, with each layout's stride per merged dim.
struct Merged<const N: usize> {
    dims: Small<usize>,
    strides: Small<[isize; N]>,
}

impl<const N: usize> Merged<N> {
    fn new(shape: &[usize], layouts: [&Layout; N]) -> Merged<N> {
        let mut dims = Small::new(0, 0);
        let mut strides = Small::new([0; N], 0);
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
        Merged { dims, strides }
    }
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

    #[test]
    fn ranged_walks_concatenate_to_the_full_walk() {
        let base = Layout::contiguous(&[3, 4, 5]);
        let t = base.permute(&[2, 0, 1]).unwrap();
        let row = Layout::contiguous(&[1, 5])
            .broadcast_to(&[4, 3, 5])
            .unwrap();
        let t2 = Layout::contiguous(&[4, 3, 5]);
        // Ten dims of size 2: more than the inline capacity of the merged lists.
        let deep = Layout::contiguous(&[2; 10]).permute(&[9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
        let deep = deep.unwrap();
        let cases: [[&Layout; 2]; 3] = [
            [&t, &base.permute(&[2, 0, 1]).unwrap()],
            [&row, &t2],
            [&deep, &deep],
        ];
        for layouts in cases {
            let n: usize = layouts[0].shape.iter().product();
            let mut want = vec![];
            for_each_run(layouts, |r| {
                for j in 0..r.len {
                    want.push([
                        at(r.offsets[0], r.strides[0], j),
                        at(r.offsets[1], r.strides[1], j),
                    ]);
                }
            });
            assert_eq!(want.len(), n);
            for chunk in [1, 3, 7, 16, n] {
                let mut got = vec![];
                for start in (0..n).step_by(chunk) {
                    let span = Span {
                        start,
                        count: chunk.min(n - start),
                    };
                    for_each_run_in(layouts, span, |r| {
                        for j in 0..r.len {
                            got.push([
                                at(r.offsets[0], r.strides[0], j),
                                at(r.offsets[1], r.strides[1], j),
                            ]);
                        }
                    });
                }
                assert_eq!(got, want, "chunk {chunk}");
            }
        }
    }
}

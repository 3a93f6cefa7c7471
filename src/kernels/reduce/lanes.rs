//! Where the lanes of a reduction lie: one lane of input elements per output element,
//! in logical order, found once per call and then walked in parallel over fixed blocks
//! of output elements (each output is computed alone, so the thread count never
//! changes a bit).

use rayon::prelude::*;

use crate::kernels::parallel::Section;
use crate::tensor::iter::{merged_dims, StridedIter};
use crate::tensor::Layout;

/// Input elements reduced per parallel task (a few hundred microseconds of work).
const ELEMENTS_PER_TASK: usize = 1 << 15;

/// The lanes of a reduction over the dims flagged in `reduced`.
pub struct Lanes {
    /// Storage index of each lane's first element, one per output element in
    /// row-major order of the kept dims.
    pub bases: Vec<usize>,
    /// Offsets of the lane's elements from its base, in logical order; `None` when a
    /// lane is one contiguous run.
    pub offsets: Option<Vec<isize>>,
    pub len: usize,
}

impl Lanes {
    pub fn new(layout: &Layout, reduced: &[bool]) -> Lanes {
        let (outer, lane) = split_dims(layout, reduced);
        let len = lane.numel();
        let (dims, strides) = merged_dims(&lane);
        let contiguous = dims.len() == 1 && strides[0] == 1;
        let bases: Vec<usize> = StridedIter::new(&outer).collect();
        // No output, no lane to walk: a long empty lane makes no list of offsets.
        let walked = !contiguous && !bases.is_empty();
        Lanes {
            bases,
            offsets: walked.then(|| signed_offsets(&lane)),
            len,
        }
    }
}

/// The layouts of the kept dims (at `layout`'s offset) and of the reduced dims (at 0).
pub fn split_dims(layout: &Layout, reduced: &[bool]) -> (Layout, Layout) {
    let pick = |want: bool, offset: usize| {
        let dims = layout.shape.iter().zip(&layout.strides).zip(reduced);
        let (shape, strides) = dims.filter(|(_, &r)| r == want).map(|(ds, _)| ds).unzip();
        Layout {
            shape,
            strides,
            offset,
        }
    };
    (pick(false, layout.offset), pick(true, 0))
}

/// The storage offsets of `layout`'s elements relative to its first one, in logical
/// order (negative along reversed dims).
pub fn signed_offsets(layout: &Layout) -> Vec<isize> {
    let mut out = vec![0isize];
    for (&d, &s) in layout.shape.iter().zip(&layout.strides) {
        out = out
            .iter()
            .flat_map(|&o| (0..d).map(move |i| o + i as isize * s))
            .collect();
    }
    out
}

/// Calls `f` with the lane of `base`: borrowed from `data` when contiguous, else
/// gathered into `scratch`.
fn with_lane<T: Copy, O>(
    data: &[T],
    lanes: &Lanes,
    base: usize,
    scratch: &mut Vec<T>,
    f: impl FnOnce(&[T]) -> O,
) -> O {
    match &lanes.offsets {
        // An empty lane has no storage to borrow (its base may be past the end).
        _ if lanes.len == 0 => f(&[]),
        // The bases and offsets come from a valid layout of `data`.
        None => f(&data[base..base + lanes.len]),
        Some(offsets) => {
            scratch.clear();
            scratch.extend(offsets.iter().map(|&o| data[(base as isize + o) as usize]));
            f(scratch)
        }
    }
}

/// Reduces the axes flagged in `reduced` (one flag per dim of `layout`): `f` of each
/// output element's lane (the reduced elements in logical order, as a slice), in
/// row-major order of the kept dims. Runs in parallel over fixed blocks of outputs.
pub fn reduce_lanes<T: Copy + Sync, O: Send>(
    data: &[T],
    layout: &Layout,
    reduced: &[bool],
    f: impl Fn(&[T]) -> O + Sync,
) -> Vec<O> {
    let lanes = Lanes::new(layout, reduced);
    in_blocks(&lanes, lanes_per_task(&lanes), |bases| {
        let mut scratch = Vec::new();
        let each = |&b: &usize| with_lane(data, &lanes, b, &mut scratch, &f);
        bases.iter().map(each).collect()
    })
}

/// `reduce_lanes` with `group` given `G` lanes at a time where the lanes are
/// contiguous runs (for kernels that read several lanes side by side), a task then
/// holding a multiple of `G` lanes; `one` takes the others. Lanes too long for `G` to a
/// task stay one by one, so that a few long lanes still spread over the threads. Each
/// output is computed from its lane alone, so neither the grouping nor the tasks'
/// bounds change a value.
pub fn reduce_lanes_grouped<T: Copy + Sync, O: Send, const G: usize>(
    data: &[T],
    layout: &Layout,
    reduced: &[bool],
    one: impl Fn(&[T]) -> O + Sync,
    group: impl Fn([&[T]; G]) -> [O; G] + Sync,
) -> Vec<O> {
    let lanes = Lanes::new(layout, reduced);
    let per_task = lanes_per_task(&lanes);
    // (An empty lane has no storage to borrow: its base may be past the end.)
    let grouped = lanes.offsets.is_none() && lanes.len > 0 && per_task >= G;
    let per_task = if grouped { per_task / G * G } else { per_task };
    in_blocks(&lanes, per_task, |bases| {
        let mut out = Vec::with_capacity(bases.len());
        let mut groups = bases.chunks_exact(G);
        if grouped {
            let lane = |b: usize| &data[b..b + lanes.len];
            for g in &mut groups {
                out.extend(group(std::array::from_fn(|k| lane(g[k]))));
            }
        }
        let rest = if grouped { groups.remainder() } else { bases };
        let mut scratch = Vec::new();
        let each = |&b: &usize| with_lane(data, &lanes, b, &mut scratch, &one);
        out.extend(rest.iter().map(each));
        out
    })
}

/// Lanes per parallel task: a few hundred microseconds of work.
fn lanes_per_task(lanes: &Lanes) -> usize {
    (ELEMENTS_PER_TASK / lanes.len.max(1)).max(1)
}

/// `block` of each fixed run of `per_task` lane bases, in parallel when there is more
/// than one, concatenated in order.
fn in_blocks<O: Send>(
    lanes: &Lanes,
    per_task: usize,
    block: impl Fn(&[usize]) -> Vec<O> + Sync + Send,
) -> Vec<O> {
    if lanes.bases.len() <= per_task {
        block(&lanes.bases)
    } else {
        let _section = Section::begin();
        let blocks: Vec<Vec<O>> = lanes.bases.par_chunks(per_task).map(&block).collect();
        blocks.into_iter().flatten().collect()
    }
}

/// `reduce_lanes` on the calling thread, for callers that keep state between lanes.
pub fn for_each_lane<T: Copy>(
    data: &[T],
    layout: &Layout,
    reduced: &[bool],
    mut f: impl FnMut(&[T]),
) {
    let lanes = Lanes::new(layout, reduced);
    let mut scratch = Vec::new();
    for &b in &lanes.bases {
        with_lane(data, &lanes, b, &mut scratch, &mut f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::SliceSpec;

    #[test]
    fn lanes_of_every_axis_set() {
        // A [2, 3, 4] tensor: check the lanes of all axis subsets against index arithmetic.
        let data: Vec<i64> = (0..24).collect();
        let layout = Layout::contiguous(&[2, 3, 4]);
        for mask in 0..8u32 {
            let reduced: Vec<bool> = (0..3).map(|i| mask >> i & 1 == 1).collect();
            let lanes = reduce_lanes(&data, &layout, &reduced, |xs| xs.to_vec());
            let mut want: Vec<Vec<i64>> = vec![];
            for i in 0..2 {
                for j in 0..3 {
                    for k in 0..4 {
                        let idx = [i, j, k];
                        // The first element of each lane opens it.
                        if (0..3).any(|d| reduced[d] && idx[d] != 0) {
                            continue;
                        }
                        let mut lane = vec![];
                        for x in 0..24i64 {
                            let xi = [x / 12, x / 4 % 3, x % 4];
                            if (0..3).all(|d| reduced[d] || xi[d] == idx[d] as i64) {
                                lane.push(x);
                            }
                        }
                        want.push(lane);
                    }
                }
            }
            assert_eq!(lanes, want, "reduced {reduced:?}");
        }
    }

    #[test]
    fn lanes_of_views() {
        let data: Vec<i64> = (0..6).collect();
        // Transposed [3, 2], reduce axis 1: rows of the transpose.
        let t = Layout::contiguous(&[2, 3]).transpose(0, 1);
        let lanes = reduce_lanes(&data, &t, &[false, true], |xs| xs.to_vec());
        assert_eq!(lanes, vec![vec![0, 3], vec![1, 4], vec![2, 5]]);
        // Reversed: the lane is in logical order.
        let rev = Layout::contiguous(&[6])
            .slice(
                0,
                SliceSpec {
                    start: None,
                    stop: None,
                    step: -1,
                },
            )
            .unwrap();
        assert_eq!(
            reduce_lanes(&data, &rev, &[true], |xs| xs.to_vec()),
            vec![vec![5, 4, 3, 2, 1, 0]]
        );
        // Broadcast: stride 0 repeats.
        let b = Layout::contiguous(&[3]).broadcast_to(&[2, 3]).unwrap();
        assert_eq!(
            reduce_lanes(&data, &b, &[true, false], |xs| xs.to_vec()),
            vec![vec![0, 0], vec![1, 1], vec![2, 2]]
        );
        // Empty lanes still produce outputs; empty outputs produce none.
        let e = Layout::contiguous(&[2, 0]);
        assert_eq!(
            reduce_lanes(&data, &e, &[false, true], |xs| xs.len()),
            vec![0, 0]
        );
        assert!(reduce_lanes(&data, &e, &[true, false], |xs| xs.len()).is_empty());
        // 0-d: one lane of one element.
        let z = Layout::contiguous(&[]);
        assert_eq!(
            reduce_lanes(&data, &z, &[], |xs| xs.to_vec()),
            vec![vec![0]]
        );
    }
}

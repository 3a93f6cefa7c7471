//! Reductions: the lanes each output element reduces (`lanes`), NumPy's pairwise sum
//! over lanes or down columns (`pairwise`, its AVX2 leaf in `leaf_avx2`), vectorized
//! extremes and their positions (`extreme`), and the sum driver that picks between
//! lanes and columns by layout.

mod extreme;
mod lanes;
#[cfg(target_arch = "x86_64")]
mod leaf_avx2;
mod pairwise;

pub use extreme::{arg_extreme, arg_extremes, extreme, extremes};
pub use lanes::{for_each_lane, reduce_lanes, reduce_lanes_grouped};
pub use pairwise::{pairwise_sum, pairwise_sum_with};

use crate::kernels::isa::Isa;
use crate::kernels::math::arith::Arith;
use crate::kernels::strided::{at, for_each_run};
use crate::tensor::iter::{merged_dims, StridedIter};
use crate::tensor::Layout;
use lanes::{signed_offsets, split_dims};
use pairwise::{column_sums, column_tile};

/// Columns summed at once below which a lane-by-lane sum is faster.
const MIN_COLUMNS: usize = 16;

/// Pairwise sums (of `to_acc` of the elements) of the lanes over the dims flagged in
/// `reduced`, one per output element in row-major order of the kept dims: each with the
/// tree of its lane length, whatever the layout. When the lanes are not contiguous but
/// the innermost kept dim is (axis 0 of a row-major matrix), whole rows are summed at
/// once with vectors of column accumulators (`pairwise::column_sums`); otherwise each
/// lane is summed alone (gathered first if it is strided).
pub fn sum_lanes<T, A, F>(data: &[T], layout: &Layout, reduced: &[bool], to_acc: F) -> Vec<A>
where
    T: Copy + Sync,
    A: Arith,
    F: Fn(T) -> A + Copy + Sync + Send,
{
    let isa = Isa::detect();
    let (outer, lane) = split_dims(layout, reduced);
    let (lane_dims, lane_strides) = merged_dims(&lane);
    let lane_contiguous = lane_dims.len() == 1 && lane_strides[0] == 1;
    let (mut outer_dims, mut outer_strides) = merged_dims(&outer);
    // Narrow columns (or none) are faster as lanes, gathered: the tree is the same.
    let narrow = outer_dims.last().is_none_or(|&c| c < MIN_COLUMNS);
    if lane_contiguous || lane.numel() == 0 || narrow || outer_strides.last() != Some(&1) {
        return reduce_lanes(data, layout, reduced, |xs| {
            pairwise_sum_with(isa, xs, to_acc)
        });
    }
    // Rows: the lane's elements; columns: the innermost kept dim, contiguous.
    let cols = outer_dims.pop().unwrap_or(1);
    outer_strides.pop();
    let bases: Vec<usize> = StridedIter::new(&Layout {
        shape: outer_dims,
        strides: outer_strides,
        offset: layout.offset,
    })
    .collect();
    let mut out = vec![A::default(); bases.len() * cols];
    column_sums(
        isa,
        &mut out,
        data,
        &bases,
        &signed_offsets(&lane),
        cols,
        column_tile::<A>(),
        to_acc,
    );
    out
}

/// A scan along `axis`: `out` (row-major, of `layout`'s shape) gets, at each position,
/// `finish` of the running state after `step`-ping through that lane's elements up to
/// and including this one (`cumsum` with `step = +`). Sequential, in logical order.
pub fn scan_axis<T: Copy, A: Copy, O>(
    out: &mut [O],
    data: &[T],
    layout: &Layout,
    axis: usize,
    init: A,
    step: impl Fn(A, T) -> A,
    finish: impl Fn(A) -> O,
) {
    let out_layout = Layout::contiguous(&layout.shape);
    let along = out_layout.strides[axis] as usize;
    let mut kept = out_layout.clone();
    kept.shape.remove(axis);
    kept.strides.remove(axis);
    // Lanes come in row-major order of the kept dims, as this walk does.
    let mut starts = StridedIter::new(&kept);
    let reduced: Vec<bool> = (0..layout.ndim()).map(|d| d == axis).collect();
    for_each_lane(data, layout, &reduced, |lane| {
        let Some(start) = starts.next() else { return };
        let mut state = init;
        for (j, &x) in lane.iter().enumerate() {
            state = step(state, x);
            out[start + j * along] = finish(state);
        }
    });
}

/// True when `pred` holds for some logical element of `layout`.
pub fn any<T: Copy>(data: &[T], layout: &Layout, pred: impl Fn(T) -> bool) -> bool {
    let mut found = false;
    for_each_run([layout], |run| {
        let ([o], [s]) = (run.offsets, run.strides);
        found = found || (0..run.len).any(|j| pred(data[at(o, s, j)]));
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_along_every_axis_of_views() {
        // Cumulative sums of a [2, 3, 4] tensor and of its transpose, against index
        // arithmetic on the logical elements.
        let data: Vec<i64> = (0..24).map(|i| (i * 7) % 5).collect();
        let base = Layout::contiguous(&[2, 3, 4]);
        for layout in [base.clone(), base.permute(&[2, 0, 1]).unwrap()] {
            let logical: Vec<i64> = StridedIter::new(&layout).map(|o| data[o]).collect();
            let shape = layout.shape.clone();
            for axis in 0..3 {
                let mut out = vec![0i64; 24];
                scan_axis(&mut out, &data, &layout, axis, 0i64, |s, x| s + x, |s| s);
                let strides = Layout::contiguous(&shape).strides;
                let step = strides[axis] as usize;
                for (lin, &got) in out.iter().enumerate() {
                    let k = lin / step % shape[axis];
                    let want: i64 = (0..=k).map(|j| logical[lin - (k - j) * step]).sum();
                    assert_eq!(got, want, "axis {axis} at {lin} of {layout:?}");
                }
            }
        }
        // Empty lanes and empty outputs write nothing; a running state of another type.
        let mut none: [f32; 0] = [];
        scan_axis(
            &mut none,
            &data,
            &Layout::contiguous(&[2, 0]),
            1,
            0.0f32,
            |s, x| s + x as f32,
            |s| s,
        );
        let mut halves = [0.0f32; 3];
        scan_axis(
            &mut halves,
            &[1u8, 2, 3],
            &Layout::contiguous(&[3]),
            0,
            0u32,
            |s, x| s + u32::from(x),
            |s| s as f32 / 2.0,
        );
        assert_eq!(halves, [0.5, 1.5, 3.0]);
    }

    #[test]
    fn any_walks_views() {
        let data = [1, 2, 0, 4];
        let l = Layout::contiguous(&[2, 2]).transpose(0, 1);
        assert!(any(&data, &l, |x| x == 0));
        assert!(!any(&data, &Layout::contiguous(&[2]), |x| x == 0));
        assert!(!any(&data, &Layout::contiguous(&[0]), |_| true));
    }
}

//! Reductions: a pairwise sum with a fixed summation tree, and a driver that hands each
//! output element the lane of input elements it reduces, in logical order.

use super::arith::{is_nan, Arith};
use super::strided::{at, for_each_run};
use crate::tensor::iter::{merged_dims, StridedIter};
use crate::tensor::Layout;

/// Runs shorter than this are summed with eight running partials, longer ones are split.
const PAIRWISE_BLOCK: usize = 128;

/// Sums `xs` converted by `to_acc`, with NumPy's pairwise tree: halves (at multiples of
/// 8) down to blocks of at most 128, each summed with 8 interleaved partials. The tree
/// depends only on `xs.len()`, so the result is the same however the work is split.
pub fn pairwise_sum<T: Copy, A: Arith>(xs: &[T], to_acc: impl Fn(T) -> A + Copy) -> A {
    let n = xs.len();
    if n < 8 {
        xs.iter().fold(A::default(), |s, &x| s.add(to_acc(x)))
    } else if n <= PAIRWISE_BLOCK {
        let mut r: [A; 8] = std::array::from_fn(|j| to_acc(xs[j]));
        let full = n - n % 8;
        for chunk in xs[8..full].chunks_exact(8) {
            for (rj, &x) in r.iter_mut().zip(chunk) {
                *rj = rj.add(to_acc(x));
            }
        }
        let mut s = (r[0].add(r[1]).add(r[2].add(r[3]))).add(r[4].add(r[5]).add(r[6].add(r[7])));
        for &x in &xs[full..] {
            s = s.add(to_acc(x));
        }
        s
    } else {
        let half = n / 2;
        let half = half - half % 8;
        pairwise_sum(&xs[..half], to_acc).add(pairwise_sum(&xs[half..], to_acc))
    }
}

/// Reduces the axes flagged in `reduced` (one flag per dim of `layout`): calls `f` once
/// per output element, in row-major order of the kept dims, with that element's lane
/// (the reduced elements in logical order) as a contiguous slice. Lanes that are one
/// contiguous run are borrowed from `data`; others are gathered into a scratch buffer.
pub fn reduce_lanes<T: Copy, O>(
    data: &[T],
    layout: &Layout,
    reduced: &[bool],
    mut f: impl FnMut(&[T]) -> O,
) -> Vec<O> {
    let pick = |want: bool, offset: usize| {
        let dims = layout.shape.iter().zip(&layout.strides).zip(reduced);
        let (shape, strides) = dims.filter(|(_, &r)| r == want).map(|(ds, _)| ds).unzip();
        Layout {
            shape,
            strides,
            offset,
        }
    };
    let outer = pick(false, layout.offset);
    let mut lane = pick(true, 0);
    let lane_len = lane.numel();
    let (lane_dims, lane_strides) = merged_dims(&lane);
    let borrowed = lane_dims.len() == 1 && lane_strides[0] == 1;
    let mut out = Vec::with_capacity(outer.numel());
    let mut scratch = Vec::with_capacity(if borrowed { 0 } else { lane_len });
    for base in StridedIter::new(&outer) {
        if lane_len == 0 {
            out.push(f(&[]));
        } else if borrowed {
            // `base` is the storage index of a lane's first element in a valid layout.
            out.push(f(&data[base..base + lane_len]));
        } else {
            lane.offset = base;
            scratch.clear();
            scratch.extend(StridedIter::new(&lane).map(|o| data[o]));
            out.push(f(&scratch));
        }
    }
    out
}

/// Index of the first maximum of a lane, where NaN counts as the maximum (the first
/// NaN wins); `None` for an empty lane.
pub fn argmax<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
    first_best(xs, |x, best| x > best)
}

/// Index of the first minimum of a lane, where NaN counts as the minimum (NumPy).
pub fn argmin<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
    first_best(xs, |x, best| x < best)
}

/// Index of the first maximum among the elements that are not NaN; `None` when there
/// are none (an empty or all-NaN lane).
pub fn nanargmax<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
    first_best_not_nan(xs, |x, best| x > best)
}

/// Index of the first minimum among the elements that are not NaN (see `nanargmax`).
pub fn nanargmin<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
    first_best_not_nan(xs, |x, best| x < best)
}

/// The first element that no later one `beats`, where a NaN beats everything and
/// ends the search.
fn first_best<T: Copy + PartialOrd>(xs: &[T], beats: impl Fn(T, T) -> bool) -> Option<usize> {
    let mut best = 0;
    let mut best_value = *xs.first()?;
    for (i, &x) in xs.iter().enumerate().skip(1) {
        if is_nan(best_value) {
            break;
        }
        if is_nan(x) || beats(x, best_value) {
            best = i;
            best_value = x;
        }
    }
    Some(best)
}

fn first_best_not_nan<T: Copy + PartialOrd>(
    xs: &[T],
    beats: impl Fn(T, T) -> bool,
) -> Option<usize> {
    let candidates = xs.iter().copied().enumerate().filter(|&(_, x)| !is_nan(x));
    let best = candidates.reduce(|best, x| if beats(x.1, best.1) { x } else { best });
    best.map(|(i, _)| i)
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
    // `reduce_lanes` visits lanes in row-major order of the kept dims, as this walk does.
    let mut starts = StridedIter::new(&kept);
    let reduced: Vec<bool> = (0..layout.ndim()).map(|d| d == axis).collect();
    reduce_lanes(data, layout, &reduced, |lane| {
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
    use crate::tensor::SliceSpec;

    /// NumPy's pairwise_sum, transcribed literally, as the reference.
    fn numpy_pairwise(a: &[f32]) -> f32 {
        let n = a.len();
        if n < 8 {
            let mut res = 0.0f32;
            for &x in a {
                res += x;
            }
            res
        } else if n <= 128 {
            let mut r = [0f32; 8];
            r.copy_from_slice(&a[..8]);
            let mut i = 8;
            while i < n - (n % 8) {
                for j in 0..8 {
                    r[j] += a[i + j];
                }
                i += 8;
            }
            let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            while i < n {
                res += a[i];
                i += 1;
            }
            res
        } else {
            let mut n2 = n / 2;
            n2 -= n2 % 8;
            numpy_pairwise(&a[..n2]) + numpy_pairwise(&a[n2..])
        }
    }

    #[test]
    fn pairwise_matches_numpy_bitwise() {
        for n in [0, 1, 7, 8, 9, 16, 127, 128, 129, 1000, 4099] {
            let xs: Vec<f32> = (0..n)
                .map(|i| ((i * 7919) % 1013) as f32 * 0.1 - 40.0)
                .collect();
            let got = pairwise_sum(&xs, |x| x);
            assert_eq!(got.to_bits(), numpy_pairwise(&xs).to_bits(), "n = {n}");
        }
        let ints: Vec<u8> = (0..=255).collect();
        assert_eq!(pairwise_sum(&ints, Arith::to_acc), 255 * 128);
    }

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

    #[test]
    fn arg_extremes_first_occurrence_and_nan() {
        let nan = f64::NAN;
        assert_eq!(argmax(&[1, 3, 3, 2]), Some(1));
        assert_eq!(argmax(&[1.0, nan, 5.0, nan]), Some(1));
        assert_eq!(argmax(&[f32::NAN, 1.0]), Some(0));
        assert_eq!(argmax(&[false, true, true]), Some(1));
        assert_eq!(argmax::<i8>(&[]), None);
        assert_eq!(argmin(&[4, 1, 3, 1]), Some(1));
        assert_eq!(argmin(&[1.0, nan, 0.0]), Some(1));
        assert_eq!(argmin::<f32>(&[]), None);
        assert_eq!(nanargmax(&[nan, 1.0, 5.0, nan, 5.0]), Some(2));
        assert_eq!(nanargmin(&[nan, 1.0, 0.5, nan, 0.5]), Some(2));
        assert_eq!(nanargmax(&[nan, nan]), None);
        assert_eq!(nanargmin::<f64>(&[]), None);
        assert_eq!(nanargmax(&[2i32, 7, 7]), Some(1));
    }

    /// A naive reference for one lane: the position of the first best non-NaN value.
    #[test]
    fn nan_arg_extremes_match_a_naive_search() {
        let vals = [3.0, f64::NAN, -1.0, 3.0, f64::NAN, -1.0, 2.0];
        for start in 0..vals.len() {
            let lane = &vals[start..];
            let finite: Vec<(usize, f64)> = lane
                .iter()
                .copied()
                .enumerate()
                .filter(|(_, x)| !x.is_nan())
                .collect();
            let max = finite.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
            let min = finite.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let first = |v: f64| finite.iter().find(|p| p.1 == v).map(|p| p.0);
            assert_eq!(nanargmax(lane), first(max), "{lane:?}");
            assert_eq!(nanargmin(lane), first(min), "{lane:?}");
        }
    }

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

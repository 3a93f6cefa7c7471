//! Sorting and selection along rows: every row of a row-major buffer is sorted, ranked
//! or partly selected on its own, in parallel over fixed blocks of rows (the block
//! length depends on the row length only), so the thread count never changes a bit.
//! Order: ascending with NaN after everything (NumPy); descending is its reverse
//! (NaN first, as torch), ties keep their original order in both.

use std::cmp::Ordering;

use super::math::is_nan;
use super::parallel::{for_each_chunk_mut, for_each_chunk_mut_with};

/// Elements handled per parallel task.
const ELEMENTS_PER_TASK: usize = 1 << 15;

/// Output elements per parallel task: whole rows of `row_len`, a fixed number of them.
fn chunk_len(row_len: usize) -> usize {
    let row = row_len.max(1);
    (ELEMENTS_PER_TASK / row).max(1) * row
}

/// Ascending order with NaN after every number; NaNs are equal to each other.
#[inline]
pub fn nan_last<T: PartialOrd + Copy>(a: T, b: T) -> Ordering {
    match a.partial_cmp(&b) {
        Some(o) => o,
        None => is_nan(a).cmp(&is_nan(b)),
    }
}

/// The order of a sort: `nan_last`, reversed when descending.
#[inline]
fn order<T: PartialOrd + Copy>(a: T, b: T, descending: bool) -> Ordering {
    if descending {
        nan_last(b, a)
    } else {
        nan_last(a, b)
    }
}

/// Sorts each row of `row_len` elements of `data` in place.
pub fn sort_rows<T: PartialOrd + Copy + Send>(
    data: &mut [T],
    row_len: usize,
    descending: bool,
    stable: bool,
) {
    if row_len == 0 {
        return;
    }
    for_each_chunk_mut(data, chunk_len(row_len), |_, rows| {
        for row in rows.chunks_mut(row_len) {
            if stable {
                row.sort_by(|&a, &b| order(a, b, descending));
            } else {
                row.sort_unstable_by(|&a, &b| order(a, b, descending));
            }
        }
    });
}

/// Rows at least this long are radix-sorted (f32): below it a comparison sort wins.
const RADIX_MIN: usize = 1024;

/// `sort_rows` for f32, whose long rows take a stable LSD radix sort on keys that order
/// like `nan_last` (-0.0 and 0.0 share a key, every NaN has the largest one), so the
/// result is bitwise the comparison sort's.
pub fn sort_rows_f32(data: &mut [f32], row_len: usize, descending: bool, stable: bool) {
    if row_len < RADIX_MIN {
        return sort_rows(data, row_len, descending, stable);
    }
    for_each_chunk_mut_with(data, chunk_len(row_len), Vec::new, |scratch, _, rows| {
        for row in rows.chunks_mut(row_len) {
            radix_sort_f32(row, scratch, descending);
        }
    });
}

/// The radix key of `x`: unsigned order equals `nan_last` order.
#[inline]
fn f32_key(x: f32) -> u32 {
    if x.is_nan() {
        u32::MAX
    } else if x == 0.0 {
        0x8000_0000
    } else if x.is_sign_negative() {
        !x.to_bits()
    } else {
        x.to_bits() | 0x8000_0000
    }
}

/// A stable LSD radix sort of `row` by `f32_key` (reversed when descending), a byte per
/// pass; passes where every key has the same byte are skipped.
fn radix_sort_f32(row: &mut [f32], scratch: &mut Vec<f32>, descending: bool) {
    let key = |x: f32| if descending { !f32_key(x) } else { f32_key(x) };
    let mut counts = [[0usize; 256]; 4];
    for &x in row.iter() {
        let k = key(x);
        for (pass, c) in counts.iter_mut().enumerate() {
            c[(k >> (8 * pass)) as usize & 0xff] += 1;
        }
    }
    scratch.clear();
    scratch.resize(row.len(), 0.0);
    let mut from_row = true;
    for (pass, c) in counts.iter().enumerate() {
        if c.contains(&row.len()) {
            continue;
        }
        let mut starts = [0usize; 256];
        let mut total = 0;
        for (s, &n) in starts.iter_mut().zip(c) {
            *s = total;
            total += n;
        }
        let (src, dst): (&[f32], &mut [f32]) = if from_row {
            (row, scratch)
        } else {
            (scratch, row)
        };
        for &x in src {
            let b = (key(x) >> (8 * pass)) as usize & 0xff;
            dst[starts[b]] = x;
            starts[b] += 1;
        }
        from_row = !from_row;
    }
    if !from_row {
        row.copy_from_slice(scratch);
    }
}

/// Writes into each row of `out` the indices (0-based, along the row) that sort the
/// same row of `data`; ties keep their original order.
pub fn argsort_rows<T: PartialOrd + Copy + Sync>(
    data: &[T],
    out: &mut [i64],
    row_len: usize,
    descending: bool,
) {
    if row_len == 0 {
        return;
    }
    for_each_chunk_mut(out, chunk_len(row_len), |start, rows| {
        for (r, idx) in rows.chunks_mut(row_len).enumerate() {
            let base = start + r * row_len;
            let xs = &data[base..base + row_len];
            for (i, o) in idx.iter_mut().enumerate() {
                *o = i as i64;
            }
            // Indices break ties, so the unstable sort gives the stable order.
            idx.sort_unstable_by(|&i, &j| {
                order(xs[i as usize], xs[j as usize], descending).then(i.cmp(&j))
            });
        }
    });
}

/// For each row of `data`, the indices of its `k` first elements in the order of a
/// stable sort (descending when `largest`), without sorting the row: a selection on
/// an index buffer, then a sort of the `k` (or, when not `sorted`, ascending indices).
/// `out` holds `k` indices per row; `k <= row_len`.
pub fn select_rows<T: PartialOrd + Copy + Sync>(
    data: &[T],
    out: &mut [i64],
    row_len: usize,
    k: usize,
    largest: bool,
    sorted: bool,
) {
    if k == 0 || row_len == 0 {
        return;
    }
    let init = || Vec::<usize>::with_capacity(row_len);
    for_each_chunk_mut_with(out, chunk_len(k), init, |idx, start, rows| {
        for (r, row_out) in rows.chunks_mut(k).enumerate() {
            let base = (start / k + r) * row_len;
            let xs = &data[base..base + row_len];
            let cmp = |i: &usize, j: &usize| order(xs[*i], xs[*j], largest).then(i.cmp(j));
            idx.clear();
            idx.extend(0..row_len);
            if k < row_len {
                idx.select_nth_unstable_by(k - 1, cmp);
            }
            let first = &mut idx[..k];
            if sorted {
                first.sort_unstable_by(cmp);
            } else {
                first.sort_unstable();
            }
            for (o, &i) in row_out.iter_mut().zip(first.iter()) {
                *o = i as i64;
            }
        }
    });
}

/// Order statistics of each row (NumPy's quantile machinery): for each row of `data`
/// (as f64), `stat(sorted_access)` where the closure gets the row's numbers (NaN
/// removed when `skip_nan`) and a selector returning the `i`-th smallest. A row with a
/// NaN (when not skipped) or with no numbers gives NaN. `out` holds `per_row` results
/// per row, written by `stat` through its slice.
pub fn order_stats_rows<T: Copy + Sync>(
    data: &[T],
    out: &mut [f64],
    row_len: usize,
    per_row: usize,
    to_f64: impl Fn(T) -> f64 + Sync + Send,
    skip_nan: bool,
    stat: impl Fn(&mut Selector, &mut [f64]) + Sync + Send,
) {
    if per_row == 0 {
        return;
    }
    let init = || Vec::<f64>::with_capacity(row_len);
    for_each_chunk_mut_with(out, chunk_len(per_row), init, |xs, start, rows| {
        for (r, row_out) in rows.chunks_mut(per_row).enumerate() {
            let base = (start / per_row + r) * row_len;
            xs.clear();
            xs.extend(data[base..base + row_len].iter().map(|&x| to_f64(x)));
            if skip_nan {
                xs.retain(|x| !x.is_nan());
            }
            if xs.is_empty() || xs.iter().any(|x| x.is_nan()) {
                row_out.fill(f64::NAN);
                continue;
            }
            stat(&mut Selector { xs }, row_out);
        }
    });
}

/// The numbers of one row (no NaN, at least one), partly ordered by each selection.
pub struct Selector<'a> {
    xs: &'a mut Vec<f64>,
}

impl Selector<'_> {
    /// How many numbers the row has.
    pub fn count(&self) -> usize {
        self.xs.len()
    }

    /// The `i`-th smallest (0-based; clamped to the last).
    pub fn nth(&mut self, i: usize) -> f64 {
        let i = i.min(self.xs.len().saturating_sub(1));
        let (_, x, _) = self.xs.select_nth_unstable_by(i, |a, b| a.total_cmp(b));
        *x
    }

    /// The `i`-th and `i + 1`-th smallest (the second clamped to the last).
    pub fn pair(&mut self, i: usize) -> (f64, f64) {
        let a = self.nth(i);
        let i = i.min(self.xs.len().saturating_sub(1));
        let b = self.xs[i + 1..]
            .iter()
            .copied()
            .min_by(|a, b| a.total_cmp(b))
            .unwrap_or(a);
        (a, b)
    }
}

/// For each value of `v`, the index in the sorted `a` (ascending, NaN last) where it
/// would be inserted to keep the order: before equal elements (`right = false`, NumPy's
/// side="left") or after them.
pub fn search_sorted<T: PartialOrd + Copy + Sync>(a: &[T], v: &[T], out: &mut [i64], right: bool) {
    for_each_chunk_mut(out, ELEMENTS_PER_TASK, |start, chunk| {
        for (o, &x) in chunk.iter_mut().zip(&v[start..]) {
            let at = if right {
                a.partition_point(|&y| nan_last(y, x) != Ordering::Greater)
            } else {
                a.partition_point(|&y| nan_last(y, x) == Ordering::Less)
            };
            *o = at as i64;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::with_threads;

    #[test]
    fn sorts_with_nan_last_and_stable_ties() {
        let mut xs = [3.0, f64::NAN, -1.0, 2.0, f64::NAN, -0.0, 0.0];
        sort_rows(&mut xs, 7, false, true);
        assert_eq!(format!("{xs:?}"), "[-1.0, -0.0, 0.0, 2.0, 3.0, NaN, NaN]");
        let mut idx = [0i64; 6];
        argsort_rows(&[1, 0, 1, 0, 2, 2], &mut idx, 3, true);
        assert_eq!(idx, [0, 2, 1, 1, 2, 0]);
    }

    #[test]
    fn radix_sort_is_the_comparison_sort_bitwise() {
        let specials = [
            f32::NAN,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -f32::NAN,
        ];
        let xs: Vec<f32> = (0..5000i64)
            .map(|i| match i % 11 {
                0 => specials[(i / 11) as usize % specials.len()],
                _ => ((i * 7919) % 401 - 200) as f32 * 0.37,
            })
            .collect();
        for descending in [false, true] {
            let (mut a, mut b) = (xs.clone(), xs.clone());
            sort_rows(&mut a, 2500, descending, true);
            sort_rows_f32(&mut b, 2500, descending, true);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&a), bits(&b), "descending {descending}");
        }
    }

    #[test]
    fn searches_left_and_right() {
        let a = [1.0, 2.0, 2.0, 3.0, f64::NAN];
        let v = [0.0, 2.0, 2.5, 3.0, 9.0, f64::NAN];
        let mut out = [0i64; 6];
        search_sorted(&a, &v, &mut out, false);
        assert_eq!(out, [0, 1, 3, 3, 4, 4]);
        search_sorted(&a, &v, &mut out, true);
        assert_eq!(out, [0, 3, 3, 4, 4, 5]);
    }

    #[test]
    fn selects_like_a_full_sort() {
        let xs: Vec<f32> = (0..1000).map(|i| ((i * 7919) % 101) as f32).collect();
        for &(k, largest) in &[(1, true), (5, false), (100, true), (100, false)] {
            let mut got = vec![0i64; k * 10];
            select_rows(&xs, &mut got, 100, k, largest, true);
            let mut want = vec![0i64; 1000];
            argsort_rows(&xs, &mut want, 100, largest);
            for r in 0..10 {
                assert_eq!(got[r * k..(r + 1) * k], want[r * 100..r * 100 + k]);
            }
        }
    }

    #[test]
    fn same_for_any_thread_count() {
        let xs: Vec<f32> = (0..300_000i64)
            .map(|i| ((i * 7919) % 1013) as f32)
            .collect();
        let run = || {
            let mut s = xs.clone();
            sort_rows(&mut s, 1000, false, false);
            let mut a = vec![0i64; xs.len()];
            argsort_rows(&xs, &mut a, 1000, true);
            (s, a)
        };
        assert_eq!(with_threads(1, run), with_threads(2, run));
    }
}

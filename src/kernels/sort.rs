//! Sorting and selection along rows: every row of a row-major buffer is sorted, ranked
//! or partly selected on its own, in parallel over fixed blocks of rows (the block
//! length depends on the row length only), so the thread count never changes a bit.
//! Order: ascending with NaN after everything (NumPy); descending is its reverse
//! (NaN first, as torch), ties keep their original order in both.

use std::cmp::Ordering;

use super::key_sort;
use super::math::is_nan;
use super::parallel::{for_each_chunk_mut, for_each_chunk_mut_with};
use super::radix::{self, RadixKey, LONG_ROW};

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

/// Rows at least this long are radix-sorted: below it a comparison sort wins.
const RADIX_MIN: usize = 1024;

/// Sorts each row of `row_len` elements of `data` in place. Rows of `RADIX_MIN` or
/// more take the vector quicksort through their keys where it gives the stable sort's
/// bits, else a stable radix sort (bitwise the stable comparison sort's result, so
/// `stable` only matters for shorter rows); rows of `LONG_ROW` or more are each
/// sorted by all threads.
pub fn sort_rows<T: RadixKey + PartialOrd>(
    data: &mut [T],
    row_len: usize,
    descending: bool,
    stable: bool,
) {
    if row_len == 0 {
        return;
    }
    if row_len >= LONG_ROW {
        for row in data.chunks_mut(row_len) {
            if !key_sort::sort_row(row, descending) {
                radix::sort_long_row(row, descending);
            }
        }
    } else if row_len >= RADIX_MIN {
        for_each_chunk_mut_with(data, chunk_len(row_len), Vec::new, |values, _, rows| {
            for row in rows.chunks_mut(row_len) {
                if !key_sort::sort_row(row, descending) {
                    radix::sort_row(row, values, descending);
                }
            }
        });
    } else {
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
}

/// Writes into each row of `out` the indices (0-based, along the row) that sort the
/// same row of `data`; ties keep their original order. Rows of `RADIX_MIN` or more
/// are sorted as (key, index) pairs: by the AVX-512 vector quicksort for keys of up
/// to 32 bits (the pairs are 64 bits wide), else by a radix sort.
pub fn argsort_rows<T: RadixKey + PartialOrd>(
    data: &[T],
    out: &mut [i64],
    row_len: usize,
    descending: bool,
) {
    if row_len == 0 {
        return;
    }
    let radix = row_len >= RADIX_MIN && u32::try_from(row_len).is_ok();
    let scratch = || (Vec::new(), Vec::new());
    for_each_chunk_mut_with(
        out,
        chunk_len(row_len),
        scratch,
        |(packed, pairs), start, rows| {
            for (r, idx) in rows.chunks_mut(row_len).enumerate() {
                let base = start + r * row_len;
                let xs = &data[base..base + row_len];
                if radix {
                    if !key_sort::argsort_row(xs, idx, packed, descending) {
                        radix::argsort_row(xs, idx, pairs, descending);
                    }
                    continue;
                }
                for (i, o) in idx.iter_mut().enumerate() {
                    *o = i as i64;
                }
                // Indices break ties, so the unstable sort gives the stable order.
                idx.sort_unstable_by(|&i, &j| {
                    order(xs[i as usize], xs[j as usize], descending).then(i.cmp(&j))
                });
            }
        },
    );
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
    use crate::kernels::test_bits::random_bits;
    use half::{bf16, f16};

    #[test]
    fn sorts_with_nan_last_and_stable_ties() {
        let mut xs = [3.0, f64::NAN, -1.0, 2.0, f64::NAN, -0.0, 0.0];
        sort_rows(&mut xs, 7, false, true);
        assert_eq!(format!("{xs:?}"), "[-1.0, -0.0, 0.0, 2.0, 3.0, NaN, NaN]");
        let mut idx = [0i64; 6];
        argsort_rows(&[1, 0, 1, 0, 2, 2], &mut idx, 3, true);
        assert_eq!(idx, [0, 2, 1, 1, 2, 0]);
    }

    /// The stable comparison sort and argsort of each row: the radix paths' reference.
    fn comparison_sort<T: PartialOrd + Copy>(
        xs: &[T],
        row_len: usize,
        descending: bool,
    ) -> (Vec<T>, Vec<i64>) {
        let mut sorted = xs.to_vec();
        let mut idx: Vec<i64> = Vec::new();
        for (row, out) in xs.chunks(row_len).zip(sorted.chunks_mut(row_len)) {
            let mut order_of: Vec<usize> = (0..row.len()).collect();
            order_of.sort_by(|&i, &j| order(row[i], row[j], descending));
            for (o, &i) in out.iter_mut().zip(&order_of) {
                *o = row[i];
            }
            idx.extend(order_of.iter().map(|&i| i as i64));
        }
        (sorted, idx)
    }

    /// Radix sort and argsort (row by row, and one long row across threads) against the
    /// comparison sort: the same bits and indices, for every key width.
    fn radix_matches_comparison<T: RadixKey + PartialOrd + std::fmt::Debug>(
        xs: &[T],
        bits: impl Fn(&T) -> u64,
    ) {
        for row_len in [RADIX_MIN - 1, RADIX_MIN, 3000, xs.len()] {
            let xs = &xs[..xs.len() / row_len * row_len];
            for descending in [false, true] {
                let (want, want_idx) = comparison_sort(xs, row_len, descending);
                for threads in [1, 2, 3] {
                    let (got, idx) = with_threads(threads, || {
                        let mut got = xs.to_vec();
                        sort_rows(&mut got, row_len, descending, true);
                        let mut idx = vec![0i64; xs.len()];
                        argsort_rows(xs, &mut idx, row_len, descending);
                        (got, idx)
                    });
                    let what = format!("row {row_len}, descending {descending}, {threads} threads");
                    assert!(got.iter().map(&bits).eq(want.iter().map(&bits)), "{what}");
                    assert_eq!(idx, want_idx, "{what}");
                }
            }
        }
    }

    /// `n` values from a small range (many ties), with every `stride`-th one special.
    fn values_with<T: Copy>(
        n: usize,
        special: &[T],
        stride: usize,
        f: impl Fn(i64) -> T,
    ) -> Vec<T> {
        (0..n as i64)
            .map(|i| match (i as usize) % stride {
                0 => special[(i as usize / stride) % special.len()],
                _ => f((i * 7919) % 4001 - 2000),
            })
            .collect()
    }

    /// One long row sorted on 1 to 3 threads, against the comparison sort, bitwise.
    fn long_row_matches_comparison<T: RadixKey + PartialOrd>(xs: &[T], bits: impl Fn(&T) -> u64) {
        for descending in [false, true] {
            let (want, _) = comparison_sort(xs, xs.len(), descending);
            for threads in [1, 2, 3] {
                let got = with_threads(threads, || {
                    let mut got = xs.to_vec();
                    sort_rows(&mut got, xs.len(), descending, true);
                    got
                });
                let what = format!("descending {descending}, {threads} threads");
                assert!(got.iter().map(&bits).eq(want.iter().map(&bits)), "{what}");
            }
        }
    }

    #[test]
    fn long_rows_of_many_chunks_sort_as_the_comparison_sort() {
        // Several chunks of the first radix pass (the last one short). Random bits (no infinities) spread the keys over all
        // its buckets, so each is short; values of ±[1, 2) fill eight long ones. A
        // NaN and both zeros among them send the row to the radix sort on every CPU.
        let n = 5 * (1 << 16) + 777;
        let mut random = random_bits(0x2545_f491_4f6c_dd1d);
        let mut row = |special: [u64; 3], value: &mut dyn FnMut(u64) -> u64| -> Vec<u64> {
            (0..n)
                .map(|i| match i % 997 {
                    s @ 0..=2 => special[s],
                    _ => value(random()),
                })
                .collect()
        };
        let specials32 = [f32::NAN, -0.0, 0.0].map(|x| u64::from(x.to_bits()));
        let specials64 = [f64::NAN, -0.0, 0.0].map(f64::to_bits);
        let f32s = |bits: Vec<u64>| -> Vec<f32> {
            bits.into_iter().map(|b| f32::from_bits(b as u32)).collect()
        };
        let f64s = |bits: Vec<u64>| -> Vec<f64> { bits.into_iter().map(f64::from_bits).collect() };
        let spread32 = f32s(row(specials32, &mut |r| r & 0xBFFF_FFFF));
        let ones32 = f32s(row(specials32, &mut |r| 0x3F80_0000 | (r & 0x807F_FFFF)));
        let spread64 = f64s(row(specials64, &mut |r| r & 0xBFFF_FFFF_FFFF_FFFF));
        let ones64 = f64s(row(specials64, &mut |r| {
            0x3FF0_0000_0000_0000 | (r & 0x800F_FFFF_FFFF_FFFF)
        }));
        for xs in [&spread32, &ones32] {
            long_row_matches_comparison(xs, |x| u64::from(x.to_bits()));
        }
        for xs in [&spread64, &ones64] {
            long_row_matches_comparison(xs, |x| x.to_bits());
        }
    }

    #[test]
    fn radix_sorts_are_the_comparison_sort_bitwise() {
        // Long rows (one sorted by all threads) for a few key widths, shorter for the rest.
        let (n, short) = (LONG_ROW + 5000, 6000);
        let f32s = [
            f32::NAN,
            -0.0,
            0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            -f32::NAN,
            f32::MIN_POSITIVE,
        ];
        radix_matches_comparison(&values_with(n, &f32s, 11, |v| v as f32 * 0.37), |x| {
            x.to_bits() as u64
        });
        let f64s = [
            f64::NAN,
            -0.0,
            0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -f64::NAN,
            5e-324,
        ];
        radix_matches_comparison(&values_with(n, &f64s, 13, |v| v as f64 * 1e-3), |x| {
            x.to_bits()
        });
        // Without both zeros or two NaNs, float rows take the vector quicksort.
        let clean32 = [f32::NAN, 0.0, f32::INFINITY, f32::NEG_INFINITY, -1e-40];
        radix_matches_comparison(&values_with(n, &clean32, 11, |v| v as f32 * 0.37), |x| {
            x.to_bits() as u64
        });
        let clean64 = [-0.0, f64::NAN, f64::NEG_INFINITY, 5e-324];
        radix_matches_comparison(&values_with(n, &clean64, 13, |v| v as f64 * 1e-3), |x| {
            x.to_bits()
        });
        let f16s = [
            f16::NAN,
            f16::NEG_ZERO,
            f16::ZERO,
            f16::INFINITY,
            f16::NEG_INFINITY,
        ];
        radix_matches_comparison(
            &values_with(n, &f16s, 7, |v| f16::from_f64(v as f64 * 0.1)),
            |x| x.to_bits() as u64,
        );
        let bf16s = [bf16::NAN, bf16::NEG_ZERO, bf16::ZERO, bf16::INFINITY];
        radix_matches_comparison(
            &values_with(short, &bf16s, 7, |v| bf16::from_f64(v as f64)),
            |x| x.to_bits() as u64,
        );
        radix_matches_comparison(
            &values_with(n, &[i64::MIN, i64::MAX], 9, |v| v * 1_000_000_007),
            |&x| x as u64,
        );
        radix_matches_comparison(
            &values_with(short, &[i32::MIN, i32::MAX, 0], 9, |v| v as i32 * 1000),
            |&x| x as u64,
        );
        radix_matches_comparison(
            &values_with(short, &[i8::MIN, i8::MAX], 9, |v| v as i8),
            |&x| x as u64,
        );
        radix_matches_comparison(
            &values_with(short, &[u64::MAX, 0], 9, |v| {
                (v + 2000) as u64 * 3_000_000_000
            }),
            |&x| x,
        );
        radix_matches_comparison(
            &values_with(short, &[u16::MAX, 0], 9, |v| (v + 2000) as u16),
            |&x| x as u64,
        );
        radix_matches_comparison(&values_with(short, &[u8::MAX], 9, |v| v as u8), |&x| {
            x as u64
        });
        radix_matches_comparison(&values_with(short, &[true], 9, |v| v > 0), |&x| x as u64);
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

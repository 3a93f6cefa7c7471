//! Sorting rows through the vector quicksort (`quicksort`): the elements become their
//! radix keys (unsigned, in sort order), the keys are sorted, and the elements come
//! back from them. An unstable sort of the keys gives the stable sort's bits exactly
//! when no two elements with equal keys differ in their bits, so a row holding both
//! zeros (-0.0 and 0.0) or two kinds of NaN is left to the radix sort, as is every
//! row on a CPU without the vector sort: the result never depends on the ISA.

use super::parallel::{for_each_chunk_mut, threads, Disjoint};
use super::quicksort;
use super::radix::{directed, for_each_bucket, msd_buckets, RadixKey};
use std::sync::atomic::{AtomicBool, Ordering};

/// A key width the vector quicksort sorts.
pub trait Lane: RadixKey + Default {
    /// Sorts ascending; false when the quicksort gave up (the keys are then only
    /// permuted).
    fn sort(keys: &mut [Self]) -> bool;
    fn of(key: u64) -> Self;
}

impl Lane for u32 {
    fn sort(keys: &mut [u32]) -> bool {
        quicksort::sort_u32(keys).is_ok()
    }
    fn of(key: u64) -> u32 {
        key as u32
    }
}

impl Lane for u64 {
    fn sort(keys: &mut [u64]) -> bool {
        quicksort::sort_u64(keys).is_ok()
    }
    fn of(key: u64) -> u64 {
        key
    }
}

/// Scratch space for sorting rows through their keys, reused across rows.
#[derive(Default)]
pub struct Keys {
    k32: Vec<u32>,
    k64: Vec<u64>,
}

/// The elements of a row whose key other bit patterns share (a float's ±0, its NaNs):
/// one element per such key, or `clash` when a key came with two bit patterns.
#[derive(Clone, Copy)]
struct Shared<T> {
    seen: [Option<(u64, T)>; 2],
    clash: bool,
}

impl<T: RadixKey> Shared<T> {
    fn new() -> Shared<T> {
        Shared {
            seen: [None; 2],
            clash: false,
        }
    }

    fn note(&mut self, x: T) {
        let key = x.key();
        for slot in &mut self.seen {
            match slot {
                None => {
                    *slot = Some((key, x));
                    return;
                }
                Some((k, y)) if *k == key => {
                    self.clash |= y.bits() != x.bits();
                    return;
                }
                Some(_) => {}
            }
        }
        self.clash = true;
    }

    fn merge(&mut self, other: &Shared<T>) {
        self.clash |= other.clash;
        for &(_, x) in other.seen.iter().flatten() {
            self.note(x);
        }
    }

    /// The row's element with this key.
    #[inline]
    fn element(&self, key: u64) -> T {
        for &(k, x) in self.seen.iter().flatten() {
            if k == key {
                return x;
            }
        }
        T::from_key(key)
    }
}

/// The keys of `xs` written to `keys`, and the key-sharing elements among them.
fn keys_of<T: RadixKey, L: Lane>(xs: &[T], keys: &mut [L]) -> Shared<T> {
    let mut shared = Shared::new();
    for (k, &x) in keys.iter_mut().zip(xs) {
        if x.shares_key() {
            shared.note(x);
        }
        *k = L::of(x.key());
    }
    shared
}

/// Sorts `row` (the stable sort's result) through its keys; false, with `row`
/// untouched, when this row or CPU can't take the vector quicksort.
pub fn sort_row<T: RadixKey>(row: &mut [T], keys: &mut Keys, descending: bool) -> bool {
    match T::KEY_BITS {
        32 => sort_row_as(row, &mut keys.k32, descending),
        64 => sort_row_as(row, &mut keys.k64, descending),
        _ => false,
    }
}

fn sort_row_as<T: RadixKey, L: Lane>(row: &mut [T], keys: &mut Vec<L>, descending: bool) -> bool {
    if !quicksort::available() {
        return false;
    }
    keys.clear();
    keys.resize(row.len(), L::default());
    let shared = keys_of(row, keys);
    if shared.clash || !L::sort(keys) {
        return false;
    }
    if descending {
        keys.reverse();
    }
    for (x, &k) in row.iter_mut().zip(keys.iter()) {
        *x = shared.element(k.key());
    }
    true
}

/// Elements per parallel task of `sort_long_row`'s key passes.
const KEY_CHUNK: usize = 1 << 16;

/// `sort_row` for one long row, by all threads: keys made and turned back in
/// parallel chunks; with more than one thread the keys are first split into buckets
/// by their top bits (`msd_buckets`) and the buckets sorted in parallel.
pub fn sort_long_row<T: RadixKey>(row: &mut [T], descending: bool) -> bool {
    match T::KEY_BITS {
        32 => sort_long_row_as::<T, u32>(row, descending),
        64 => sort_long_row_as::<T, u64>(row, descending),
        _ => false,
    }
}

fn sort_long_row_as<T: RadixKey, L: Lane>(row: &mut [T], descending: bool) -> bool {
    if !quicksort::available() {
        return false;
    }
    let n = row.len();
    let mut keys = vec![L::default(); n];
    let mut shared = vec![Shared::new(); n.div_ceil(KEY_CHUNK)];
    {
        let parts = Disjoint::new(&mut keys);
        let xs: &[T] = row;
        for_each_chunk_mut(&mut shared, 1, |c, s| {
            let start = c * KEY_CHUNK;
            let len = KEY_CHUNK.min(n - start);
            // SAFETY: chunk c owns keys[start..start + len], disjoint from the others'.
            let part = unsafe { parts.part(start, len) };
            s[0] = keys_of(&xs[start..start + len], part);
        });
    }
    let mut all = Shared::new();
    for s in &shared {
        all.merge(s);
    }
    if all.clash {
        return false;
    }
    let keys = if threads() == 1 {
        if !L::sort(&mut keys) {
            return false;
        }
        keys
    } else {
        let (mut buckets, starts) = msd_buckets(&keys, false);
        let failed = AtomicBool::new(false);
        let parts = Disjoint::new(&mut buckets);
        for_each_bucket(&starts, |start, len| {
            // SAFETY: bucket ranges are disjoint, and each task touches only its own.
            if !L::sort(unsafe { parts.part(start, len) }) {
                failed.store(true, Ordering::Relaxed);
            }
        });
        if failed.into_inner() {
            return false;
        }
        buckets
    };
    for_each_chunk_mut(row, KEY_CHUNK, |start, out| {
        for (i, x) in out.iter_mut().enumerate() {
            let j = if descending {
                n - 1 - start - i
            } else {
                start + i
            };
            *x = all.element(keys[j].key());
        }
    });
    true
}

/// Writes into `out` the indices that stably sort `row`: the vector quicksort of
/// (key, index) pairs packed in a u64, which ties break by index. False, `out`
/// untouched, for keys wider than 32 bits, rows of 2^32 elements or more, or a CPU
/// without the vector quicksort.
pub fn argsort_row<T: RadixKey>(
    row: &[T],
    out: &mut [i64],
    keys: &mut Keys,
    descending: bool,
) -> bool {
    if !quicksort::available() || T::KEY_BITS > 32 || u32::try_from(row.len()).is_err() {
        return false;
    }
    let pairs = &mut keys.k64;
    pairs.clear();
    pairs.extend(
        row.iter()
            .enumerate()
            .map(|(i, &x)| directed(x, descending) << 32 | i as u64),
    );
    if !u64::sort(pairs) {
        return false;
    }
    for (o, &p) in out.iter_mut().zip(pairs.iter()) {
        *o = i64::from(p as u32);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::radix;

    #[test]
    fn keys_turn_back_into_their_elements() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f32::from_bits(state as u32);
            if !x.shares_key() {
                assert_eq!(f32::from_key(x.key()).to_bits(), x.to_bits());
            }
            let y = f64::from_bits(state);
            if !y.shares_key() {
                assert_eq!(f64::from_key(y.key()).to_bits(), y.to_bits());
            }
            let (i, j) = (state as i32, state as i64);
            assert_eq!((i32::from_key(i.key()), i64::from_key(j.key())), (i, j));
        }
        assert_eq!(f32::from_key((-0.0f32).key()).to_bits(), 0);
        assert!(f64::from_key(f64::NAN.key()).is_nan());
    }

    #[test]
    fn rows_with_both_zeros_or_two_nans_are_left_to_the_radix_sort() {
        let mut keys = Keys::default();
        let nan2 = f32::from_bits(0x7FC0_0001);
        for clash in [[1.0, 0.0, -0.0, 2.0], [f32::NAN, 1.0, nan2, 0.0]] {
            let mut row = clash;
            assert!(!sort_row(&mut row, &mut keys, false));
            assert_eq!(row.map(f32::to_bits), clash.map(f32::to_bits));
        }
        let mut row = [f32::NAN, -0.0, 3.0, f32::NAN, -0.0, -1.0];
        if sort_row(&mut row, &mut keys, true) {
            let want = [f32::NAN, f32::NAN, 3.0, -0.0, -0.0, -1.0];
            assert_eq!(row.map(f32::to_bits), want.map(f32::to_bits));
        }
        assert_eq!(
            sort_row(&mut [3.0f32, 1.0], &mut keys, false),
            quicksort::available()
        );
    }

    #[test]
    fn vector_sorts_are_the_radix_sorts_bitwise() {
        let mut keys = Keys::default();
        let xs: Vec<f32> = (0..5000)
            .map(|i| ((i * 7919) % 4001) as f32 - 2000.5)
            .collect();
        for descending in [false, true] {
            let (mut got, mut want) = (xs.clone(), xs.clone());
            let taken = sort_row(&mut got, &mut keys, descending);
            radix::sort_row(&mut want, &mut Vec::new(), descending);
            assert_eq!(taken, quicksort::available());
            if taken {
                assert!(got
                    .iter()
                    .map(|x| x.to_bits())
                    .eq(want.iter().map(|x| x.to_bits())));
            }
            let (mut idx, mut want_idx) = (vec![0; xs.len()], vec![0; xs.len()]);
            if argsort_row(&xs, &mut idx, &mut keys, descending) {
                radix::argsort_row(&xs, &mut want_idx, &mut Vec::new(), descending);
                assert_eq!(idx, want_idx);
            }
        }
    }
}

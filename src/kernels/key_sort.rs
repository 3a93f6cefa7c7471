//! Sorting rows through the vector quicksort (`quicksort`): the elements become their
//! radix keys (unsigned, in sort order) in place, the keys are sorted, and the
//! elements come back from them. An unstable sort of the keys gives the stable sort's
//! bits exactly when no two elements with equal keys differ in their bits, so a row
//! holding both zeros (-0.0 and 0.0) or two kinds of NaN is left to the radix sort,
//! as is every row on a CPU without the vector sort: the result never depends on the
//! ISA.

use super::parallel::{for_each_chunk_mut, join, Disjoint};
use super::quicksort;
use super::radix::{directed, RadixKey};
use std::mem::{align_of, size_of};

/// A key width the vector quicksort sorts.
pub trait Lane: RadixKey + Default {
    /// Sorts ascending; false when the quicksort gave up (the keys are then only
    /// permuted).
    fn sort(keys: &mut [Self]) -> bool;
    /// One partition step around a sampled pivot: the count of keys moved to the
    /// front, or None when that would not split the keys in two.
    fn split(keys: &mut [Self]) -> Option<usize>;
    fn of(key: u64) -> Self;
}

impl Lane for u32 {
    fn sort(keys: &mut [u32]) -> bool {
        quicksort::sort_u32(keys).is_ok()
    }
    fn split(keys: &mut [u32]) -> Option<usize> {
        quicksort::split_u32(keys)
    }
    fn of(key: u64) -> u32 {
        key as u32
    }
}

impl Lane for u64 {
    fn sort(keys: &mut [u64]) -> bool {
        quicksort::sort_u64(keys).is_ok()
    }
    fn split(keys: &mut [u64]) -> Option<usize> {
        quicksort::split_u64(keys)
    }
    fn of(key: u64) -> u64 {
        key
    }
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

    /// The key-sharing elements of `xs`.
    fn of(xs: &[T]) -> Shared<T> {
        let mut shared = Shared::new();
        for &x in xs {
            if x.shares_key() {
                shared.note(x);
            }
        }
        shared
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

/// Elements per parallel task of the key passes.
const KEY_CHUNK: usize = 1 << 16;

/// Rows at least this long are split into parts sorted in parallel.
const PARALLEL_MIN: usize = 1 << 17;

/// Sorts `row` (the stable sort's result) through its keys, in parallel for long
/// rows; false when this row or CPU can't take the vector quicksort, with `row`
/// untouched or only permuted among elements that no sort tells apart.
pub fn sort_row<T: RadixKey>(row: &mut [T], descending: bool) -> bool {
    match T::KEY_BITS {
        32 => sort_row_as::<T, u32>(row, descending),
        64 => sort_row_as::<T, u64>(row, descending),
        _ => false,
    }
}

fn sort_row_as<T: RadixKey, L: Lane>(row: &mut [T], descending: bool) -> bool {
    if !quicksort::available()
        || size_of::<T>() != size_of::<L>()
        || align_of::<T>() != align_of::<L>()
    {
        return false;
    }
    let n = row.len();
    let mut shared = vec![Shared::new(); n.div_ceil(KEY_CHUNK)];
    {
        let parts = Disjoint::new(row);
        for_each_chunk_mut(&mut shared, 1, |c, s| {
            let start = c * KEY_CHUNK;
            // SAFETY: chunk c owns row[start..start + len], disjoint from the others'.
            let part = unsafe { parts.part(start, KEY_CHUNK.min(n - start)) };
            s[0] = Shared::of(part);
        });
    }
    let mut all = Shared::new();
    for s in &shared {
        all.merge(s);
    }
    if all.clash {
        return false;
    }
    // SAFETY: `L` has `T`'s size and alignment (checked above) and every bit pattern
    // is an `L`; `row` is not used while `keys` lives.
    let keys = unsafe { std::slice::from_raw_parts_mut(row.as_mut_ptr().cast::<L>(), n) };
    for_each_chunk_mut(keys, KEY_CHUNK, |_, part| {
        for k in part.iter_mut() {
            // SAFETY: the slot holds the `T` it had in `row` (same size, reinterpreted).
            let x: T = unsafe { std::ptr::from_mut(k).cast::<T>().read() };
            *k = L::of(directed(x, descending));
        }
    });
    // Sorted or not (the quicksort gave up), the keys turn back into the row's
    // elements: when not, a permutation of them, which sorts to the same bits.
    let sorted = sort_parts(keys, 3);
    back_from_keys(keys, &all, descending);
    sorted
}

/// Sorts `keys`, splitting long ones in two around a pivot and sorting the parts in
/// parallel, down to `depth` levels. The split points depend on the keys only.
fn sort_parts<L: Lane>(keys: &mut [L], depth: u32) -> bool {
    if depth == 0 || keys.len() < PARALLEL_MIN {
        return L::sort(keys);
    }
    match L::split(keys) {
        None => L::sort(keys),
        Some(mid) => {
            let (lo, hi) = keys.split_at_mut(mid);
            let (a, b) = join(|| sort_parts(lo, depth - 1), || sort_parts(hi, depth - 1));
            a && b
        }
    }
}

/// Turns the keys back into the row's elements, in place.
fn back_from_keys<T: RadixKey, L: Lane>(keys: &mut [L], shared: &Shared<T>, descending: bool) {
    let mask = u64::MAX >> (64 - T::KEY_BITS);
    for_each_chunk_mut(keys, KEY_CHUNK, |_, part| {
        for k in part.iter_mut() {
            let key = if descending { !k.key() & mask } else { k.key() };
            // SAFETY: `T` has `L`'s size and alignment (checked by the caller); the slot
            // becomes the `T` again.
            unsafe { std::ptr::from_mut(k).cast::<T>().write(shared.element(key)) };
        }
    });
}

/// Writes into `out` the indices that stably sort `row`: the vector quicksort of
/// (key, index) pairs packed in a u64, which ties break by index. False, `out`
/// untouched, for keys wider than 32 bits, rows of 2^32 elements or more, or a CPU
/// without the vector quicksort.
pub fn argsort_row<T: RadixKey>(
    row: &[T],
    out: &mut [i64],
    pairs: &mut Vec<u64>,
    descending: bool,
) -> bool {
    if !quicksort::available() || T::KEY_BITS > 32 || u32::try_from(row.len()).is_err() {
        return false;
    }
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
        let nan2 = f32::from_bits(0x7FC0_0001);
        for clash in [[1.0, 0.0, -0.0, 2.0], [f32::NAN, 1.0, nan2, 0.0]] {
            let mut row = clash;
            assert!(!sort_row(&mut row, false));
            assert_eq!(row.map(f32::to_bits), clash.map(f32::to_bits));
        }
        let mut row = [f32::NAN, -0.0, 3.0, f32::NAN, -0.0, -1.0];
        if sort_row(&mut row, true) {
            let want = [f32::NAN, f32::NAN, 3.0, -0.0, -0.0, -1.0];
            assert_eq!(row.map(f32::to_bits), want.map(f32::to_bits));
        }
        assert_eq!(sort_row(&mut [3.0f32, 1.0], false), quicksort::available());
    }

    #[test]
    fn vector_sorts_are_the_radix_sorts_bitwise() {
        let mut pairs = Vec::new();
        let xs: Vec<f32> = (0..5000)
            .map(|i| ((i * 7919) % 4001) as f32 - 2000.5)
            .collect();
        for descending in [false, true] {
            let (mut got, mut want) = (xs.clone(), xs.clone());
            let taken = sort_row(&mut got, descending);
            radix::sort_row(&mut want, &mut Vec::new(), descending);
            assert_eq!(taken, quicksort::available());
            if taken {
                assert!(got
                    .iter()
                    .map(|x| x.to_bits())
                    .eq(want.iter().map(|x| x.to_bits())));
            }
            let (mut idx, mut want_idx) = (vec![0; xs.len()], vec![0; xs.len()]);
            if argsort_row(&xs, &mut idx, &mut pairs, descending) {
                radix::argsort_row(&xs, &mut want_idx, &mut Vec::new(), descending);
                assert_eq!(idx, want_idx);
            }
        }
    }
}

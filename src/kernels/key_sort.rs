//! Sorting rows through the vector quicksort (`quicksort`): ascending rows of the
//! types it orders itself (32- and 64-bit numbers, only 32-bit ones with AVX2; floats
//! without NaN) as they are;
//! other rows' elements become their radix keys (unsigned, in sort order) in place,
//! the keys are sorted, and the elements come back from them. An unstable sort gives
//! the stable sort's bits exactly when no two elements with equal keys differ in their
//! bits, so a row holding both zeros (-0.0 and 0.0) or two kinds of NaN is left to the
//! radix sort, as is every row on a CPU without the vector sort: the result never
//! depends on the ISA.

use super::parallel::{for_each_chunk_mut, join, Disjoint};
use super::quicksort::{self, Key};
use super::radix::{directed, RadixKey};
use std::any::TypeId;
use std::mem::{align_of, size_of};

/// A key width: the unsigned integer a row's radix keys are sorted as.
pub trait Lane: RadixKey + Key {
    fn of(key: u64) -> Self;
}

impl Lane for u32 {
    fn of(key: u64) -> u32 {
        key as u32
    }
}

impl Lane for u64 {
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
        for block in xs.chunks(256) {
            // A branch-free test first (it vectorizes): most blocks hold none.
            if block.iter().fold(false, |any, x| any | x.shares_key()) {
                for &x in block.iter().filter(|x| x.shares_key()) {
                    shared.note(x);
                }
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

    /// Whether the row holds a NaN: an element sharing the largest key.
    fn holds_nan(&self) -> bool {
        let nan_key = u64::MAX >> (64 - T::KEY_BITS);
        self.seen.iter().flatten().any(|&(k, _)| k == nan_key)
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

/// Sorts `row` (the stable sort's result) with the vector quicksort, in parallel for
/// long rows: ascending rows of 32- and 64-bit numbers (floats without NaN) as they
/// are, others through their keys. False when this row or CPU can't take the vector
/// quicksort, with `row` untouched or only permuted among elements that no sort tells
/// apart.
pub fn sort_row<T: RadixKey>(row: &mut [T], descending: bool) -> bool {
    if !quicksort::available(T::KEY_BITS) {
        return false;
    }
    let Some(shared) = shared_of(row) else {
        return false;
    };
    if !descending && !shared.holds_nan() {
        if let Some(sorted) = sort_native(row) {
            return sorted;
        }
    }
    match T::KEY_BITS {
        32 => sort_keys::<T, u32>(row, &shared, descending),
        64 => sort_keys::<T, u64>(row, &shared, descending),
        _ => false,
    }
}

/// The key-sharing elements of `row`, or None when two of them clash.
fn shared_of<T: RadixKey>(row: &mut [T]) -> Option<Shared<T>> {
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
    (!all.clash).then_some(all)
}

/// Sorts `row` ascending by the quicksort's own order of its type, or None for a type
/// it does not take. The caller has checked that a float row holds no NaN and not both
/// zeros, so that order is the stable sort's, bit for bit.
fn sort_native<T: RadixKey>(row: &mut [T]) -> Option<bool> {
    /// `row` as a slice of `K` when `T` is `K`.
    fn same<T: 'static, K: 'static>(row: &mut [T]) -> Option<&mut [K]> {
        (TypeId::of::<T>() == TypeId::of::<K>()).then(|| {
            // SAFETY: `T` and `K` are the same type.
            unsafe { std::slice::from_raw_parts_mut(row.as_mut_ptr().cast::<K>(), row.len()) }
        })
    }
    macro_rules! native {
        ($($k:ty),*) => {$(
            if let Some(r) = same::<T, $k>(row) {
                return Some(sort_parts(r, 3));
            }
        )*};
    }
    native!(f32, f64, i32, i64, u32, u64);
    None
}

/// Sorts `row` as its radix keys of type `L`, in place; `shared` has its key-sharing
/// elements (no clash).
fn sort_keys<T: RadixKey, L: Lane>(row: &mut [T], shared: &Shared<T>, descending: bool) -> bool {
    if size_of::<T>() != size_of::<L>() || align_of::<T>() != align_of::<L>() {
        return false;
    }
    let n = row.len();
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
    back_from_keys(keys, shared, descending);
    sorted
}

/// Sorts `keys`, splitting long ones in two around a pivot and sorting the parts in
/// parallel, down to `depth` levels. The split points depend on the keys only.
fn sort_parts<L: Key>(keys: &mut [L], depth: u32) -> bool {
    if depth == 0 || keys.len() < PARALLEL_MIN {
        return L::sort(keys).is_ok();
    }
    match L::split(keys) {
        None => L::sort(keys).is_ok(),
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
    if !quicksort::available(64) || T::KEY_BITS > 32 || u32::try_from(row.len()).is_err() {
        return false;
    }
    pairs.clear();
    pairs.extend(
        row.iter()
            .enumerate()
            .map(|(i, &x)| directed(x, descending) << 32 | i as u64),
    );
    if u64::sort(pairs).is_err() {
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
    use crate::kernels::test_bits::random_bits;

    #[test]
    fn keys_turn_back_into_their_elements() {
        let mut random = random_bits(0x9E37_79B9_7F4A_7C15);
        for _ in 0..100_000 {
            let state = random();
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
        assert_eq!(
            sort_row(&mut [3.0f32, 1.0], false),
            quicksort::available(32)
        );
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
            assert_eq!(taken, quicksort::available(32));
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

    /// Sorts `xs` both ways, as it is and through the radix sort, and compares bits.
    fn same_as_radix<T: RadixKey>(xs: &[T]) {
        for descending in [false, true] {
            let (mut got, mut want) = (xs.to_vec(), xs.to_vec());
            let taken = sort_row(&mut got, descending);
            radix::sort_row(&mut want, &mut Vec::new(), descending);
            assert_eq!(taken, quicksort::available(T::KEY_BITS));
            // Without a vector sort on this CPU the row is left to the caller.
            if taken {
                let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "descending {descending}");
            }
        }
    }

    #[test]
    fn native_and_key_paths_are_the_radix_sort_bitwise() {
        let mut next = random_bits(0x2545_F491_4F6C_DD1D);
        // Long enough to be split and sorted in parallel parts.
        let raw: Vec<u64> = (0..PARALLEL_MIN + 4099).map(|_| next()).collect();
        let small = |x: u64| (x % 1000) as i64 - 500;
        same_as_radix(&raw.iter().map(|&x| x as u32).collect::<Vec<_>>());
        same_as_radix(&raw);
        same_as_radix(&raw.iter().map(|&x| x as i32).collect::<Vec<_>>());
        same_as_radix(&raw.iter().map(|&x| small(x)).collect::<Vec<_>>());
        // Floats with infinities and one kind of zero go as they are; with NaN, through keys.
        let special = |x: u64, v: f64| match x % 97 {
            0 => f64::INFINITY,
            1 => f64::NEG_INFINITY,
            // The only zero: with both, the row would go to the radix sort.
            _ if v == 0.0 => -0.0,
            _ => v,
        };
        let f: Vec<f64> = raw
            .iter()
            .map(|&x| special(x, small(x) as f64 / 7.0))
            .collect();
        same_as_radix(&f);
        same_as_radix(&f.iter().map(|&x| x as f32).collect::<Vec<_>>());
        let nan: Vec<f32> = f
            .iter()
            .enumerate()
            .map(|(i, &x)| if i % 1000 == 3 { f32::NAN } else { x as f32 })
            .collect();
        same_as_radix(&nan);
    }
}

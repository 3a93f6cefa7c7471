//! Thread-count independent parallelism. Work is cut at fixed boundaries (multiples of a
//! chunk length chosen by the caller, never by the number of threads), each chunk is
//! computed alone, and partial results are combined in a fixed pairwise order. So
//! `--threads 1` and `--threads 8` run exactly the same arithmetic, only on different
//! cores, and give the same bits. A kernel may size its items by [`threads`] only
//! where an item computes whole output elements that no cut changes (the GEMM's row
//! blocks, a convolution's blocks of positions), to keep the threads evenly loaded.

mod linger;
mod ranges;

use super::interrupt;
pub use linger::Section;
use ranges::Ranges;
use rayon::prelude::*;
use std::marker::PhantomData;
use std::ops::Range;

/// Elements per chunk for cheap elementwise work (a few ns per element): large enough
/// that scheduling costs little, small enough that 1M elements split 32 ways and an
/// MLP layer's 256 × 256 activations two. Halving it from 1 << 16 took the MLP train
/// step of benches/compare at 2 threads from 1.40 / 1.37 to 1.29 / 1.27 ms (one build
/// with the chunk read from the environment, 2026-12-05 Xeon, medians of 7 × 300
/// steps); 1M-element exp and add and 16M-element add at 1 and 2 threads did not move
/// beyond the noise.
pub const ELEMENTWISE_CHUNK: usize = 1 << 15;

/// Threads that parallel kernels may use (set once per process by `--threads`).
pub fn threads() -> usize {
    rayon::current_num_threads()
}

/// Calls `f(start, chunk)` for consecutive chunks of `out` of `chunk` elements (the last
/// may be shorter), where `start` is the chunk's offset in `out`. Runs in parallel when
/// there is more than one chunk; a single chunk runs on the calling thread. Chunks not
/// yet started when Ctrl-C is pressed are skipped (see `interrupt`).
pub fn for_each_chunk_mut<T: Send>(
    out: &mut [T],
    chunk: usize,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    for_each_chunk_mut_with(out, chunk, || (), |_, start, c| f(start, c));
}

/// `for_each_chunk_mut` with scratch space made by `init` once per task and reused
/// for the chunks it runs: `f(scratch, start, chunk)`.
pub fn for_each_chunk_mut_with<T: Send, S>(
    out: &mut [T],
    chunk: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, &mut [T]) + Sync + Send,
) {
    let chunk = chunk.max(1);
    if out.len() <= chunk {
        f(&mut init(), 0, out);
    } else {
        let _section = Section::begin();
        out.par_chunks_mut(chunk)
            .enumerate()
            .for_each_init(init, |scratch, (i, c)| {
                if !interrupt::requested() {
                    f(scratch, i * chunk, c)
                }
            });
    }
}

/// Calls `f(scratch, i)` for every item `i` in `0..n`, in parallel when `n > 1`. One
/// task per thread runs a contiguous range of items in order and then helps with the
/// others' (`ranges`), so `init` makes scratch space at most once per thread: rayon's
/// own splitting made one per stolen piece, and zeroed a Winograd convolution's 800 KB
/// of scratch several times per call at 2 threads. Items not yet started when Ctrl-C
/// is pressed are skipped (see `interrupt`).
pub fn for_each_item<S>(
    n: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize) + Sync + Send,
) {
    if n == 1 {
        f(&mut init(), 0);
        return;
    }
    let tasks = threads().min(n);
    let items = Ranges::new(n, tasks);
    let _section = Section::begin();
    (0..tasks).into_par_iter().for_each(|own| {
        let mut scratch = None;
        while let Some(i) = items.next(own) {
            if interrupt::requested() {
                break;
            }
            f(scratch.get_or_insert_with(&init), i);
        }
    });
}

/// Runs `a` and `b`, in parallel when a thread is free; the caller combines the
/// results in a fixed order.
pub fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let _section = Section::begin();
    rayon::join(a, b)
}

/// An exclusively borrowed slice that parallel tasks write in disjoint parts (such as
/// the same columns of many rows), each task taking only the parts it owns.
pub struct Disjoint<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

impl<'a, T> Disjoint<'a, T> {
    pub fn new(out: &'a mut [T]) -> Disjoint<'a, T> {
        Disjoint {
            ptr: out.as_mut_ptr(),
            len: out.len(),
            _borrow: PhantomData,
        }
    }

    /// Pointer to element `offset` (the caller keeps its writes inside the slice).
    pub fn at(&self, offset: usize) -> *mut T {
        self.ptr.wrapping_add(offset)
    }

    /// Elements `start..start + len`.
    ///
    /// # Safety
    /// No other part or pointer taken from `self` may access these elements while the
    /// returned slice lives.
    ///
    /// # Panics
    /// When the range is outside the slice.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn part(&self, start: usize, len: usize) -> &'a mut [T] {
        assert!(
            start <= self.len && len <= self.len - start,
            "part out of bounds"
        );
        // SAFETY: in bounds (checked above) of a slice borrowed for 'a; the caller
        // vouches that nothing else accesses the range meanwhile.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), len) }
    }
}
// SAFETY: the pointer is only used to write disjoint parts of an exclusively borrowed
// slice, for the duration of that borrow.
unsafe impl<T: Send> Sync for Disjoint<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for Disjoint<'_, T> {}

/// Splits `0..n` at multiples of `chunk`, maps each range with `f` (in parallel when
/// there is more than one) and combines the partials pairwise in a fixed tree: the
/// result depends on `n` and `chunk` only. `None` when `n == 0`.
pub fn map_reduce<A: Send>(
    n: usize,
    chunk: usize,
    f: impl Fn(Range<usize>) -> A + Sync + Send,
    combine: impl Fn(A, A) -> A,
) -> Option<A> {
    let chunk = chunk.max(1);
    let ranges = (0..n.div_ceil(chunk)).map(|i| i * chunk..((i + 1) * chunk).min(n));
    let partials: Vec<A> = if n <= chunk {
        ranges.map(&f).collect()
    } else {
        let _section = Section::begin();
        ranges.collect::<Vec<_>>().into_par_iter().map(&f).collect()
    };
    combine_pairwise(partials, &combine)
}

/// Runs `f` on a fresh pool of `n` threads: tests compare results across thread counts.
#[cfg(test)]
pub fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a test thread pool")
        .install(f)
}

/// Combines `parts` as a balanced binary tree over their order (left half, right half).
fn combine_pairwise<A>(mut parts: Vec<A>, combine: &impl Fn(A, A) -> A) -> Option<A> {
    if parts.len() <= 1 {
        return parts.pop();
    }
    let right = parts.split_off(parts.len() / 2);
    let l = combine_pairwise(parts, combine)?;
    let r = combine_pairwise(right, combine)?;
    Some(combine(l, r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_the_output_once_at_fixed_offsets() {
        let mut out = vec![0usize; 1000];
        for_each_chunk_mut(&mut out, 64, |start, c| {
            for (j, x) in c.iter_mut().enumerate() {
                *x += start + j;
            }
        });
        assert!(out.iter().enumerate().all(|(i, &x)| i == x));
        let mut empty: [u8; 0] = [];
        for_each_chunk_mut(&mut empty, 64, |_, c| assert!(c.is_empty()));
    }

    #[test]
    fn map_reduce_is_the_same_for_any_thread_count() {
        let xs: Vec<f32> = (0..100_003)
            .map(|i| ((i * 7919) % 1000) as f32 * 0.1)
            .collect();
        let sum = || map_reduce(xs.len(), 1000, |r| xs[r].iter().sum::<f32>(), |a, b| a + b);
        let one = with_threads(1, sum).unwrap();
        let two = with_threads(2, sum).unwrap();
        let five = with_threads(5, sum).unwrap();
        assert_eq!(one.to_bits(), two.to_bits());
        assert_eq!(one.to_bits(), five.to_bits());
        assert_eq!(map_reduce(0, 10, |r| r.len(), |a, b| a + b), None);
        assert_eq!(map_reduce(25, 10, |r| r.len(), |a, b| a + b), Some(25));
    }
}

//! Radix sorting on order-preserving unsigned keys: every dtype maps its elements to a
//! key whose unsigned order is the `nan_last` order (NaN after everything, -0.0 and
//! 0.0 equal). The passes are stable LSD passes, so a radix sort gives bitwise the
//! result of a stable comparison sort, and a parallel one the same bits for any
//! thread count (a stable sort's output is unique).

use std::mem::MaybeUninit;

use super::parallel::{for_each_chunk_mut, for_each_item, Disjoint};
use super::{alloc, interrupt};
use half::{bf16, f16};

/// An element with a radix key: `key(a) < key(b)` exactly when `a` sorts before `b`.
pub trait RadixKey: Copy + Send + Sync + 'static {
    /// The low bits of the key that can differ (passes above them are never needed).
    const KEY_BITS: u32;
    fn key(self) -> u64;
    /// The element with this key; where several share it (a float's ±0, its NaNs),
    /// the one `shares_key` is false for: +0, the default NaN.
    fn from_key(key: u64) -> Self;
    /// Whether elements with other bits have this element's key (a float's ±0, NaN).
    fn shares_key(self) -> bool;
    /// The element's bit pattern, which tells apart elements sharing a key.
    fn bits(self) -> u64;
}

/// The key of a float's bits: NaN largest, ±0 equal, negatives by reversed magnitude.
/// Selects instead of branches: the sign of random data is a coin flip, and a
/// mispredicted branch per element cost more than the rest of a radix pass.
#[inline]
fn float_key(bits: u64, sign_bit: u64, inf_bits: u64) -> u64 {
    let all = sign_bit | (sign_bit - 1);
    let magnitude = bits & (sign_bit - 1);
    let flip = if bits & sign_bit != 0 { all } else { sign_bit };
    let key = if magnitude == 0 {
        sign_bit
    } else {
        bits ^ flip
    };
    if magnitude > inf_bits {
        all
    } else {
        key
    }
}

/// The bits `float_key` maps to `key`: +0 for ±0's key, `nan_bits` for NaN's.
#[inline]
fn float_from_key(key: u64, sign_bit: u64, nan_bits: u64) -> u64 {
    let all = sign_bit | (sign_bit - 1);
    if key == all {
        nan_bits
    } else if key & sign_bit != 0 {
        key ^ sign_bit
    } else {
        !key & all
    }
}

macro_rules! float_radix_key {
    ($t:ty, $bits:literal, $inf:literal, $to_bits:expr, $from_bits:expr) => {
        impl RadixKey for $t {
            const KEY_BITS: u32 = $bits;
            #[inline]
            fn key(self) -> u64 {
                float_key(($to_bits)(self) as u64, 1 << ($bits - 1), $inf)
            }
            #[inline]
            fn from_key(key: u64) -> Self {
                let nan = ($to_bits)(<$t>::NAN) as u64;
                ($from_bits)(float_from_key(key, 1 << ($bits - 1), nan) as _)
            }
            #[inline]
            fn shares_key(self) -> bool {
                // On the bits, branch-free, so that scans vectorize: a magnitude of 0
                // (±0) or above infinity's (NaN).
                let magnitude = ($to_bits)(self) << 1;
                (magnitude == 0) | (magnitude > ($inf << 1))
            }
            #[inline]
            fn bits(self) -> u64 {
                ($to_bits)(self) as u64
            }
        }
    };
}

float_radix_key!(f32, 32, 0x7F80_0000, f32::to_bits, f32::from_bits);
float_radix_key!(f64, 64, 0x7FF0_0000_0000_0000, f64::to_bits, f64::from_bits);
float_radix_key!(f16, 16, 0x7C00, f16::to_bits, f16::from_bits);
float_radix_key!(bf16, 16, 0x7F80, bf16::to_bits, bf16::from_bits);

macro_rules! int_radix_key {
    ($($t:ty => $u:ty, $bits:literal, $flip:expr);* $(;)?) => {$(
        impl RadixKey for $t {
            const KEY_BITS: u32 = $bits;
            #[inline]
            fn key(self) -> u64 {
                // Flipping the sign bit orders two's complement as unsigned.
                ((self as $u) ^ $flip) as u64
            }
            #[inline]
            fn from_key(key: u64) -> Self {
                ((key as $u) ^ $flip) as $t
            }
            #[inline]
            fn shares_key(self) -> bool {
                false
            }
            #[inline]
            fn bits(self) -> u64 {
                self as $u as u64
            }
        }
    )*};
}

int_radix_key! {
    u8 => u8, 8, 0;
    u16 => u16, 16, 0;
    u32 => u32, 32, 0;
    u64 => u64, 64, 0;
    i8 => u8, 8, 0x80;
    i16 => u16, 16, 0x8000;
    i32 => u32, 32, 0x8000_0000;
    i64 => u64, 64, 0x8000_0000_0000_0000;
}

impl RadixKey for bool {
    const KEY_BITS: u32 = 1;
    #[inline]
    fn key(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_key(key: u64) -> Self {
        key != 0
    }
    #[inline]
    fn shares_key(self) -> bool {
        false
    }
    #[inline]
    fn bits(self) -> u64 {
        self as u64
    }
}

/// Bits per LSD pass.
const DIGIT_BITS: u32 = 8;

/// A stable LSD radix sort of `a` by `key`'s low `key_bits` bits, using `b` (as long as
/// `a`) as the other buffer; passes where every key has the same digit are skipped.
/// Returns whether the sorted data ended in `a` (else it is in `b`).
fn lsd_sort<T: Copy>(a: &mut [T], b: &mut [T], key_bits: u32, key: impl Fn(T) -> u64) -> bool {
    const RADIX: usize = 1 << DIGIT_BITS;
    let passes = key_bits.div_ceil(DIGIT_BITS) as usize;
    let mut counts = [[0usize; RADIX]; 64 / DIGIT_BITS as usize];
    let counts = &mut counts[..passes];
    count_digits(a, counts, &key);
    let mut in_a = true;
    for (pass, c) in counts.iter().enumerate() {
        if c.contains(&a.len()) {
            continue;
        }
        let (src, dst): (&[T], &mut [T]) = if in_a { (a, b) } else { (b, a) };
        scatter_pass(src, dst, c, pass, &key);
        in_a = !in_a;
    }
    in_a
}

/// Digit `pass` of `key`, for digits of `RADIX` values (a power of two).
#[inline]
fn digit<const RADIX: usize>(key: u64, pass: usize) -> usize {
    (key >> (RADIX.trailing_zeros() as usize * pass)) as usize & (RADIX - 1)
}

/// Counts, in `counts[pass]`, how many keys of `src` have each value of digit `pass`,
/// for every pass at once (one read of `src`).
fn count_digits<T: Copy, const RADIX: usize>(
    src: &[T],
    counts: &mut [[usize; RADIX]],
    key: &impl Fn(T) -> u64,
) {
    for &x in src {
        let k = key(x);
        for (pass, c) in counts.iter_mut().enumerate() {
            c[digit::<RADIX>(k, pass)] += 1;
        }
    }
}

/// One stable LSD pass: `dst` (as long as `src`) gets `src` ordered by digit `pass`,
/// whose counts are `counts`.
fn scatter_pass<T: Copy, const RADIX: usize>(
    src: &[T],
    dst: &mut [T],
    counts: &[usize; RADIX],
    pass: usize,
    key: &impl Fn(T) -> u64,
) {
    let mut next = [0usize; RADIX];
    let mut total = 0;
    for (s, &n) in next.iter_mut().zip(counts) {
        *s = total;
        total += n;
    }
    for &x in src {
        let d = digit::<RADIX>(key(x), pass);
        dst[next[d]] = x;
        next[d] += 1;
    }
}

/// The key of `x` in a sort's direction: descending reverses the key order, which
/// keeps ties in their original order (a stable descending sort).
#[inline]
pub fn directed<T: RadixKey>(x: T, descending: bool) -> u64 {
    if descending {
        !x.key() & key_mask::<T>()
    } else {
        x.key()
    }
}

#[inline]
fn key_mask<T: RadixKey>() -> u64 {
    u64::MAX >> (64 - T::KEY_BITS)
}

/// Sorts `row` (stable) with `scratch` as the second buffer.
pub fn sort_row<T: RadixKey>(row: &mut [T], scratch: &mut Vec<T>, descending: bool) {
    let Some(&first) = row.first() else { return };
    scratch.clear();
    scratch.resize(row.len(), first);
    if !lsd_sort(row, scratch, T::KEY_BITS, |x| directed(x, descending)) {
        row.copy_from_slice(scratch);
    }
}

/// Rows at least this long are sorted by `sort_long_row`.
pub const LONG_ROW: usize = 1 << 17;

/// Bits of the first (most significant) pass of `sort_long_row`.
const MSD_BITS: u32 = 11;
/// Elements per task of `sort_long_row`'s first pass, at least (a row has at most
/// `MSD_TASKS` tasks, so that their bucket offsets stay small).
const MSD_CHUNK: usize = 1 << 16;
const MSD_TASKS: usize = 256;

/// Sorts one long row (stable) in parallel: `msd_buckets`, then each bucket on the
/// remaining bits, in parallel.
pub fn sort_long_row<T: RadixKey>(row: &mut [T], descending: bool) {
    if T::KEY_BITS <= 2 * DIGIT_BITS {
        return sort_row(row, &mut Vec::new(), descending);
    }
    let Some((mut scratch, starts)) = msd_buckets(row, descending) else {
        return;
    };
    let (rows, scratches) = (Disjoint::new(row), Disjoint::new(&mut scratch));
    let low_bits = T::KEY_BITS - MSD_BITS;
    let low = |x: T| directed(x, descending) & ((1 << low_bits) - 1);
    for_each_item(starts.len() - 1, BucketScratch::new, |own, b| {
        let (start, len) = (starts[b], starts[b + 1] - starts[b]);
        if len == 0 {
            return;
        }
        // SAFETY: bucket ranges are disjoint, and each task touches only its own.
        let (dst, src) = unsafe { (rows.part(start, len), scratches.part(start, len)) };
        if WIDE_BUCKETS.contains(&len) {
            sort_bucket(src, dst, own, low_bits, low);
        } else if lsd_sort(src, dst, low_bits, low) {
            dst.copy_from_slice(src);
        }
    });
}

/// Buckets of these lengths take `sort_bucket`. Shorter ones would not repay its
/// wider counts (zeroed and summed per pass), and longer ones would grow its buffers
/// past the caches (to twice the row's length when one bucket holds most of it): both
/// take `lsd_sort` between the scratch and the row. The bounds were not measured.
const WIDE_BUCKETS: std::ops::RangeInclusive<usize> = 4096..=1 << 20;

/// Bits per LSD pass on a long row's buckets. Wider than `DIGIT_BITS`: a bucket is long
/// enough to pay for the larger counts, and a pass fewer saves more (f32 rows of 16M
/// randn on an AVX2 Zen 3, harness, buckets alone: 21 bits as 11 + 10 about 3.4 ns
/// per element, as 8 + 8 + 5 about 10).
const BUCKET_DIGIT_BITS: u32 = 11;
const BUCKET_RADIX: usize = 1 << BUCKET_DIGIT_BITS;

/// What a thread reuses from bucket to bucket: the two buffers its passes scatter
/// into (they stay in cache, where scattering into the row's own cold lines waited
/// on memory at every first touch), and the counts of each pass.
struct BucketScratch<T> {
    a: Vec<T>,
    b: Vec<T>,
    counts: Vec<[usize; BUCKET_RADIX]>,
}

impl<T> BucketScratch<T> {
    fn new() -> BucketScratch<T> {
        BucketScratch {
            a: Vec::new(),
            b: Vec::new(),
            counts: Vec::new(),
        }
    }
}

/// Writes `src` stably sorted by `key`'s low `key_bits` bits into `out` (as long as
/// `src`): LSD passes of `BUCKET_DIGIT_BITS` between the scratch buffers, then one
/// sequential copy out; passes where every key has the same digit are skipped.
fn sort_bucket<T: Copy>(
    src: &[T],
    out: &mut [T],
    own: &mut BucketScratch<T>,
    key_bits: u32,
    key: impl Fn(T) -> u64,
) {
    let Some(&first) = src.first() else { return };
    let n = src.len();
    own.counts.clear();
    own.counts.resize(
        key_bits.div_ceil(BUCKET_DIGIT_BITS) as usize,
        [0; BUCKET_RADIX],
    );
    count_digits(src, &mut own.counts, &key);
    if own.a.len() < n {
        own.a.resize(n, first);
        own.b.resize(n, first);
    }
    let (a, b) = (&mut own.a[..n], &mut own.b[..n]);
    // Where the data is: still in `src`, or in `a` (true) or `b` (false).
    let mut in_a = None;
    for (pass, c) in own.counts.iter().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let (from, to): (&[T], &mut [T]) = match in_a {
            None => (src, &mut *a),
            Some(true) => (&*a, &mut *b),
            Some(false) => (&*b, &mut *a),
        };
        scatter_pass(from, to, c, pass, &key);
        in_a = Some(in_a != Some(true));
    }
    out.copy_from_slice(match in_a {
        None => src,
        Some(true) => a,
        Some(false) => b,
    });
}

/// A stable first pass over a long row by the top `MSD_BITS` of the (directed) keys,
/// in parallel: each fixed chunk of the row is counted and scattered by its own task.
/// Returns the row rearranged bucket by bucket, and where each bucket starts (then the
/// row's length); None when stopped by Ctrl-C (the row is left as it was). Needs
/// `T::KEY_BITS > MSD_BITS`.
fn msd_buckets<T: RadixKey>(row: &[T], descending: bool) -> Option<(Vec<T>, Vec<usize>)> {
    let n = row.len();
    let shift = T::KEY_BITS - MSD_BITS;
    let bucket = |x: T| (directed(x, descending) >> shift) as usize;
    let chunk = MSD_CHUNK.max(n.div_ceil(MSD_TASKS));
    let chunks: Vec<&[T]> = row.chunks(chunk).collect();
    // Per chunk, the count of each bucket, turned into where the chunk writes it.
    let mut offsets = vec![[0usize; 1 << MSD_BITS]; chunks.len()];
    for_each_chunk_mut(&mut offsets, 1, |c, counts| {
        for &x in chunks[c] {
            counts[0][bucket(x)] += 1;
        }
    });
    // Ctrl-C may have left chunks uncounted, and the offsets below would then be wrong.
    if interrupt::requested() {
        return None;
    }
    let mut starts = Vec::with_capacity((1 << MSD_BITS) + 1);
    let mut total = 0;
    for b in 0..1 << MSD_BITS {
        starts.push(total);
        for counts in offsets.iter_mut() {
            let n = counts[b];
            counts[b] = total;
            total += n;
        }
    }
    starts.push(total);
    // Not filled first (every slot is written below), with huge pages advised: the
    // scatter writes into thousands of places of a buffer as large as the row. Where
    // the system refuses, `Vec::with_capacity` aborts as any other allocation here.
    let mut scratch = alloc::with_capacity::<T>(n).unwrap_or_else(|| Vec::with_capacity(n));
    {
        let slots = Disjoint::new(&mut scratch.spare_capacity_mut()[..n]);
        for_each_item(
            chunks.len(),
            || (),
            |_, c| {
                let mut next = offsets[c];
                for &x in chunks[c] {
                    let b = bucket(x);
                    // SAFETY: the offsets give every element of every chunk its own
                    // slot (a prefix sum over buckets, then chunks), so no two writes
                    // meet and each is in bounds.
                    unsafe { slots.at(next[b]).write(MaybeUninit::new(x)) };
                    next[b] += 1;
                }
            },
        );
    }
    if interrupt::requested() {
        return None;
    }
    // SAFETY: every chunk was scattered (`for_each_item` skips items only while an
    // interrupt is requested, and nothing clears a request while a kernel runs), and
    // together the chunks wrote each of the `n` slots once.
    unsafe { scratch.set_len(n) };
    Some((scratch, starts))
}

/// An element's key and position, sorted together for an argsort.
#[derive(Clone, Copy)]
pub struct Keyed {
    key: u64,
    index: u32,
}

/// Writes into `out` the indices that stably sort `row`, using `pairs` as scratch.
/// `row.len()` must fit in u32.
pub fn argsort_row<T: RadixKey>(
    row: &[T],
    out: &mut [i64],
    pairs: &mut Vec<Keyed>,
    descending: bool,
) {
    let n = row.len();
    pairs.clear();
    pairs.extend(row.iter().enumerate().map(|(i, &x)| Keyed {
        key: directed(x, descending),
        index: i as u32,
    }));
    pairs.resize(2 * n, Keyed { key: 0, index: 0 });
    let (a, b) = pairs.split_at_mut(n);
    let sorted = if lsd_sort(a, b, T::KEY_BITS, |p| p.key) {
        a
    } else {
        b
    };
    for (o, p) in out.iter_mut().zip(sorted.iter()) {
        *o = i64::from(p.index);
    }
}

//! In-place vector quicksort for 32- and 64-bit integers and floats, in the style of
//! x86-simd-sort and vqsort: compress-based partitioning, median-of-sample pivots and
//! bitonic sorting networks in registers for small ranges. AVX-512 sorts both widths;
//! AVX2 sorts the 32-bit keys (`kernel/lanes_avx2.rs`: its 64-bit compares and min/max
//! would be emulated, and rows of those keep the radix sort). Deterministic; after too
//! many bad pivots it gives up with `Err(())` (leaving a permutation of the input)
//! instead of going quadratic. Any sort of these keys gives the same bits, so which
//! one runs changes only the speed.
#![deny(unsafe_op_in_unsafe_fn)]

use crate::kernels::isa::Isa;

/// True when a vector sort may run for keys of `bits` (32 or 64) bits: `Isa::detect`
/// allows AVX-512 (which includes the popcnt and bmi2 the partition tables use), or,
/// for 32-bit keys, AVX2 on a CPU with popcnt.
pub fn available(bits: u32) -> bool {
    let isa = Isa::detect();
    match bits {
        32 => isa.avx512() || (isa.avx2() && has_popcnt()),
        64 => isa.avx512(),
        _ => false,
    }
}

#[cfg(target_arch = "x86_64")]
fn has_popcnt() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_popcnt() -> bool {
    false
}

/// A key type the vector quicksort sorts in its natural order: the signed and unsigned
/// integers of 32 and 64 bits, and `f32`/`f64` holding no NaN and not both zeros (there
/// the IEEE order is total and equal keys have equal bits). With a NaN the floats come
/// back in an unspecified order, possibly not a permutation: callers check first.
pub trait Key: Copy + PartialOrd + Default + Send {
    /// Sorts ascending. `Err(())` when no vector sort runs for the type here (`v`
    /// untouched) or when it gave up on bad pivots (`v` is then a permutation of its
    /// input); sort it another way.
    #[allow(clippy::result_unit_err)] // The caller falls back to its own sort on Err.
    fn sort(v: &mut [Self]) -> Result<(), ()>;
    /// One partition step of `sort` around a pivot sampled from `v`: moves the keys `<=`
    /// it to the front and returns their count, or `None` (with `v` untouched or only
    /// permuted) when that would not split `v` in two or no vector sort runs. Lets a
    /// caller sort the two parts on two threads.
    fn split(v: &mut [Self]) -> Option<usize>;
    /// The AVX2 sort's result, when it runs for the type here, even where `sort` would
    /// take the AVX-512 one: lets the tests check both on an AVX-512 machine.
    #[cfg(test)]
    fn sort_avx2(v: &mut [Self]) -> Option<Result<(), ()>>;
}

/// `Key` for types of one lane width, through the kernel's proof types: `$wide` for
/// AVX-512, then the one in brackets for AVX2 where the width has one.
macro_rules! key {
    ($wide:ident, $narrow:tt: $($t:ty),*) => {$(key!(@one $t, $wide, $narrow);)*};
    (@one $t:ty, $wide:ident, [$($narrow:ident)?]) => {
        impl Key for $t {
            fn sort(v: &mut [$t]) -> Result<(), ()> {
                #[cfg(target_arch = "x86_64")]
                {
                    if let Some(s) = kernel::$wide::<$t>::detect() {
                        // SAFETY: `s` exists only if the CPU has every feature that
                        // `kernel::avx512::sort` enables.
                        return unsafe { kernel::avx512::sort(s, v) };
                    }
                    $(if let Some(s) = kernel::$narrow::<$t>::detect() {
                        // SAFETY: as above, for `kernel::avx2::sort`.
                        return unsafe { kernel::avx2::sort(s, v) };
                    })?
                }
                #[cfg(not(target_arch = "x86_64"))]
                let _ = v;
                Err(())
            }

            fn split(v: &mut [$t]) -> Option<usize> {
                #[cfg(target_arch = "x86_64")]
                {
                    if let Some(s) = kernel::$wide::<$t>::detect() {
                        // SAFETY: `s` exists only if the CPU has every feature that
                        // `kernel::avx512::split` enables.
                        return unsafe { kernel::avx512::split(s, v) };
                    }
                    $(if let Some(s) = kernel::$narrow::<$t>::detect() {
                        // SAFETY: as above, for `kernel::avx2::split`.
                        return unsafe { kernel::avx2::split(s, v) };
                    })?
                }
                #[cfg(not(target_arch = "x86_64"))]
                let _ = v;
                None
            }

            #[cfg(test)]
            fn sort_avx2(v: &mut [$t]) -> Option<Result<(), ()>> {
                #[cfg(target_arch = "x86_64")]
                {
                    $(if let Some(s) = kernel::$narrow::<$t>::detect() {
                        // SAFETY: as in `sort`.
                        return Some(unsafe { kernel::avx2::sort(s, v) });
                    })?
                }
                let _ = v;
                None
            }
        }
    };
}

key!(Lanes16, [Lanes8x32]: u32, i32, f32);
key!(Lanes8, []: u64, i64, f64);

#[cfg(target_arch = "x86_64")]
mod kernel {
    use core::arch::x86_64::*;
    use core::marker::PhantomData;
    use core::ops::{BitAnd, BitXor, Not};

    type V = __m512i;

    /// Ranges of up to this many registers (256 u32 / 128 u64) go to the sorting network.
    const BASE_REGS: usize = 16;
    /// Vectors per partition step. `2 * UNROLL <= BASE_REGS`: `partition` needs two blocks.
    const UNROLL: usize = 8;
    /// Distance in blocks of the far prefetch (about 15 KB; 7.5 KB with AVX2).
    const FAR: usize = 30;
    /// Up to this length the pivot is the median of 16 samples, above it of 64.
    const SMALL_SAMPLE_LEN: usize = 4096;

    mod lanes_avx2;
    pub use lanes_avx2::Lanes8x32;

    /// Zero-sized proofs that the CPU has the features `available` checks for AVX-512:
    /// sorting `K` sixteen 32-bit lanes or eight 64-bit lanes to a register.
    #[derive(Clone, Copy)]
    pub struct Lanes16<K>(PhantomData<K>);
    #[derive(Clone, Copy)]
    pub struct Lanes8<K>(PhantomData<K>);

    impl<K> Lanes16<K> {
        pub fn detect() -> Option<Self> {
            const { assert!(core::mem::size_of::<K>() == 4) };
            super::Isa::detect()
                .avx512()
                .then_some(Lanes16(PhantomData))
        }
    }

    impl<K> Lanes8<K> {
        pub fn detect() -> Option<Self> {
            const { assert!(core::mem::size_of::<K>() == 8) };
            super::Isa::detect().avx512().then_some(Lanes8(PhantomData))
        }
    }

    /// A key type's order on whole registers: the compare, min and max instructions of
    /// its lanes, and its largest value (the padding).
    ///
    /// # Safety (of the `unsafe fn`s)
    /// The CPU must have AVX-512F.
    pub trait Order: Copy + PartialOrd + Default {
        const MAX: Self;
        /// The largest key below `self`, or `None` for the smallest.
        fn pred(self) -> Option<Self>;
        /// The key's bits, as the lane of a register.
        fn lane(self) -> i64;
        unsafe fn gt(a: V, b: V) -> u16;
        unsafe fn min(a: V, b: V) -> V;
        unsafe fn max(a: V, b: V) -> V;
        /// `max(a, b)` in the lanes of `hi`, `src` elsewhere.
        unsafe fn mask_max(src: V, hi: u16, a: V, b: V) -> V;
    }

    /// The `Order` of an integer type through its intrinsics.
    macro_rules! int_order {
        ($t:ty, $gt:ident, $min:ident, $max:ident, $mask_max:ident) => {
            impl Order for $t {
                const MAX: $t = <$t>::MAX;
                #[inline(always)]
                fn pred(self) -> Option<$t> {
                    self.checked_sub(1)
                }
                #[inline(always)]
                fn lane(self) -> i64 {
                    self as i64
                }
                #[inline(always)]
                unsafe fn gt(a: V, b: V) -> u16 {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $gt(a, b) as u16 }
                }
                #[inline(always)]
                unsafe fn min(a: V, b: V) -> V {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $min(a, b) }
                }
                #[inline(always)]
                unsafe fn max(a: V, b: V) -> V {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $max(a, b) }
                }
                #[inline(always)]
                unsafe fn mask_max(src: V, hi: u16, a: V, b: V) -> V {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $mask_max(src, hi as _, a, b) }
                }
            }
        };
    }

    int_order!(
        u32,
        _mm512_cmpgt_epu32_mask,
        _mm512_min_epu32,
        _mm512_max_epu32,
        _mm512_mask_max_epu32
    );
    int_order!(
        i32,
        _mm512_cmpgt_epi32_mask,
        _mm512_min_epi32,
        _mm512_max_epi32,
        _mm512_mask_max_epi32
    );
    int_order!(
        u64,
        _mm512_cmpgt_epu64_mask,
        _mm512_min_epu64,
        _mm512_max_epu64,
        _mm512_mask_max_epu64
    );
    int_order!(
        i64,
        _mm512_cmpgt_epi64_mask,
        _mm512_min_epi64,
        _mm512_max_epi64,
        _mm512_mask_max_epi64
    );

    /// The `Order` of a float type, for data without NaN and without both zeros: there
    /// the IEEE compare is a total order and equal keys have equal bits, so `min`/`max`
    /// pick the same bits whichever operand they return.
    macro_rules! float_order {
        ($t:ty, $bits:ty, $cmp:ident, $min:ident, $max:ident, $mask_max:ident, $cast:ident, $back:ident) => {
            impl Order for $t {
                const MAX: $t = <$t>::INFINITY;
                #[inline(always)]
                fn pred(self) -> Option<$t> {
                    (self != <$t>::NEG_INFINITY).then(|| self.next_down())
                }
                #[inline(always)]
                fn lane(self) -> i64 {
                    self.to_bits() as $bits as i64
                }
                #[inline(always)]
                unsafe fn gt(a: V, b: V) -> u16 {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $cmp::<_CMP_GT_OQ>($cast(a), $cast(b)) as u16 }
                }
                #[inline(always)]
                unsafe fn min(a: V, b: V) -> V {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $back($min($cast(a), $cast(b))) }
                }
                #[inline(always)]
                unsafe fn max(a: V, b: V) -> V {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $back($max($cast(a), $cast(b))) }
                }
                #[inline(always)]
                unsafe fn mask_max(src: V, hi: u16, a: V, b: V) -> V {
                    // SAFETY: the caller guarantees AVX-512F.
                    unsafe { $back($mask_max($cast(src), hi as _, $cast(a), $cast(b))) }
                }
            }
        };
    }

    float_order!(
        f32,
        i32,
        _mm512_cmp_ps_mask,
        _mm512_min_ps,
        _mm512_max_ps,
        _mm512_mask_max_ps,
        _mm512_castsi512_ps,
        _mm512_castps_si512
    );
    float_order!(
        f64,
        i64,
        _mm512_cmp_pd_mask,
        _mm512_min_pd,
        _mm512_max_pd,
        _mm512_mask_max_pd,
        _mm512_castsi512_pd,
        _mm512_castpd_si512
    );

    /// A lane mask: bit `i` for lane `i` of a register of 8 (u8) or 16 (u16) keys.
    pub trait LaneMask:
        Copy + Not<Output = Self> + BitAnd<Output = Self> + BitXor<Output = Self>
    {
        fn count(self) -> usize;
        /// Lanes `0..min(k, lanes)`.
        fn first(k: usize) -> Self;
        /// Lanes whose index has bit `p` set.
        fn upper(p: u32) -> Self;
    }

    impl LaneMask for u16 {
        #[inline(always)]
        fn count(self) -> usize {
            self.count_ones() as usize
        }
        #[inline(always)]
        fn first(k: usize) -> u16 {
            FIRST[k.min(16)]
        }
        #[inline(always)]
        fn upper(p: u32) -> u16 {
            [0xAAAA, 0xCCCC, 0xF0F0, 0xFF00][p as usize]
        }
    }

    impl LaneMask for u8 {
        #[inline(always)]
        fn count(self) -> usize {
            self.count_ones() as usize
        }
        #[inline(always)]
        fn first(k: usize) -> u8 {
            FIRST[k.min(8)] as u8
        }
        #[inline(always)]
        fn upper(p: u32) -> u8 {
            [0xAA, 0xCC, 0xF0][p as usize]
        }
    }

    /// Vector operations for one key width. Holding `self` proves the CPU can run them; they
    /// are `inline(always)` so they fold into the `target_feature` kernels below.
    pub trait Ops: Copy {
        type T: Order;
        /// A register of keys.
        type V: Copy;
        type M: LaneMask;
        /// Lanes per register.
        const N: usize;
        const MAX: Self::T = <Self::T as Order>::MAX;
        /// The largest key below `x`, or `None` for the smallest.
        #[inline(always)]
        fn pred(x: Self::T) -> Option<Self::T> {
            x.pred()
        }
        fn splat(self, x: Self::T) -> Self::V;
        /// Lanes where `a > b`.
        fn gt(self, a: Self::V, b: Self::V) -> Self::M;
        #[inline(always)]
        fn count(self, m: Self::M) -> usize {
            m.count()
        }
        /// Lanes `0..min(k, N)`.
        #[inline(always)]
        fn first(self, k: usize) -> Self::M {
            Self::M::first(k)
        }
        /// Lanes whose index has bit `p` set.
        #[inline(always)]
        fn upper(self, p: u32) -> Self::M {
            Self::M::upper(p)
        }
        fn min(self, a: Self::V, b: Self::V) -> Self::V;
        fn max(self, a: Self::V, b: Self::V) -> Self::V;
        /// `max(a, b)` in the lanes of `hi`, `min(a, b)` elsewhere.
        fn minmax(self, hi: Self::M, a: Self::V, b: Self::V) -> Self::V;
        /// Lane `i` of the result is lane `i ^ m` of `x`.
        fn lane_xor(self, x: Self::V, m: usize) -> Self::V;
        /// Exchanges lane-index bit `p` with the bit telling register `a` from `b`: the
        /// results hold the lanes with bit `p` clear, then those with it set.
        fn swap_bit(self, a: Self::V, b: Self::V, p: u32) -> (Self::V, Self::V);
        /// Packs the lanes of `m` to the bottom (the other lanes are unspecified).
        fn compress(self, m: Self::M, x: Self::V) -> Self::V;
        /// Loads `min(N, src.len())` keys, padding with `MAX`.
        fn load_n(self, src: &[Self::T]) -> Self::V;
        /// Stores the first `min(N, dst.len())` lanes.
        fn store_n(self, dst: &mut [Self::T], x: Self::V);
        /// # Safety
        /// `p..p + N` must be readable.
        unsafe fn load(self, p: *const Self::T) -> Self::V;
        /// Loads the lanes of `m`, zeroing the others.
        /// # Safety
        /// Those lanes at `p` must be readable.
        unsafe fn load_masked(self, p: *const Self::T, m: Self::M) -> Self::V;
        /// # Safety
        /// `p..p + N` must be writable.
        unsafe fn store(self, p: *mut Self::T, x: Self::V);
        /// Stores the lanes of `m`.
        /// # Safety
        /// Those lanes at `p` must be writable.
        unsafe fn store_masked(self, p: *mut Self::T, m: Self::M, x: Self::V);
        /// Partitions a whole vector: keys `<= pivot` (`gt(x, pv)` clear) go up from `o.l`, the
        /// others down from `o.r`, and the cursors move. `ones` is an all-ones mask.
        /// # Safety
        /// `o.l .. o.l + N` must be writable and hold nothing still needed, and so must
        /// `o.r - N .. o.r` or, if `tight`, `o.l .. o.r` (at least `N` slots).
        unsafe fn split_store(
            self,
            o: &mut Out<Self::T>,
            x: Self::V,
            pv: Self::V,
            ones: Self::M,
            tight: bool,
        );
    }

    /// Write cursors of a partition: the left part grows up from `p + l`, the right part down
    /// from `p + r`.
    pub struct Out<T> {
        p: *mut T,
        l: usize,
        r: usize,
    }

    /// `FIRST[k]` has the low `k` bits set. A table, so that in the partition loop the mask
    /// loads straight into a mask register instead of costing a port-5 move from a GPR.
    static FIRST: [u16; 17] = {
        let mut t = [0; 17];
        let mut k = 0;
        while k < 17 {
            t[k] = ((1u32 << k) - 1) as u16;
            k += 1;
        }
        t
    };

    /// For each 8-lane mask `m`, the lane order "lanes not in `m`, then lanes in `m`": byte `i`
    /// is the source lane of lane `i`.
    static PARTITION8: [u64; 256] = {
        let mut t = [0; 256];
        let mut m = 0;
        while m < 256 {
            let (mut out, mut side) = (0, 0);
            while side < 2 {
                let mut lane = 0;
                while lane < 8 {
                    if (m >> lane & 1) == side {
                        t[m] |= (lane as u64) << (8 * out);
                        out += 1;
                    }
                    lane += 1;
                }
                side += 1;
            }
            m += 1;
        }
        t
    };

    // SAFETY (every `unsafe` block in the `Ops` impls of `Lanes16` and `Lanes8`): holding
    // `self` proves the CPU has AVX-512F/BW/VL/DQ, and `K` has the lane width (`detect`). Intrinsics taking pointers touch only the lanes the method's contract
    // names (upheld by its callers, or by slice bounds); masked-off lanes are never accessed.
    impl<K: Order> Ops for Lanes16<K> {
        type V = V;
        type T = K;
        type M = u16;
        const N: usize = 16;

        #[inline(always)]
        fn splat(self, x: K) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_set1_epi32(x.lane() as i32) }
        }
        #[inline(always)]
        fn gt(self, a: V, b: V) -> u16 {
            // SAFETY: see the comment above the impl.
            unsafe { <K as Order>::gt(a, b) }
        }
        #[inline(always)]
        fn min(self, a: V, b: V) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { K::min(a, b) }
        }
        #[inline(always)]
        fn max(self, a: V, b: V) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { K::max(a, b) }
        }
        #[inline(always)]
        fn minmax(self, hi: u16, a: V, b: V) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { K::mask_max(K::min(a, b), hi, a, b) }
        }
        #[inline(always)]
        fn lane_xor(self, x: V, m: usize) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_permutexvar_epi32(self.index(|l| l ^ m), x) }
        }
        #[inline(always)]
        fn swap_bit(self, a: V, b: V, p: u32) -> (V, V) {
            // Index `16 + i` selects lane `i` of `b`.
            let bit = 1 << p;
            let lo = self.index(|l| if l & bit == 0 { l } else { 16 + (l ^ bit) });
            let hi = self.index(|l| if l & bit == 0 { l ^ bit } else { 16 + l });
            // SAFETY: see the comment above the impl.
            unsafe {
                (
                    _mm512_permutex2var_epi32(a, lo, b),
                    _mm512_permutex2var_epi32(a, hi, b),
                )
            }
        }
        #[inline(always)]
        fn compress(self, m: u16, x: V) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_maskz_compress_epi32(m, x) }
        }
        #[inline(always)]
        fn load_n(self, src: &[K]) -> V {
            let m = self.first(src.len());
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_mask_loadu_epi32(self.splat(K::MAX), m, src.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store_n(self, dst: &mut [K], x: V) {
            let m = self.first(dst.len());
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_mask_storeu_epi32(dst.as_mut_ptr().cast(), m, x) }
        }
        #[inline(always)]
        unsafe fn load(self, p: *const K) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_loadu_epi32(p.cast()) }
        }
        #[inline(always)]
        unsafe fn load_masked(self, p: *const K, m: u16) -> V {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_maskz_loadu_epi32(m, p.cast()) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut K, x: V) {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_storeu_epi32(p.cast(), x) }
        }
        #[inline(always)]
        unsafe fn store_masked(self, p: *mut K, m: u16, x: V) {
            // SAFETY: see the comment above the impl.
            unsafe { _mm512_mask_storeu_epi32(p.cast(), m, x) }
        }
        #[inline(always)]
        unsafe fn split_store(self, o: &mut Out<K>, x: V, pv: V, ones: u16, _tight: bool) {
            // Two compresses; the right part is stored masked, so `tight` changes nothing.
            let high = self.gt(x, pv);
            let nh = self.count(high);
            // SAFETY: see the comment above the impl; the caller guarantees the room.
            unsafe {
                self.store(o.p.add(o.l), self.compress(high ^ ones, x));
                self.store_masked(o.p.add(o.r - nh), self.first(nh), self.compress(high, x));
            }
            o.l += 16 - nh;
            o.r -= nh;
        }
    }

    impl<K: Order> Lanes16<K> {
        /// The vector `[f(0), .., f(15)]`; constant-folded, as `f` only sees constants.
        #[inline(always)]
        fn index(self, f: impl Fn(usize) -> usize) -> V {
            let a: [i32; 16] = core::array::from_fn(|l| f(l) as i32);
            // SAFETY: see the comment above the `Ops` impl; reads the 16 keys of `a`.
            unsafe { _mm512_loadu_epi32(a.as_ptr()) }
        }
    }

    impl<K: Order> Ops for Lanes8<K> {
        type V = V;
        type T = K;
        type M = u8;
        const N: usize = 8;

        #[inline(always)]
        fn splat(self, x: K) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_set1_epi64(x.lane()) }
        }
        #[inline(always)]
        fn gt(self, a: V, b: V) -> u8 {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { <K as Order>::gt(a, b) as u8 }
        }
        #[inline(always)]
        fn min(self, a: V, b: V) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { K::min(a, b) }
        }
        #[inline(always)]
        fn max(self, a: V, b: V) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { K::max(a, b) }
        }
        #[inline(always)]
        fn minmax(self, hi: u8, a: V, b: V) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { K::mask_max(K::min(a, b), u16::from(hi), a, b) }
        }
        #[inline(always)]
        fn lane_xor(self, x: V, m: usize) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_permutexvar_epi64(self.index(|l| l ^ m), x) }
        }
        #[inline(always)]
        fn swap_bit(self, a: V, b: V, p: u32) -> (V, V) {
            // Index `8 + i` selects lane `i` of `b`.
            let bit = 1 << p;
            let lo = self.index(|l| if l & bit == 0 { l } else { 8 + (l ^ bit) });
            let hi = self.index(|l| if l & bit == 0 { l ^ bit } else { 8 + l });
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe {
                (
                    _mm512_permutex2var_epi64(a, lo, b),
                    _mm512_permutex2var_epi64(a, hi, b),
                )
            }
        }
        #[inline(always)]
        fn compress(self, m: u8, x: V) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_maskz_compress_epi64(m, x) }
        }
        #[inline(always)]
        fn load_n(self, src: &[K]) -> V {
            let m = self.first(src.len());
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_mask_loadu_epi64(self.splat(K::MAX), m, src.as_ptr().cast()) }
        }
        #[inline(always)]
        fn store_n(self, dst: &mut [K], x: V) {
            let m = self.first(dst.len());
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_mask_storeu_epi64(dst.as_mut_ptr().cast(), m, x) }
        }
        #[inline(always)]
        unsafe fn load(self, p: *const K) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_loadu_epi64(p.cast()) }
        }
        #[inline(always)]
        unsafe fn load_masked(self, p: *const K, m: u8) -> V {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_maskz_loadu_epi64(m, p.cast()) }
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut K, x: V) {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_storeu_epi64(p.cast(), x) }
        }
        #[inline(always)]
        unsafe fn store_masked(self, p: *mut K, m: u8, x: V) {
            // SAFETY: see the comment above the `Lanes16` impl.
            unsafe { _mm512_mask_storeu_epi64(p.cast(), m, x) }
        }
        #[inline(always)]
        unsafe fn split_store(self, o: &mut Out<K>, x: V, pv: V, _ones: u8, tight: bool) {
            // One table-driven permutation (low keys first, high keys last) is cheaper than
            // two compresses; the same vector is then stored at both ends.
            let high = self.gt(x, pv);
            let nh = self.count(high);
            // SAFETY: see the comment above the `Lanes16` impl; the caller guarantees the room.
            unsafe {
                let order = _mm512_set1_epi64(PARTITION8[high as usize] as i64);
                let idx = _mm512_srlv_epi64(order, self.index(|l| 8 * l));
                store_both_ends(self, o, _mm512_permutexvar_epi64(idx, x), nh, tight);
            }
        }
    }

    impl<K: Order> Lanes8<K> {
        /// The vector `[f(0), .., f(7)]`; constant-folded, as `f` only sees constants.
        #[inline(always)]
        fn index(self, f: impl Fn(usize) -> usize) -> V {
            let a: [i64; 8] = core::array::from_fn(|l| f(l) as i64);
            // SAFETY: see the comment above the `Lanes16` `Ops` impl; reads the 8 keys of `a`.
            unsafe { _mm512_loadu_epi64(a.as_ptr()) }
        }
    }

    /// The drivers, compiled once per instruction set as module `$name`: `$features`
    /// are what the `Ops` of that set need, and the `inline(always)` helpers fold into
    /// them.
    macro_rules! drivers {
        ($name:ident, $features:literal) => {
            pub mod $name {
                use super::*;

                /// Sorts `v`, or gives up with `Err(())` after too many bad pivots.
                #[target_feature(enable = $features)]
                pub fn sort<S: Ops>(s: S, v: &mut [S::T]) -> Result<(), ()> {
                    // Partition levels allowed along any path; bounds the work by O(n log n).
                    let budget = 2 * (usize::BITS - v.len().leading_zeros()) + 4;
                    quicksort(s, v, budget)
                }

                /// One partition step of `quicksort`: the count of keys `<=` a sampled pivot, now
                /// in front, when both parts are non-empty.
                #[target_feature(enable = $features)]
                pub fn split<S: Ops>(s: S, v: &mut [S::T]) -> Option<usize> {
                    if v.len() <= BASE_REGS * S::N {
                        return None;
                    }
                    let mid = partition(s, v, choose_pivot(s, v));
                    (mid > 0 && mid < v.len()).then_some(mid)
                }

                #[target_feature(enable = $features)]
                fn quicksort<S: Ops>(s: S, mut v: &mut [S::T], mut budget: u32) -> Result<(), ()> {
                    loop {
                        if v.len() <= BASE_REGS * S::N {
                            sort_small(s, v);
                            return Ok(());
                        }
                        if budget == 0 {
                            return Err(());
                        }
                        budget -= 1;
                        let pivot = choose_pivot(s, v);
                        let mut mid = partition(s, v, pivot);
                        if mid == v.len() {
                            // Nothing exceeds the pivot, a sampled key, so it is the maximum: split off
                            // the keys equal to it, which are done. None smaller means all are equal.
                            let Some(below) = S::pred(pivot) else {
                                return Ok(());
                            };
                            mid = partition(s, v, below);
                            if mid == 0 {
                                return Ok(());
                            }
                            v = &mut core::mem::take(&mut v)[..mid];
                            continue;
                        }
                        // Recurse into the smaller side and loop on the larger: O(log n) stack.
                        let (lo, hi) = core::mem::take(&mut v).split_at_mut(mid);
                        if lo.len() <= hi.len() {
                            quicksort(s, lo, budget)?;
                            v = hi;
                        } else {
                            quicksort(s, hi, budget)?;
                            v = lo;
                        }
                    }
                }

                /// Median of keys at evenly spaced positions (deterministic).
                #[target_feature(enable = $features)]
                fn choose_pivot<S: Ops>(s: S, v: &[S::T]) -> S::T {
                    let count = if v.len() <= SMALL_SAMPLE_LEN { 16 } else { 64 };
                    match count / S::N {
                        1 => sample_median::<S, 1>(s, v),
                        2 => sample_median::<S, 2>(s, v),
                        4 => sample_median::<S, 4>(s, v),
                        _ => sample_median::<S, 8>(s, v),
                    }
                }

                #[inline(always)]
                fn sample_median<S: Ops, const K: usize>(s: S, v: &[S::T]) -> S::T {
                    let count = K * S::N;
                    // `v.len() > BASE_REGS * N >= count`, so the stride is at least 1 and every sampled
                    // index `i * stride + stride / 2 < count * stride <= v.len()`.
                    let stride = v.len() / count;
                    let mut buf = [S::T::default(); 64];
                    for (i, x) in buf[..count].iter_mut().enumerate() {
                        *x = v[i * stride + stride / 2];
                    }
                    sort_in_regs::<S, K>(s, &mut buf[..count]);
                    buf[count / 2]
                }

                /// Moves the keys `<= pivot` to the front and returns their count.
                #[target_feature(enable = $features)]
                fn partition<S: Ops>(s: S, v: &mut [S::T], pivot: S::T) -> usize {
                    let (n, w) = (v.len(), S::N);
                    let block = UNROLL * w;
                    if n < 2 * block {
                        // Not reached from `quicksort`, which partitions only above BASE_REGS vectors.
                        let mut k = 0;
                        for i in 0..n {
                            if v[i] <= pivot {
                                v.swap(i, k);
                                k += 1;
                            }
                        }
                        return k;
                    }
                    let pv = s.splat(pivot);
                    // Opaque all-ones mask: with a known one LLVM turns `!gt` into a second compare (a
                    // port-5 uop, like the compresses); `gt ^ ones` stays a cheap mask op.
                    let ones = core::hint::black_box(s.first(w));
                    let p = v.as_mut_ptr();
                    // SAFETY: every access stays inside `v` (`p..p + n`). Unread keys are `left..right`,
                    // finished ones `..o.l` and `o.r..`. The first and last `block` keys are held in
                    // registers, so the gaps `o.l..left` and `right..o.r` together always have
                    // `2 * block` free slots. Each step reads from the side with the smaller gap, which
                    // leaves both gaps at least as large as what the step may write there (`block` or N),
                    // so writes never reach unread keys.
                    unsafe {
                        let mut held = [pv; 2 * UNROLL];
                        for i in 0..UNROLL {
                            held[i] = s.load(p.add(i * w));
                            held[UNROLL + i] = s.load(p.add(n - block + i * w));
                        }
                        let mut o = Out { p, l: 0, r: n };
                        let (mut left, mut right) = (block, n - block);
                        while right - left >= block {
                            // Prefetch that side's next block, and further ahead for passes that stream
                            // from memory; `wrapping_*` as these may lie outside `v` (prefetch never faults).
                            let (src, near, far) = if o.r - right < left - o.l {
                                right -= block;
                                let near = right.wrapping_sub(block);
                                (right, near, near.wrapping_sub(FAR * block))
                            } else {
                                left += block;
                                (left - block, left, left + FAR * block)
                            };
                            let mut cur = [pv; UNROLL];
                            for (i, x) in cur.iter_mut().enumerate() {
                                *x = s.load(p.add(src + i * w));
                                _mm_prefetch::<_MM_HINT_T0>(
                                    p.wrapping_add(near.wrapping_add(i * w)).cast(),
                                );
                                _mm_prefetch::<_MM_HINT_T1>(
                                    p.wrapping_add(far.wrapping_add(i * w)).cast(),
                                );
                            }
                            for x in &cur {
                                s.split_store(&mut o, *x, pv, ones, false);
                            }
                        }
                        while right - left >= w {
                            let src = if o.r - right < left - o.l {
                                right -= w;
                                right
                            } else {
                                left += w;
                                left - w
                            };
                            s.split_store(&mut o, s.load(p.add(src)), pv, ones, false);
                        }
                        if right > left {
                            let valid = s.first(right - left);
                            put(s, &mut o, s.load_masked(p.add(left), valid), pv, valid);
                        }
                        // Now `o.l..o.r` is all free and exactly fits the held keys, N per vector.
                        for x in held {
                            s.split_store(&mut o, x, pv, ones, true);
                        }
                        o.l
                    }
                }

                /// Sorts up to `BASE_REGS * N` keys in registers, padding the last ones with `MAX`.
                #[target_feature(enable = $features)]
                fn sort_small<S: Ops>(s: S, v: &mut [S::T]) {
                    match v.len().div_ceil(S::N) {
                        0 => {}
                        1 => sort_in_regs::<S, 1>(s, v),
                        2 => sort_in_regs::<S, 2>(s, v),
                        3..=4 => sort_in_regs::<S, 4>(s, v),
                        5..=8 => sort_in_regs::<S, 8>(s, v),
                        _ => sort_in_regs::<S, BASE_REGS>(s, v),
                    }
                }

                /// Test hooks: run the kernels with other parameters than `sort` does.
                #[cfg(test)]
                pub mod hooks {
                    use super::*;

                    /// # Safety
                    /// `s` must be a proof type of this module's instruction set (one
                    /// whose `detect` checks the features these drivers enable).
                    pub unsafe fn quicksort_with_budget<S: Ops>(
                        s: S,
                        v: &mut [S::T],
                        budget: u32,
                    ) -> Result<(), ()> {
                        // SAFETY: `s` exists only if the CPU has every feature `quicksort`
                        // enables (the caller's contract).
                        unsafe { quicksort(s, v, budget) }
                    }

                    /// # Safety
                    /// As `quicksort_with_budget`.
                    pub unsafe fn partition<S: Ops>(s: S, v: &mut [S::T], pivot: S::T) -> usize {
                        // SAFETY: as above.
                        unsafe { super::partition(s, v, pivot) }
                    }
                }
            }
        };
    }

    drivers!(avx512, "avx512f,avx512bw,avx512vl,avx512dq,popcnt,bmi2");
    drivers!(avx2, "avx2,popcnt");

    /// Stores `y`, its `N - nh` low keys then its `nh` high keys, whole at both ends: the
    /// low keys land up from `o.l`, the high ones down to `o.r`, and the cursors move.
    ///
    /// # Safety
    /// As `Ops::split_store`.
    #[inline(always)]
    unsafe fn store_both_ends<S: Ops>(s: S, o: &mut Out<S::T>, y: S::V, nh: usize, tight: bool) {
        // SAFETY: the caller guarantees the room.
        unsafe {
            s.store(o.p.add(o.l), y);
            if tight {
                // Its low lanes could land on the keys just stored at `o.l`.
                s.store_masked(o.p.add(o.r - S::N), !s.first(S::N - nh), y);
            } else {
                s.store(o.p.add(o.r - S::N), y);
            }
        }
        o.l += S::N - nh;
        o.r -= nh;
    }

    /// Writes the `valid` lanes of `x`: keys `<= pivot` up from `o.l`, the others down from
    /// `o.r`.
    ///
    /// # Safety
    /// `o.l .. o.r` must be writable and have at least `count(valid)` free slots.
    #[inline(always)]
    unsafe fn put<S: Ops>(s: S, o: &mut Out<S::T>, x: S::V, pv: S::V, valid: S::M) {
        let gt = s.gt(x, pv);
        let (high, low) = (gt & valid, !gt & valid);
        let (nh, nl) = (s.count(high), s.count(low));
        // SAFETY: the caller guarantees room for all valid lanes between `o.l` and `o.r`.
        unsafe {
            s.store_masked(o.p.add(o.l), s.first(nl), s.compress(low, x));
            s.store_masked(o.p.add(o.r - nh), s.first(nh), s.compress(high, x));
        }
        o.l += nl;
        o.r -= nh;
    }

    /// Sorts `v[..K * N]` (all of `v` if shorter) with a `K`-register network.
    #[inline(always)]
    fn sort_in_regs<S: Ops, const K: usize>(s: S, v: &mut [S::T]) {
        let mut r = [s.splat(S::MAX); K];
        for (i, x) in r.iter_mut().enumerate() {
            if let Some(src) = v.get(i * S::N..) {
                *x = s.load_n(src);
            }
        }
        let rows = network(s, &mut r);
        for (x, row) in r.iter().zip(rows) {
            if let Some(dst) = v.get_mut(row * S::N..) {
                s.store_n(dst, *x);
            }
        }
    }

    /// Bitonic sort of the `K * N` keys in `r` (`K` a power of two). The key of sorted rank `e`
    /// sits "column-major" (register `e % K`, lane `e / K`), so most layers are plain min/max
    /// between registers; the end converts to rows. Returns the row each register holds.
    ///
    /// Everything is spelled out with constant arguments so that it unrolls fully and stays in
    /// registers (LLVM does not unroll loops this large by itself).
    #[inline(always)]
    fn network<S: Ops, const K: usize>(s: S, r: &mut [S::V; K]) -> [usize; 16] {
        let bits = K.trailing_zeros() + S::N.trailing_zeros();
        stage(s, r, bits, 1);
        stage(s, r, bits, 2);
        stage(s, r, bits, 3);
        stage(s, r, bits, 4);
        stage(s, r, bits, 5);
        stage(s, r, bits, 6);
        stage(s, r, bits, 7);
        stage(s, r, bits, 8);
        let (swaps, rows) = const { row_plan(K.trailing_zeros(), S::N.trailing_zeros()) };
        swap_layer(s, r, swaps[0]);
        swap_layer(s, r, swaps[1]);
        swap_layer(s, r, swaps[2]);
        swap_layer(s, r, swaps[3]);
        rows
    }

    /// Merge stage `st` (if the network has that many): merges sorted runs of `2^(st-1)` keys.
    #[inline(always)]
    fn stage<S: Ops, const K: usize>(s: S, r: &mut [S::V; K], bits: u32, st: u32) {
        if st > bits {
            return;
        }
        mirror(s, r, st);
        // Then half-cleaners on bits `st - 2` down to 0.
        half(s, r, st, 6);
        half(s, r, st, 5);
        half(s, r, st, 4);
        half(s, r, st, 3);
        half(s, r, st, 2);
        half(s, r, st, 1);
        half(s, r, st, 0);
    }

    /// First layer of stage `st`: rank `e` meets rank `e ^ (2^st - 1)`, the lower one keeping
    /// the min.
    #[inline(always)]
    fn mirror<S: Ops, const K: usize>(s: S, r: &mut [S::V; K], st: u32) {
        let kb = K.trailing_zeros();
        if st <= kb {
            // Registers only. The max goes to `e ^ top` instead of its mirror rank: that
            // reverses the upper half, which stays bitonic, and the later layers sort any
            // bitonic sequence.
            let (top, old) = (1 << (st - 1), *r);
            for i in 0..K / 2 {
                let q = low_pair(i, st - 1);
                let (a, b) = (old[q], old[q ^ ((top << 1) - 1)]);
                (r[q], r[q ^ top]) = (s.min(a, b), s.max(a, b));
            }
        } else {
            // Register `q` meets register `K-1-q` with lanes xor-ed by `xl`.
            let xl = (1 << (st - kb)) - 1;
            let hi = s.upper(st - kb - 1);
            if K == 1 {
                r[0] = s.minmax(hi, r[0], s.lane_xor(r[0], xl));
            }
            for q in 0..K / 2 {
                let (a, b) = (r[q], s.lane_xor(r[K - 1 - q], xl));
                r[q] = s.minmax(hi, a, b);
                r[K - 1 - q] = s.lane_xor(s.minmax(!hi, a, b), xl);
            }
        }
    }

    /// Half-cleaner layer of stage `st` on bit `t` (if it has one): rank `e` meets `e ^ 2^t`.
    #[inline(always)]
    fn half<S: Ops, const K: usize>(s: S, r: &mut [S::V; K], st: u32, t: u32) {
        let kb = K.trailing_zeros();
        if t + 2 > st {
            return;
        }
        if t < kb {
            for i in 0..K / 2 {
                let q = low_pair(i, t);
                let (a, b) = (r[q], r[q | 1 << t]);
                (r[q], r[q | 1 << t]) = (s.min(a, b), s.max(a, b));
            }
        } else {
            // A lane bit: move it into the register bit of each pair, min/max, move it back
            // (6 uops per pair, against 8 for shuffling within each register).
            let p = t - kb;
            if K == 1 {
                r[0] = s.minmax(s.upper(p), r[0], s.lane_xor(r[0], 1 << p));
            }
            for i in 0..K / 2 {
                let (a, b) = s.swap_bit(r[2 * i], r[2 * i + 1], p);
                (r[2 * i], r[2 * i + 1]) = s.swap_bit(s.min(a, b), s.max(a, b), p);
            }
        }
    }

    /// The `i`-th register index with bit `b` clear.
    #[inline(always)]
    fn low_pair(i: usize, b: u32) -> usize {
        (i >> b << (b + 1)) | (i & ((1 << b) - 1))
    }

    /// How to turn the column-major network output into rows: up to four (register bit, lane
    /// bit) exchanges, then the row each register holds. Evaluated at compile time.
    const fn row_plan(kb: u32, nb: u32) -> ([Option<(u32, u32)>; 4], [usize; 16]) {
        // Rank bit held by each register bit and each lane bit.
        let mut reg_bit = [0, 1, 2, 3];
        let mut lane_bit = [kb, kb + 1, kb + 2, kb + 3];
        let mut swaps = [None; 4];
        // Lane bit `p` must end up holding rank bit `p`; fetch it from its register bit.
        let mut p = 0;
        while p < nb {
            let mut q = 0;
            while q < kb {
                if reg_bit[q as usize] == p {
                    swaps[p as usize] = Some((q, p));
                    reg_bit[q as usize] = lane_bit[p as usize];
                    lane_bit[p as usize] = p;
                }
                q += 1;
            }
            p += 1;
        }
        let mut rows = [0; 16];
        let mut i = 0;
        while i < 16 {
            let mut q = 0;
            while q < kb {
                rows[i] |= (i >> q & 1) << (reg_bit[q as usize] - nb);
                q += 1;
            }
            i += 1;
        }
        (swaps, rows)
    }

    /// Exchanges register bit `q` with lane bit `p` in every register pair.
    #[inline(always)]
    fn swap_layer<S: Ops, const K: usize>(s: S, r: &mut [S::V; K], swap: Option<(u32, u32)>) {
        if let Some((q, p)) = swap {
            for i in 0..K / 2 {
                let a = low_pair(i, q);
                (r[a], r[a | 1 << q]) = s.swap_bit(r[a], r[a | 1 << q], p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64: deterministic test data.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    const PATTERNS: usize = 10;

    /// Test data as u64; u32 tests truncate, which maps MAX to MAX and keeps the shape.
    fn pattern(kind: usize, n: usize, rng: &mut Rng) -> Vec<u64> {
        let n = n as u64;
        (0..n)
            .map(|i| match kind {
                0 => rng.next(),
                1 => 42,
                2 => [0, u64::MAX][(rng.next() & 1) as usize],
                3 => i,
                4 => n - i,
                5 => i.min(n - i),
                6 => rng.next() % 16,
                7 => rng.next() % 8,
                8 => u64::MAX - rng.next() % 8,
                _ => u64::MAX,
            })
            .collect()
    }

    fn check(kind: usize, n: usize, rng: &mut Rng) {
        let data = pattern(kind, n, rng);
        check_as(&data, |x| x, |x: u64| x.to_string(), kind);
        check_as(&data, |x| x as u32, |x: u32| x.to_string(), kind);
        check_as(&data, |x| x as i32, |x: i32| x.to_string(), kind);
        check_as(&data, |x| x as i64, |x: i64| x.to_string(), kind);
        // Through the signed integers: negative and positive floats, +0 but not -0.
        check_as(
            &data,
            |x| (x >> 8) as i32 as f32,
            |x| x.to_bits().to_string(),
            kind,
        );
        check_as(
            &data,
            |x| (x >> 8) as i64 as f64,
            |x| x.to_bits().to_string(),
            kind,
        );
        // Subnormals of both signs and infinities for the zeros: the ends of `pred`.
        let tiny = |x: u64| match x as u32 & 0x8000_000F {
            0 => f32::INFINITY,
            0x8000_0000 => f32::NEG_INFINITY,
            b => f32::from_bits(b),
        };
        check_as(&data, tiny, |x| x.to_bits().to_string(), kind);
    }

    /// Sorts `data` mapped through `f` with every vector sort that runs for `T` here
    /// and compares, as strings of `show`, with the standard library's sort.
    fn check_as<T: Key + core::fmt::Debug>(
        data: &[u64],
        f: impl Fn(u64) -> T,
        show: impl Fn(T) -> String,
        kind: usize,
    ) {
        let a: Vec<T> = data.iter().map(|&x| f(x)).collect();
        let mut want = a.clone();
        want.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let (n, name) = (a.len(), core::any::type_name::<T>());
        let same = |got: &[T]| {
            got.iter()
                .map(|&x| show(x))
                .eq(want.iter().map(|&x| show(x)))
        };
        if available(8 * core::mem::size_of::<T>() as u32) {
            let mut got = a.clone();
            assert_eq!(T::sort(&mut got), Ok(()), "{name} kind {kind} n {n}");
            assert!(same(&got), "{name} kind {kind} n {n}");
        }
        let mut got = a;
        if let Some(sorted) = T::sort_avx2(&mut got) {
            assert_eq!(sorted, Ok(()), "AVX2 {name} kind {kind} n {n}");
            assert!(same(&got), "AVX2 {name} kind {kind} n {n}");
        }
    }

    #[test]
    fn all_small_sizes() {
        if !available(32) {
            return; // Nothing to test: the caller's fallback sorts.
        }
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for n in 0..=600 {
            for kind in 0..PATTERNS {
                check(kind, n, &mut rng);
            }
        }
    }

    #[test]
    fn large_sizes() {
        if !available(32) {
            return; // Nothing to test: the caller's fallback sorts.
        }
        // Sizes that need several partition levels; kept small enough for a debug build.
        let mut rng = Rng(12345);
        for _ in 0..3 {
            let n = (rng.next() % 300_000) as usize;
            for kind in 0..PATTERNS {
                check(kind, n, &mut rng);
            }
        }
        for kind in 0..PATTERNS {
            check(kind, 262_147, &mut rng);
        }
    }

    /// `partition` of every kernel the CPU runs: its u32 form and, with AVX-512, its
    /// u64 one.
    fn partitions() -> Vec<(&'static str, PartitionU32, Option<PartitionU64>)> {
        let mut kernels: Vec<(&'static str, PartitionU32, Option<PartitionU64>)> = vec![];
        if let (Some(s), Some(t)) = (
            kernel::Lanes16::<u32>::detect(),
            kernel::Lanes8::<u64>::detect(),
        ) {
            let part32: PartitionU32 = Box::new(move |v, p| {
                // SAFETY: `s` is an AVX-512 proof, for the AVX-512 drivers.
                unsafe { kernel::avx512::hooks::partition(s, v, p) }
            });
            let part64: PartitionU64 = Box::new(move |v, p| {
                // SAFETY: `t` is an AVX-512 proof, for the AVX-512 drivers.
                unsafe { kernel::avx512::hooks::partition(t, v, p) }
            });
            kernels.push(("AVX-512", part32, Some(part64)));
        }
        if let Some(u) = kernel::Lanes8x32::<u32>::detect() {
            let part32: PartitionU32 = Box::new(move |v, p| {
                // SAFETY: `u` is an AVX2 proof, for the AVX2 drivers.
                unsafe { kernel::avx2::hooks::partition(u, v, p) }
            });
            kernels.push(("AVX2", part32, None));
        }
        kernels
    }

    type PartitionU32 = Box<dyn Fn(&mut [u32], u32) -> usize>;
    type PartitionU64 = Box<dyn Fn(&mut [u64], u64) -> usize>;

    #[test]
    fn partition_splits() {
        for (name, part32, part64) in partitions() {
            let mut rng = Rng(99);
            for n in 0..700 {
                let a: Vec<u64> = (0..n).map(|_| rng.next() % 64).collect();
                let pivot = rng.next() % 70;
                let mut a32: Vec<u32> = a.iter().map(|&x| x as u32).collect();
                let mut c = a32.clone();
                let k = part32(&mut c, pivot as u32);
                assert!(c[..k].iter().all(|&x| x <= pivot as u32), "{name} n {n}");
                assert!(c[k..].iter().all(|&x| x > pivot as u32), "{name} n {n}");
                a32.sort_unstable();
                c.sort_unstable();
                assert_eq!(a32, c, "{name} n {n}");
                if let Some(part64) = &part64 {
                    let mut b = a.clone();
                    let k = part64(&mut b, pivot);
                    assert!(
                        b[..k].iter().all(|&x| x <= pivot) && b[k..].iter().all(|&x| x > pivot)
                    );
                    let mut a = a;
                    a.sort_unstable();
                    b.sort_unstable();
                    assert_eq!(a, b, "{name} n {n}");
                }
            }
        }
    }

    #[test]
    fn give_up_leaves_permutation() {
        let mut rng = Rng(7);
        let a: Vec<u64> = (0..100_000).map(|_| rng.next()).collect();
        let mut a32: Vec<u32> = a.iter().map(|&x| x as u32).collect();
        let mut permuted: Vec<Vec<u32>> = vec![];
        if let (Some(s), Some(t)) = (
            kernel::Lanes16::<u32>::detect(),
            kernel::Lanes8::<u64>::detect(),
        ) {
            let mut b = a.clone();
            // SAFETY: `t` is an AVX-512 proof.
            let gave_up = unsafe { kernel::avx512::hooks::quicksort_with_budget(t, &mut b, 2) };
            assert_eq!(gave_up, Err(()));
            let mut a = a.clone();
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b);
            let mut d = a32.clone();
            // SAFETY: `s` is an AVX-512 proof.
            let gave_up = unsafe { kernel::avx512::hooks::quicksort_with_budget(s, &mut d, 2) };
            assert_eq!(gave_up, Err(()));
            permuted.push(d);
        }
        if let Some(u) = kernel::Lanes8x32::<u32>::detect() {
            let mut d = a32.clone();
            // SAFETY: `u` is an AVX2 proof.
            let gave_up = unsafe { kernel::avx2::hooks::quicksort_with_budget(u, &mut d, 2) };
            assert_eq!(gave_up, Err(()));
            permuted.push(d);
        }
        a32.sort_unstable();
        for mut d in permuted {
            d.sort_unstable();
            assert_eq!(a32, d);
        }
    }
}

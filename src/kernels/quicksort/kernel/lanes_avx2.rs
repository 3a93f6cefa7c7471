//! The quicksort's `Ops` on AVX2 registers: eight 32-bit keys to a register. AVX2 has
//! no mask registers, no compress and no two-register permute, so a lane mask is the
//! compare's sign bits (`movemask`), compressing is a `vpermd` by a table of lane
//! orders, and exchanging lanes between two registers is two permutes and two blends.
//! A partition step stores each register once, permuted low keys first, at both ends
//! (as the AVX-512 sort does for 64-bit keys): AVX2's masked stores are microcoded on
//! AMD's cores by the vendors' tables (not measured here), so they are kept to the
//! partition's last few registers and to the ends of short ranges.

use super::{store_both_ends, Ops, Order, Out, PARTITION8};
use core::arch::x86_64::*;
use core::marker::PhantomData;

type V = __m256i;

/// Zero-sized proof that the CPU has AVX2 and popcnt (`super::super::available(32)`):
/// sorting `K` eight 32-bit lanes to a register.
#[derive(Clone, Copy)]
pub struct Lanes8x32<K>(PhantomData<K>);

impl<K> Lanes8x32<K> {
    pub fn detect() -> Option<Self> {
        const { assert!(core::mem::size_of::<K>() == 4) };
        super::super::available(32).then_some(Lanes8x32(PhantomData))
    }
}

/// A 32-bit key type's order on AVX2 registers.
///
/// # Safety (of the `unsafe fn`s)
/// The CPU must have AVX2.
pub trait Order8x32: Order {
    /// All-ones lanes where `a > b`.
    unsafe fn gt8(a: V, b: V) -> V;
    unsafe fn min8(a: V, b: V) -> V;
    unsafe fn max8(a: V, b: V) -> V;
}

impl Order8x32 for i32 {
    #[inline(always)]
    unsafe fn gt8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_cmpgt_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn min8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_min_epi32(a, b) }
    }
    #[inline(always)]
    unsafe fn max8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_max_epi32(a, b) }
    }
}

impl Order8x32 for u32 {
    #[inline(always)]
    unsafe fn gt8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2. Flipping the sign bits turns the unsigned
        // order into the signed one.
        unsafe {
            let flip = _mm256_set1_epi32(i32::MIN);
            _mm256_cmpgt_epi32(_mm256_xor_si256(a, flip), _mm256_xor_si256(b, flip))
        }
    }
    #[inline(always)]
    unsafe fn min8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_min_epu32(a, b) }
    }
    #[inline(always)]
    unsafe fn max8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe { _mm256_max_epu32(a, b) }
    }
}

/// For data without NaN and without both zeros, as `Order` for f32.
impl Order8x32 for f32 {
    #[inline(always)]
    unsafe fn gt8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
            ))
        }
    }
    #[inline(always)]
    unsafe fn min8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            _mm256_castps_si256(_mm256_min_ps(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
            ))
        }
    }
    #[inline(always)]
    unsafe fn max8(a: V, b: V) -> V {
        // SAFETY: the caller guarantees AVX2.
        unsafe {
            _mm256_castps_si256(_mm256_max_ps(
                _mm256_castsi256_ps(a),
                _mm256_castsi256_ps(b),
            ))
        }
    }
}

// SAFETY (every `unsafe` block in this impl): holding `self` proves the CPU has AVX2
// and popcnt (`detect`), and `K` is 32 bits wide. Intrinsics taking pointers touch
// only the lanes the method's contract names (upheld by its callers, or by slice
// bounds); masked-off lanes are never accessed.
impl<K: Order8x32> Ops for Lanes8x32<K> {
    type V = V;
    type T = K;
    type M = u8;
    const N: usize = 8;

    #[inline(always)]
    fn splat(self, x: K) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_set1_epi32(x.lane() as i32) }
    }
    #[inline(always)]
    fn gt(self, a: V, b: V) -> u8 {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_movemask_ps(_mm256_castsi256_ps(K::gt8(a, b))) as u8 }
    }
    #[inline(always)]
    fn min(self, a: V, b: V) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { K::min8(a, b) }
    }
    #[inline(always)]
    fn max(self, a: V, b: V) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { K::max8(a, b) }
    }
    #[inline(always)]
    fn minmax(self, hi: u8, a: V, b: V) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_blendv_epi8(K::min8(a, b), K::max8(a, b), self.lanes(hi)) }
    }
    #[inline(always)]
    fn lane_xor(self, x: V, m: usize) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_permutevar8x32_epi32(x, self.index(|l| l ^ m)) }
    }
    #[inline(always)]
    fn swap_bit(self, a: V, b: V, p: u32) -> (V, V) {
        // Lanes with bit `p` set take the partner lane of the other register.
        let upper = self.lanes(self.upper(p));
        let (a_x, b_x) = (self.lane_xor(a, 1 << p), self.lane_xor(b, 1 << p));
        // SAFETY: see the comment above the impl.
        unsafe {
            (
                _mm256_blendv_epi8(a, b_x, upper),
                _mm256_blendv_epi8(a_x, b, upper),
            )
        }
    }
    #[inline(always)]
    fn compress(self, m: u8, x: V) -> V {
        // The lanes of `m` first: the partition order of the other lanes.
        self.permute(!m, x)
    }
    #[inline(always)]
    fn load_n(self, src: &[K]) -> V {
        if let Some(whole) = src.first_chunk::<8>() {
            // SAFETY: see the comment above the impl; `whole` is 8 readable keys.
            return unsafe { self.load(whole.as_ptr()) };
        }
        let mut keys = [K::MAX; 8];
        keys[..src.len()].copy_from_slice(src);
        // SAFETY: see the comment above the impl; `keys` is 8 readable keys.
        unsafe { self.load(keys.as_ptr()) }
    }
    #[inline(always)]
    fn store_n(self, dst: &mut [K], x: V) {
        if let Some(whole) = dst.first_chunk_mut::<8>() {
            // SAFETY: see the comment above the impl; `whole` is 8 writable keys.
            return unsafe { self.store(whole.as_mut_ptr(), x) };
        }
        let mut keys = [K::MAX; 8];
        // SAFETY: see the comment above the impl; `keys` is 8 writable keys.
        unsafe { self.store(keys.as_mut_ptr(), x) };
        let n = dst.len();
        dst.copy_from_slice(&keys[..n]);
    }
    #[inline(always)]
    unsafe fn load(self, p: *const K) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_loadu_si256(p.cast()) }
    }
    #[inline(always)]
    unsafe fn load_masked(self, p: *const K, m: u8) -> V {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_maskload_epi32(p.cast(), self.lanes(m)) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut K, x: V) {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_storeu_si256(p.cast(), x) }
    }
    #[inline(always)]
    unsafe fn store_masked(self, p: *mut K, m: u8, x: V) {
        // SAFETY: see the comment above the impl.
        unsafe { _mm256_maskstore_epi32(p.cast(), self.lanes(m), x) }
    }
    #[inline(always)]
    unsafe fn split_store(self, o: &mut Out<K>, x: V, pv: V, _ones: u8, tight: bool) {
        // One table-driven permutation (low keys first, high keys last), stored whole at
        // both ends.
        let high = self.gt(x, pv);
        let nh = self.count(high);
        // SAFETY: the caller guarantees the room.
        unsafe { store_both_ends(self, o, self.permute(high, x), nh, tight) };
    }
}

impl<K: Order8x32> Lanes8x32<K> {
    /// The vector `[f(0), .., f(7)]`; constant-folded, as `f` only sees constants.
    #[inline(always)]
    fn index(self, f: impl Fn(usize) -> usize) -> V {
        let a: [i32; 8] = core::array::from_fn(|l| f(l) as i32);
        // SAFETY: see the comment above the `Ops` impl; reads the 8 values of `a`.
        unsafe { _mm256_loadu_si256(a.as_ptr().cast()) }
    }

    /// All-ones in the lanes of `m`, zeros elsewhere.
    #[inline(always)]
    fn lanes(self, m: u8) -> V {
        let bits = self.index(|l| 1 << l);
        // SAFETY: see the comment above the `Ops` impl.
        unsafe {
            let set = _mm256_and_si256(_mm256_set1_epi32(i32::from(m)), bits);
            _mm256_cmpeq_epi32(set, bits)
        }
    }

    /// `x`'s lanes not in `m`, then those in `m`.
    #[inline(always)]
    fn permute(self, m: u8, x: V) -> V {
        // SAFETY: see the comment above the `Ops` impl.
        unsafe {
            let order = _mm_cvtsi64_si128(PARTITION8[m as usize] as i64);
            _mm256_permutevar8x32_epi32(x, _mm256_cvtepu8_epi32(order))
        }
    }
}

//! The leaf of the pairwise tree (at most 128 elements, see `pairwise`) in explicit
//! AVX2 vectors, for f32 and f64 accumulators.
//!
//! Left to itself, LLVM vectorizes the leaf's 8 partials as pieces of 1, 4, 2 and 1
//! lanes and spills them to the stack for the final tree, where the reloads miss
//! store forwarding: on a Zen 1 core the compiled leaf summed 4096 lanes of 49 f32 in
//! 147 µs; these take 42 µs, and f64 lanes 157 → 53 µs. The arithmetic is the leaf's,
//! operand for operand: partial `j` is lane `j` of the vector(s), and the final
//! `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))` pairs lanes with in-lane
//! shuffles, so every ISA gives the scalar twin's bits.

use std::any::{Any, TypeId};
use std::arch::x86_64::*;

use crate::kernels::math::arith::Arith;

/// The leaf sum of `xs` (at most 128 elements) converted by `to_acc`; `None` for an
/// accumulator type without a vector leaf here, or fewer than 8 elements (a plain
/// running sum): the caller runs the generic leaf.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn leaf_avx2<T: Copy, A: Arith, F: Fn(T) -> A + Copy>(xs: &[T], to_acc: F) -> Option<A> {
    // Comparisons of constant type ids: the compiler keeps only the taken branch.
    if TypeId::of::<A>() == TypeId::of::<f32>() {
        return leaf_f32(xs, |x| same_type::<A, f32>(to_acc(x))).map(same_type);
    }
    if TypeId::of::<A>() == TypeId::of::<f64>() {
        return leaf_f64(xs, |x| same_type::<A, f64>(to_acc(x))).map(same_type);
    }
    None
}

/// `a` as `B`, for `A` and `B` known (by type id) to be the same type; the default
/// value otherwise, which the callers' checks make unreachable.
#[inline(always)]
fn same_type<A: 'static + Copy, B: 'static + Copy + Default>(a: A) -> B {
    (&a as &dyn Any)
        .downcast_ref::<B>()
        .copied()
        .unwrap_or_default()
}

/// The leaf with the 8 f32 partials in one register; `None` below 8 elements.
#[target_feature(enable = "avx2,fma,f16c")]
fn leaf_f32<T: Copy, F: Fn(T) -> f32 + Copy>(xs: &[T], to_acc: F) -> Option<f32> {
    let (eights, rest) = xs.as_chunks::<8>();
    let (first, eights) = eights.split_first()?;
    // Converted into an array, then loaded: for plain f32 this is one vector load.
    let load = |c: &[T; 8]| {
        let v: [f32; 8] = std::array::from_fn(|j| to_acc(c[j]));
        // SAFETY: `v` holds 8 f32, the 32 bytes the unaligned load reads.
        unsafe { _mm256_loadu_ps(v.as_ptr()) }
    };
    let mut r = load(first);
    for c in eights {
        r = _mm256_add_ps(r, load(c));
    }
    // [r0+r1, _, r2+r3, _ | r4+r5, _, r6+r7, _], then lanes 0 and 4 get the pairs of pairs.
    let p = _mm256_add_ps(r, _mm256_permute_ps::<0b10_11_00_01>(r));
    let q = _mm256_add_ps(p, _mm256_permute_ps::<0b01_00_11_10>(p));
    let lo = _mm256_castps256_ps128(q);
    let hi = _mm256_extractf128_ps::<1>(q);
    let mut s = _mm_cvtss_f32(_mm_add_ss(lo, hi));
    for &x in rest {
        s += to_acc(x);
    }
    Some(s)
}

/// The leaf with the 8 f64 partials in two registers; `None` below 8 elements.
#[target_feature(enable = "avx2,fma,f16c")]
fn leaf_f64<T: Copy, F: Fn(T) -> f64 + Copy>(xs: &[T], to_acc: F) -> Option<f64> {
    let (eights, rest) = xs.as_chunks::<8>();
    let (first, eights) = eights.split_first()?;
    let load = |c: &[T; 8], at: usize| {
        let v: [f64; 4] = std::array::from_fn(|j| to_acc(c[at + j]));
        // SAFETY: `v` holds 4 f64, the 32 bytes the unaligned load reads.
        unsafe { _mm256_loadu_pd(v.as_ptr()) }
    };
    let (mut lo, mut hi) = (load(first, 0), load(first, 4));
    for c in eights {
        lo = _mm256_add_pd(lo, load(c, 0));
        hi = _mm256_add_pd(hi, load(c, 4));
    }
    // `(v0 + v1) + (v2 + v3)` of one register.
    let quad = |v: __m256d| {
        let p = _mm256_add_pd(v, _mm256_permute_pd::<0b0101>(v));
        let sum = _mm_add_sd(_mm256_castpd256_pd128(p), _mm256_extractf128_pd::<1>(p));
        _mm_cvtsd_f64(sum)
    };
    let mut s = quad(lo) + quad(hi);
    for &x in rest {
        s += to_acc(x);
    }
    Some(s)
}

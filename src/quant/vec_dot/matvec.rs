//! Q4_K weight rows against one activation row with AVX2 (a matrix-vector product).
//! Eight weight rows at a time meet each activation block: their block sums are made
//! as the single-row dot makes them, reduced together (`sum_each`), and their f32
//! steps taken in the eight lanes of one register — where the single-row dot sums each
//! block's lanes alone and takes a scalar step, a larger share of a Q4_K block's work
//! than of the other K-quants'. (Q5_K and Q6_K measured no faster this way on the
//! Zen 3 of docs/PERFORMANCE.md's session 55, Q6_K slower, and keep the single-row
//! dot.)
//!
//! A block's integer sums are exact and each lane's f32 steps are the scalar twin's
//! (`add_block`) in block order, so every output has the bits of `vec_dot` for its row.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX2, FMA and F16C.

use std::arch::x86_64::*;

use super::avx2::{f32_at, q4k_block_sums, sum_each, sum_each_half};
use super::unpack::{KQuant, Q8K_BYTES};

/// Weight rows whose block sums share one reduction and one f32 step, one per lane.
const LANES: usize = 8;
/// Bytes of a Q4_K block.
const BLOCK: usize = KQuant::Q4K.block_bytes();

/// The eight blocks' d and dmin as f32 lanes.
#[target_feature(enable = "avx2,f16c")]
#[inline]
fn block_scales(xs: &[&[u8; BLOCK]; LANES]) -> (__m256, __m256) {
    // Each block's (d, dmin) pair of f16 as one i32, then the d's gathered in the low
    // half and the dmin's in the high half.
    let pair = |l: usize| i32::from_le_bytes([xs[l][0], xs[l][1], xs[l][2], xs[l][3]]);
    let pairs = _mm256_setr_epi32(
        pair(0),
        pair(1),
        pair(2),
        pair(3),
        pair(4),
        pair(5),
        pair(6),
        pair(7),
    );
    let split = _mm256_setr_epi8(
        0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, //
        0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
    );
    let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_shuffle_epi8(pairs, split));
    (
        _mm256_cvtph_ps(_mm256_castsi256_si128(v)),
        _mm256_cvtph_ps(_mm256_extracti128_si256::<1>(v)),
    )
}

/// Eight weight rows (`rows`) against the activation row `a`, block by block: each
/// lane `add_block`'s steps for its row (d_y·d·isum, then −d_y·dmin·msum, each one
/// fused multiply-add).
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn eight_rows(rows: &[&[[u8; BLOCK]]; LANES], a: &[[u8; Q8K_BYTES]]) -> __m256 {
    let zero = _mm256_setzero_si256();
    let mut acc = _mm256_setzero_ps();
    for (b, y) in a.iter().enumerate() {
        let xs: [&[u8; BLOCK]; LANES] = std::array::from_fn(|l| &rows[l][b]);
        let (mut isum, mut msum) = ([zero; LANES], [_mm_setzero_si128(); LANES]);
        for ((i, m), x) in isum.iter_mut().zip(&mut msum).zip(xs) {
            (*i, *m) = q4k_block_sums(x, y);
        }
        let (d, dmin) = block_scales(&xs);
        let yd = _mm256_set1_ps(f32_at(y, 0));
        let neg_yd = _mm256_xor_ps(yd, _mm256_set1_ps(-0.0));
        let isum = _mm256_cvtepi32_ps(sum_each(isum));
        acc = _mm256_fmadd_ps(_mm256_mul_ps(yd, d), isum, acc);
        let msum = _mm256_cvtepi32_ps(sum_each_half(msum));
        acc = _mm256_fmadd_ps(_mm256_mul_ps(neg_yd, dmin), msum, acc);
    }
    acc
}

/// `out[j]` = the dot product of Q4_K weight row `j` of `w` (rows of `wbytes`, whole
/// blocks; at least `out.len()` rows) with the Q8_K activation row `a`, as `vec_dot`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn q4k_rows_avx2((w, wbytes): (&[u8], usize), a: &[u8], out: &mut [f32]) {
    let ablocks = a.as_chunks::<Q8K_BYTES>().0;
    let ablocks = &ablocks[..(wbytes / BLOCK).min(ablocks.len())];
    let n = out.len();
    for (r0, dst) in (0..n).step_by(LANES).zip(out.chunks_mut(LANES)) {
        // A pass with fewer rows repeats its last one (not stored), keeping the inner
        // loop free of branches.
        let rows: [&[[u8; BLOCK]]; LANES] = std::array::from_fn(|l| {
            let r = (r0 + l).min(n - 1);
            w[r * wbytes..][..ablocks.len() * BLOCK]
                .as_chunks::<BLOCK>()
                .0
        });
        let mut lanes = [0f32; LANES];
        // SAFETY: `lanes` is 8 writable f32; no alignment is required.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), eight_rows(&rows, ablocks)) };
        dst.copy_from_slice(&lanes[..dst.len()]);
    }
}

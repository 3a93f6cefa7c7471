//! K-quant weight rows against many activation rows with AVX2, the fused matmul's kernel
//! when a batch has more than one row on a CPU without AVX-512. The work goes in tiles
//! of a few weight rows by a group of activation rows: each weight block is unpacked
//! once per tile and each activation block is loaded once per tile, so unpacking and
//! loads are shared instead of paid per pair.
//!
//! Per pair of rows, a block's integer sums are exact (the same in any lane layout) and
//! the f32 step is the scalar twin's (`add_block`), so every output has the bits of
//! `vec_dot` for its rows.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX2, FMA and F16C.

use std::arch::x86_64::*;

use super::avx2::{f32_at, hsum128_i32, hsum_i32, load};
use super::scalar::add_block;
use super::unpack::{empty, unpack, KQuant, Unpacked, Q8K_BYTES};

/// Weight rows of a tile: each activation block loaded is used this many times.
const WROWS: usize = 4;
/// Activation rows of a tile: each weight block unpacked is used this many times.
const GROUP: usize = 32;

/// One activation block, loaded once for all the weight rows of a tile.
struct Act {
    /// The quants: 8 runs of 32.
    q: [__m256i; 8],
    /// `maddubs(32, q)` per run, for the biased Q6_K quants (zero otherwise).
    q32: [__m256i; 8],
    /// Q4_K/Q5_K: bsums added in pairs, the sums the min term multiplies.
    pair_sums: __m128i,
    d: f32,
}

#[target_feature(enable = "avx2")]
#[inline]
fn act<const MINS: bool, const OFFSET: bool>(y: &[u8]) -> Act {
    let q: [__m256i; 8] = std::array::from_fn(|r| load(y, 4 + 32 * r));
    let m32 = _mm256_set1_epi8(32);
    let pair_sums = match MINS {
        true => {
            let bsums = load(y, 260);
            _mm_hadd_epi16(
                _mm256_castsi256_si128(bsums),
                _mm256_extracti128_si256::<1>(bsums),
            )
        }
        false => _mm_setzero_si128(),
    };
    Act {
        q,
        q32: std::array::from_fn(|r| match OFFSET {
            true => _mm256_maddubs_epi16(m32, q[r]),
            false => _mm256_setzero_si256(),
        }),
        pair_sums,
        d: f32_at(y, 0),
    }
}

/// One block of one pair: `acc` plus the block's f32 step. `OFFSET`: the quants are
/// biased by 32, taken off as u·y − 32·y so maddubs sees unsigned weights.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn block<const MINS: bool, const OFFSET: bool>(w: &Unpacked, y: &Act, acc: f32) -> f32 {
    let msum = match MINS {
        true => hsum128_i32(_mm_madd_epi16(w.mins, y.pair_sums)),
        false => 0,
    };
    let mut sumi = _mm256_setzero_si256();
    for r in 0..8 {
        let mut p = _mm256_maddubs_epi16(w.u[r], y.q[r]);
        if OFFSET {
            p = _mm256_sub_epi16(p, y.q32[r]);
        }
        sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(w.sc[r], p));
    }
    add_block::<MINS>(acc, (y.d, w.d, w.dmin), (hsum_i32(sumi), msum))
}

/// A tile is up to `WROWS` weight rows by up to `GROUP` activation rows; for each
/// block, the tile's weight blocks are unpacked and each activation block is loaded
/// once and added into the accumulators of every weight row.
#[target_feature(enable = "avx2,fma,f16c")]
fn generic<const MINS: bool, const OFFSET: bool>(
    kind: KQuant,
    (w, wbytes): (&[u8], usize),
    (a, abytes): (&[u8], usize),
    out: &mut [f32],
) {
    let m = a.len() / abytes;
    let wb = kind.block_bytes();
    let blocks = (wbytes / wb).min(abytes / Q8K_BYTES);
    for (ws, outs) in w.chunks(WROWS * wbytes).zip(out.chunks_mut(WROWS * m)) {
        let nr = outs.len() / m;
        for g0 in (0..m).step_by(GROUP) {
            let rows = GROUP.min(m - g0);
            let mut acc = [[0f32; GROUP]; WROWS];
            let mut unpacked: [Unpacked; WROWS] = std::array::from_fn(|_| empty());
            for b in 0..blocks {
                // A tile with fewer weight rows repeats its last one (its sums are not
                // stored), keeping the inner loop free of branches.
                for (r, u) in unpacked.iter_mut().enumerate() {
                    unpack(kind, &ws[r.min(nr - 1) * wbytes + b * wb..][..wb], u);
                }
                for i in 0..rows {
                    let y = &a[(g0 + i) * abytes + b * Q8K_BYTES..][..Q8K_BYTES];
                    let act = act::<MINS, OFFSET>(y);
                    for (acc, w) in acc.iter_mut().zip(&unpacked) {
                        acc[i] = block::<MINS, OFFSET>(w, &act, acc[i]);
                    }
                }
            }
            for (orow, acc) in outs.chunks_mut(m).zip(&acc) {
                orow[g0..g0 + rows].copy_from_slice(&acc[..rows]);
            }
        }
    }
}

/// `out[j·m + i]` = the dot product of weight row `j` of `w` (rows of `wbytes`, whole
/// `kind` blocks) with activation row `i` of `a` (m Q8_K rows of `abytes`).
#[target_feature(enable = "avx2,fma,f16c")]
pub fn rows_avx2(kind: KQuant, w: (&[u8], usize), a: (&[u8], usize), out: &mut [f32]) {
    match kind {
        KQuant::Q6K => generic::<false, true>(kind, w, a, out),
        _ => generic::<true, false>(kind, w, a, out),
    }
}

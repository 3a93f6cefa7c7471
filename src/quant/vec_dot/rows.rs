//! K-quant weight rows against many activation rows with AVX2, the fused matmul's kernel
//! when a batch has more than one row on a CPU without AVX-512. The work goes in tiles
//! of a few weight rows by a group of activation rows: each weight block is unpacked
//! once per tile, and eight activation rows at a time meet it, their integer sums
//! reduced together (`sum_each`) and their f32 steps taken in the eight lanes of one
//! register — not a horizontal sum and a scalar step per pair, which held the Q4_K
//! and Q5_K × 32 rows behind ggml on the Zen 3 of docs/PERFORMANCE.md.
//!
//! Per pair of rows, a block's integer sums are exact (the same in any order; Q6_K's
//! bias of 32 comes off through the activation's bsums, exactly) and the f32 step is
//! the scalar twin's (`add_block`) lane by lane, so every output has the bits of
//! `vec_dot` for its rows.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX2, FMA and F16C.

use std::arch::x86_64::*;

use super::avx2::{f32_at, load, sum_each};
use super::unpack::{empty, unpack, KQuant, Unpacked, Q8K_BYTES};

/// Weight rows of a tile: each activation block loaded is used this many times.
const WROWS: usize = 4;
/// Activation rows of a tile: each weight block unpacked is used this many times.
const GROUP: usize = 32;
/// Activation rows whose block sums share one horizontal reduction and one f32 step,
/// one per f32 lane.
const LANES: usize = 8;

/// One block of one weight row against `LANES` activation blocks `ys`: `acc` plus
/// each pair's f32 step in its lane, the scalar twin's `add_block` (d_y·d·isum, then
/// for Q4_K/Q5_K −d_y·dmin·msum, each one fused multiply-add).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn block<const MINS: bool>(
    w: &Unpacked,
    ys: &[&[u8; Q8K_BYTES]; LANES],
    yd: __m256,
    acc: __m256,
) -> __m256 {
    let zero = _mm256_setzero_si256();
    let mut isum = [zero; LANES];
    for r in 0..8 {
        let (u, sc) = (w.u[r], w.sc[r]);
        for (s, y) in isum.iter_mut().zip(ys) {
            let p = _mm256_maddubs_epi16(u, load(*y, 4 + 32 * r));
            *s = _mm256_add_epi32(*s, _mm256_madd_epi16(sc, p));
        }
    }
    let bsum_term: [__m256i; LANES] =
        std::array::from_fn(|l| _mm256_madd_epi16(w.pairs, load(ys[l], 260)));
    let d = _mm256_mul_ps(yd, _mm256_set1_ps(w.d));
    if MINS {
        let acc = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(sum_each(isum)), acc);
        let dmin = _mm256_mul_ps(
            _mm256_xor_ps(yd, _mm256_set1_ps(-0.0)),
            _mm256_set1_ps(w.dmin),
        );
        _mm256_fmadd_ps(dmin, _mm256_cvtepi32_ps(sum_each(bsum_term)), acc)
    } else {
        // Q6_K's quants are biased by 32: Σ scale·(u − 32)·y = Σ scale·u·y − 32·Σ scale·bsum.
        let sums: [__m256i; LANES] = std::array::from_fn(|l| {
            _mm256_sub_epi32(isum[l], _mm256_slli_epi32::<5>(bsum_term[l]))
        });
        _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(sum_each(sums)), acc)
    }
}

/// A tile is up to `WROWS` weight rows by up to `GROUP` activation rows; for each
/// block, the tile's weight blocks are unpacked and each group of `LANES` activation
/// blocks meets every weight row.
#[target_feature(enable = "avx2,fma,f16c")]
fn generic<const MINS: bool>(
    kind: KQuant,
    (w, wbytes): (&[u8], usize),
    (a, abytes): (&[u8], usize),
    out: &mut [f32],
) {
    let m = a.len() / abytes;
    let wb = kind.block_bytes();
    let per_row = abytes / Q8K_BYTES;
    let blocks = (wbytes / wb).min(per_row);
    let ablocks = a.as_chunks::<Q8K_BYTES>().0;
    for (ws, outs) in w.chunks(WROWS * wbytes).zip(out.chunks_mut(WROWS * m)) {
        let nr = outs.len() / m;
        for g0 in (0..m).step_by(GROUP) {
            let rows = GROUP.min(m - g0);
            let mut acc = [[_mm256_setzero_ps(); GROUP / LANES]; WROWS];
            let mut unpacked: [Unpacked; WROWS] = std::array::from_fn(|_| empty());
            for b in 0..blocks {
                // A tile with fewer weight rows repeats its last one, and a group with
                // fewer activation rows its last one (their sums are not stored),
                // keeping the inner loops free of branches.
                for (r, u) in unpacked.iter_mut().enumerate() {
                    unpack(kind, &ws[r.min(nr - 1) * wbytes + b * wb..][..wb], u);
                }
                for o in 0..rows.div_ceil(LANES) {
                    let ys: [&[u8; Q8K_BYTES]; LANES] = std::array::from_fn(|l| {
                        &ablocks[(g0 + (o * LANES + l).min(rows - 1)) * per_row + b]
                    });
                    let yd = _mm256_setr_ps(
                        f32_at(ys[0], 0),
                        f32_at(ys[1], 0),
                        f32_at(ys[2], 0),
                        f32_at(ys[3], 0),
                        f32_at(ys[4], 0),
                        f32_at(ys[5], 0),
                        f32_at(ys[6], 0),
                        f32_at(ys[7], 0),
                    );
                    for (acc, w) in acc.iter_mut().zip(&unpacked) {
                        acc[o] = block::<MINS>(w, &ys, yd, acc[o]);
                    }
                }
            }
            for (orow, acc) in outs.chunks_mut(m).zip(&acc) {
                for (o, dst) in orow[g0..g0 + rows].chunks_mut(LANES).enumerate() {
                    let mut lanes = [0f32; LANES];
                    // SAFETY: `lanes` is 8 writable f32; no alignment is required.
                    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc[o]) };
                    dst.copy_from_slice(&lanes[..dst.len()]);
                }
            }
        }
    }
}

/// `out[j·m + i]` = the dot product of weight row `j` of `w` (rows of `wbytes`, whole
/// `kind` blocks) with activation row `i` of `a` (m Q8_K rows of `abytes`).
#[target_feature(enable = "avx2,fma,f16c")]
pub fn rows_avx2(kind: KQuant, w: (&[u8], usize), a: (&[u8], usize), out: &mut [f32]) {
    match kind {
        KQuant::Q6K => generic::<false>(kind, w, a, out),
        _ => generic::<true>(kind, w, a, out),
    }
}

//! Q8_0 weight rows against Q8_0 activation rows in tiles of a few weight rows by a
//! group of activation rows (each block loaded once per tile), with 256-bit registers
//! (`rows_avx2`) and 512-bit ones without VNNI (`rows_avx512`; with VNNI, see
//! `rows_q8_0_vnni`).
//!
//! The single-row AVX2 kernel takes blocks in pairs into two accumulators, even blocks
//! and odd ones; `rows_avx2` keeps those two per pair of rows. With 512 bits a pair of
//! blocks sits side by side in one register, so the two accumulators are the halves
//! of one, each lane getting the same FMA with the same operands. A last odd block goes
//! into the even accumulator alone, and the total adds the two and takes the AVX2
//! kernel's horizontal sum: the same bits. Integer sums are exact, so computing
//! |x|·(sign(x)·y) with a mask changes nothing. The AVX2 tile takes the activations
//! prepared once per matmul (`ActivationGroups`).
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has the AVX2 set (and AVX-512 F/BW/DQ for the 512-bit
//! driver).

use std::arch::x86_64::*;

use super::avx2::{f16_at, hsum, load, q8_0_block};

/// Weight rows of a tile: each activation pair loaded is used this many times.
const WROWS: usize = 4;
/// Activation rows of a tile: each weight pair loaded is used this many times.
const GROUP: usize = 32;
/// Bytes of a Q8_0 block: an f16 scale and 32 quants.
pub(super) const BLOCK: usize = 34;

/// Two blocks side by side: quants 0-31 of the first, then of the second.
#[target_feature(enable = "avx512f,avx2")]
#[inline]
pub(super) fn quants(x: &[u8]) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(load(x, 2)), load(x, 2 + BLOCK))
}

/// The two blocks' scales in lanes 0 and 1.
#[target_feature(enable = "avx2,f16c")]
#[inline]
pub(super) fn scales(x: &[u8]) -> __m128 {
    _mm_setr_ps(f16_at(x, 0), f16_at(x, BLOCK), 0.0, 0.0)
}

/// Lanes 0-7 from lane 0 of a 128-bit register, lanes 8-15 from its lane 1.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn spread(v: __m128) -> __m512 {
    let lanes = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    _mm512_permutexvar_ps(lanes, _mm512_castps128_ps512(v))
}

/// A pair of weight blocks in the form `maddubs` takes (it needs an unsigned operand):
/// |x|, the lanes where x < 0 (whose activations are negated), and each block's scale
/// over its 8 lanes.
struct WeightPair {
    q: __m512i,
    negative: __mmask64,
    d: __m512,
}

#[target_feature(enable = "avx512f,avx512bw,avx2,f16c")]
#[inline]
fn weight_pair(x: &[u8]) -> WeightPair {
    let q = quants(x);
    WeightPair {
        q: _mm512_abs_epi8(q),
        negative: _mm512_movepi8_mask(q),
        d: spread(scales(x)),
    }
}

/// 16 i32 sums of 4 products each: |x|·(sign(x)·y).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn sums(w: &WeightPair, yq: __m512i) -> __m512i {
    let signed = _mm512_mask_sub_epi8(yq, w.negative, _mm512_setzero_si512(), yq);
    _mm512_madd_epi16(_mm512_maddubs_epi16(w.q, signed), _mm512_set1_epi16(1))
}

/// `out[j·m + i]` = the dot product of weight row `j` of `w` with activation row `i` of
/// `a` (m rows), both Q8_0 rows of `bytes` bytes: each weight pair and activation pair
/// is loaded once per tile; every pair of rows in the tile adds `d_x·d_y · Σ` into its
/// accumulator, a last odd block into the first half only.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx2,fma,f16c")]
pub fn rows_avx512(w: &[u8], a: &[u8], bytes: usize, out: &mut [f32]) {
    let m = a.len() / bytes;
    let (blocks, pairs) = (bytes / BLOCK, bytes / BLOCK / 2);
    for (ws, outs) in w.chunks(WROWS * bytes).zip(out.chunks_mut(WROWS * m)) {
        let nr = outs.len() / m;
        // A tile with fewer weight rows repeats its last one (its sums are not stored),
        // keeping the inner loop free of branches.
        let wrow = |r: usize| &ws[r.min(nr - 1) * bytes..][..bytes];
        for g0 in (0..m).step_by(GROUP) {
            let rows = GROUP.min(m - g0);
            let arow = |i: usize| &a[(g0 + i) * bytes..][..bytes];
            let mut acc = [[_mm512_setzero_ps(); GROUP]; WROWS];
            for p in 0..pairs {
                let at = 2 * BLOCK * p;
                let wp: [WeightPair; WROWS] = std::array::from_fn(|r| weight_pair(&wrow(r)[at..]));
                for i in 0..rows {
                    let y = &arow(i)[at..];
                    let (yq, yd) = (quants(y), spread(scales(y)));
                    for (x, acc) in wp.iter().zip(acc.iter_mut()) {
                        let d = _mm512_mul_ps(x.d, yd);
                        let s = _mm512_cvtepi32_ps(sums(x, yq));
                        acc[i] = _mm512_fmadd_ps(d, s, acc[i]);
                    }
                }
            }
            for (r, orow) in outs.chunks_mut(m).enumerate() {
                for (i, o) in orow[g0..g0 + rows].iter_mut().enumerate() {
                    let acc = acc[r][i];
                    let (mut even, odd) = (
                        _mm512_castps512_ps256(acc),
                        _mm512_extractf32x8_ps::<1>(acc),
                    );
                    if blocks % 2 == 1 {
                        let at = 2 * BLOCK * pairs;
                        let (x, y) = (&wrow(r)[at..], &arow(i)[at..]);
                        let d = _mm256_set1_ps(f16_at(x, 0) * f16_at(y, 0));
                        even = _mm256_fmadd_ps(d, q8_0_block(x, y), even);
                    }
                    *o = hsum(_mm256_add_ps(even, odd));
                }
            }
        }
    }
}

/// `out[j·m + i]` = the dot product of weight row `j` of `w` with activation row `i` of
/// `a` (m rows), both Q8_0 rows of `bytes` bytes, in 256-bit registers: per pair of
/// rows, the single-row kernel's even and odd accumulators, each block's scale product
/// and integer sums computed as it does. (It walks the tiles as `rows_avx512` does.)
///
/// The scale products d_x·d_y are made eight activation rows at a time, once per
/// weight block, and each sum takes its product by a broadcast load, which replaces
/// the scalar multiply and the broadcast from a register that were two of the seven
/// vector instructions per sum in the loop's assembly (a harness of this loop on a
/// Zen 3, activations in L1: 0.92–0.94 → 0.75–0.82 ns per block and pair of rows).
/// The activations come prepared once per matmul (`ActivationGroups`): the scales as
/// f32, and each pair of blocks' quants next to the same pair of the group's next row,
/// so the inner loop reads one run of memory.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn rows_avx2(w: &[u8], a: &[u8], groups: &ActivationGroups, bytes: usize, out: &mut [f32]) {
    let m = a.len() / bytes;
    let (blocks, pairs) = (bytes / BLOCK, bytes / BLOCK / 2);
    let ones = _mm256_set1_epi16(1);
    for (ws, outs) in w.chunks(WROWS * bytes).zip(out.chunks_mut(WROWS * m)) {
        let nr = outs.len() / m;
        // A tile with fewer weight rows repeats its last one (its sums are not stored).
        // Row slices taken once, not through closures: called in the inner loop, those
        // were not always inlined (7% of the kernel's time with 4 codegen units).
        let wrows: [&[u8]; WROWS] = std::array::from_fn(|r| &ws[r.min(nr - 1) * bytes..][..bytes]);
        for (g0, group) in (0..m).step_by(GROUP).zip(a.chunks(GROUP * bytes)) {
            let rows = GROUP.min(m - g0);
            // [even, odd] per weight row and activation row.
            let mut acc = [[[_mm256_setzero_ps(); 2]; GROUP]; WROWS];
            // d_x·d_y per block of the pair, weight row and activation row.
            let mut dxy = [[[0f32; GROUP]; WROWS]; 2];
            for p in 0..pairs {
                let at = 2 * BLOCK * p;
                // Per weight row and block of the pair: x and |x|.
                let wq: [[(__m256i, __m256i); 2]; WROWS] = std::array::from_fn(|r| {
                    std::array::from_fn(|h| {
                        let q = load(&wrows[r][at + h * BLOCK..], 2);
                        (q, _mm256_sign_epi8(q, q))
                    })
                });
                for (h, dxy_h) in dxy.iter_mut().enumerate() {
                    for (r, dxy_hr) in dxy_h.iter_mut().enumerate() {
                        let dx = _mm256_set1_ps(f16_at(wrows[r], at + h * BLOCK));
                        groups.products(2 * p + h, g0, rows, dx, dxy_hr);
                    }
                }
                for (i, yq) in groups.pair(g0, rows, p).iter().enumerate() {
                    for (r, (wq, acc)) in wq.iter().zip(acc.iter_mut()).enumerate() {
                        for (h, &(q, abs)) in wq.iter().enumerate() {
                            let p = _mm256_maddubs_epi16(abs, _mm256_sign_epi8(yq[h], q));
                            let s = _mm256_cvtepi32_ps(_mm256_madd_epi16(p, ones));
                            let d = _mm256_set1_ps(dxy[h][r][i]);
                            acc[i][h] = _mm256_fmadd_ps(d, s, acc[i][h]);
                        }
                    }
                }
            }
            for (r, orow) in outs.chunks_mut(m).enumerate() {
                let outs = orow[g0..g0 + rows]
                    .iter_mut()
                    .zip(group.chunks_exact(bytes));
                for (i, (o, arow)) in outs.enumerate() {
                    let [mut even, odd] = acc[r][i];
                    if blocks % 2 == 1 {
                        let at = 2 * BLOCK * pairs;
                        let (x, y) = (&wrows[r][at..], &arow[at..]);
                        let d = _mm256_set1_ps(f16_at(x, 0) * f16_at(y, 0));
                        even = _mm256_fmadd_ps(d, q8_0_block(x, y), even);
                    }
                    *o = hsum(_mm256_add_ps(even, odd));
                }
            }
        }
    }
}

/// m Q8_0 activation rows as `rows_avx2` reads them, made once per matmul
/// (`ActivationRows`).
/// - The scales as f32, block by block: `d[block · stride + i]` for row `i`, each
///   block's m scales padded with zeros to a multiple of 8. Converted again for each
///   call of `rows_avx2` (16 weight rows), they took most of the broadcast loads' gain
///   back (Q8_0 [4096, 4096] × 32 rows, one thread, Zen 3, best of 60 in five
///   alternating rounds: 16.9–18.0 ms before, 16.2–17.2 converted per call, 14.2–15.6
///   once per matmul).
/// - The quants of each whole pair of blocks, per group of `GROUP` rows: pair `p` of
///   the group's rows one after another, then pair `p + 1`. Read from the rows
///   themselves, each row's pair was the row stride (34 · blocks bytes) from the
///   last row's, across two or three cache lines (a harness of the tile's loop on a
///   Zen 3: 0.84–0.89 ns per block and pair of rows at the stride, 0.76–0.81 side by
///   side; Q8_0 [4096, 4096] × 32 rows, one thread, best of 25 in the quiet ones of
///   sixteen alternating rounds: 13.96–14.27 ms at the stride, 13.34–13.58 side by side).
pub struct ActivationGroups {
    d: Vec<f32>,
    stride: usize,
    q: Vec<[__m256i; 2]>,
    pairs: usize,
}

impl ActivationGroups {
    /// The Q8_0 rows of `a`, each `bytes` long (not 0), prepared.
    #[target_feature(enable = "avx2,f16c")]
    pub fn new(a: &[u8], bytes: usize) -> ActivationGroups {
        let m = a.len() / bytes;
        let stride = m.next_multiple_of(8);
        let mut d = vec![0f32; bytes / BLOCK * stride];
        for (i, row) in a.chunks_exact(bytes).enumerate() {
            for (b, block) in row.chunks_exact(BLOCK).enumerate() {
                d[b * stride + i] = f16_at(block, 0);
            }
        }
        let pairs = bytes / BLOCK / 2;
        let mut q = Vec::with_capacity(m * pairs);
        for group in a[..m * bytes].chunks(GROUP * bytes) {
            for p in 0..pairs {
                let at = 2 * BLOCK * p;
                q.extend(
                    group
                        .chunks_exact(bytes)
                        .map(|row| [load(row, at + 2), load(row, at + BLOCK + 2)]),
                );
            }
        }
        ActivationGroups {
            d,
            stride,
            q,
            pairs,
        }
    }

    /// The quants of pair `p` of blocks of the `rows` rows of the group from row `g0`,
    /// as `rows_avx2` walks the groups: `g0` a multiple of `GROUP` and `rows` =
    /// `GROUP.min(m - g0)`.
    #[inline]
    fn pair(&self, g0: usize, rows: usize, p: usize) -> &[[__m256i; 2]] {
        &self.q[g0 * self.pairs + p * rows..][..rows]
    }

    /// `out[i] = dx · d_y` of block `block` of activation rows `g0 + i` for `i` up to
    /// `rows` (rounded up to 8; `out` holds that many), with every lane of `dx` the
    /// weight block's scale.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn products(&self, block: usize, g0: usize, rows: usize, dx: __m256, out: &mut [f32]) {
        debug_assert!(out.len() >= rows.next_multiple_of(8));
        let ys = &self.d[block * self.stride + g0..][..rows.next_multiple_of(8)];
        for (o, y) in out
            .as_chunks_mut::<8>()
            .0
            .iter_mut()
            .zip(ys.as_chunks::<8>().0)
        {
            // SAFETY: `y` and `o` are 8 f32 each; the loads and stores need no alignment.
            unsafe {
                _mm256_storeu_ps(
                    o.as_mut_ptr(),
                    _mm256_mul_ps(dx, _mm256_loadu_ps(y.as_ptr())),
                )
            };
        }
    }
}

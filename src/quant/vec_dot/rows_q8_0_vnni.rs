//! Q8_0 weight rows against Q8_0 activation rows with AVX-512 VNNI, in register tiles
//! of 4 weight rows by up to 4 activation rows: the tile's 16 accumulators stay in
//! registers for a run of block pairs, so each step is one VNNI sum, one conversion,
//! the scale product and one FMA per pair of rows.
//!
//! The activations are packed once per matmul (`PackedActivations`): per pair of
//! blocks, the quants in one 512-bit register, the VNNI bias correction and the two
//! scales spread over their 8 lanes. A strip of 4 weight rows is packed once per run
//! of pairs (quants + 128 and spread scales) and used by every activation tile, and
//! the next strip of the same call is prefetched while this one is used. Against the
//! tile that packed both sides in its inner loop and kept 128 accumulators (spilled to
//! the stack), Q8_0 4096² × 32 activation rows, 1 thread, Zen 4, in a kernel harness
//! (each kernel alone, 15 alternating rounds of 8 calls, median of the rounds'
//! medians): 10.88 → 8.72 ms (best call 10.43 → 8.38); with 128 activation rows 40.85
//! → 31.68 ms, and 1024 weight rows × 512 activation rows 53.84 → 36.29 ms (2 calls a
//! round).
//!
//! Same bits as the AVX2 single-row kernel (see `rows_q8_0`): lanes 0-7 of a pair
//! accumulate the even blocks and lanes 8-15 the odd ones, each lane taking
//! `fma(d_x·d_y, Σ, acc)` in block order; a last odd block goes into the even half
//! before the AVX2 kernel's horizontal sum. VNNI multiplies unsigned by signed bytes,
//! so the weights enter as x + 128 and each activation pair's sums start from
//! −128·Σy: integer sums are exact, so this is Σ x·y.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX-512 F/BW/DQ/VL/VNNI on top of AVX2, FMA and F16C.

use std::arch::x86_64::*;

use super::avx2::{f16_at, hsum, q8_0_block};
use super::rows_q8_0::{quants, scales, spread, BLOCK};
use crate::kernels::cache::LINE;
use crate::kernels::prefetch;

/// Weight rows of a register tile (and of a packed strip).
const WROWS: usize = 4;
/// Activation rows of a full register tile.
const AROWS: usize = 4;
/// Block pairs per run: the strip packed for a run is 64 × 4 × 128 bytes (32 KiB).
const RUN: usize = 64;

/// A pair of activation blocks as the tiles read it.
struct ActPair {
    q: __m512i,
    /// −128·Σy per group of 4 quants: where each VNNI sum starts.
    start: __m512i,
    d: __m512,
}

/// A pair of weight blocks as the tiles read it.
#[derive(Clone, Copy)]
struct WeightPair {
    /// x + 128 (unsigned).
    q: __m512i,
    d: __m512,
}

/// Q8_0 activation rows packed for `rows_vnni`: every whole pair of blocks of each row.
pub struct PackedActivations {
    pairs: Vec<ActPair>,
    pairs_per_row: usize,
}

impl PackedActivations {
    /// Packs the Q8_0 rows of `a`, each `bytes` long.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni,avx2,f16c")]
    pub fn new(a: &[u8], bytes: usize) -> PackedActivations {
        let pairs_per_row = bytes / BLOCK / 2;
        let mut pairs = Vec::with_capacity(a.len() / bytes.max(1) * pairs_per_row);
        for row in a.chunks_exact(bytes.max(1)) {
            for p in 0..pairs_per_row {
                let y = &row[2 * BLOCK * p..];
                let q = quants(y);
                let shift = _mm512_dpbusd_epi32(_mm512_setzero_si512(), _mm512_set1_epi8(-128), q);
                pairs.push(ActPair {
                    q,
                    start: _mm512_sub_epi32(_mm512_setzero_si512(), shift),
                    d: spread(scales(y)),
                });
            }
        }
        PackedActivations {
            pairs,
            pairs_per_row,
        }
    }
}

#[target_feature(enable = "avx512f,avx2,f16c")]
#[inline]
fn weight_pair(x: &[u8]) -> WeightPair {
    WeightPair {
        q: _mm512_xor_si512(quants(x), _mm512_set1_epi8(-128)),
        d: spread(scales(x)),
    }
}

/// `out[j·m + i]` = the dot product of weight row `j` of `w` with activation row `i` of
/// `a` (m rows, packed in `packed`), both Q8_0 rows of `bytes` bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vnni,avx2,fma,f16c")]
pub fn rows_vnni(w: &[u8], a: &[u8], packed: &PackedActivations, bytes: usize, out: &mut [f32]) {
    let m = a.len() / bytes;
    let pairs = packed.pairs_per_row;
    let zero = WeightPair {
        q: _mm512_setzero_si512(),
        d: _mm512_setzero_ps(),
    };
    let mut strip = vec![[zero; WROWS]; RUN.min(pairs)];
    // Per activation row, the accumulators of the strip's weight rows.
    let mut acc = vec![[_mm512_setzero_ps(); WROWS]; m];
    for (s, (ws, outs)) in w
        .chunks(WROWS * bytes)
        .zip(out.chunks_mut(WROWS * m))
        .enumerate()
    {
        let nr = outs.len() / m;
        // A strip with fewer weight rows repeats its last one (its sums are not stored).
        let wrows: [&[u8]; WROWS] = std::array::from_fn(|r| &ws[r.min(nr - 1) * bytes..][..bytes]);
        let next_at = ((s + 1) * WROWS * bytes).min(w.len());
        let mut fetch = Fetch::new(
            &w[next_at..(next_at + WROWS * bytes).min(w.len())],
            pairs * m.div_ceil(AROWS),
        );
        for p0 in (0..pairs).step_by(RUN) {
            let run = RUN.min(pairs - p0);
            for (p, pair) in strip[..run].iter_mut().enumerate() {
                for (r, wp) in pair.iter_mut().enumerate() {
                    *wp = weight_pair(&wrows[r][2 * BLOCK * (p0 + p)..]);
                }
            }
            let strip = &strip[..run];
            let act = |i: usize| &packed.pairs[i * pairs + p0..][..run];
            let first = p0 == 0;
            for (t, acc) in acc.chunks_mut(AROWS).enumerate() {
                let i = t * AROWS;
                match acc.len() {
                    4 => tile::<4>(
                        strip,
                        [act(i), act(i + 1), act(i + 2), act(i + 3)],
                        acc,
                        first,
                        &mut fetch,
                    ),
                    3 => tile::<3>(
                        strip,
                        [act(i), act(i + 1), act(i + 2)],
                        acc,
                        first,
                        &mut fetch,
                    ),
                    2 => tile::<2>(strip, [act(i), act(i + 1)], acc, first, &mut fetch),
                    _ => tile::<1>(strip, [act(i)], acc, first, &mut fetch),
                }
            }
        }
        for (r, orow) in outs.chunks_mut(m).enumerate() {
            for (i, (o, acc)) in orow.iter_mut().zip(&acc).enumerate() {
                let (even, odd) = (
                    _mm512_castps512_ps256(acc[r]),
                    _mm512_extractf32x8_ps::<1>(acc[r]),
                );
                *o = finish(even, odd, wrows[r], &a[i * bytes..][..bytes]);
            }
        }
    }
}

/// A row's dot product from its sums over the even and the odd blocks of its pairs: a
/// last odd block of `x`·`y` goes into the even sums, then the two are added and summed
/// as the AVX2 kernel does.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline]
fn finish(mut even: __m256, odd: __m256, x: &[u8], y: &[u8]) -> f32 {
    let blocks = x.len() / BLOCK;
    if blocks % 2 == 1 {
        let at = BLOCK * (blocks - 1);
        let (x, y) = (&x[at..], &y[at..]);
        let d = _mm256_set1_ps(f16_at(x, 0) * f16_at(y, 0));
        even = _mm256_fmadd_ps(d, q8_0_block(x, y), even);
    }
    hsum(_mm256_add_ps(even, odd))
}

/// One register tile: the strip's weight rows by `C` activation rows over a run of
/// pairs, added to `acc` (or started from zero on the first run).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vnni,avx2,fma,f16c")]
#[inline]
fn tile<const C: usize>(
    strip: &[[WeightPair; WROWS]],
    act: [&[ActPair]; C],
    acc: &mut [[__m512; WROWS]],
    first: bool,
    fetch: &mut Fetch,
) {
    let mut sums = [[_mm512_setzero_ps(); WROWS]; C];
    if !first {
        for (s, a) in sums.iter_mut().zip(acc.iter()) {
            *s = *a;
        }
    }
    for (p, wp) in strip.iter().enumerate() {
        fetch.step();
        for (c, sums) in sums.iter_mut().enumerate() {
            let y = &act[c][p];
            for (s, x) in sums.iter_mut().zip(wp) {
                let dot = _mm512_dpbusd_epi32(y.start, x.q, y.q);
                let d = _mm512_mul_ps(x.d, y.d);
                *s = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(dot), *s);
            }
        }
    }
    for (a, s) in acc.iter_mut().zip(sums) {
        *a = s;
    }
}

/// Prefetches the next strip's weight bytes (within the call's weight rows), spread
/// evenly over the steps of this strip, at least a line a step. The weights (17 MiB
/// for 4096²) are read from L3 or memory; without this, each strip's first loads
/// waited (inferred from the harness above: 9.51 ms median without it, best 9.20).
struct Fetch<'a> {
    next: &'a [u8],
    /// Bytes asked for per step.
    per_step: usize,
    at: usize,
}

impl<'a> Fetch<'a> {
    fn new(next: &'a [u8], steps: usize) -> Fetch<'a> {
        let lines = next.len().div_ceil(LINE);
        Fetch {
            next,
            per_step: lines.div_ceil(steps.max(1)) * LINE,
            at: 0,
        }
    }

    #[inline]
    fn step(&mut self) {
        let end = (self.at + self.per_step).min(self.next.len());
        prefetch::ahead(&self.next[self.at..end], 0);
        self.at = end;
    }
}

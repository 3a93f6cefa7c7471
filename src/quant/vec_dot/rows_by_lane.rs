//! K-quant weight rows against many activation rows with AVX-512, one weight row per
//! i32 lane. A tile is 16 weight rows; each of its blocks is unpacked and transposed so
//! that lane `r` of register `g` holds quants `4g..4g + 4` of row `r`. Four activation
//! quants broadcast to every lane then take one `dpbusd` (maddubs and madd without
//! VNNI) for all 16 rows, and the integer sums stay in their lanes: a block ends with
//! one f32 step per 16 outputs, not a horizontal sum per output.
//!
//! The integers are exact and the f32 steps are the scalar twin's (`add_block`) lane by
//! lane, so every output has the bits of `vec_dot` for its rows.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has AVX2, FMA, F16C and AVX-512 F/BW, and AVX-512 VNNI
//! for the `_vnni` driver.

use std::arch::x86_64::*;

use crate::kernels::transpose16::transpose16;

use super::unpack::{KQuant, Q8K_BYTES};

/// Weight rows of a tile: one per i32 lane.
const LANES: usize = 16;
/// Activation rows per pass over a tile's weights (their accumulators live in memory).
const GROUP: usize = 64;
/// Activation rows sharing each weight register.
const QUAD: usize = 4;

/// One block of a tile's 16 weight rows, transposed.
struct Tile {
    /// Register `g`, lane `r`: quants `4g..4g + 4` of row `r` as unsigned bytes (Q6_K's
    /// biased by 32).
    q: [__m512i; 64],
    /// Register `s`, lane `r`: the scale of sub-block `s` of row `r` (Q4_K/Q5_K: 8
    /// sub-blocks of 32; Q6_K: 16 of 16).
    sc: [__m512i; 16],
    /// Register `p`, lane `r`: two i16 that `madd` pairs with activation bsums
    /// `2p, 2p + 1` — Q4_K/Q5_K: min `p` twice (the min term Σ min·bsum); Q6_K: scales
    /// `2p, 2p + 1` (the bias term Σ scale·bsum, times 32).
    pairs: [__m512i; 8],
    d: __m512,
    dmin: __m512,
}

/// Bytes `off..off + len` (len ≤ 64) of `x` in the low bytes of a register, zeros above.
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn load_part(x: &[u8], off: usize, len: usize) -> __m512i {
    let s = &x[off..off + len.min(64)];
    if s.is_empty() {
        return _mm512_setzero_si512();
    }
    let mask = u64::MAX >> (64 - s.len());
    // SAFETY: the mask selects exactly the bytes of `s`; masked-off bytes are neither
    // read nor able to fault.
    unsafe { _mm512_maskz_loadu_epi8(mask, s.as_ptr().cast()) }
}

/// Bytes `off..off + len` of the 16 blocks `xs`, transposed: register `c`, lane `r` is
/// the i32 at bytes `off + 4c..off + 4c + 4` of block `r` (zero past `len`).
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
fn transposed(xs: &[&[u8]; LANES], off: usize, len: usize) -> [__m512i; 16] {
    transpose16(&std::array::from_fn(|r| load_part(xs[r], off, len)))
}

/// The f16 in the low (`HIGH`: high) half of each i32 lane, as f32 (exact).
#[target_feature(enable = "avx512f")]
#[inline]
fn f16_lanes<const HIGH: bool>(v: __m512i) -> __m512 {
    let v = if HIGH { _mm512_srli_epi32::<16>(v) } else { v };
    _mm512_cvtph_ps(_mm512_cvtepi32_epi16(v))
}

/// Byte `k` of each i32 lane, zero-extended.
#[target_feature(enable = "avx512f")]
#[inline]
fn byte_lanes(v: __m512i, k: u32) -> __m512i {
    _mm512_and_si512(
        _mm512_srlv_epi32(v, _mm512_set1_epi32(8 * k as i32)),
        _mm512_set1_epi32(0xff),
    )
}

/// The 2-bit (`MASK` 3) or 1-bit (`MASK` 1) field at bit `b` of each byte, moved to
/// bits 4 and up.
#[target_feature(enable = "avx512f")]
#[inline]
fn high_bits<const MASK: i32>(v: __m512i, b: u32) -> __m512i {
    let field = _mm512_srlv_epi32(v, _mm512_set1_epi32(b as i32));
    _mm512_slli_epi32::<4>(_mm512_and_si512(field, _mm512_set1_epi8(MASK as i8)))
}

/// Q4_K/Q5_K scales and mins from the three scale words (`get_scale_min_k4`, lane by
/// lane): `tile.sc[0..8]` and the min pairs.
#[target_feature(enable = "avx512f")]
#[inline]
fn scales_mins(words: &[__m512i], tile: &mut Tile) {
    let [d1, d2, d3] = [words[0], words[1], words[2]];
    let low6 = |v| _mm512_and_si512(v, _mm512_set1_epi32(63));
    let top2 = |v, k| _mm512_slli_epi32::<4>(_mm512_srli_epi32::<6>(byte_lanes(v, k)));
    for k in 0..4u32 {
        let (s1, s2, s3) = (byte_lanes(d1, k), byte_lanes(d2, k), byte_lanes(d3, k));
        let i = k as usize;
        tile.sc[i] = low6(s1);
        let m_low = low6(s2);
        tile.sc[4 + i] = _mm512_or_si512(_mm512_and_si512(s3, _mm512_set1_epi32(15)), top2(d1, k));
        let m_high = _mm512_or_si512(_mm512_srli_epi32::<4>(s3), top2(d2, k));
        for (p, m) in [(i, m_low), (4 + i, m_high)] {
            tile.pairs[p] = _mm512_or_si512(m, _mm512_slli_epi32::<16>(m));
        }
    }
}

/// Fills `tile` with block `b` of the weight rows `ws` (`nr` rows of `wbytes`; lanes
/// past the last row repeat it, and their sums are not stored).
#[target_feature(enable = "avx512f,avx512bw")]
fn fill(kind: KQuant, (ws, wbytes, nr): (&[u8], usize, usize), b: usize, tile: &mut Tile) {
    let wb = kind.block_bytes();
    let xs: [&[u8]; LANES] = std::array::from_fn(|r| &ws[r.min(nr - 1) * wbytes + b * wb..][..wb]);
    // The 16 rows are 16 streams through memory: fetch each row's next block while
    // this one is used. In profiles of Q5_K × 32 rows (Zen 4), the first loads of a
    // block took 9% of all samples without this, and the loads plus the prefetches
    // 5% + 5% with it, against 25-27% in the dot products.
    for r in 0..nr.min(LANES) {
        if let Some(next) = ws.get(r * wbytes + (b + 1) * wb..r * wbytes + (b + 2) * wb) {
            for line in next.chunks(64) {
                _mm_prefetch::<_MM_HINT_T0>(line.as_ptr().cast());
            }
        }
    }
    let nibbles = _mm512_set1_epi8(0x0f);
    let low = |v| _mm512_and_si512(v, nibbles);
    let up = |v| _mm512_and_si512(_mm512_srli_epi16::<4>(v), nibbles);
    match kind {
        KQuant::Q4K | KQuant::Q5K => {
            // Q4_K: d, dmin, 12 scale bytes, 128 quant bytes. Q5_K: the same with the
            // 32 fifth-bit bytes (qh) before the quants.
            let q5 = kind == KQuant::Q5K;
            let head = transposed(&xs, 0, if q5 { 48 } else { 16 });
            let qs_at = if q5 { 48 } else { 16 };
            let (qa, qb) = (transposed(&xs, qs_at, 64), transposed(&xs, qs_at + 64, 64));
            // Quant word c holds values 64j + 4c' .. (low nibbles) and 64j + 32 + 4c' ..
            // (high nibbles), j = c / 8, c' = c % 8; qh bit 2j (low) or 2j + 1 (high).
            for c in 0..32 {
                let word = if c < 16 { qa[c] } else { qb[c - 16] };
                let (j, c8) = (c / 8, c % 8);
                let (mut lo, mut hi) = (low(word), up(word));
                if q5 {
                    let qh = head[4 + c8];
                    lo = _mm512_or_si512(lo, high_bits::<1>(qh, 2 * j as u32));
                    hi = _mm512_or_si512(hi, high_bits::<1>(qh, 2 * j as u32 + 1));
                }
                tile.q[16 * j + c8] = lo;
                tile.q[16 * j + 8 + c8] = hi;
            }
            scales_mins(&head[1..4], tile);
            (tile.d, tile.dmin) = (f16_lanes::<false>(head[0]), f16_lanes::<true>(head[0]));
        }
        KQuant::Q6K => {
            // 128 low-nibble bytes (ql), 64 bytes of 2-bit pairs (qh), 16 i8 scales, d.
            let (la, lb) = (transposed(&xs, 0, 64), transposed(&xs, 64, 64));
            let qh = transposed(&xs, 128, 64);
            let tail = transposed(&xs, 192, 18);
            // Values 128h + 32p + 4c' ..: ql word 16h + 8(p % 2) + c' (low nibbles for
            // p < 2), qh word 8h + c' bits 2p, 2p + 1.
            for h in 0..2 {
                for p in 0..4 {
                    for c8 in 0..8 {
                        let w = 16 * h + 8 * (p % 2) + c8;
                        let word = if w < 16 { la[w] } else { lb[w - 16] };
                        let nib = if p < 2 { low(word) } else { up(word) };
                        let hb = high_bits::<3>(qh[8 * h + c8], 2 * p as u32);
                        tile.q[32 * h + 8 * p + c8] = _mm512_or_si512(nib, hb);
                    }
                }
            }
            for s in 0..16 {
                let word =
                    _mm512_sllv_epi32(tail[s / 4], _mm512_set1_epi32(24 - 8 * (s % 4) as i32));
                tile.sc[s] = _mm512_srai_epi32::<24>(word);
            }
            for p in 0..8 {
                let lo = _mm512_and_si512(tile.sc[2 * p], _mm512_set1_epi32(0xffff));
                tile.pairs[p] = _mm512_or_si512(lo, _mm512_slli_epi32::<16>(tile.sc[2 * p + 1]));
            }
            (tile.d, tile.dmin) = (f16_lanes::<false>(tail[4]), _mm512_setzero_ps());
        }
    }
}

/// The i32 at bytes `off..off + 4` of an activation block, in every lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn broadcast(y: &[u8; Q8K_BYTES], off: usize) -> __m512i {
    _mm512_set1_epi32(i32::from_le_bytes([
        y[off],
        y[off + 1],
        y[off + 2],
        y[off + 3],
    ]))
}

/// The drivers: `$dot(acc, w, y)` adds the products of unsigned bytes `w` and signed
/// bytes `y`, four per i32 lane; `$pair_dot(acc, p, y)` adds the products of i16 pairs.
macro_rules! driver {
    ($name:ident, $generic:ident, $quad:ident, $features:literal, $dot:expr, $pair_dot:expr) => {
        /// `R` activation rows (`ys`, their blocks at one block index) against a tile:
        /// each accumulator plus the block's f32 step, lane by lane.
        #[target_feature(enable = $features)]
        #[inline]
        fn $quad<const R: usize, const MINS: bool>(
            tile: &Tile,
            ys: [&[u8; Q8K_BYTES]; R],
            acc: &mut [__m512],
        ) {
            let zero = _mm512_setzero_si512();
            // Sub-blocks of 32 (Q4_K/Q5_K) or 16 (Q6_K) values: 8 or 4 registers each.
            let (subs, per) = if MINS { (8, 8) } else { (16, 4) };
            let mut isum = [zero; R];
            for s in 0..subs {
                // Two chains per row, so the dot products overlap.
                let mut t = [[zero; 2]; R];
                for g in s * per..(s + 1) * per {
                    let w = tile.q[g];
                    for i in 0..R {
                        t[i][g % 2] = $dot(t[i][g % 2], w, broadcast(ys[i], 4 + 4 * g));
                    }
                }
                for i in 0..R {
                    let sums = _mm512_add_epi32(t[i][0], t[i][1]);
                    isum[i] = _mm512_add_epi32(isum[i], _mm512_mullo_epi32(sums, tile.sc[s]));
                }
            }
            let mut bsum_term = [zero; R];
            for p in 0..8 {
                for i in 0..R {
                    let bsums = broadcast(ys[i], 260 + 4 * p);
                    bsum_term[i] = $pair_dot(bsum_term[i], tile.pairs[p], bsums);
                }
            }
            for i in 0..R {
                let yd = f32::from_le_bytes([ys[i][0], ys[i][1], ys[i][2], ys[i][3]]);
                let d = _mm512_mul_ps(_mm512_set1_ps(yd), tile.d);
                if MINS {
                    let a = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(isum[i]), acc[i]);
                    let dmin = _mm512_mul_ps(_mm512_set1_ps(-yd), tile.dmin);
                    acc[i] = _mm512_fmadd_ps(dmin, _mm512_cvtepi32_ps(bsum_term[i]), a);
                } else {
                    // Σ scale·(u − 32)·y = Σ scale·u·y − 32·Σ scale·bsum.
                    let bias = _mm512_slli_epi32::<5>(bsum_term[i]);
                    let sums = _mm512_sub_epi32(isum[i], bias);
                    acc[i] = _mm512_fmadd_ps(d, _mm512_cvtepi32_ps(sums), acc[i]);
                }
            }
        }

        #[target_feature(enable = $features)]
        fn $generic<const MINS: bool>(
            kind: KQuant,
            (w, wbytes): (&[u8], usize),
            (a, abytes): (&[u8], usize),
            out: &mut [f32],
        ) {
            let m = a.len() / abytes;
            let blocks = (wbytes / kind.block_bytes()).min(abytes / Q8K_BYTES);
            let per_row = abytes / Q8K_BYTES;
            let ablocks = a.as_chunks::<Q8K_BYTES>().0;
            let zero = _mm512_setzero_si512();
            let mut tile = Tile {
                q: [zero; 64],
                sc: [zero; 16],
                pairs: [zero; 8],
                d: _mm512_setzero_ps(),
                dmin: _mm512_setzero_ps(),
            };
            for (ws, outs) in w.chunks(LANES * wbytes).zip(out.chunks_mut(LANES * m)) {
                let nr = outs.len() / m;
                for g0 in (0..m).step_by(GROUP) {
                    let rows = GROUP.min(m - g0);
                    let mut acc = [_mm512_setzero_ps(); GROUP];
                    for b in 0..blocks {
                        fill(kind, (ws, wbytes, nr), b, &mut tile);
                        let y = |i: usize| &ablocks[(g0 + i) * per_row + b];
                        for i in (0..rows).step_by(QUAD) {
                            let (t, acc) = (&tile, &mut acc[i..]);
                            match rows - i {
                                1 => $quad::<1, MINS>(t, [y(i)], acc),
                                2 => $quad::<2, MINS>(t, [y(i), y(i + 1)], acc),
                                3 => $quad::<3, MINS>(t, std::array::from_fn(|k| y(i + k)), acc),
                                _ => $quad::<QUAD, MINS>(t, std::array::from_fn(|k| y(i + k)), acc),
                            }
                        }
                    }
                    for (i, acc) in acc[..rows].iter().enumerate() {
                        let mut lanes = [0f32; LANES];
                        // SAFETY: `lanes` is 16 writable f32; no alignment is required.
                        unsafe { _mm512_storeu_ps(lanes.as_mut_ptr(), *acc) };
                        for (orow, v) in outs.chunks_mut(m).zip(lanes) {
                            orow[g0 + i] = v;
                        }
                    }
                }
            }
        }

        /// `out[j·m + i]` = the dot product of weight row `j` of `w` (rows of `wbytes`,
        /// whole `kind` blocks) with activation row `i` of `a` (m Q8_K rows of `abytes`).
        #[target_feature(enable = $features)]
        pub fn $name(kind: KQuant, w: (&[u8], usize), a: (&[u8], usize), out: &mut [f32]) {
            match kind {
                KQuant::Q6K => $generic::<false>(kind, w, a, out),
                _ => $generic::<true>(kind, w, a, out),
            }
        }
    };
}

driver!(
    rows_avx512,
    generic_avx512,
    quad_avx512,
    "avx512f,avx512bw,avx2,fma,f16c",
    |acc, w, y| {
        let pairs = _mm512_maddubs_epi16(w, y);
        _mm512_add_epi32(acc, _mm512_madd_epi16(pairs, _mm512_set1_epi16(1)))
    },
    |acc, p, y| _mm512_add_epi32(acc, _mm512_madd_epi16(p, y))
);
driver!(
    rows_vnni,
    generic_vnni,
    quad_vnni,
    "avx512f,avx512bw,avx512vnni,avx2,fma,f16c",
    |acc, w, y| _mm512_dpbusd_epi32(acc, w, y),
    |acc, p, y| _mm512_dpwssd_epi32(acc, p, y)
);

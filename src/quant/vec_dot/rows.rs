//! K-quant weight rows against many activation rows, the fused matmul's kernel when a
//! batch has more than one row. The work goes in tiles of a few weight rows by a group
//! of activation rows: each weight block is unpacked once per tile — quants to unsigned
//! bytes lined up with the activations, scales to i16 lanes — and each activation block
//! is loaded once per tile, so unpacking and loads are shared instead of paid per pair.
//!
//! Per pair of rows, the integer lanes are exactly the single-row kernel's (integer sums
//! are exact in any order) and the f32 steps are the same FMAs in the same order, so
//! every output has the bits of `vec_dot` for its rows, on every ISA.
//!
//! These are `#[target_feature]` functions: callers must have checked (via
//! `Isa::detect`) that the CPU has the AVX2 set, AVX-512 F/BW for the `_avx512` driver
//! and AVX-512 VNNI as well for the `_vnni` one.

use std::arch::x86_64::*;

use super::avx2::{f16_at, f32_at, hsum, hsum128, load, load128};
use crate::quant::blocks::unpack_scales_mins;

/// Weight rows of a tile: each activation block loaded is used this many times.
const WROWS: usize = 4;
/// Activation rows of a tile: each weight block unpacked is used this many times.
const GROUP: usize = 32;
/// Bytes of a Q8_K activation block.
const Q8K_BYTES: usize = 292;

/// The weight K-quants with a many-row kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum KQuant {
    Q4K,
    Q5K,
    Q6K,
}

impl KQuant {
    fn block_bytes(self) -> usize {
        match self {
            KQuant::Q4K => 144,
            KQuant::Q5K => 176,
            KQuant::Q6K => 210,
        }
    }
}

/// One weight block, unpacked.
#[derive(Clone, Copy)]
struct Unpacked {
    /// The quants as unsigned bytes (Q6_K's biased by 32): run `r` lines up with
    /// activation quants `32r..32r + 32`.
    u: [__m256i; 8],
    /// The scales as i16: words 0-7 scale the first 16 values of run `r`, words 8-15
    /// the last 16.
    sc: [__m256i; 8],
    /// Q4_K/Q5_K: the 8 sub-block mins as i16.
    mins: __m128i,
    d: f32,
    dmin: f32,
}

#[target_feature(enable = "avx2")]
fn empty() -> Unpacked {
    let zero = _mm256_setzero_si256();
    Unpacked {
        u: [zero; 8],
        sc: [zero; 8],
        mins: _mm_setzero_si128(),
        d: 0.0,
        dmin: 0.0,
    }
}

/// Unpacks weight block `x` into `w` (in place: the block is large, and a returned
/// copy would cost more than the unpacking).
#[target_feature(enable = "avx2,f16c")]
fn unpack(kind: KQuant, x: &[u8], w: &mut Unpacked) {
    let m4 = _mm256_set1_epi8(0x0f);
    match kind {
        KQuant::Q4K | KQuant::Q5K => {
            let mut packed = [0u8; 12];
            packed.copy_from_slice(&x[4..16]);
            let sm = unpack_scales_mins(&packed);
            let (qs_at, qh) = match kind {
                KQuant::Q5K => (48, load(x, 16)),
                _ => (16, _mm256_setzero_si256()),
            };
            // 16 where bit `b` of the qh byte is set, else 0 (always 0 for Q4_K).
            let high = |b: usize| {
                let m = _mm256_set1_epi8(1 << b);
                let set = _mm256_cmpeq_epi8(_mm256_and_si256(qh, m), m);
                _mm256_and_si256(set, _mm256_set1_epi8(16))
            };
            for j in 0..4 {
                let q = load(x, qs_at + 32 * j);
                let (lo, hi) = (q, _mm256_srli_epi16::<4>(q));
                w.u[2 * j] = _mm256_or_si256(_mm256_and_si256(lo, m4), high(2 * j));
                w.u[2 * j + 1] = _mm256_or_si256(_mm256_and_si256(hi, m4), high(2 * j + 1));
            }
            for (sc, &s) in w.sc.iter_mut().zip(&sm[..8]) {
                *sc = _mm256_set1_epi16(s as i16);
            }
            w.mins = _mm256_extracti128_si256::<1>(_mm256_cvtepu8_epi16(load128(&sm, 0)));
            (w.d, w.dmin) = (f16_at(x, 0), f16_at(x, 2));
        }
        KQuant::Q6K => {
            let m2 = _mm256_set1_epi8(3);
            let high = |v: __m256i| _mm256_slli_epi16::<4>(_mm256_and_si256(v, m2));
            let low = |v: __m256i| _mm256_and_si256(v, m4);
            let up = |v: __m256i| _mm256_srli_epi16::<4>(v);
            for h in 0..2 {
                let (ql1, ql2, qh) = (load(x, 64 * h), load(x, 64 * h + 32), load(x, 128 + 32 * h));
                w.u[4 * h] = _mm256_or_si256(low(ql1), high(qh));
                w.u[4 * h + 1] = _mm256_or_si256(low(ql2), high(_mm256_srli_epi16::<2>(qh)));
                w.u[4 * h + 2] = _mm256_or_si256(low(up(ql1)), high(up(qh)));
                w.u[4 * h + 3] = _mm256_or_si256(low(up(ql2)), high(_mm256_srli_epi16::<6>(qh)));
            }
            let scale = |i: usize| _mm_set1_epi16(x[192 + i] as i8 as i16);
            for (r, sc) in w.sc.iter_mut().enumerate() {
                *sc = _mm256_set_m128i(scale(2 * r + 1), scale(2 * r));
            }
            w.mins = _mm_setzero_si128();
            (w.d, w.dmin) = (f16_at(x, 208), 0.0);
        }
    }
}

/// One activation block, loaded once for all the weight rows of a tile.
struct Act<V> {
    /// The quants: 8 runs of 32 (256-bit) or 4 pairs of runs (512-bit).
    q: V,
    /// `maddubs(32, q)` per register, for the biased Q6_K quants (zero otherwise).
    q32: V,
    /// Q4_K/Q5_K: bsums added in pairs, the sums the min term multiplies.
    pair_sums: __m128i,
    d: f32,
}

#[target_feature(enable = "avx2")]
#[inline]
fn pair_sums<const MINS: bool>(y: &[u8]) -> __m128i {
    if !MINS {
        return _mm_setzero_si128();
    }
    let bsums = load(y, 260);
    _mm_hadd_epi16(
        _mm256_castsi256_si128(bsums),
        _mm256_extracti128_si256::<1>(bsums),
    )
}

#[target_feature(enable = "avx2")]
#[inline]
fn act_avx2<const MINS: bool, const OFFSET: bool>(y: &[u8]) -> Act<[__m256i; 8]> {
    let q: [__m256i; 8] = std::array::from_fn(|r| load(y, 4 + 32 * r));
    let m32 = _mm256_set1_epi8(32);
    Act {
        q,
        q32: std::array::from_fn(|r| match OFFSET {
            true => _mm256_maddubs_epi16(m32, q[r]),
            false => _mm256_setzero_si256(),
        }),
        pair_sums: pair_sums::<MINS>(y),
        d: f32_at(y, 0),
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx2")]
#[inline]
fn act_avx512<const MINS: bool, const OFFSET: bool>(y: &[u8]) -> Act<[__m512i; 4]> {
    let q: [__m512i; 4] =
        std::array::from_fn(|j| halves(load(y, 4 + 64 * j), load(y, 36 + 64 * j)));
    let m32 = _mm512_set1_epi8(32);
    Act {
        q,
        q32: std::array::from_fn(|j| match OFFSET {
            true => _mm512_maddubs_epi16(m32, q[j]),
            false => _mm512_setzero_si512(),
        }),
        pair_sums: pair_sums::<MINS>(y),
        d: f32_at(y, 0),
    }
}

/// `acc_m` plus a Q4_K/Q5_K block's min term, −d_y·dmin·Σ m·bsum, in 4 lanes: lane `l`
/// takes sub-blocks 2l and 2l + 1 (the single-row kernel's lanes).
#[target_feature(enable = "avx2,fma")]
#[inline]
fn min_term<V>(w: &Unpacked, y: &Act<V>, acc_m: __m128) -> __m128 {
    let m = _mm_madd_epi16(w.mins, y.pair_sums);
    let dmin = _mm_set1_ps(-y.d * w.dmin);
    _mm_fmadd_ps(dmin, _mm_cvtepi32_ps(m), acc_m)
}

/// `acc` plus a block's 8 integer lanes times d_y·d.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn scaled<V>(w: &Unpacked, y: &Act<V>, sumi: __m256i, acc: __m256) -> __m256 {
    let d = _mm256_set1_ps(y.d * w.d);
    _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(sumi), acc)
}

/// One block of one pair with 256-bit registers. `OFFSET`: the quants are biased by 32,
/// taken off as u·y − 32·y so maddubs sees unsigned weights.
#[target_feature(enable = "avx2,fma")]
#[inline]
fn block_avx2<const MINS: bool, const OFFSET: bool>(
    w: &Unpacked,
    _: &(),
    y: &Act<[__m256i; 8]>,
    acc: &mut __m256,
    acc_m: &mut __m128,
) {
    if MINS {
        *acc_m = min_term(w, y, *acc_m);
    }
    let mut sumi = _mm256_setzero_si256();
    for r in 0..8 {
        let mut p = _mm256_maddubs_epi16(w.u[r], y.q[r]);
        if OFFSET {
            p = _mm256_sub_epi16(p, y.q32[r]);
        }
        sumi = _mm256_add_epi32(sumi, _mm256_madd_epi16(w.sc[r], p));
    }
    *acc = scaled(w, y, sumi, *acc);
}

/// A weight block with pairs of runs side by side in 512-bit registers.
struct Wide {
    u: [__m512i; 4],
    sc: [__m512i; 4],
}

#[target_feature(enable = "avx512f")]
#[inline]
fn halves(lo: __m256i, hi: __m256i) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
}

#[target_feature(enable = "avx512f")]
fn empty_wide() -> Wide {
    let zero = _mm512_setzero_si512();
    Wide {
        u: [zero; 4],
        sc: [zero; 4],
    }
}

/// `wide` set to the runs of `w` in pairs.
#[target_feature(enable = "avx512f")]
#[inline]
fn widen(w: &Unpacked, wide: &mut Wide) {
    for j in 0..4 {
        wide.u[j] = halves(w.u[2 * j], w.u[2 * j + 1]);
        wide.sc[j] = halves(w.sc[2 * j], w.sc[2 * j + 1]);
    }
}

/// One block of one pair with 512-bit registers: two runs per step, the 16 i32 lanes
/// folded to the 8 of the 256-bit kernel (lane l plus lane l + 8) before the FMA.
/// `$scale_add` adds the scaled i16 pairs into the i32 lanes (one VNNI instruction
/// where the CPU has it).
macro_rules! block_512 {
    ($name:ident, $features:literal, $scale_add:expr) => {
        #[target_feature(enable = $features)]
        #[inline]
        fn $name<const MINS: bool, const OFFSET: bool>(
            w: &Unpacked,
            wide: &Wide,
            y: &Act<[__m512i; 4]>,
            acc: &mut __m256,
            acc_m: &mut __m128,
        ) {
            if MINS {
                *acc_m = min_term(w, y, *acc_m);
            }
            let mut sums = _mm512_setzero_si512();
            for j in 0..4 {
                let mut p = _mm512_maddubs_epi16(wide.u[j], y.q[j]);
                if OFFSET {
                    p = _mm512_sub_epi16(p, y.q32[j]);
                }
                sums = $scale_add(sums, wide.sc[j], p);
            }
            let sumi = _mm256_add_epi32(
                _mm512_castsi512_si256(sums),
                _mm512_extracti64x4_epi64::<1>(sums),
            );
            *acc = scaled(w, y, sumi, *acc);
        }
    };
}

block_512!(block_avx512, "avx512f,avx512bw,avx2,fma", |sums, sc, p| {
    _mm512_add_epi32(sums, _mm512_madd_epi16(sc, p))
});
block_512!(
    block_vnni,
    "avx512f,avx512bw,avx512vnni,avx2,fma",
    |sums, sc, p| _mm512_dpwssd_epi32(sums, sc, p)
);

/// The drivers. A tile is up to `WROWS` weight rows by up to `GROUP` activation rows;
/// for each block, the tile's weight blocks are unpacked (and `$prepare`d for the
/// kernel) and each activation block is loaded once (`$act`) and added into the
/// accumulators of every weight row. The totals are the single-row kernel's horizontal
/// sums.
macro_rules! driver {
    (
        $name:ident,
        $features:literal,
        $generic:ident,
        ($empty:expr, $prepare:expr),
        $act:ident,
        $block:ident
    ) => {
        #[target_feature(enable = $features)]
        fn $generic<const MINS: bool, const OFFSET: bool>(
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
                    let mut acc = [[_mm256_setzero_ps(); GROUP]; WROWS];
                    let mut acc_m = [[_mm_setzero_ps(); GROUP]; WROWS];
                    let mut unpacked: [Unpacked; WROWS] = std::array::from_fn(|_| empty());
                    let mut extra: [_; WROWS] = std::array::from_fn(|_| $empty);
                    for b in 0..blocks {
                        // A tile with fewer weight rows repeats its last one (its sums
                        // are not stored), keeping the inner loop free of branches.
                        for r in 0..WROWS {
                            let x = &ws[r.min(nr - 1) * wbytes + b * wb..][..wb];
                            unpack(kind, x, &mut unpacked[r]);
                            $prepare(&unpacked[r], &mut extra[r]);
                        }
                        for i in 0..rows {
                            let y = &a[(g0 + i) * abytes + b * Q8K_BYTES..][..Q8K_BYTES];
                            let act = $act::<MINS, OFFSET>(y);
                            for r in 0..WROWS {
                                let (acc, acc_m) = (&mut acc[r][i], &mut acc_m[r][i]);
                                $block::<MINS, OFFSET>(&unpacked[r], &extra[r], &act, acc, acc_m);
                            }
                        }
                    }
                    for (r, orow) in outs.chunks_mut(m).enumerate() {
                        for (i, o) in orow[g0..g0 + rows].iter_mut().enumerate() {
                            *o = if MINS {
                                hsum(acc[r][i]) + hsum128(acc_m[r][i])
                            } else {
                                hsum(acc[r][i])
                            };
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
                KQuant::Q6K => $generic::<false, true>(kind, w, a, out),
                _ => $generic::<true, false>(kind, w, a, out),
            }
        }
    };
}

driver!(
    rows_avx2,
    "avx2,fma,f16c",
    generic_avx2,
    ((), |_: &Unpacked, _: &mut ()| ()),
    act_avx2,
    block_avx2
);
driver!(
    rows_avx512,
    "avx512f,avx512bw,avx2,fma,f16c",
    generic_avx512,
    (empty_wide(), widen),
    act_avx512,
    block_avx512
);
driver!(
    rows_vnni,
    "avx512f,avx512bw,avx512vnni,avx2,fma,f16c",
    generic_vnni,
    (empty_wide(), widen),
    act_avx512,
    block_vnni
);

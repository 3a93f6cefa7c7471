//! Bᵀ along one input row of a Winograd F(2×2, 3×3) band: each 2-wide step of the row
//! starts a tile reading four values, d = row[2t..2t + 4], and gives
//! Bᵀ d = (d0 - d2, d1 + d2, d2 - d1, d1 - d3). The tiles overlap and step by two, so
//! a vector of tiles needs the row's even and odd elements apart: the AVX-512 kernel
//! takes them with two-register permutes, the AVX2 one with in-lane shuffles and a
//! permute, and the scalar build (and AVX2's last tiles short of 8) splits the row
//! first and lets the compiler vectorize the four lines. One subtraction or addition
//! per value either way: the same bits.
//!
//! Split here from the band's transform because rows are short (a 56-wide image gives
//! 28 tiles): in an annotated profile of the AVX-512 build, the split loops over 28
//! tiles ran as 4-wide (xmm) loops, the compiler's wide loop not taking rows so short.

use crate::kernels::isa::Isa;
use crate::kernels::twin::twin;

/// Bᵀ d for the `tw` tiles of `row` (2·tw + 2 values): tile t's four values to
/// `out[at[j] + t]`, j = 0..4 (four ranges of `tw` that do not overlap). `split` is
/// scratch for 2·tw + 2 values.
///
/// # Panics
/// When a slice is too short (the caller sizes them so that it cannot fire).
pub fn row_tiles(
    isa: Isa,
    row: &[f32],
    tw: usize,
    out: &mut [f32],
    at: [usize; 4],
    split: &mut [f32],
) {
    // Cannot fire: see "Panics".
    assert!(
        row.len() == 2 * tw + 2
            && split.len() >= 2 * tw + 2
            && at.iter().all(|&a| a <= out.len() && tw <= out.len() - a),
        "Winograd row operand too short"
    );
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() {
        // SAFETY: an `Isa` with AVX-512 exists only on a CPU that has AVX-512 F;
        // `row` holds 2·tw + 2 values and `out` each range, checked above.
        return unsafe { row_tiles_avx512(row, tw, out, at) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: an `Isa` with AVX2 exists only on a CPU that has it;
        // `row` holds 2·tw + 2 values and `out` each range, checked above.
        let done = unsafe { row_tiles_avx2(row, tw, out, at) };
        if done < tw {
            let at = at.map(|a| a + done);
            split_row_tiles(isa, &row[2 * done..], tw - done, out, at, split);
        }
        return;
    }
    split_row_tiles(isa, row, tw, out, at, split);
}

twin! {
    /// `row_tiles` through the row split into its even and odd elements.
    fn split_row_tiles[](
        row: &[f32],
        tw: usize,
        out: &mut [f32],
        at: [usize; 4],
        split: &mut [f32],
    ) {
        let (even, odd) = split[..2 * tw + 2].split_at_mut(tw + 1);
        for ((e, o), pair) in even.iter_mut().zip(odd.iter_mut()).zip(row.chunks_exact(2)) {
            (*e, *o) = (pair[0], pair[1]);
        }
        let (a, b, c, d) = (&even[..tw], &odd[..tw], &even[1..], &odd[1..]);
        for (o, (&p, &q)) in out[at[0]..][..tw].iter_mut().zip(a.iter().zip(c)) {
            *o = p - q;
        }
        for (o, (&p, &q)) in out[at[1]..][..tw].iter_mut().zip(b.iter().zip(c)) {
            *o = p + q;
        }
        for (o, (&p, &q)) in out[at[2]..][..tw].iter_mut().zip(c.iter().zip(b)) {
            *o = p - q;
        }
        for (o, (&p, &q)) in out[at[3]..][..tw].iter_mut().zip(b.iter().zip(d)) {
            *o = p - q;
        }
    }
}

/// `row_tiles` 16 tiles at a time: the 34 values they read come in as four masked
/// loads (from 2t and from 2t + 2), and two-register permutes pick d0..d3.
///
/// # Safety
/// The CPU has AVX-512 F; `row` holds 2·tw + 2 values and `out[at[j]..][..tw]` is in
/// bounds for each j.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn row_tiles_avx512(row: &[f32], tw: usize, out: &mut [f32], at: [usize; 4]) {
    use std::arch::x86_64::*;
    let len = 2 * tw + 2;
    // The lanes of a 16-value load from `from` that fall inside the row.
    let inside = |from: usize| {
        let n = len.saturating_sub(from).min(16);
        ((1u32 << n) - 1) as __mmask16
    };
    let (r, o) = (row.as_ptr(), out.as_mut_ptr());
    // SAFETY: the caller guarantees AVX-512 F and the lengths above. Loads read only
    // the lanes inside the row (pointers past it are formed with `wrapping_add` and not
    // read); tile t < tw reads row[2t..2t + 4], inside the 2·tw + 2 values, so masked
    // lanes only reach tiles past tw, which are not stored.
    unsafe {
        let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        for s in (0..tw).step_by(16) {
            let load = |from: usize| _mm512_maskz_loadu_ps(inside(from), r.wrapping_add(from));
            let (lo, hi) = (load(2 * s), load(2 * s + 16));
            let (lo2, hi2) = (load(2 * s + 2), load(2 * s + 18));
            let d0 = _mm512_permutex2var_ps(lo, even, hi);
            let d1 = _mm512_permutex2var_ps(lo, odd, hi);
            let d2 = _mm512_permutex2var_ps(lo2, even, hi2);
            let d3 = _mm512_permutex2var_ps(lo2, odd, hi2);
            let tiles = ((1u32 << (tw - s).min(16)) - 1) as __mmask16;
            let store = |j: usize, v: __m512| _mm512_mask_storeu_ps(o.add(at[j] + s), tiles, v);
            store(0, _mm512_sub_ps(d0, d2));
            store(1, _mm512_add_ps(d1, d2));
            store(2, _mm512_sub_ps(d2, d1));
            store(3, _mm512_sub_ps(d1, d3));
        }
    }
}

/// `row_tiles` for the whole runs of 8 tiles (the tiles done are returned): the 18
/// values 8 tiles read come in as two pairs of loads (from 2t and from 2t + 2), and
/// in-lane shuffles with a cross-lane permute split each pair into its even and odd
/// elements, d0..d3.
///
/// # Safety
/// The CPU has AVX2; `row` holds 2·tw + 2 values and `out[at[j]..][..tw]` is in bounds
/// for each j.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_tiles_avx2(row: &[f32], tw: usize, out: &mut [f32], at: [usize; 4]) -> usize {
    use std::arch::x86_64::*;
    let whole = tw / 8 * 8;
    let (r, o) = (row.as_ptr(), out.as_mut_ptr());
    // Elements 0, 2, .. 14 (EVEN) or 1, 3, .. 15 (ODD) of the 16 values at `from`: the
    // shuffle takes them in 64-bit pairs, lane by lane, and the permute puts the pairs
    // in order.
    const EVEN: i32 = 0b10_00_10_00;
    const ODD: i32 = 0b11_01_11_01;
    // SAFETY: the caller guarantees AVX2 and the lengths above. Tiles s..s + 8 with
    // s + 8 ≤ tw read row[2s..2s + 18], inside its 2·tw + 2 values, and are stored at
    // out[at[j] + s..][..8], inside each range.
    unsafe {
        let evens_odds = |from: usize| {
            let (lo, hi) = (
                _mm256_loadu_ps(r.add(from)),
                _mm256_loadu_ps(r.add(from + 8)),
            );
            let pick = |v: __m256| {
                _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(v)))
            };
            (
                pick(_mm256_shuffle_ps::<EVEN>(lo, hi)),
                pick(_mm256_shuffle_ps::<ODD>(lo, hi)),
            )
        };
        for s in (0..whole).step_by(8) {
            let ((d0, d1), (d2, d3)) = (evens_odds(2 * s), evens_odds(2 * s + 2));
            let store = |j: usize, v: __m256| _mm256_storeu_ps(o.add(at[j] + s), v);
            store(0, _mm256_sub_ps(d0, d2));
            store(1, _mm256_add_ps(d1, d2));
            store(2, _mm256_sub_ps(d2, d1));
            store(3, _mm256_sub_ps(d1, d3));
        }
    }
    whole
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isa_gives_the_bits_of_the_definition() {
        let mut seed = 7u32;
        for tw in [1, 2, 7, 15, 16, 17, 28, 31, 32, 33, 50] {
            let row: Vec<f32> = (0..2 * tw + 2)
                .map(|_| {
                    seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (seed >> 8) as f32 / (1 << 20) as f32 - 8.0
                })
                .collect();
            // Four ranges with gaps between them, which must stay untouched.
            let at = [1, tw + 3, 2 * tw + 4, 3 * tw + 9];
            let mut want = vec![f32::NAN; 4 * tw + 12];
            for t in 0..tw {
                let d = &row[2 * t..2 * t + 4];
                let v = [d[0] - d[2], d[1] + d[2], d[2] - d[1], d[1] - d[3]];
                for j in 0..4 {
                    want[at[j] + t] = v[j];
                }
            }
            for isa in Isa::supported() {
                let mut got = vec![f32::NAN; want.len()];
                let mut split = vec![0.0; 2 * tw + 2];
                row_tiles(isa, &row, tw, &mut got, at, &mut split);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{} tw {tw}", isa.name());
            }
        }
    }
}

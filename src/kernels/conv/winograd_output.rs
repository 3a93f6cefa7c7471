//! Winograd's output transform, Y = Aᵀ M A (plus the bias), for one output channel's
//! tiles of a band: from the 16 products M of each 2×2 tile back to its four outputs,
//! cropped to the image.

use std::mem::MaybeUninit;

use crate::kernels::isa::Isa;
use crate::kernels::twin::twin;

/// Aᵀ M A plus `plus` (the bias, or -0.0) for one output channel's tiles of a band,
/// written to `out` (the band's rows of that channel, `width` wide, cropped to the
/// image): tile t's element ξ of M is m[ξ·plane + t]. With
/// Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]].
pub fn output_tiles(
    isa: Isa,
    out: &mut [MaybeUninit<f32>],
    width: usize,
    (m, plane): (&[f32], usize),
    plus: f32,
    scratch: &mut [f32],
) {
    // AVX-512 keeps the three passes: this kernel was measured on AVX2 alone.
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() && !isa.avx512() {
        // SAFETY: an `Isa` with AVX2 exists only on a CPU that has it.
        return unsafe { output_tiles_avx2(out, width, (m, plane), plus) };
    }
    output_tiles_in_passes(isa, out, width, m, plane, plus, scratch);
}

/// `output_tiles` on AVX2 (the widest level) in one pass, 8 tiles of a tile row at a
/// time in registers, the last few through `output_tile`. The three passes of
/// `output_tiles_in_passes` through scratch took 12% of a one-thread profile of 8
/// samples of 32 channels, 32 × 32, on the Zen 3 of docs/PERFORMANCE.md (this kernel
/// 7.9%), and the same single pass written as plain lanes for the compiler 18% (its
/// sums went through the stack); loads through bounds-checked slices took three times
/// as long as through one pointer (a kernel harness).
///
/// # Safety
/// The CPU has AVX2.
///
/// # Panics
/// When `width` is 0 or `m` is too short for the tiles of `out` (the caller's band
/// has at least one output column and M for all its tiles, so neither can happen).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn output_tiles_avx2(
    out: &mut [MaybeUninit<f32>],
    width: usize,
    (m, plane): (&[f32], usize),
    plus: f32,
) {
    use std::arch::x86_64::*;
    // Tiles with both output columns, in whole vectors of 8.
    let (tw, whole) = (width.div_ceil(2), width / 16 * 8);
    // Columns 2k.. of an output row from the first and second columns of 8 tiles,
    // interleaved.
    let store_pairs = |dst: &mut [MaybeUninit<f32>], c0: __m256, c1: __m256| {
        let (lo, hi) = (_mm256_unpacklo_ps(c0, c1), _mm256_unpackhi_ps(c0, c1));
        let dst = &mut dst[..16];
        // SAFETY: `dst` holds 16 values.
        unsafe {
            _mm256_storeu_ps(
                dst.as_mut_ptr().cast(),
                _mm256_permute2f128_ps::<0x20>(lo, hi),
            );
            _mm256_storeu_ps(
                dst[8..].as_mut_ptr().cast(),
                _mm256_permute2f128_ps::<0x31>(lo, hi),
            );
        }
    };
    // Cannot fire: the caller passes M for every tile of the band's rows of `out`.
    let tiles = out.len().div_ceil(2 * width) * tw;
    assert!(
        tiles == 0 || m.len() >= 15 * plane + tiles,
        "Winograd products too short"
    );
    let plus8 = _mm256_set1_ps(plus);
    for (ti, rows) in out.chunks_mut(2 * width).enumerate() {
        let (top, bottom) = rows.split_at_mut(width.min(rows.len()));
        let first = ti * tw;
        for k in (0..whole).step_by(8) {
            let base = m.as_ptr().wrapping_add(first + k);
            // SAFETY: tiles first + k.. + 8 are tiles of the band (k + 8 ≤ whole ≤ tw),
            // so each load reads elements ξ·plane + t of M, inside `m` (checked above).
            let e = |xi: usize| unsafe { _mm256_loadu_ps(base.add(xi * plane)) };
            // Aᵀ along row i of M (p_i0, p_i1), then down the columns: the sums of
            // `output_tile`, in its order.
            let row = |i: usize| {
                let (m0, m1, m2, m3) = (e(4 * i), e(4 * i + 1), e(4 * i + 2), e(4 * i + 3));
                (
                    _mm256_add_ps(_mm256_add_ps(m0, m1), m2),
                    _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3),
                )
            };
            let (p0, p1, p2, p3) = (row(0), row(1), row(2), row(3));
            let sum = |a: __m256, b: __m256, c: __m256| _mm256_add_ps(_mm256_add_ps(a, b), c);
            let diff = |a: __m256, b: __m256, c: __m256| _mm256_sub_ps(_mm256_sub_ps(a, b), c);
            let y = |v: __m256| _mm256_add_ps(v, plus8);
            store_pairs(
                &mut top[2 * k..],
                y(sum(p0.0, p1.0, p2.0)),
                y(sum(p0.1, p1.1, p2.1)),
            );
            if !bottom.is_empty() {
                store_pairs(
                    &mut bottom[2 * k..],
                    y(diff(p1.0, p2.0, p3.0)),
                    y(diff(p1.1, p2.1, p3.1)),
                );
            }
        }
        for k in whole..tw {
            let y = output_tile(|xi| m[xi * plane + first + k]);
            let (c0, c1) = (2 * k, 2 * k + 1);
            top[c0].write(y[0] + plus);
            if let Some(o) = top.get_mut(c1) {
                o.write(y[1] + plus);
            }
            if let Some(o) = bottom.get_mut(c0) {
                o.write(y[2] + plus);
            }
            if let Some(o) = bottom.get_mut(c1) {
                o.write(y[3] + plus);
            }
        }
    }
}

/// Aᵀ M A for one tile, M's element ξ being `m(ξ)`: [Y00, Y01, Y10, Y11], with the
/// sums of `output_tiles_in_passes` in its order.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn output_tile(m: impl Fn(usize) -> f32) -> [f32; 4] {
    // Aᵀ along row i of M: (p_i0, p_i1).
    let row = |i: usize| {
        let (m0, m1, m2, m3) = (m(4 * i), m(4 * i + 1), m(4 * i + 2), m(4 * i + 3));
        (m0 + m1 + m2, m1 - m2 - m3)
    };
    let ((p00, p01), (p10, p11), (p20, p21), (p30, p31)) = (row(0), row(1), row(2), row(3));
    [
        p00 + p10 + p20,
        p01 + p11 + p21,
        p10 - p20 - p30,
        p11 - p21 - p31,
    ]
}

twin! {
    /// `output_tiles` in three passes through `scratch` (`scratch_len`), each a plain
    /// loop over all the band's tiles that the compiler vectorizes.
    fn output_tiles_in_passes[](
        out: &mut [MaybeUninit<f32>],
        width: usize,
        m: &[f32],
        plane: usize,
        plus: f32,
        scratch: &mut [f32],
    ) {
        let tw = width.div_ceil(2);
        // All the band's tiles at once: tile ti's element ξ of M is m[ξ·plane + ti·tw..].
        let t = out.len().div_ceil(2 * width) * tw;
        let (p, y) = scratch[..12 * t].split_at_mut(8 * t);
        let mm = |xi: usize| &m[xi * plane..][..t];
        // Aᵀ along each row of M, then along the columns.
        for (i, p) in p.chunks_exact_mut(2 * t).enumerate() {
            let (m0, m1, m2, m3) = (mm(4 * i), mm(4 * i + 1), mm(4 * i + 2), mm(4 * i + 3));
            let (p0, p1) = p.split_at_mut(t);
            let m = m0.iter().zip(m1).zip(m2).zip(m3);
            for ((p0, p1), (((&m0, &m1), &m2), &m3)) in p0.iter_mut().zip(p1).zip(m) {
                *p0 = m0 + m1 + m2;
                *p1 = m1 - m2 - m3;
            }
        }
        for (j, y) in y.chunks_exact_mut(2 * t).enumerate() {
            let pp = |i: usize| &p[(2 * i + j) * t..][..t];
            let (y0, y1) = y.split_at_mut(t);
            let p = pp(0).iter().zip(pp(1)).zip(pp(2)).zip(pp(3));
            for ((y0, y1), (((&p0, &p1), &p2), &p3)) in y0.iter_mut().zip(y1).zip(p) {
                *y0 = p0 + p1 + p2;
                *y1 = p1 - p2 - p3;
            }
        }
        for (ti, rows) in out.chunks_mut(2 * width).enumerate() {
            // y holds [Y00, Y10, Y01, Y11] of all tiles: interleave columns 0 and 1 of
            // each row.
            for (i, row) in rows.chunks_mut(width).enumerate() {
                let (c0, c1) = (&y[i * t + ti * tw..][..tw], &y[(2 + i) * t + ti * tw..][..tw]);
                let (pairs, last) = row.split_at_mut(width / 2 * 2);
                for ((o, &a), &b) in pairs.chunks_exact_mut(2).zip(c0).zip(c1) {
                    o[0].write(a + plus);
                    o[1].write(b + plus);
                }
                if let Some(o) = last.first_mut() {
                    o.write(c0[tw - 1] + plus);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `output_tiles` against Aᵀ M A written out per element, on every ISA, for odd and
    /// even widths and heights (cropped tiles on both edges).
    #[test]
    fn output_tiles_crop_each_tile_of_the_definition() {
        let mut seed = 3u32;
        let mut value = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 20) as f32 - 8.0
        };
        for (height, width) in [
            (1usize, 1usize),
            (2, 2),
            (3, 5),
            (4, 7),
            (5, 2),
            (6, 16),
            (7, 33),
            (3, 32),
            (5, 48),
            (4, 20),
            (5, 31),
        ] {
            let (th, tw) = (height.div_ceil(2), width.div_ceil(2));
            // As long as the AVX2 kernel may read, and no longer.
            let plane = th * tw + 5;
            let m: Vec<f32> = (0..15 * plane + th * tw).map(|_| value()).collect();
            let plus = value();
            let mut want = vec![0.0f32; height * width];
            for (y, row) in want.chunks_mut(width).enumerate() {
                for (x, o) in row.iter_mut().enumerate() {
                    let t = y / 2 * tw + x / 2;
                    let e = |i: usize, j: usize| m[(4 * i + j) * plane + t];
                    // Aᵀ along row i of M (column x % 2 of the result), then down.
                    let p = |i: usize| match x % 2 {
                        0 => e(i, 0) + e(i, 1) + e(i, 2),
                        _ => e(i, 1) - e(i, 2) - e(i, 3),
                    };
                    let v = match y % 2 {
                        0 => p(0) + p(1) + p(2),
                        _ => p(1) - p(2) - p(3),
                    };
                    *o = v + plus;
                }
            }
            for isa in Isa::supported() {
                let mut out = vec![MaybeUninit::new(f32::NAN); height * width];
                let mut scratch = vec![0.0; 12 * height.div_ceil(2) * tw];
                output_tiles(isa, &mut out, width, (&m, plane), plus, &mut scratch);
                // SAFETY: MaybeUninit<f32> has f32's layout, and every element was
                // initialized above.
                let got: Vec<u32> = out
                    .iter()
                    .map(|o| unsafe { o.assume_init() }.to_bits())
                    .collect();
                let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{} {height} × {width}", isa.name());
            }
        }
    }
}

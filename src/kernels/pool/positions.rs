//! Which element each max-pooling window takes, for the gradient: the first of equal
//! maxima, or the first NaN (which nothing replaces). Only comparisons, so every ISA
//! gives the same positions; the AVX-512 build is there because of how it compiles.

use crate::kernels::isa::Isa;

/// For every window `rows[oh] × cols[ow]` of `plane` (row-major, `w` wide), in
/// row-major output order, the index in the plane of the element max pooling takes
/// (`None` for a window with no taps).
pub fn max_positions<T: PartialOrd + Copy>(
    isa: Isa,
    dst: &mut [Option<usize>],
    plane: &[T],
    w: usize,
    rows: &[Vec<usize>],
    cols: &[Vec<usize>],
) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() {
        // SAFETY: `Isa::avx512()` is true only when AVX-512 F/BW/VL/DQ were detected.
        return unsafe { max_positions_avx512(dst, plane, w, rows, cols) };
    }
    let _ = isa;
    max_positions_portable(dst, plane, w, rows, cols)
}

/// `max_positions` built for AVX-512: there the compiler keeps the comparisons as
/// selects, where the x86-64 and AVX2 builds branch on them, and on unordered data
/// (a ReLU's output) the branches mispredicted: 22 ns a 2 × 2 window against 8.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn max_positions_avx512<T: PartialOrd + Copy>(
    dst: &mut [Option<usize>],
    plane: &[T],
    w: usize,
    rows: &[Vec<usize>],
    cols: &[Vec<usize>],
) {
    max_positions_portable(dst, plane, w, rows, cols)
}

#[inline(always)]
fn max_positions_portable<T: PartialOrd + Copy>(
    dst: &mut [Option<usize>],
    plane: &[T],
    w: usize,
    rows: &[Vec<usize>],
    cols: &[Vec<usize>],
) {
    let windows = rows.iter().flat_map(|r| cols.iter().map(move |c| (r, c)));
    for (d, (r_taps, c_taps)) in dst.iter_mut().zip(windows) {
        *d = window_max(plane, w, r_taps, c_taps);
    }
}

/// The index in `plane` of the largest element of the window (the first of equal
/// ones; a NaN wins, the first NaN), as max_pool2d takes it.
#[inline(always)]
fn window_max<T: PartialOrd + Copy>(
    plane: &[T],
    w: usize,
    r_taps: &[usize],
    c_taps: &[usize],
) -> Option<usize> {
    let (&r0, &c0) = (r_taps.first()?, c_taps.first()?);
    let (mut best_at, mut best) = (r0 * w + c0, plane[r0 * w + c0]);
    for &r in r_taps {
        let row = &plane[r * w..][..w];
        for &c in c_taps {
            let v = row[c];
            // Nothing replaces a NaN; a NaN replaces anything else. (Not `beats`: that
            // rule lets a NaN replace a NaN, which the forward pool needs and this
            // first-NaN rule must not.)
            #[allow(clippy::eq_op)]
            let take = (best == best) & ((v > best) | (v != v));
            best_at = if take { r * w + c } else { best_at };
            best = if take { v } else { best };
        }
    }
    Some(best_at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first of equal maxima; the first NaN, wherever it is; nothing for a window
    /// wholly in the padding (no taps).
    #[test]
    fn windows_take_the_first_maximum_or_the_first_nan() {
        let nan = f32::NAN;
        let plane = [1.0, 3.0, 3.0, -0.0, nan, 2.0, 0.0, nan, 5.0];
        let at = |r: &[usize], c: &[usize]| window_max(&plane, 3, r, c);
        assert_eq!(at(&[0], &[0, 1, 2]), Some(1));
        assert_eq!(at(&[0, 1], &[0, 1]), Some(4));
        assert_eq!(at(&[1, 2], &[1, 2]), Some(4));
        assert_eq!(at(&[2], &[0, 1, 2]), Some(7));
        assert_eq!(at(&[1, 2], &[0]), Some(3));
        assert_eq!(at(&[2, 1], &[0]), Some(6));
        assert_eq!(at(&[], &[0]), None);
        assert_eq!(at(&[0], &[]), None);
    }

    /// Every ISA takes the same positions: ties, signed zeros, NaNs of distinct
    /// payloads, ragged and empty windows.
    #[test]
    fn every_isa_takes_the_same_positions() {
        let (h, w) = (5, 6);
        let plane: Vec<f32> = (0..h * w)
            .map(|i| match (i * 7 + 3) % 11 {
                0 => f32::from_bits(0x7fc0_0000 | i as u32),
                1 => -0.0,
                2 => 0.0,
                k => (k % 4) as f32,
            })
            .collect();
        let rows = vec![vec![0, 1], vec![1, 2, 3], vec![4], vec![], vec![3, 0]];
        let cols = vec![vec![0], vec![1, 2], vec![2, 3, 4], vec![5, 4], vec![]];
        let positions = |isa| {
            let mut dst = vec![None; rows.len() * cols.len()];
            max_positions(isa, &mut dst, &plane, w, &rows, &cols);
            dst
        };
        let scalar = positions(Isa::SCALAR);
        let windows = rows.iter().flat_map(|r| cols.iter().map(move |c| (r, c)));
        let want: Vec<_> = windows.map(|(r, c)| window_max(&plane, w, r, c)).collect();
        assert_eq!(scalar, want);
        assert!(want.iter().any(|&at| at.is_some_and(|i| plane[i].is_nan())));
        for isa in Isa::supported() {
            assert_eq!(positions(isa), scalar, "{}", isa.name());
        }
    }
}

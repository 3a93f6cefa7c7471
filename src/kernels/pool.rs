//! 2-d pooling: each output element reduces a rectangular set of elements of one
//! [height, width] plane, given per axis as the list of input indices each output
//! position reads (which covers strides, padding, dilation and adaptive windows).
//! Max pooling with regular column windows has a vectorized kernel; planes are
//! independent, so `for_each_plane` runs them in parallel at fixed boundaries.

use super::arith::is_nan;
use super::isa::Isa;
use super::parallel::for_each_chunk_mut;

/// Input elements per parallel task (whole planes are never split).
const ELEMENTS_PER_TASK: usize = 1 << 15;

/// Calls `f(input_plane, output_plane)` for every plane, in parallel over blocks of
/// planes of a fixed size (from the plane sizes only). `out` holds `out_plane`
/// elements per plane of `in_plane` elements of `data`; both are non-zero.
pub fn for_each_plane<T: Sync, O: Send>(
    out: &mut [O],
    out_plane: usize,
    data: &[T],
    in_plane: usize,
    f: impl Fn(&[T], &mut [O]) + Sync + Send,
) {
    let per_task = (ELEMENTS_PER_TASK / in_plane).max(1);
    for_each_chunk_mut(out, per_task * out_plane, |start, chunk| {
        let first = start / out_plane;
        let planes = chunk.chunks_exact_mut(out_plane);
        for (i, dst) in planes.enumerate() {
            f(&data[(first + i) * in_plane..][..in_plane], dst);
        }
    });
}

/// Regular windows along the width: output column `o` reads input columns
/// `o * stride + offset` for each `offset` (kernel tap times dilation minus padding)
/// that lands inside the row.
pub struct ColumnTaps {
    pub stride: usize,
    pub offsets: Vec<isize>,
}

/// Max pooling of one `width`-wide plane into `out` (`rows.len()` rows of `out_w`):
/// output row `oh` is the NaN-propagating max over input rows `rows[oh]` and the
/// column windows of `cols`; an empty window gives `lowest`. Each output row takes
/// the max of its input rows elementwise, splits that row into `stride` phases
/// (phase `p` holds columns `p, p + stride, ...`) and then takes, per tap, a max
/// with a shifted phase: every step is a contiguous elementwise loop.
pub fn max_pool_plane<T: Copy + PartialOrd>(
    isa: Isa,
    out: &mut [T],
    plane: &[T],
    width: usize,
    rows: &[Vec<usize>],
    cols: &ColumnTaps,
    lowest: T,
) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        return unsafe { max_pool_avx2(out, plane, width, rows, cols, lowest) };
    }
    let _ = isa;
    max_pool(out, plane, width, rows, cols, lowest)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn max_pool_avx2<T: Copy + PartialOrd>(
    out: &mut [T],
    plane: &[T],
    width: usize,
    rows: &[Vec<usize>],
    cols: &ColumnTaps,
    lowest: T,
) {
    max_pool(out, plane, width, rows, cols, lowest)
}

/// `x` replaces the running max `m`: it is larger, or NaN (nothing replaces a NaN).
#[inline(always)]
fn beats<T: Copy + PartialOrd>(x: T, m: T) -> bool {
    x > m || is_nan(x)
}

/// `out = max(a, b)` elementwise, out of place: written in place (`a` being `out`),
/// LLVM turns the select into AVX2 masked stores (`vmaskmovps`), which AMD CPUs
/// microcode, and the pool ran seven times slower.
#[inline(always)]
fn max_of<T: Copy + PartialOrd>(out: &mut [T], a: &[T], b: &[T]) {
    for ((o, &m), &x) in out.iter_mut().zip(a).zip(b) {
        *o = if beats(x, m) { x } else { m };
    }
}

#[inline(always)]
fn max_pool<T: Copy + PartialOrd>(
    out: &mut [T],
    plane: &[T],
    width: usize,
    rows: &[Vec<usize>],
    cols: &ColumnTaps,
    lowest: T,
) {
    let s = cols.stride;
    // Running maxima and the buffer for their next value (see `max_of`), swapped.
    let (mut row_max, mut row_next) = (vec![lowest; width], vec![lowest; width]);
    // Phase `p` of `row_max` at `phases[p * phase_len..]`, `phase_lens[p]` long. Only
    // the first `width` phases can hold columns: a stride longer than the row has
    // empty phases past it, which are not stored.
    let phase_len = width.div_ceil(s);
    let phase_lens: Vec<usize> = (0..s.min(width)).map(|p| (width - p).div_ceil(s)).collect();
    let mut phases = vec![lowest; phase_lens.len() * phase_len];
    let out_w = out.len() / rows.len().max(1);
    let (mut acc, mut acc_next) = (vec![lowest; out_w], vec![lowest; out_w]);
    for (dst, taps) in out.chunks_exact_mut(out_w).zip(rows) {
        row_max.fill(lowest);
        for &r in taps {
            max_of(&mut row_next, &row_max, &plane[r * width..][..width]);
            std::mem::swap(&mut row_max, &mut row_next);
        }
        for (p, &len) in phase_lens.iter().enumerate() {
            let phase = &mut phases[p * phase_len..][..len];
            for (y, &x) in phase.iter_mut().zip(row_max[p..].iter().step_by(s)) {
                *y = x;
            }
        }
        acc.fill(lowest);
        for &d in &cols.offsets {
            let (p, q) = (d.rem_euclid(s as isize) as usize, d.div_euclid(s as isize));
            let Some(&len) = phase_lens.get(p) else {
                continue; // an empty phase
            };
            let phase = &phases[p * phase_len..][..len];
            // Output o reads phase[o + q] where 0 <= o + q < phase.len().
            let first = (-q).max(0) as usize;
            let end = (phase.len() as isize - q).clamp(0, out_w as isize) as usize;
            if first < end {
                let src = &phase[(first as isize + q) as usize..];
                // Outside [first, end) this tap adds nothing (a few edge columns).
                for o in (0..first).chain(end..out_w) {
                    acc_next[o] = acc[o];
                }
                max_of(&mut acc_next[first..end], &acc[first..end], src);
                std::mem::swap(&mut acc, &mut acc_next);
            }
        }
        dst.copy_from_slice(&acc);
    }
}

/// For every output position (oh, ow) of one plane, gathers the window
/// `rows[oh] × cols[ow]` of `plane` (row-major, `width` wide) in row-major order
/// and stores `f(window, oh, ow)` in `out` (row-major, `rows.len() × cols.len()`).
pub fn pool2d<T: Copy, O>(
    out: &mut [O],
    plane: &[T],
    width: usize,
    rows: &[Vec<usize>],
    cols: &[Vec<usize>],
    mut f: impl FnMut(&[T], usize, usize) -> O,
) {
    let mut window = Vec::new();
    let positions = rows
        .iter()
        .enumerate()
        .flat_map(|(oh, r)| cols.iter().enumerate().map(move |(ow, c)| (oh, ow, r, c)));
    for (dst, (oh, ow, r, c)) in out.iter_mut().zip(positions) {
        window.clear();
        for &i in r {
            window.extend(c.iter().map(|&j| plane[i * width + j]));
        }
        *dst = f(&window, oh, ow);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The vectorized max pooling against `pool2d` with a plain max, on both builds,
    /// for strides 1 to 3, dilation, padding on either side and NaN.
    #[test]
    fn max_pool_plane_matches_the_window_gather() {
        let (h, w) = (7, 11);
        let mut plane: Vec<f32> = (0..h * w).map(|i| ((i * 37) % 23) as f32 - 11.0).collect();
        plane[30] = f32::NAN;
        for (stride, kernel, dil, pad) in [
            (1, 3, 1, 1),
            (2, 3, 1, 1),
            (3, 2, 2, 1),
            (2, 4, 1, 0),
            (1, 1, 1, 0),
        ] {
            let span = dil * (kernel - 1) + 1;
            let out_w = (w + 2 * pad - span) / stride + 1;
            let taps = |o: usize, n: usize| -> Vec<usize> {
                (0..kernel)
                    .map(|k| (o * stride + k * dil) as isize - pad as isize)
                    .filter(|&i| (0..n as isize).contains(&i))
                    .map(|i| i as usize)
                    .collect()
            };
            let rows: Vec<Vec<usize>> = (0..(h + 2 * pad - span) / stride + 1)
                .map(|o| taps(o, h))
                .collect();
            let col_lists: Vec<Vec<usize>> = (0..out_w).map(|o| taps(o, w)).collect();
            let mut want = vec![0f32; rows.len() * out_w];
            pool2d(&mut want, &plane, w, &rows, &col_lists, |win, _, _| {
                win.iter()
                    .copied()
                    .reduce(crate::kernels::arith::Arith::maximum)
                    .unwrap_or(f32::NEG_INFINITY)
            });
            let cols = ColumnTaps {
                stride,
                offsets: (0..kernel)
                    .map(|k| (k * dil) as isize - pad as isize)
                    .collect(),
            };
            for isa in [Isa::SCALAR, Isa::detect()] {
                let mut got = vec![0f32; want.len()];
                max_pool_plane(isa, &mut got, &plane, w, &rows, &cols, f32::NEG_INFINITY);
                let bits = |v: &[f32]| {
                    v.iter()
                        .map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() })
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "stride {stride} kernel {kernel} dil {dil} pad {pad}"
                );
            }
        }
    }

    #[test]
    fn planes_are_visited_once_in_order() {
        let data: Vec<u32> = (0..5 * 40_000).collect();
        let mut out = vec![0u32; 5 * 2];
        for_each_plane(&mut out, 2, &data, 40_000, |src, dst| {
            dst[0] = src[0];
            dst[1] = src[39_999];
        });
        let want: Vec<u32> = (0..5)
            .flat_map(|p| [p * 40_000, p * 40_000 + 39_999])
            .collect();
        assert_eq!(out, want);
    }

    #[test]
    fn windows_are_gathered_row_major() {
        // A 3×4 plane holding 0..12; windows of overlapping rows and ragged columns.
        let plane: Vec<i32> = (0..12).collect();
        let rows = vec![vec![0, 1], vec![1, 2]];
        let cols = vec![vec![0], vec![1, 3], vec![]];
        let mut out = vec![vec![]; 6];
        pool2d(&mut out, &plane, 4, &rows, &cols, |w, _, _| w.to_vec());
        let want: Vec<Vec<i32>> = vec![
            vec![0, 4],
            vec![1, 3, 5, 7],
            vec![],
            vec![4, 8],
            vec![5, 7, 9, 11],
            vec![],
        ];
        assert_eq!(out, want);
        let mut at = vec![(0, 0); 6];
        pool2d(&mut at, &plane, 4, &rows, &cols, |_, oh, ow| (oh, ow));
        assert_eq!(at[4], (1, 1));
    }
}

//! 2-d pooling: each output element reduces a rectangular set of elements of one
//! [height, width] plane, given per axis as the list of input indices each output
//! position reads (which covers strides, padding, dilation and adaptive windows).
//! Max pooling with regular column windows has a vectorized kernel; planes are
//! independent, so `for_each_plane` runs them in parallel at fixed boundaries.

use std::mem::MaybeUninit;
use std::ops::Range;

use super::window::{beats, phase_lens, phase_taps, MaxPool};
use crate::kernels::alloc::filled;
use crate::kernels::isa::Isa;
use crate::kernels::parallel::for_each_chunk_mut;
use crate::tensor::Elem;

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

/// A kernel pooling one plane: `max_pool_plane` or `max_pool_plane_f32`. It writes
/// every element of its output.
pub type MaxPoolPlane<T> = fn(Isa, &mut [MaybeUninit<T>], &[T], &MaxPool<T>);

/// Max pooling of every plane of `data` (`in_plane` elements each) into a new buffer
/// of `out_plane` elements per plane (both non-zero) with `kernel`, in parallel over
/// planes (`for_each_plane`); `None` when the buffer cannot be allocated.
pub fn max_pool_new<T: Elem>(
    isa: Isa,
    kernel: MaxPoolPlane<T>,
    data: &[T],
    in_plane: usize,
    out_plane: usize,
    p: &MaxPool<T>,
) -> Option<Vec<T>> {
    let n = data.len() / in_plane * out_plane;
    // SAFETY: `for_each_plane` hands every plane of the output to `kernel` (unless
    // interrupted), which writes all of it.
    unsafe {
        filled(n, |out| {
            for_each_plane(out, out_plane, data, in_plane, |src, dst| {
                kernel(isa, dst, src, p)
            })
        })
    }
}

/// Max pooling of one plane (see `MaxPool`). Each output row takes the max of its
/// input rows elementwise, splits that row into `stride` phases (phase `p` holds
/// columns `p, p + stride, ...`) and then takes, per tap, a max with a shifted phase:
/// every step is a contiguous elementwise loop. Planes narrower than `NARROW` go
/// output by output instead (`max_pool_narrow`, the same bits).
pub fn max_pool_plane<T: Copy + PartialOrd>(
    isa: Isa,
    out: &mut [MaybeUninit<T>],
    plane: &[T],
    p: &MaxPool<T>,
) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() && p.width < NARROW {
        // SAFETY: `Isa::avx512()` is true only when AVX-512 F/BW/VL/DQ were detected.
        return unsafe { max_pool_narrow_avx512(out, plane, p) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        return unsafe { max_pool_avx2(out, plane, p) };
    }
    let _ = isa;
    max_pool(out, plane, p)
}

/// `max_pool_plane` for f32, with a kernel of its own for stride 2 along the width
/// (`pool_avx2`) when `isa` has AVX2; the same bits either way.
pub fn max_pool_plane_f32(isa: Isa, out: &mut [MaybeUninit<f32>], plane: &[f32], p: &MaxPool<f32>) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() && p.cols.stride == 2 && p.width >= super::avx2::MIN_WIDTH {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        return unsafe { super::avx2::max_pool_stride2(out, plane, p) };
    }
    max_pool_plane(isa, out, plane, p)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn max_pool_avx2<T: Copy + PartialOrd>(out: &mut [MaybeUninit<T>], plane: &[T], p: &MaxPool<T>) {
    max_pool(out, plane, p)
}

/// `max_pool_narrow` built for AVX-512, where the compiler keeps its comparisons as
/// selects (the x86-64 and AVX2 builds branch on them, and mispredict on unordered
/// data such as a ReLU's output).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn max_pool_narrow_avx512<T: Copy + PartialOrd>(
    out: &mut [MaybeUninit<T>],
    plane: &[T],
    p: &MaxPool<T>,
) {
    max_pool_narrow(out, plane, p)
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

/// Planes narrower than this are pooled output by output (`max_pool_narrow`): for a
/// few outputs per row, setting up the row buffers costs more than the maxima (a 2×2
/// pool of 8×8 planes took 0.27 µs a plane, most of it in allocation).
const NARROW: usize = 16;

#[inline(always)]
fn max_pool<T: Copy + PartialOrd>(out: &mut [MaybeUninit<T>], plane: &[T], p: &MaxPool<T>) {
    if p.width < NARROW {
        max_pool_narrow(out, plane, p)
    } else {
        max_pool_rows(out, plane, p)
    }
}

/// `max_pool` by whole rows: the row maxima, split into phases, then one shifted
/// elementwise max per column tap.
#[inline(always)]
fn max_pool_rows<T: Copy + PartialOrd>(out: &mut [MaybeUninit<T>], plane: &[T], p: &MaxPool<T>) {
    let MaxPool {
        width,
        rows,
        cols,
        lowest,
    } = *p;
    let s = cols.stride;
    // Running maxima and the buffer for their next value (see `max_of`), swapped.
    let (mut row_max, mut row_next) = (vec![lowest; width], vec![lowest; width]);
    // Phase `p` of `row_max` at `phases[p * phase_len..]`, `phase_lens[p]` long.
    let phase_len = width.div_ceil(s);
    let phase_lens = phase_lens(width, s);
    let mut phases = vec![lowest; phase_lens.len() * phase_len];
    let out_w = out.len() / rows.len().max(1);
    let taps = phase_taps(cols, &phase_lens, out_w);
    let (mut acc, mut acc_next) = (vec![lowest; out_w], vec![lowest; out_w]);
    for (dst, taps_h) in out.chunks_exact_mut(out_w).zip(rows) {
        row_max.fill(lowest);
        for &r in taps_h {
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
        for t in taps.iter().filter(|t| !t.outputs.is_empty()) {
            let Range { start, end } = t.outputs;
            let src = &phases[t.phase * phase_len..][(start as isize + t.shift) as usize..];
            // Outside the tap's outputs it adds nothing (a few edge columns).
            for o in (0..start).chain(end..out_w) {
                acc_next[o] = acc[o];
            }
            max_of(&mut acc_next[start..end], &acc[start..end], src);
            std::mem::swap(&mut acc, &mut acc_next);
        }
        dst.write_copy_of_slice(&acc);
    }
}

/// `max_pool` one output at a time, with the same folds in the same order, so the
/// same bits: per column tap (in order) the max over the window's rows, then the max
/// over the taps, each fold starting from `lowest`.
#[inline(always)]
fn max_pool_narrow<T: Copy + PartialOrd>(out: &mut [MaybeUninit<T>], plane: &[T], p: &MaxPool<T>) {
    let out_w = out.len() / p.rows.len().max(1);
    for (dst, taps_h) in out.chunks_exact_mut(out_w).zip(p.rows) {
        for (o, d) in dst.iter_mut().enumerate() {
            let mut acc = p.lowest;
            for &offset in &p.cols.offsets {
                let c = (o * p.cols.stride) as isize + offset;
                if c < 0 || c >= p.width as isize {
                    continue;
                }
                let mut m = p.lowest;
                for &r in taps_h {
                    let x = plane[r * p.width + c as usize];
                    m = if beats(x, m) { x } else { m };
                }
                acc = if beats(m, acc) { m } else { acc };
            }
            d.write(acc);
        }
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
    use crate::kernels::pool::window::ColumnTaps;

    /// Pseudo-random small integers (so with ties), signed zeros and, with `nans`,
    /// NaNs of distinct payloads.
    fn test_plane(len: usize, seed: usize, nans: bool) -> Vec<f32> {
        (0..len)
            .map(|i| match (i * 7919 + seed * 104_729) % 61 {
                0 | 1 => -0.0,
                2 if nans => f32::from_bits(0x7fc0_0000 | i as u32),
                k => (k % 13) as f32 - 6.0,
            })
            .collect()
    }

    /// The input indices of each of the `n_out` windows along a dim of `n` elements,
    /// those in the padding left out.
    fn window_taps(n: usize, n_out: usize, [k, s, d, pad]: [usize; 4]) -> Vec<Vec<usize>> {
        (0..n_out)
            .map(|o| {
                (0..k)
                    .filter_map(|j| (o * s + j * d).checked_sub(pad).filter(|&i| i < n))
                    .collect()
            })
            .collect()
    }

    /// Windows along a dim of `n`: PyTorch's count (floor or ceil) for kernel `k`,
    /// stride `s`, dilation `d` and padding `pad`; `None` when the kernel does not fit.
    fn window_count(n: usize, [k, s, d, pad]: [usize; 4], ceil: bool) -> Option<usize> {
        let reach = (n + 2 * pad).checked_sub(d * (k - 1) + 1)?;
        let mut out = if ceil { reach.div_ceil(s) } else { reach / s } + 1;
        if ceil && (out - 1) * s >= n + pad {
            out -= 1; // the last window would start in the right padding
        }
        Some(out)
    }

    /// Windows of kernel 1 to `most_k`, stride 1 to 3, dilation 1 or 2, padding up to
    /// half the kernel, in floor and ceil mode: `([kernel, stride, dilation, pad], ceil)`.
    fn window_cases(most_k: usize) -> impl Iterator<Item = ([usize; 4], bool)> {
        (1..=most_k).flat_map(|k| {
            (1..=3).flat_map(move |s| {
                (1..=2).flat_map(move |d| {
                    (0..=k / 2).flat_map(move |pad| [false, true].map(|c| ([k, s, d, pad], c)))
                })
            })
        })
    }

    /// The row taps and column taps of window `win` over an `h` × `w` plane and the
    /// output's [height, width]; `None` when the kernel does not fit.
    fn plane_windows(
        h: usize,
        w: usize,
        win: [usize; 4],
        ceil: bool,
    ) -> Option<(Vec<Vec<usize>>, ColumnTaps, [usize; 2])> {
        let [k, s, d, pad] = win;
        let (out_h, out_w) = (window_count(h, win, ceil)?, window_count(w, win, ceil)?);
        let cols = ColumnTaps {
            stride: s,
            offsets: (0..k).map(|j| (j * d) as isize - pad as isize).collect(),
        };
        Some((window_taps(h, out_h, win), cols, [out_h, out_w]))
    }

    /// The bits of `v`, with every NaN and both zeros made one (the window gather
    /// compares in another order, so may pick another NaN or zero).
    fn loose_bits(v: &[f32]) -> Vec<u32> {
        let one = |x: f32| match x {
            _ if x.is_nan() => u32::MAX,
            0.0 => 0,
            _ => x.to_bits(),
        };
        v.iter().map(|&x| one(x)).collect()
    }

    /// Max pooling, generic and (for f32 with AVX2) stride-2 kernels, against `pool2d`
    /// with a plain max: strides 1 to 3, kernels 1 to 4, dilation, padding, ceil mode,
    /// planes narrower than a vector and of odd widths, one row or column, and NaN
    /// anywhere (also in the last column). The kernels on both builds give the same
    /// bits as the scalar build, down to which NaN or zero wins.
    #[test]
    fn max_pool_plane_matches_the_window_gather() {
        let mut cases = 0;
        for (h, w) in [
            (1, 1),
            (1, 40),
            (5, 1),
            (2, 3),
            (3, 8),
            (4, 15),
            (5, 16),
            (3, 17),
            (6, 18),
            (3, 33),
            (7, 50),
        ] {
            for nans in 0..3 {
                let mut plane = test_plane(h * w, h + w, nans == 1);
                if nans == 2 {
                    plane[w - 1] = f32::NAN; // the last column of the first row
                }
                for (win, ceil) in window_cases(4) {
                    let [k, s, d, pad] = win;
                    let Some((rows, cols, [out_h, out_w])) = plane_windows(h, w, win, ceil) else {
                        continue;
                    };
                    let col_lists = window_taps(w, out_w, win);
                    let mut want = vec![0f32; out_h * out_w];
                    pool2d(&mut want, &plane, w, &rows, &col_lists, |win, _, _| {
                        win.iter()
                            .copied()
                            .reduce(crate::kernels::math::arith::Arith::maximum)
                            .unwrap_or(f32::NEG_INFINITY)
                    });
                    let p = MaxPool {
                        width: w,
                        rows: &rows,
                        cols: &cols,
                        lowest: f32::NEG_INFINITY,
                    };
                    let pool = |isa, kernel: MaxPoolPlane<f32>| {
                        let out = max_pool_new(isa, kernel, &plane, h * w, want.len(), &p);
                        out.unwrap().iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    };
                    let scalar = pool(Isa::SCALAR, max_pool_plane);
                    let case = format!("{h}x{w} nans {nans} kernel {k} stride {s} dilation {d} pad {pad} ceil {ceil}");
                    let scalar_f32: Vec<f32> = scalar.iter().map(|&b| f32::from_bits(b)).collect();
                    assert_eq!(loose_bits(&scalar_f32), loose_bits(&want), "{case}");
                    for kernel in [max_pool_plane, max_pool_plane_f32] {
                        assert_eq!(pool(Isa::detect(), kernel), scalar, "{case}");
                    }
                    cases += 1;
                }
            }
        }
        assert!(cases > 1000, "{cases}");
    }

    /// The narrow-plane kernel gives the bits of the row kernel, down to which NaN or
    /// signed zero wins, for every plane width up to `NARROW` and windows as above.
    #[test]
    fn narrow_planes_give_the_bits_of_the_row_kernel() {
        let mut cases = 0;
        for w in 1..=NARROW {
            let h = 5;
            let plane = test_plane(h * w, w, true);
            for (win, ceil) in window_cases(3) {
                let [k, s, d, pad] = win;
                let Some((rows, cols, [out_h, out_w])) = plane_windows(h, w, win, ceil) else {
                    continue;
                };
                let p = MaxPool {
                    width: w,
                    rows: &rows,
                    cols: &cols,
                    lowest: f32::NEG_INFINITY,
                };
                let run = |kernel: fn(&mut [MaybeUninit<f32>], &[f32], &MaxPool<f32>)| {
                    let mut out = vec![MaybeUninit::new(0f32); out_h * out_w];
                    kernel(&mut out, &plane, &p);
                    // SAFETY: initialized above (and written again by the kernel).
                    out.iter()
                        .map(|x| unsafe { x.assume_init() }.to_bits())
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    run(max_pool_narrow),
                    run(max_pool_rows),
                    "width {w} kernel {k} stride {s} dilation {d} pad {pad} ceil {ceil}"
                );
                cases += 1;
            }
        }
        assert!(cases > 600, "{cases}");
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

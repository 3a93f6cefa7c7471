//! Winograd's F(2×2, 3×3) for 2-d 3×3 convolutions of stride and dilation 1 (Lavin &
//! Gray, 2015). Each 2×2 tile of an output channel comes from the 4×4 input tiles d_c
//! of the input channels c:
//!
//!   Y = Aᵀ [ Σ_c (G g_c Gᵀ) ⊙ (Bᵀ d_c B) ] A
//!
//! with g_c the 3×3 kernel: 16 multiplies per tile and channel instead of 36. The 16
//! elementwise sums over channels are 16 matrix products (transformed weights
//! [c_out × c_in] by transformed tiles [c_in × tiles]), run by the micro-kernel. The
//! transforms only add and subtract (and halve the weights), so the result differs from
//! the direct sum by a few roundings (see lang/SPEC.md for the measured error).
//!
//! Each sample's tile rows are cut into bands sized so that a band's transformed tiles
//! stay in L2 and the threads get even shares; bands run in parallel. Within a band,
//! output channels go a few panels at a time through their 16 products and the
//! output transform. Each output element is computed the same way whatever the band,
//! group or thread count.

use std::mem::MaybeUninit;
use std::ops::Range;

use super::operands::Operands;
use super::window::{Dim, Window};
use super::winograd_rows::row_tiles;
use crate::kernels::isa::Isa;
use crate::kernels::linalg::gemm_kernel::GemmFloat;
use crate::kernels::linalg::microkernel::{
    panel_index, panels_len, product, row_stride, LANES, MR, NR,
};
use crate::kernels::parallel::{for_each_item, map_reduce, threads, Disjoint, ELEMENTWISE_CHUNK};
use crate::kernels::twin::twin;

/// Bytes of one band's transformed input tiles, at most: 3/8 of a 2 MiB L2 (3/4 of a
/// 1 MiB one), leaving room for a group's products (`GROUP_PANELS`); `band_rows` picks
/// the band within it.
const BAND_BYTES: usize = 3 << 18;
/// Panels of output channels whose 16 products are computed and transformed back
/// together (a lone panel left at the end joins the last group), so that the products
/// are few enough to be read back from cache (those of all 64 channels of a band of 4
/// tile rows, 56 wide, take 0.45 MiB beside its 0.44 MiB of transformed tiles; that
/// they stay in cache is expected from the sizes, not counted). On the Intel Xeon of
/// docs/PERFORMANCE.md, 8 samples of 32 channels, 32 × 32, on 2 threads: 1.10–1.13 ms
/// before, 1.01–1.11 with whole-sample bands alone, 0.93–0.95 with the groups too.
const GROUP_PANELS: usize = 2;
/// Rows of the largest group: a last one of 2·GROUP_PANELS - 1 panels at most.
const GROUP_ROWS: usize = (2 * GROUP_PANELS - 1) * MR;
/// Fewest channels (in and out per group) for which the transforms pay off.
const MIN_CHANNELS: usize = 8;
/// Fewest output positions per sample for which the transforms pay off: below, a
/// sample has few 2 × 2 tiles (4 for a 4 × 4 output) and the products per transform
/// coordinate are too narrow for the micro-kernel's vectors. On the Intel Xeon of
/// docs/PERFORMANCE.md, 32 samples of 16 channels into 32, one thread, ms: 4 × 4
/// outputs 0.35 Winograd against 0.18 blocked, 5 × 5 0.38 / 0.29, 6 × 6 0.40 / 0.37,
/// 7 × 7 0.40 / 0.46, 8 × 8 0.40 / 0.41.
const MIN_POSITIONS: usize = 48;

/// True when Winograd applies: 2-d, 3×3, stride 1, dilation 1, enough channels and
/// output positions, and finite operands (the transforms would turn one infinity into
/// inf - inf = NaN in outputs where the direct sum gives ±inf).
pub fn applies(win: &Window, c_in: usize, c_out: usize, x: &[f32], weight: &[f32]) -> bool {
    let plain = |d: &Dim| d.kernel == 3 && d.stride == 1 && d.dilation == 1;
    win.dims().len() == 2
        && win.dims().iter().all(plain)
        && c_in.min(c_out) >= MIN_CHANNELS
        && win.out_len() >= MIN_POSITIONS
        && all_finite(x)
        && all_finite(weight)
}

/// True when no value is infinite or NaN; in parallel for a large `v`, since it runs
/// before the bands (on one thread, 1.8% of a 2-thread profile of a 64-channel
/// convolution).
fn all_finite(v: &[f32]) -> bool {
    let isa = Isa::detect();
    let any_in = |r: Range<usize>| {
        let mut any = false;
        any_not_finite(isa, &v[r], &mut any);
        any
    };
    !map_reduce(v.len(), ELEMENTWISE_CHUNK, any_in, |a, b| a | b).unwrap_or(false)
}

twin! {
    /// Sets `any` when a value of `v` is infinite or NaN (all exponent bits set): a
    /// branch-free scan, so that it vectorizes.
    fn any_not_finite[](v: &[f32], any: &mut bool) {
        const EXPONENT: u32 = 0x7f80_0000;
        *any |= v
            .iter()
            .fold(false, |any, x| any | (x.to_bits() & EXPONENT == EXPONENT));
    }
}

/// Convolution of a batch, as `conv_f32::conv_new`, for a window where `applies`
/// holds.
pub fn conv(out: &mut [MaybeUninit<f32>], o: Operands) {
    let (x, weight, bias) = (o.x, o.weight, o.bias);
    let (win, ch, (ci, co)) = (o.win, o.ch, o.per_group());
    let [dh, dw] = [win.dims()[0], win.dims()[1]];
    let (th, tw) = (dh.out.div_ceil(2), dw.out.div_ceil(2));
    let (l, image) = (dh.out * dw.out, dh.image * dw.image);
    let samples = out.len() / (ch.c_out * l);
    let most = (BAND_BYTES / (16 * 4 * ci * tw)).clamp(1, th);
    let band = band_rows(samples, th, tw, most, threads());
    let bands = th.div_ceil(band);
    // Per group and ξ, the transformed weights packed for the micro-kernel.
    let size = panels_len(co, ci);
    let panels = transform_weights(weight, ch.groups, co, ci);
    let isa = Isa::detect();
    // Transformed tiles of a band: [16][c_in][stride], rows padded to whole vectors.
    let stride = row_stride(band * tw);
    // The products of a group of output channels: [16][its rows][stride].
    let plane = GROUP_ROWS * stride;
    let out = Disjoint::new(out);
    let scratch_floats = 16 * ci * stride + 16 * plane + scratch_len(band, tw);
    for_each_item(
        samples * bands,
        || (),
        |(), item| {
            // Each thread's own buffer, kept between calls and starting on a cache line:
            // zeroing a fresh one per call showed as 4% of a 2-thread profile of a
            // 64-channel convolution (the `memset` symbol; 1.2–1.5% after).
            f32::with_scratch(scratch_floats, |scratch| {
                // The band's transformed tiles, their 16 products, rows for the transforms.
                let (v, rest) = scratch.split_at_mut(16 * ci * stride);
                let (m, rows_scratch) = rest.split_at_mut(16 * plane);
                let (n, i0) = (item / bands, item % bands * band);
                let rows = band.min(th - i0);
                let t = rows * tw;
                for g in 0..ch.groups {
                    let xg = &x[(n * ch.c_in + g * ci) * image..][..ci * image];
                    for (c, channel) in xg.chunks_exact(image).enumerate() {
                        let v = &mut v[c * stride..];
                        input_tiles(
                            isa,
                            v,
                            ci * stride,
                            channel,
                            [dh, dw],
                            i0..i0 + rows,
                            rows_scratch,
                        );
                    }
                    let group = &panels[g * 16 * size..][..16 * size];
                    for rows_of in channel_groups(co) {
                        let r0 = rows_of.start;
                        let count = rows_of.len();
                        for (xi, panels) in group.chunks_exact(size).enumerate() {
                            let v = &v[xi * ci * stride..];
                            let panels = &panels[r0 * ci..][..count.div_ceil(MR) * MR * ci];
                            let mut dst: Vec<&mut [f32]> =
                                m[xi * plane..][..plane].chunks_mut(stride).collect();
                            product(isa, (panels, count, ci), v, (stride, t), &mut dst, None);
                        }
                        for r in rows_of {
                            let first = ((n * ch.c_out + g * co + r) * dh.out + 2 * i0) * dw.out;
                            let len = (2 * rows).min(dh.out - 2 * i0) * dw.out;
                            // SAFETY: item (n, band) alone writes output rows 2·i0.. of
                            // its tile rows, in every channel of sample n, and only here.
                            let dst = unsafe { out.part(first, len) };
                            let m = &m[(r - r0) * stride..];
                            let plus = bias.map_or(-0.0, |b| b[g * co + r]);
                            output_tiles(isa, dst, dw.out, (m, plane), plus, rows_scratch);
                        }
                    }
                }
            })
        },
    );
}

/// Tile rows per band, at most `most`: of those, the count that gives the fewest
/// columns of tiles, rounded up to whole strips of the micro-kernel, to the busiest of
/// `threads` (the more rows of the fewest). Which band a tile is in changes no bits.
fn band_rows(samples: usize, th: usize, tw: usize, most: usize, threads: usize) -> usize {
    let busiest = |band: usize| {
        let items = samples * th.div_ceil(band);
        items.div_ceil(threads.max(1)) * (band * tw).next_multiple_of(NR)
    };
    (1..=most.max(1))
        .rev()
        .min_by_key(|&band| busiest(band))
        .unwrap_or(1)
}

/// The output channels, `GROUP_PANELS` panels at a time, a lone panel left at the
/// end going with the group before it (alone, 4 rows keep too few sums in flight).
fn channel_groups(co: usize) -> impl Iterator<Item = Range<usize>> {
    let panels = co.div_ceil(MR);
    let groups = (panels / GROUP_PANELS).max(1);
    (0..groups).map(move |g| {
        let end = if g + 1 == groups {
            co
        } else {
            (g + 1) * GROUP_PANELS * MR
        };
        g * GROUP_PANELS * MR..end
    })
}

/// G g Gᵀ for the 3×3 kernels g of `weight` ([groups · co][ci][3][3]): per group and
/// element ξ = 4·i + j of the 4×4 result, the [co × ci] matrix of ξs, packed for the
/// micro-kernel. In parallel over panels (MR output channels), as it would otherwise
/// run alone before the bands.
fn transform_weights(weight: &[f32], groups: usize, co: usize, ci: usize) -> Vec<f32> {
    let size = panels_len(co, ci);
    let panels = co.div_ceil(MR);
    let mut u = vec![0.0; groups * 16 * size];
    let parts = Disjoint::new(&mut u);
    for_each_item(
        groups * panels,
        || (),
        |(), item| {
            let (group, q) = (item / panels, item % panels);
            // SAFETY: item (group, q) alone writes panel q of the group's 16 matrices: the
            // elements panel_index(o, c, ci) for its MR rows o, which lie in
            // q·MR·ci..(q + 1)·MR·ci of each.
            let mut u: [&mut [f32]; 16] = std::array::from_fn(|xi| unsafe {
                parts.part((group * 16 + xi) * size + q * MR * ci, MR * ci)
            });
            for o in q * MR..co.min(q * MR + MR) {
                let kernels = &weight[((group * co + o) * ci) * 9..][..ci * 9];
                for (c, k) in kernels.as_chunks::<9>().0.iter().enumerate() {
                    let at = panel_index(o, c, ci) - q * MR * ci;
                    for (u, v) in u.iter_mut().zip(transform_kernel(k)) {
                        u[at] = v;
                    }
                }
            }
        },
    );
    u
}

/// G k Gᵀ for one 3×3 kernel `k` (row-major), G = [[1, 0, 0], [½, ½, ½], [½, -½, ½],
/// [0, 0, 1]], computed in f64 and rounded once: the 16 elements, row by row. One
/// inlined function writing into fixed arrays: before, `[T; N]::map` calls were left
/// in the loop (2.8% of a 2-thread profile of a 64-channel convolution, the transform
/// 7.0% in all; 3.7% after this change, which also dropped a `Vec` of the 16 outputs).
#[inline(always)]
fn transform_kernel(k: &[f32; 9]) -> [f32; 16] {
    let g = |a: f64, b: f64, c: f64| [a, (a + b + c) / 2.0, (a - b + c) / 2.0, c];
    let k: [f64; 9] = std::array::from_fn(|i| k[i] as f64);
    // G applied to the columns of the kernel, then to the rows of that.
    let cols: [[f64; 4]; 3] = std::array::from_fn(|c| g(k[c], k[3 + c], k[6 + c]));
    let rows: [[f64; 4]; 4] = std::array::from_fn(|i| g(cols[0][i], cols[1][i], cols[2][i]));
    std::array::from_fn(|xi| rows[xi / 4][xi % 4] as f32)
}

/// Scratch floats `input_tiles` and `output_tiles` need for a band of `band` tile
/// rows, `tw` tiles wide.
fn scratch_len(band: usize, tw: usize) -> usize {
    (4 * tw + 4 + (2 * band + 2) * 4 * tw).max(12 * band * tw)
}

/// Bᵀ d B for the tiles of tile rows `band` of one channel: tile t of the band
/// (row-major) goes to v[ξ·plane + t] for ξ = 4·i + j (element (i, j) of the 4×4
/// result), and the rest of each row, up to a whole vector, is zeroed. With
/// Bᵀ = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]].
fn input_tiles(
    isa: Isa,
    v: &mut [f32],
    plane: usize,
    channel: &[f32],
    dims: [Dim; 2],
    band: Range<usize>,
    scratch: &mut [f32],
) {
    let [dh, dw] = dims;
    let (i0, rows) = (band.start, band.len());
    let tw = dw.out.div_ceil(2);
    let (padded, rest) = scratch.split_at_mut(2 * tw + 2);
    let (split, rest) = rest.split_at_mut(2 * tw + 2);
    // Bᵀ along each of the 2·rows + 2 input rows the band reads (tiles overlap by two
    // rows), once each, into r as `row_start` lays it out.
    let half = (rows + 1) * tw;
    let r = &mut rest[..8 * half];
    let at = |j: usize, y: usize| row_start(j, y, half, tw);
    for y in 0..2 * rows + 2 {
        let Some(iy) = (2 * i0 + y).checked_sub(dh.pad).filter(|&iy| iy < dh.image) else {
            for j in 0..4 {
                r[at(j, y)..][..tw].fill(0.0);
            }
            continue;
        };
        // The row with its padding (columns past what the tiles read dropped).
        let pad = dw.pad.min(padded.len());
        let len = dw.image.min(padded.len() - pad);
        padded[..pad].fill(0.0);
        padded[pad..pad + len].copy_from_slice(&channel[iy * dw.image..][..len]);
        padded[pad + len..].fill(0.0);
        row_tiles(isa, padded, tw, r, [0, 1, 2, 3].map(|j| at(j, y)), split);
    }
    column_tiles(isa, v, plane, r, [half, tw, rows * tw]);
}

/// Where element j of input row y's tiles starts in `input_tiles`' row buffer: rows of
/// `tw` tiles, even and odd input rows in halves of `half` = (rows + 1)·tw floats, so
/// that the four input rows of every tile row are runs.
fn row_start(j: usize, y: usize, half: usize, tw: usize) -> usize {
    (2 * j + y % 2) * half + y / 2 * tw
}

twin! {
    /// The second half of `input_tiles`: Bᵀ along the columns of each tile row's four
    /// input rows (laid out in r by `row_start`; `[half, tw, t]` as there, t the band's
    /// tiles), for all the band's tiles at once.
    fn column_tiles[](v: &mut [f32], plane: usize, r: &[f32], sizes: [usize; 3]) {
        let [half, tw, t] = sizes;
        for j in 0..4 {
            let row = |i: usize| &r[row_start(j, i, half, tw)..][..t];
            let (d0, d1, d2, d3) = (row(0), row(1), row(2), row(3));
            let at = |i: usize| (4 * i + j) * plane;
            for (o, (&p, &q)) in v[at(0)..][..t].iter_mut().zip(d0.iter().zip(d2)) {
                *o = p - q;
            }
            for (o, (&p, &q)) in v[at(1)..][..t].iter_mut().zip(d1.iter().zip(d2)) {
                *o = p + q;
            }
            for (o, (&p, &q)) in v[at(2)..][..t].iter_mut().zip(d2.iter().zip(d1)) {
                *o = p - q;
            }
            for (o, (&p, &q)) in v[at(3)..][..t].iter_mut().zip(d1.iter().zip(d3)) {
                *o = p - q;
            }
        }
        for xi in 0..16 {
            v[xi * plane + t..xi * plane + t.next_multiple_of(LANES)].fill(0.0);
        }
    }
}

/// Aᵀ M A plus `plus` (the bias, or -0.0) for one output channel's tiles of a band,
/// written to `out` (the band's rows of that channel, `width` wide, cropped to the
/// image): tile t's element ξ of M is m[ξ·plane + t]. With
/// Aᵀ = [[1, 1, 1, 0], [0, 1, -1, -1]].
fn output_tiles(
    isa: Isa,
    out: &mut [MaybeUninit<f32>],
    width: usize,
    (m, plane): (&[f32], usize),
    plus: f32,
    scratch: &mut [f32],
) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() && !isa.avx512() {
        // SAFETY: an `Isa` with AVX2 comes from `Isa::detect` on a CPU that has it.
        return unsafe { output_tiles_avx2(out, width, (m, plane), plus) };
    }
    output_tiles_in_passes(isa, out, width, m, plane, plus, scratch);
}

/// `output_tiles` on AVX2 in one pass, 8 tiles of a tile row at a time in registers,
/// the last few through `tile`. The three passes of `output_tiles_in_passes` through
/// scratch took 12% of a one-thread profile of 8 samples of 32 channels, 32 × 32, on
/// the Zen 3 of docs/PERFORMANCE.md, and the same single pass written as plain lanes
/// for the compiler 18% (its sums went through the stack); loads through bounds-checked
/// slices took three times as long as through one pointer (a kernel harness).
///
/// # Safety
/// The CPU has AVX2.
///
/// # Panics
/// When `m` is too short for the tiles of `out` (the caller sizes it so that it cannot
/// fire).
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
    let tiles = out.len().div_ceil(2 * width.max(1)) * tw;
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
            // `tile`, in its order.
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
            let y = tile(|xi| m[xi * plane + first + k]);
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
fn tile(m: impl Fn(usize) -> f32) -> [f32; 4] {
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
        ] {
            let (th, tw) = (height.div_ceil(2), width.div_ceil(2));
            let plane = th * tw + 5;
            let m: Vec<f32> = (0..16 * plane).map(|_| value()).collect();
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

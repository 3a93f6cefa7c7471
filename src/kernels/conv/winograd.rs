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
use super::winograd_output::output_tiles;
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

//! f32 convolution and transposed convolution (the contracts of `conv::conv` and
//! `conv::conv_transpose`) in blocks that stay in L2, on the micro-kernel.
//!
//! Convolution cuts each sample's output positions into blocks; the micro-kernel
//! multiplies the packed weights by a block's im2col columns (c_in/g · taps rows),
//! reading them in place from the image: each 16 positions inside one output row are,
//! for every column row, 16 consecutive elements of the padded image (`Columns`), and
//! only the strips across rows are copied out first (copying every column out took 8%
//! of a 7×7 stride-2 convolution of a 224² image in a profile on a Zen 4). 3×3
//! stride-1 convolutions with enough channels take Winograd's algorithm instead;
//! depthwise and 1×1 ones are left to `conv::conv` (`fits`).
//! Transposed convolution cuts the output channels into blocks: the columns of a
//! block's channels (weightᵀ times the sample), then col2im adds them into those
//! channels alone.
//!
//! im2col and col2im work on the image padded and split into phases (`padded`), so
//! every run of positions reads or adds a contiguous stretch. Both add the bias (when
//! given) last, as `ops::conv` does for the other kernels. Blocks run in parallel; each
//! output element is computed the same way (one fused multiply-add chain per column
//! entry, then the same additions) whatever the blocking, thread count and ISA.

use std::borrow::Cow;
use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};

use super::generic::Channels;
pub use super::operands::Operands;
use super::padded::{add_columns, Columns, Padded, Runs};
use super::window::Window;
use super::winograd;
use crate::kernels::alloc::filled;
use crate::kernels::isa::Isa;
use crate::kernels::linalg::microkernel::{
    pack_panels, panels_len, product, row_stride, Offsets, Strided, Tiles, LANES, MR, NR, WIDE,
};
use crate::kernels::parallel::{for_each_chunk_mut, for_each_item, threads, Disjoint};

/// Bytes of one block's columns, were they copied out (a quarter of a 1 MiB L2): the
/// work of one item.
const BLOCK_BYTES: usize = 1 << 18;
/// Most positions per block.
const MAX_BLOCK: usize = 32 * NR;

/// True when `conv` takes this convolution: several input channels per group, output
/// channels, a window that is not the image itself (those run as one GEMM), an image
/// with elements (an empty one with padding has outputs, all from the padding: the
/// generic kernel's zeros), and a compact padded layout (`Padded::is_compact`).
pub fn fits(win: &Window, ch: Channels) -> bool {
    let (ci, co) = (ch.c_in / ch.groups, ch.c_out / ch.groups);
    ci > 1
        && co > 0
        && !win.is_identity()
        && win.out_len() > 0
        && win.image_len() > 0
        && Padded::is_compact(win)
}

/// Convolution of a batch, as `conv::conv` plus the bias, where `fits` holds: `x`
/// [N, c_in, image...], `weight` [c_out, c_in/groups · kernel_len]; the result
/// [N, c_out, out_len] has `len` elements (`None` when it cannot be allocated).
pub fn conv_new(len: usize, o: Operands) -> Option<Vec<f32>> {
    let (ci, co) = o.per_group();
    if winograd::applies(o.win, ci, co, o.x, o.weight) {
        // SAFETY: `winograd::conv` writes every element (each band every row of its
        // tile rows), and only an interrupt skips bands.
        return unsafe { filled(len, |out| winograd::conv(out, o)) };
    }
    let (isa, layout) = (Isa::detect(), Padded::new(o.win));
    let x = layout.lay_out(isa, o.x, o.win.image_len())?;
    // SAFETY: `conv` writes every element (each item its block of every output row),
    // and only an interrupt skips items.
    unsafe { filled(len, |out| conv(out, o, isa, (&layout, &x))) }
}

/// `conv_new` into `out`, from the image laid out (`x`, in `layout`).
fn conv(out: &mut [MaybeUninit<f32>], o: Operands, isa: Isa, (layout, x): (&Padded, &[f32])) {
    let (weight, bias) = (o.weight, o.bias);
    let (win, ch, (ci, co)) = (o.win, o.ch, o.per_group());
    let (taps, l) = (win.kernel_len(), win.out_len());
    let k = ci * taps;
    let samples = out.len() / (ch.c_out * l);
    let blocks = Blocks::new(l, k, samples, threads());
    // Per group, the weights packed for the micro-kernel.
    let size = panels_len(co, k);
    let mut panels = vec![0.0; ch.groups * size];
    for (dst, w) in panels
        .chunks_exact_mut(size)
        .zip(weight.chunks_exact(co * k))
    {
        pack_panels(dst, w, (co, k), (k, 1));
    }
    let image = layout.channel_len();
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let out = Disjoint::new(out);
    for_each_item(
        samples * blocks.count,
        // Per thread, the item's output rows, one buffer for all its items.
        Vec::new,
        |rows, item| {
            let (n, positions) = (item / blocks.count, blocks.range(item % blocks.count));
            let (p0, nb) = (positions.start, positions.len());
            with_block_scratch(
                |BlockScratch {
                     strip,
                     runs,
                     columns,
                     block,
                 }| {
                    strip.resize(k * NR, 0.0);
                    // The block's columns are the same for every sample.
                    if *block != Some((call, p0, nb)) {
                        *block = None;
                        runs.reset(win, layout, p0, nb);
                        columns.reset(runs, ci, image);
                        *block = Some((call, p0, nb));
                    }
                    for (g, panels) in panels.chunks_exact(size).enumerate() {
                        let xg = &x[(n * ch.c_in + g * ci) * image..][..ci * image];
                        let first = (n * ch.c_out + g * co) * l + p0;
                        rows.clear();
                        // SAFETY: item (n, block) alone writes columns p0..p0 + nb of sample
                        // n's output rows, and only here.
                        rows.extend((0..co).map(|r| unsafe { out.part(first + r * l, nb) }));
                        let bias = bias.map(|b| &b[g * co..][..co]);
                        let tiles = Tiles::new((panels, co, k), rows, bias);
                        // (48 bytes per output row the block touches: up to 21 rows, glibc
                        // serves them from its per-thread cache, without the lock.)
                        let segments: Vec<Offsets> =
                            columns.segments().map(|o| Offsets::new(xg, o)).collect();
                        let mut s = 0;
                        while s < nb {
                            // A whole strip inside one output row reads the image in place,
                            // a wide one where it fits; others (across rows, or the block's
                            // last) are gathered first.
                            if let Some((j, at)) = columns.within(s, WIDE) {
                                tiles.strip(isa, segments[j].at(at), (rows, s), WIDE / LANES);
                                s += WIDE;
                                continue;
                            }
                            if let Some((j, at)) = columns.within(s, NR) {
                                tiles.strip(isa, segments[j].at(at), (rows, s), NR / LANES);
                            } else {
                                let width = (nb - s).min(NR);
                                columns.gather(xg, s, NR, strip);
                                let b = Strided { b: strip, ldb: NR };
                                tiles.strip(isa, b, (rows, s), width.div_ceil(LANES));
                            }
                            s += NR;
                        }
                    }
                },
            )
        },
    );
}

/// Calls of `conv` so far: with a block's positions, it names the block whose runs and
/// columns a thread's `BlockScratch` holds.
static CALLS: AtomicU64 = AtomicU64::new(0);

/// A block's buffers in `conv`: the strip gathered across output rows, and the block's
/// runs and columns, which depend on the call and the block's positions alone. They
/// are kept while a thread's items stay in one block: items go sample by sample, so
/// that is when a sample is one block (small images, where recomputing them for every
/// sample took a fifth of the convolution).
#[derive(Default)]
struct BlockScratch {
    strip: Vec<f32>,
    runs: Runs,
    columns: Columns,
    /// The call (`CALLS`), first position and positions of `runs` and `columns`.
    block: Option<(u64, usize, usize)>,
}

/// `f` on this thread's `BlockScratch`, kept from call to call (as large as the largest
/// block the thread has run needed: 16 floats and one offset per output row for each
/// of its k column rows). Allocated per item, the two threads' buffers were often
/// allocated at the same moment, and one thread then slept on the allocator's lock
/// (`M_ARENA_MAX` is 1, see `alloc`): about 1.1 of the 2.8 context switches per call of
/// a 7×7 stride-2 convolution at 2 threads.
fn with_block_scratch(f: impl FnOnce(&mut BlockScratch)) {
    thread_local! {
        static SCRATCH: RefCell<BlockScratch> = RefCell::new(BlockScratch::default());
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => f(&mut scratch),
        // Not reached (nothing in `f` runs other work on this thread); should that
        // change, fresh buffers rather than a panic.
        Err(_) => f(&mut BlockScratch::default()),
    })
}

/// The output positions of a sample cut into blocks of whole `NR`-position strips
/// (`LANES` for an output smaller than `NR`), within `BLOCK_BYTES` of columns each and
/// at most `MAX_BLOCK`. Block sizes differ by at most one strip, and the blocks of all
/// samples are a multiple of the thread count when there are enough strips, so no
/// thread runs one block more than another (the blocking changes no value: each
/// output position is computed alone).
struct Blocks {
    /// Blocks per sample.
    count: usize,
    /// Strips of positions and their width.
    strips: usize,
    width: usize,
    /// Positions in a sample.
    len: usize,
}

impl Blocks {
    fn new(len: usize, k: usize, samples: usize, threads: usize) -> Blocks {
        let width = if len < NR { LANES } else { NR };
        let strips = len.div_ceil(width);
        let per_block = (BLOCK_BYTES / 4 / k.max(1) / width).clamp(1, MAX_BLOCK / width);
        let mut count = strips.div_ceil(per_block);
        while !(samples * count).is_multiple_of(threads.max(1)) && count < strips {
            count += 1;
        }
        Blocks {
            count,
            strips,
            width,
            len,
        }
    }

    /// The positions of block `i` of a sample.
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        let at = |i: usize| (self.strips * i / self.count * self.width).min(self.len);
        at(i)..at(i + 1)
    }
}

/// True when `conv_transpose` takes this transposed convolution (one with channels,
/// spatial dims and an input image, and a compact padded layout).
pub fn fits_transpose(win: &Window, ch: Channels) -> bool {
    ch.c_in > 0
        && ch.c_out > 0
        && !win.dims().is_empty()
        && win.out_len() > 0
        && Padded::is_compact(win)
}

/// Transposed convolution of a batch, as `conv::conv_transpose` plus the bias, where `fits_transpose` holds: `x` [N, c_in, L], `weight` [c_in, c_out/groups ·
/// kernel_len]; the result [N, c_out, image...] has `len` elements (`None` when it
/// cannot be allocated).
pub fn conv_transpose_new(len: usize, o: Operands) -> Option<Vec<f32>> {
    // SAFETY: `conv_transpose` writes every element (each item all of its block's
    // output channels), and only an interrupt skips items.
    unsafe { filled(len, |out| conv_transpose(out, o)) }
}

/// `conv_transpose_new` into `out`.
fn conv_transpose(out: &mut [MaybeUninit<f32>], o: Operands) {
    let (x, weight, bias) = (o.x, o.weight, o.bias);
    let (win, ch, (ci, co)) = (o.win, o.ch, o.per_group());
    let (taps, l, image) = (win.kernel_len(), win.out_len(), win.image_len());
    // The channels of x in rows padded to whole vectors, as the micro-kernel reads them:
    // x itself when its rows already have that stride.
    let ldb = row_stride(l);
    let x_rows: Cow<[f32]> = if ldb == l {
        Cow::Borrowed(x)
    } else {
        let mut rows = vec![0.0; x.len() / l * ldb];
        for (dst, src) in rows.chunks_exact_mut(ldb).zip(x.chunks_exact(l)) {
            dst[..l].copy_from_slice(src);
        }
        Cow::Owned(rows)
    };
    // Output channels per block: columns within budget, in whole panels when possible.
    let most = (BLOCK_BYTES / 4 / (taps * ldb)).clamp(1, co);
    let per_block = (1..=most)
        .rev()
        .find(|c| c * taps % MR == 0)
        .unwrap_or(most);
    let blocks = co.div_ceil(per_block);
    // Per group and block, the rows (channel, tap) of weightᵀ, packed.
    let size = panels_len(per_block * taps, ci);
    // In parallel: a strided gather, 3% of a 1-thread profile when serial.
    let mut panels = vec![0.0; ch.groups * blocks * size];
    for_each_chunk_mut(&mut panels, size, |start, dst| {
        let gb = start / size;
        let (g, c0) = (gb / blocks, gb % blocks * per_block);
        let rows = per_block.min(co - c0) * taps;
        let wg = &weight[(g * ci * co + c0) * taps..];
        pack_panels(dst, wg, (rows, ci), (1, co * taps));
    });
    let layout = Padded::new(win);
    let runs = Runs::new(win, &layout, 0, l);
    // Per item: the columns of a block's channels, then those channels laid out.
    let (cols_len, channel) = (
        (per_block * taps).next_multiple_of(MR) * ldb,
        layout.channel_len(),
    );
    let isa = Isa::detect();
    let samples = out.len() / (ch.c_out * image);
    let out = Disjoint::new(out);
    for_each_item(
        samples * ch.groups * blocks,
        || vec![0.0; cols_len + per_block * channel + layout.row_len()],
        |scratch, item| {
            let (cols, rest) = scratch.split_at_mut(cols_len);
            let (sums, line) = rest.split_at_mut(per_block * channel);
            let (n, gb) = (item / (ch.groups * blocks), item % (ch.groups * blocks));
            let (g, c0) = (gb / blocks, gb % blocks * per_block);
            let channels = per_block.min(co - c0);
            let xg = &x_rows[(n * ch.c_in + g * ci) * ldb..][..ci * ldb];
            let mut rows: Vec<&mut [f32]> = cols.chunks_mut(ldb).collect();
            let panels = &panels[gb * size..][..size];
            product(
                isa,
                (panels, channels * taps, ci),
                xg,
                (ldb, l),
                &mut rows,
                None,
            );
            let sums = &mut sums[..channels * channel];
            add_columns(isa, sums, channel, cols, ldb, &runs);
            let first = (n * ch.c_out + g * co + c0) * image;
            // SAFETY: item (n, g, block) alone writes the block's output channels.
            let dst = unsafe { out.part(first, channels * image) };
            for (c, (dst, sums)) in dst
                .chunks_exact_mut(image)
                .zip(sums.chunks_exact(channel))
                .enumerate()
            {
                let plus = bias.map_or(-0.0, |b| b[g * co + c0 + c]);
                layout.crop(isa, dst, (sums, plus), line);
            }
        },
    );
}

#[cfg(test)]
mod tests {
    use super::super::generic::im2col;
    use super::super::generic::tests::dim;
    use super::super::window::Dim;
    use super::*;

    fn ch(c_in: usize, c_out: usize, groups: usize) -> Channels {
        Channels {
            c_in,
            c_out,
            groups,
        }
    }

    /// Every output is the fused multiply-add chain over its im2col column in order,
    /// from zero, plus the bias: the columns read in place give the bits of columns
    /// copied out, for strips inside one output row (widths 16 and 48), strips across
    /// rows (widths 7, 20, 56), outputs narrower than a strip, 1-D and 3-D windows,
    /// groups, strides, padding and dilation, and images laid out in several pieces
    /// that cut across channels and samples (the last case).
    #[test]
    fn columns_read_in_place_give_the_fused_chain_bits() {
        let cases: [(&[Dim], Channels, usize); 9] = [
            (&[dim(38, 7, 2, 3, 1), dim(38, 7, 2, 3, 1)], ch(3, 13, 1), 1),
            (&[dim(16, 3, 1, 1, 1), dim(48, 3, 1, 1, 1)], ch(4, 8, 2), 2),
            (&[dim(9, 3, 1, 1, 1), dim(7, 3, 1, 1, 1)], ch(5, 6, 1), 2),
            (&[dim(10, 3, 2, 1, 2), dim(40, 3, 2, 1, 2)], ch(2, 14, 1), 1),
            (&[dim(7, 2, 1, 0, 1), dim(56, 2, 1, 0, 1)], ch(3, 5, 1), 1),
            (&[dim(5, 3, 1, 1, 1), dim(5, 3, 1, 1, 1)], ch(2, 3, 1), 3),
            (&[dim(70, 5, 1, 2, 1)], ch(6, 9, 3), 2),
            (
                &[dim(4, 2, 1, 0, 1), dim(6, 3, 1, 1, 1), dim(18, 3, 1, 1, 1)],
                ch(2, 4, 1),
                1,
            ),
            (&[dim(101, 3, 2, 1, 1), dim(99, 3, 2, 1, 1)], ch(3, 4, 1), 2),
        ];
        for (case, (dims, ch, samples)) in cases.into_iter().enumerate() {
            let win = Window::new(dims);
            assert!(fits(&win, ch), "case {case}");
            let (ci, co) = (ch.c_in / ch.groups, ch.c_out / ch.groups);
            let (taps, l, image) = (win.kernel_len(), win.out_len(), win.image_len());
            let k = ci * taps;
            let value =
                |i: usize, seed: usize| ((i * 2654435761 + seed) % 1999) as f32 / 999.0 - 1.0;
            let x: Vec<f32> = (0..samples * ch.c_in * image)
                .map(|i| value(i, 1))
                .collect();
            let weight: Vec<f32> = (0..ch.c_out * k).map(|i| value(i, 2)).collect();
            let bias: Vec<f32> = (0..ch.c_out).map(|i| value(i, 3)).collect();
            let o = Operands {
                x: &x,
                weight: &weight,
                bias: Some(&bias),
                win: &win,
                ch,
            };
            let len = samples * ch.c_out * l;
            let got = conv_new(len, o).unwrap_or_default();
            assert_eq!(got.len(), len, "case {case}: no output");
            let mut cols = vec![0.0; k * l];
            for n in 0..samples {
                for g in 0..ch.groups {
                    let xg = &x[(n * ch.c_in + g * ci) * image..][..ci * image];
                    im2col(&mut cols, xg, &win);
                    for oc in g * co..(g + 1) * co {
                        let w = &weight[oc * k..][..k];
                        for j in 0..l {
                            let chain =
                                (0..k).fold(0f32, |acc, p| w[p].mul_add(cols[p * l + j], acc));
                            let at = (n * ch.c_out + oc) * l + j;
                            assert_eq!(
                                got[at].to_bits(),
                                (chain + bias[oc]).to_bits(),
                                "case {case} sample {n} channel {oc} position {j}"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Blocks tile each sample's positions in order, in whole strips but the last,
    /// within one strip of each other, a multiple of the thread count
    /// when there are strips enough.
    #[test]
    fn blocks_cover_the_positions_evenly() {
        let cases = [
            (12544, 147, 1),
            (1024, 288, 8),
            (10, 50, 1),
            (5, 2, 3),
            (1, 9, 1),
        ];
        for (len, k, samples) in cases {
            for threads in 1..=5 {
                let b = Blocks::new(len, k, samples, threads);
                let ranges: Vec<_> = (0..b.count).map(|i| b.range(i)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges[b.count - 1].end, len);
                for pair in ranges.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                    assert_eq!(pair[0].len() % b.width, 0);
                }
                let sizes = ranges.iter().map(|r| r.len());
                let (small, large) = (sizes.clone().min().unwrap(), sizes.max().unwrap());
                assert!(small > 0 && large - small <= b.width, "{len}");
                if b.strips >= samples * threads * 2 {
                    assert_eq!(samples * b.count % threads, 0, "{len} {threads}");
                }
            }
        }
        assert_eq!(Blocks::new(12544, 147, 1, 1).count, 30);
        assert_eq!(Blocks::new(12544, 147, 1, 2).count, 30);
    }
}

//! Blocked im2col (read in place) and col2im (see `conv`) over images laid out the way
//! the window reads them: every spatial dim padded with zeros out to where the window
//! reaches, and each row (along the last dim) split into `stride` phases (columns j,
//! j + stride, ...). Then tap t at a run of window positions along an output row reads,
//! or adds into, one contiguous stretch: no bounds to clip and no strided access.

use std::mem::MaybeUninit;

use super::window::{padding_is_compact, Dim, Window};
use crate::kernels::alloc::filled;
use crate::kernels::isa::Isa;
use crate::kernels::parallel::for_each_chunk_mut_with;
use crate::kernels::twin::twin;

/// Elements per piece of `Padded::lay_out`'s parallel copy (64 KiB of f32).
const LAY_OUT_PIECE: usize = 1 << 14;

/// The layout of one channel: `rows` padded rows (row-major over the outer dims), each
/// `step` phases of `len` elements; padded column c is element c % step, c / step.
pub struct Padded {
    /// Per outer dim: image size, padding before, padded extent.
    outer: Vec<(usize, usize, usize)>,
    /// The same for the last dim.
    last: (usize, usize, usize),
    step: usize,
    len: usize,
    rows: usize,
}

impl Padded {
    /// The layout for `win`'s image (a window with spatial dims).
    pub fn new(win: &Window) -> Padded {
        // (Saturated: a layout too large to count is never compact, nor built.)
        let extent = |d: &Dim| (d.image, d.pad, d.reach().unwrap_or(usize::MAX));
        let (last, outer) = win.split_last();
        let outer: Vec<_> = outer.iter().map(extent).collect();
        Padded {
            rows: outer.iter().map(|e| e.2).product(),
            outer,
            last: extent(&last),
            step: last.stride,
            len: extent(&last).2.div_ceil(last.stride),
        }
    }

    /// True when the layout of `win`'s image is compact (`conv::padding_is_compact`,
    /// measured against the image or the output, whichever is larger).
    pub fn is_compact(win: &Window) -> bool {
        let len = win.dims().iter().try_fold(1usize, |len, d| {
            len.checked_mul(d.reach()?.next_multiple_of(d.stride))
        });
        padding_is_compact(len, win.image_len().max(win.out_len()))
    }

    /// Elements of a channel in this layout.
    pub fn channel_len(&self) -> usize {
        self.rows * self.row_len()
    }

    /// Elements of one padded row: `step` phases of `len`.
    pub fn row_len(&self) -> usize {
        self.step * self.len
    }

    /// The index of padded column `c` of padded row `row`.
    fn index(&self, row: usize, c: usize) -> usize {
        (row * self.step + c % self.step) * self.len + c / self.step
    }

    /// The image row (flat over the outer dims) that padded row `row` holds, if any.
    fn image_row(&self, mut row: usize) -> Option<usize> {
        let (mut image_row, mut stride) = (0, 1);
        for &(image, pad, extent) in self.outer.iter().rev() {
            let i = (row % extent).checked_sub(pad).filter(|&i| i < image)?;
            (image_row, stride, row) = (image_row + i * stride, stride * image, row / extent);
        }
        Some(image_row)
    }

    /// The channels of `images` (`image_len` elements each) in this layout, laid out
    /// in parallel in pieces of whole rows (a copy: every cut gives the same values;
    /// done serially it was 3% of a 7×7 stride-2 convolution's profile on one thread),
    /// or `None` when the buffer cannot be allocated. Each piece is written once by the
    /// thread that lays it out, padding rows too, instead of zeroing the whole buffer
    /// first on the calling thread (`memset` had 1.3% of a 2-thread profile of that
    /// convolution, 0.2% after).
    pub fn lay_out(&self, isa: Isa, images: &[f32], image_len: usize) -> Option<Vec<f32>> {
        let (width, pad, extent) = self.last;
        let row_len = self.row_len();
        let len = images.len() / image_len.max(1) * self.channel_len();
        if len == 0 {
            return Some(Vec::new());
        }
        let piece = (LAY_OUT_PIECE / row_len).max(1) * row_len;
        let line = || vec![0.0; row_len];
        let lay_out_piece = |line: &mut Vec<f32>, start: usize, piece: &mut [MaybeUninit<f32>]| {
            for (r, dst) in piece.chunks_exact_mut(row_len).enumerate() {
                let row = start / row_len + r;
                let (channel, row) = (row / self.rows, row % self.rows);
                let Some(i) = self.image_row(row) else {
                    dst.fill(MaybeUninit::new(0.0));
                    continue;
                };
                // The row with its padding, cropped to the extent, then split.
                let image = &images[channel * image_len..][..image_len];
                let src = &image[i * width..][..width.min(extent.saturating_sub(pad))];
                line.fill(0.0);
                copy_run(&mut line[pad.min(extent)..][..src.len()], src);
                split_row(isa, dst, line, self.step, self.len);
            }
        };
        // SAFETY: the pieces cover the buffer in whole rows (`len` is a multiple of
        // `row_len`), and every row is written: an image row by `split_row`, which
        // fills all its phases, any other with zeros. Only an interrupt skips pieces.
        unsafe {
            filled(len, |out| {
                for_each_chunk_mut_with(out, piece, line, lay_out_piece);
            })
        }
    }

    /// `dst` (a channel of the image) = `src` (the channel in this layout, cropped to
    /// the image) + `plus` (the bias, or -0.0, which keeps every value); `line` is
    /// scratch of `row_len` elements.
    pub fn crop(
        &self,
        isa: Isa,
        dst: &mut [MaybeUninit<f32>],
        (src, plus): (&[f32], f32),
        line: &mut [f32],
    ) {
        let (width, pad, extent) = self.last;
        let row_len = self.row_len();
        let line = &mut line[..row_len];
        for (i, dst) in dst.chunks_exact_mut(width).enumerate() {
            // The padded row holding image row i, if the window reaches it.
            match self.padded_row(i) {
                Some(row) => merge_row(
                    isa,
                    line,
                    &src[row * row_len..][..row_len],
                    self.step,
                    self.len,
                ),
                None => line.fill(0.0),
            }
            let reached = &line[pad.min(extent)..extent];
            crop_row(isa, dst, reached, plus);
        }
    }

    /// The padded row holding image row `i` (flat over the outer dims), if any.
    fn padded_row(&self, mut i: usize) -> Option<usize> {
        let (mut row, mut stride) = (0, 1);
        for &(image, pad, extent) in self.outer.iter().rev() {
            let r = Some(i % image + pad).filter(|&r| r < extent)?;
            (row, stride, i) = (row + r * stride, stride * extent, i / image);
        }
        Some(row)
    }
}

twin! {
    /// A padded row (`line`) as `step` phases of `len` (`dst`), all written.
    fn split_row[](dst: &mut [MaybeUninit<f32>], line: &[f32], step: usize, len: usize) {
        if step == 1 {
            for (d, &v) in dst.iter_mut().zip(line) {
                d.write(v);
            }
        } else if step == 2 {
            let (even, odd) = dst.split_at_mut(len);
            for ((e, o), pair) in even.iter_mut().zip(odd).zip(line.chunks_exact(2)) {
                e.write(pair[0]);
                o.write(pair[1]);
            }
        } else {
            for (p, phase) in dst.chunks_exact_mut(len).enumerate() {
                for (v, &x) in phase.iter_mut().zip(line.iter().skip(p).step_by(step)) {
                    v.write(x);
                }
            }
        }
    }
}

twin! {
    /// The inverse of `split_row`.
    fn merge_row[](line: &mut [f32], src: &[f32], step: usize, len: usize) {
        if step == 1 {
            line.copy_from_slice(src);
        } else if step == 2 {
            let (even, odd) = src.split_at(len);
            for (pair, (&e, &o)) in line.chunks_exact_mut(2).zip(even.iter().zip(odd)) {
                (pair[0], pair[1]) = (e, o);
            }
        } else {
            for (p, phase) in src.chunks_exact(len).enumerate() {
                for (v, &x) in line.iter_mut().skip(p).step_by(step).zip(phase) {
                    *v = x;
                }
            }
        }
    }
}

twin! {
    /// `dst = reached + plus`, and `0 + plus` past what the window reached.
    fn crop_row[](dst: &mut [MaybeUninit<f32>], reached: &[f32], plus: f32) {
        let (head, tail) = dst.split_at_mut(reached.len().min(dst.len()));
        for (d, &v) in head.iter_mut().zip(reached) {
            d.write(v + plus);
        }
        for d in tail {
            d.write(0.0 + plus);
        }
    }
}

/// A stretch of `len` window positions of one tap's column row, from position `dst` of
/// the block on, reading `len` consecutive elements of a `Padded` channel from `src`.
#[derive(Clone, Copy)]
struct Run {
    dst: usize,
    len: usize,
    src: usize,
}

/// The runs of each kernel tap over a block of window positions.
#[derive(Default)]
pub struct Runs {
    runs: Vec<Run>,
    /// Tap `t`'s runs are `runs[starts[t]..starts[t + 1]]`.
    starts: Vec<usize>,
}

impl Runs {
    /// The runs of positions `p0..p0 + nb` (flat, row-major over the output dims; at
    /// least one) of `win` over images in `layout`.
    pub fn new(win: &Window, layout: &Padded, p0: usize, nb: usize) -> Runs {
        let mut runs = Runs::default();
        runs.reset(win, layout, p0, nb);
        runs
    }

    /// This value becomes `Runs::new(win, layout, p0, nb)`, in the buffers it has (a
    /// convolution rebuilds a block's runs in a thread's buffers when the thread's
    /// next work item is another block).
    pub fn reset(&mut self, win: &Window, layout: &Padded, p0: usize, nb: usize) {
        let (last, outer) = win.split_last();
        let width = last.out;
        let (first, end) = (p0 / width, (p0 + nb - 1) / width + 1);
        // The padded row of an output row's window at tap 0, and a tap's shift of it.
        let out_row = |mut q: usize| {
            let (mut row, mut stride) = (0, 1);
            for (d, &(_, _, extent)) in outer.iter().zip(&layout.outer).rev() {
                row += q % d.out * d.stride * stride;
                (q, stride) = (q / d.out, stride * extent);
            }
            row
        };
        let tap_row = |mut t: usize| {
            let (mut row, mut stride) = (0, 1);
            for (d, &(_, _, extent)) in outer.iter().zip(&layout.outer).rev() {
                row += t % d.kernel * d.dilation * stride;
                (t, stride) = (t / d.kernel, stride * extent);
            }
            row
        };
        let (runs, starts) = (&mut self.runs, &mut self.starts);
        runs.clear();
        runs.reserve(win.kernel_len() * (end - first));
        starts.clear();
        starts.push(0);
        // Tap 0's run in each output row of the block, then each other tap's as those
        // offset by where it reads: `shift` padded rows and `reach` padded columns
        // further, one offset for every run, since the layout's phases are the
        // stride's (`index` of column a·stride + reach is `index` of a·stride plus that
        // of reach). Without the divisions of `index` and `out_row` per run: 1.7% of a
        // one-thread profile of a 7×7 stride-2 convolution on the Zen 3 of
        // docs/PERFORMANCE.md.
        debug_assert_eq!(layout.step, last.stride);
        for t in 0..win.kernel_len() {
            if t == 0 {
                runs.extend((first..end).map(|q| {
                    // This output row's positions in the block, along the last dim.
                    let (a, b) = (
                        p0.max(q * width) - q * width,
                        (p0 + nb).min(q * width + width) - q * width,
                    );
                    Run {
                        dst: q * width + a - p0,
                        len: b - a,
                        src: layout.index(out_row(q), a * last.stride),
                    }
                }));
            } else {
                let (shift, reach) = (tap_row(t / last.kernel), t % last.kernel * last.dilation);
                let offset = layout.index(shift, reach);
                let from = runs.len();
                runs.extend_from_within(..starts[1]);
                for run in &mut runs[from..] {
                    run.src += offset;
                }
            }
            starts.push(runs.len());
        }
    }

    /// Kernel taps.
    fn taps(&self) -> usize {
        self.starts.len() - 1
    }

    /// Tap `t`'s runs.
    fn of(&self, t: usize) -> &[Run] {
        &self.runs[self.starts[t]..self.starts[t + 1]]
    }
}

/// A block's im2col columns (row c·taps + t holds tap t of channel c at each position
/// of the block) read in place from the group's channels (`Padded`, `channel_len`
/// elements each) instead of copied out: the block's positions fall into segments, one
/// per output row they touch, and within a segment each column row is a contiguous
/// stretch of one channel.
#[derive(Default)]
pub struct Columns {
    /// Per segment: its first position in the block and its length.
    segments: Vec<(usize, usize)>,
    /// Per segment, `k` offsets: column row p at the segment's position i is element
    /// `offsets[p] + i` of the channels.
    offsets: Vec<usize>,
    k: usize,
}

impl Columns {
    /// This value becomes the columns of the block `runs` describes, over `channels`
    /// channels, in the buffers it has (as `Runs::reset`).
    pub fn reset(&mut self, runs: &Runs, channels: usize, channel_len: usize) {
        let taps = runs.taps();
        self.segments.clear();
        // Without columns (no taps or channels) there is nothing to read in place.
        if taps * channels > 0 {
            let segments = runs.of(0).iter().map(|run| (run.dst, run.len));
            self.segments.extend(segments);
        }
        let k = channels * taps;
        self.k = k;
        self.offsets.clear();
        self.offsets.resize(self.segments.len() * k, 0);
        for t in 0..taps {
            for (segment, run) in self.offsets.chunks_exact_mut(k.max(1)).zip(runs.of(t)) {
                for (c, offset) in segment.iter_mut().skip(t).step_by(taps).enumerate() {
                    *offset = c * channel_len + run.src;
                }
            }
        }
    }

    /// The first segment that ends past position `s` (segments are in order).
    fn first_reaching(&self, s: usize) -> usize {
        self.segments
            .partition_point(|&(start, len)| start + len <= s)
    }

    /// Per segment, its `k` offsets (see `offsets`).
    pub fn segments(&self) -> impl Iterator<Item = &[usize]> {
        self.offsets.chunks_exact(self.k.max(1))
    }

    /// The segment that holds all of positions `s..s + width`, if one does: its index
    /// and where `s` is in it.
    pub fn within(&self, s: usize, width: usize) -> Option<(usize, usize)> {
        let j = self.first_reaching(s);
        let &(start, len) = self.segments.get(j)?;
        (start <= s && s + width <= start + len).then_some((j, s - start))
    }

    /// `dst` ([k][width]) = the columns at positions `s..s + width` of `x` (the group's
    /// channels), zero past the block's positions.
    pub fn gather(&self, x: &[f32], s: usize, width: usize, dst: &mut [f32]) {
        let dst = &mut dst[..self.k * width];
        dst.fill(0.0);
        let first = self.first_reaching(s);
        for (j, &(start, len)) in self.segments.iter().enumerate().skip(first) {
            let (lo, hi) = (start.max(s), (start + len).min(s + width));
            if lo >= hi {
                break;
            }
            let offsets = &self.offsets[j * self.k..][..self.k];
            for (row, &offset) in dst.chunks_exact_mut(width).zip(offsets) {
                let src = &x[offset + lo - start..][..hi - lo];
                copy_run(&mut row[lo - s..hi - s], src);
            }
        }
    }
}

/// `dst.copy_from_slice(src)` (equal lengths) in pieces of fixed size: image rows and
/// gathered runs are a few floats on small images, for which a call to `memmove` cost
/// more than the copy (7% of a small CNN's training step).
#[inline(always)]
fn copy_run(dst: &mut [f32], src: &[f32]) {
    debug_assert_eq!(dst.len(), src.len());
    let (mut d, mut s) = (dst.chunks_exact_mut(4), src.chunks_exact(4));
    for (d, s) in (&mut d).zip(&mut s) {
        d.copy_from_slice(s);
    }
    match (d.into_remainder(), s.remainder()) {
        ([d0], [s0]) => *d0 = *s0,
        ([d0, d1], [s0, s1]) => (*d0, *d1) = (*s0, *s1),
        ([d0, d1, d2], [s0, s1, s2]) => (*d0, *d1, *d2) = (*s0, *s1, *s2),
        _ => {}
    }
}

twin! {
    /// col2im of a block's columns (row c·taps + t of `ldb` holds tap t of channel c)
    /// into the channels of `image` (`Padded`, `channel_len` elements each): zeroed,
    /// then each column entry added to the element its tap reads, in order of the taps.
    pub fn add_columns[](image: &mut [f32], channel_len: usize, cols: &[f32], ldb: usize, runs: &Runs) {
        for (channel, rows) in image.chunks_exact_mut(channel_len).zip(cols.chunks(runs.taps() * ldb)) {
            channel.fill(0.0);
            for (t, row) in rows.chunks(ldb).enumerate() {
                for run in runs.of(t) {
                    add_run(&mut channel[run.src..][..run.len], &row[run.dst..][..run.len]);
                }
            }
        }
    }
}

/// `dst[i] += src[i]` (equal lengths), 8 at a time: a run is as long as an output row
/// of the block (28 positions for a 28-wide image), and the compiler's own loop, 32 at
/// a time, left so short a run to its one-by-one tail. In a kernel harness on the Zen 3
/// of docs/PERFORMANCE.md, 14,336 runs of 28 took 59 µs this way and 80 µs before; in
/// a one-thread profile of a 64-channel stride-2 transposed convolution, 28 × 28,
/// `add_columns` kept its share (9.3% before, 9.1% after).
#[inline(always)]
fn add_run(dst: &mut [f32], src: &[f32]) {
    debug_assert_eq!(dst.len(), src.len());
    let (mut d, mut s) = (dst.chunks_exact_mut(8), src.chunks_exact(8));
    for (d, s) in (&mut d).zip(&mut s) {
        for (d, s) in d.iter_mut().zip(s) {
            *d += s;
        }
    }
    // The rest 4 and then one at a time, spelt out: as a loop, the compiler made the
    // rest one masked load and store, and AMD's masked store is slow (`add_columns`
    // took 19% of that profile).
    let (mut d, mut s) = (
        d.into_remainder().chunks_exact_mut(4),
        s.remainder().chunks_exact(4),
    );
    for (d, s) in (&mut d).zip(&mut s) {
        for (d, s) in d.iter_mut().zip(s) {
            *d += s;
        }
    }
    match (d.into_remainder(), s.remainder()) {
        ([d0], [s0]) => *d0 += s0,
        ([d0, d1], [s0, s1]) => (*d0, *d1) = (*d0 + s0, *d1 + s1),
        ([d0, d1, d2], [s0, s1, s2]) => (*d0, *d1, *d2) = (*d0 + s0, *d1 + s1, *d2 + s2),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{add_run, copy_run};

    #[test]
    fn runs_of_every_length_up_to_a_strip_are_copied() {
        let src: Vec<f32> = (1..=17).map(|v| v as f32).collect();
        for len in 0..=17 {
            let mut dst = vec![0.0; 18];
            copy_run(&mut dst[1..1 + len], &src[..len]);
            let mut want = vec![0.0; 18];
            want[1..1 + len].copy_from_slice(&src[..len]);
            assert_eq!(dst, want, "{len}");
        }
    }

    #[test]
    fn runs_of_every_length_up_to_two_vectors_are_added() {
        let src: Vec<f32> = (1..=19).map(|v| v as f32 * 0.5).collect();
        for len in 0..=19 {
            let start: Vec<f32> = (0..20).map(|v| v as f32 * 3.0).collect();
            let mut dst = start.clone();
            add_run(&mut dst[1..1 + len], &src[..len]);
            let mut want = start;
            for (w, s) in want[1..1 + len].iter_mut().zip(&src) {
                *w += s;
            }
            assert_eq!(dst, want, "{len}");
        }
    }
}

//! The f32 register-blocked multiply-add under the blocked convolutions: one tile of
//! `MR` output rows by 8 or 16 columns (a pair of panels: 16 or 32) accumulates `Σ_p a[p][r] · b[p][c]`, with `a`
//! packed as panels of `MR` rows ([k][MR], weights packed once per call) and `b` read
//! as rows of contiguous values: at any row stride (`Strided`: a Winograd transform),
//! or each row anywhere in one slice (`Offsets`: a convolution's columns read in place
//! from the image). The tile stays in registers for the whole sum: 12 of AVX2's 16 (a
//! 4 × 24 tile, the same 12, made LLVM spill one for the broadcasts). With AVX-512 a
//! row of 16 columns is one register, and two panels go together as one tile of up to
//! 12 rows: 7 to 12 accumulators, enough to hide the FMA latency, and one load of `b`
//! for both; on a wide strip (`WIDE`, 32 columns) such a pair is 12 × 32, two loads
//! of `b` per 24 multiply-adds.
//!
//! Each sum is one chain of fused multiply-adds in order of p, from zero; the AVX-512
//! and AVX2 kernels and their scalar twin (`f32::mul_add`, also exact) give the same
//! bits.

use std::mem::MaybeUninit;

use crate::kernels::base_register::advance;
use crate::kernels::isa::Isa;

/// Rows of a tile (and of a packed panel).
pub const MR: usize = 6;
/// Columns per vector.
pub const LANES: usize = 8;
/// Columns of a strip (two vectors of LANES).
pub const NR: usize = 2 * LANES;
/// Columns of a wide strip: two AVX-512 vectors, 12 × 32 tiles (24 sums) whose two
/// loads of `b` per step serve 24 multiply-adds instead of 12.
pub const WIDE: usize = 2 * NR;

/// An element of the micro-kernel's output: an f32, or one not yet written.
///
/// # Safety
/// Implementors have the size and alignment of f32, and a written f32 is a valid value
/// (the AVX2 kernel stores f32 vectors into them).
pub unsafe trait Slot {
    fn set(&mut self, v: f32);
}

// SAFETY: f32 itself.
unsafe impl Slot for f32 {
    fn set(&mut self, v: f32) {
        *self = v;
    }
}

// SAFETY: `MaybeUninit<f32>` has f32's layout, and any f32 written is a value.
unsafe impl Slot for MaybeUninit<f32> {
    fn set(&mut self, v: f32) {
        self.write(v);
    }
}

/// Floats of the packed panels of an `m × k` matrix: ⌈m / MR⌉ panels of [k][MR].
pub fn panels_len(m: usize, k: usize) -> usize {
    m.div_ceil(MR) * MR * k
}

/// Where element (i, p) of an `m × k` matrix goes in its packed panels.
pub fn panel_index(i: usize, p: usize, k: usize) -> usize {
    (i / MR * k + p) * MR + i % MR
}

/// Packs the `m × k` matrix whose element (i, p) is `a[i·rs + p·cs]` into `dst`
/// (`panels_len(m, k)` floats): ⌈m / MR⌉ panels of [k][MR], rows past `m` zero.
pub fn pack_panels(dst: &mut [f32], a: &[f32], (m, k): (usize, usize), (rs, cs): (usize, usize)) {
    for (q, panel) in dst[..panels_len(m, k)].chunks_exact_mut(MR * k).enumerate() {
        for (p, dst) in panel.chunks_exact_mut(MR).enumerate() {
            for (r, d) in dst.iter_mut().enumerate() {
                let i = q * MR + r;
                *d = if i < m { a[i * rs + p * cs] } else { 0.0 };
            }
        }
    }
}

/// A row stride for a matrix `b` of `cols` columns: an odd number of whole cache lines
/// (16 floats), so that in a buffer starting on a cache line no AVX-512 row load splits
/// across two lines, and a tile's strip of rows spreads over all L1 sets (a multiple of
/// 512 bytes would keep it in 1/8 of them). Half lines, the rule before AVX-512, split
/// every other row's load: with the buffer on a cache line, whole lines took a
/// Winograd convolution from 1.41–1.43 to 1.36–1.41 ms on the Intel Xeon of
/// docs/PERFORMANCE.md (2026-12-04; unmeasured on AVX2 and other hosts).
pub fn row_stride(cols: usize) -> usize {
    let s = cols.next_multiple_of(NR);
    if s.is_multiple_of(2 * NR) {
        s + NR
    } else {
        s
    }
}

/// The `k` rows of `b` one tile reads, `NV · LANES` contiguous values each.
pub trait RowsOfB<'a>: Copy {
    /// True when each of rows 0..k holds `width` readable values.
    fn hold(self, k: usize, width: usize) -> bool;
    /// The `width` values of row p, for p < k of a `hold`.
    fn row(self, p: usize, width: usize) -> &'a [f32];
    /// Where row p starts.
    ///
    /// # Safety
    /// p < k for a k and width that `hold` accepted; the row's `width` values from the
    /// pointer are then readable.
    unsafe fn start(self, p: usize) -> *const f32;
    /// The rows from `cols` values further on (at most the width a `hold` accepted).
    fn shifted(self, cols: usize) -> Self;
}

/// Row p at `b[p · ldb..]`.
#[derive(Clone, Copy)]
pub struct Strided<'a> {
    pub b: &'a [f32],
    pub ldb: usize,
}

impl<'a> RowsOfB<'a> for Strided<'a> {
    fn hold(self, k: usize, width: usize) -> bool {
        k == 0
            || (k - 1)
                .checked_mul(self.ldb)
                .and_then(|s| s.checked_add(width))
                <= Some(self.b.len())
    }

    fn row(self, p: usize, width: usize) -> &'a [f32] {
        &self.b[p * self.ldb..][..width]
    }

    unsafe fn start(self, p: usize) -> *const f32 {
        // SAFETY: p < k of a `hold`, so row p starts inside `b`.
        unsafe { self.b.as_ptr().add(p * self.ldb) }
    }

    fn shifted(self, cols: usize) -> Self {
        Strided {
            b: &self.b[cols.min(self.b.len())..],
            ..self
        }
    }
}

/// Row p at `x[offsets[p] + at..]`: rows anywhere in one slice.
#[derive(Clone, Copy)]
pub struct Offsets<'a> {
    x: &'a [f32],
    offsets: &'a [usize],
    /// The largest offset.
    most: usize,
    at: usize,
}

impl<'a> Offsets<'a> {
    pub fn new(x: &'a [f32], offsets: &'a [usize]) -> Offsets<'a> {
        let most = offsets.iter().copied().max().unwrap_or(0);
        Offsets {
            x,
            offsets,
            most,
            at: 0,
        }
    }

    /// The rows from `at` values further on.
    pub fn at(self, at: usize) -> Offsets<'a> {
        Offsets { at, ..self }
    }
}

impl<'a> RowsOfB<'a> for Offsets<'a> {
    fn hold(self, k: usize, width: usize) -> bool {
        let end = self
            .most
            .checked_add(self.at)
            .and_then(|s| s.checked_add(width));
        k <= self.offsets.len() && (k == 0 || end <= Some(self.x.len()))
    }

    fn row(self, p: usize, width: usize) -> &'a [f32] {
        &self.x[self.offsets[p] + self.at..][..width]
    }

    unsafe fn start(self, p: usize) -> *const f32 {
        // SAFETY: p < k ≤ offsets.len() (`hold`), and no offset is past `most`, whose
        // row `hold` found inside `x`.
        unsafe {
            self.x
                .as_ptr()
                .add(*self.offsets.get_unchecked(p) + self.at)
        }
    }

    fn shifted(self, cols: usize) -> Self {
        self.at(self.at + cols)
    }
}

/// The product of `m` packed rows (`panels` from `pack_panels`, inner size `k`) and the
/// `k × cols` matrix `b` (row stride `ldb`; its columns up to the next multiple of
/// `LANES` must be readable), plus `plus[r]` on row r (-0.0, which keeps every value,
/// without it): `dst[r][c]` for r < m, c < cols. Rows with room are written in whole
/// vectors up to a multiple of `LANES` (junk for the caller to drop). Tiles go across
/// all panels before the next columns, so a tile's columns of `b` stay in L1.
///
/// # Panics
/// When an operand is too short (the callers size them so that it cannot fire).
pub fn product<D: Slot>(
    isa: Isa,
    (panels, m, k): (&[f32], usize, usize),
    b: &[f32],
    (ldb, cols): (usize, usize),
    dst: &mut [&mut [D]],
    plus: Option<&[f32]>,
) {
    let tiles = Tiles::new((panels, m, k), dst, plus);
    let mut c = 0;
    while c < cols {
        let width = if cols - c >= WIDE { WIDE } else { NR };
        let nv = (cols - c).min(width).div_ceil(LANES);
        tiles.strip(isa, Strided { b: &b[c..], ldb }, (dst, c), nv);
        c += width;
    }
}

/// `product` one strip of columns at a time, for callers that find each strip's rows
/// of `b` themselves.
pub struct Tiles<'a> {
    panels: &'a [f32],
    m: usize,
    k: usize,
    /// Per panel: what each tile adds to its rows.
    pluses: Vec<[f32; MR]>,
    /// The length of the shortest of the m output rows.
    shortest: Option<usize>,
}

impl<'a> Tiles<'a> {
    /// The tiles of `m` packed rows (`panels` from `pack_panels`, inner size `k`) plus
    /// `plus[r]` on row r, into `dst` (rows of the lengths `strip` will be given).
    pub fn new<D: Slot>(
        (panels, m, k): (&'a [f32], usize, usize),
        dst: &[&mut [D]],
        plus: Option<&[f32]>,
    ) -> Tiles<'a> {
        // Panels past row m (a caller's spare ones) are skipped.
        let pluses = (0..m.div_ceil(MR))
            .map(|p| {
                std::array::from_fn(|r| {
                    plus.and_then(|v| v.get(p * MR + r))
                        .copied()
                        .unwrap_or(-0.0)
                })
            })
            .collect();
        let shortest = dst[..m.min(dst.len())].iter().map(|row| row.len()).min();
        Tiles {
            panels,
            m,
            k,
            pluses,
            shortest,
        }
    }

    /// `dst[r][c + j]` for r < m and j < `nv` · LANES (those past a row's end dropped):
    /// the product's columns whose `k` rows of `b` are `b`. `nv` is 1, 2 or 4 (a wide
    /// strip: pairs of panels as 12 × 32 tiles with AVX-512, otherwise two strips of
    /// `NR`).
    ///
    /// # Panics
    /// When an operand is too short (the callers size them so that it cannot fire).
    pub fn strip<'b, D: Slot, B: RowsOfB<'b>>(
        &self,
        isa: Isa,
        b: B,
        (dst, c): (&mut [&mut [D]], usize),
        nv: usize,
    ) {
        debug_assert!(matches!(nv, 1 | 2 | 4), "strips are 1, 2 or 4 vectors");
        let (m, k) = (self.m, self.k);
        let panel = |p: usize| &self.panels[p * MR * k..][..MR * k];
        // Tiles ending within the shortest row need no check of their own rows.
        let fits = |rows: &[&mut [D]], end: usize| {
            self.shortest.is_some_and(|s| s >= end) || rows.iter().all(|row| row.len() >= end)
        };
        let count = self.pluses.len();
        // With AVX-512, panels over a whole strip go in pairs, each pair one tile. Of an
        // odd count, the panel left alone is a whole one: a short last panel goes in the
        // last pair and the one before that pair alone (a tile of 4 rows keeps too few
        // sums in flight to hide the FMA latency; alone it took 1.1 to 1.4 times a pair's
        // time per multiply-add in two profiles of a 64-channel convolution).
        let alone = match count % 2 {
            0 => None,
            _ if m % MR != 0 && count >= 3 => Some(count - 3),
            _ => Some(count - 1),
        };
        let mut p = 0;
        // With AVX2 the widest, the whole panels over a strip of two or four vectors go
        // through one call that runs their tiles in a loop. Through `tile` one by one,
        // each tile's dispatch and checks took 10% of a 7×7 stride-2 convolution (64
        // output channels, k = 147) in a profile on the AVX2 Zen 3 of
        // docs/PERFORMANCE.md (session 63), against 82% in the tiles' multiply-adds.
        #[cfg(target_arch = "x86_64")]
        if isa.avx2() && !isa.avx512() && matches!(nv, 2 | 4) && k > 0 {
            let (full_panels, end) = (m / MR, c + nv * LANES);
            let rows = &mut dst[..full_panels * MR];
            // The rows themselves, not `fits`' shortest row of `new`: the check the
            // unsafe call below rests on.
            let room = rows.iter().all(|row| row.len() >= end);
            if full_panels > 0 && room && b.hold(k, nv * LANES) {
                let panels = &self.panels[..full_panels * MR * k];
                let pluses = &self.pluses[..full_panels];
                // SAFETY: an `Isa` with AVX2 exists only on a CPU with AVX2 and FMA; the
                // panels are k·MR values each, one per plus; `b` holds k rows of the
                // strip's nv·LANES values and each row c + nv·LANES values (just
                // checked).
                unsafe { whole_panels_avx2((panels, k), b, (rows, c), nv / 2, pluses) };
                p = full_panels;
            }
        }
        while p < count {
            if isa.avx512() && nv >= 2 && p + 1 < count && alone != Some(p) {
                let end = m.min((p + 2) * MR);
                let rows = &mut dst[p * MR..end];
                if fits(rows, c + nv * LANES) {
                    let plus = (&self.pluses[p], &self.pluses[p + 1]);
                    let panels = (panel(p), panel(p + 1));
                    tile_pair(isa, panels, b, (rows, c, nv * LANES), plus);
                    p += 2;
                    continue;
                }
            }
            let rows = &mut dst[p * MR..m.min(p * MR + MR)];
            let plus = &self.pluses[p];
            // A wide strip's panel alone: as two strips of NR.
            let halves = if nv == 4 { 2 } else { 1 };
            for h in 0..halves {
                let (b, c, nv) = (b.shifted(h * NR), c + h * NR, nv / halves);
                if fits(rows, c + nv * LANES) {
                    tile(isa, panel(p), b, (rows, c), nv, plus);
                    continue;
                }
                // A row ends inside the tile's last vector: through a whole tile.
                let mut whole = [[0.0; NR]; MR];
                let mut scratch = whole.each_mut().map(|r| &mut r[..]);
                let n = rows.len();
                tile(isa, panel(p), b, (&mut scratch[..n], 0), nv, plus);
                for (row, w) in rows.iter_mut().zip(&whole) {
                    for (d, &v) in row.iter_mut().skip(c).zip(w) {
                        d.set(v);
                    }
                }
            }
            p += 1;
        }
    }
}

/// A whole panel and the next (whole or not) by `width` columns (NR or WIDE):
/// `tile_of::<MR, 2, D>` and `tile_of::<R, 2, D>` for its R rows per NR columns, as
/// one tile of MR + R rows with the AVX-512 kernels (which load each row of `b` once
/// for both).
///
/// # Panics
/// As `tile_of`, and when `rows` is not MR + 1 to 2·MR rows (the callers size them so
/// that it cannot fire).
fn tile_pair<'b, D: Slot, B: RowsOfB<'b>>(
    isa: Isa,
    (first, second): (&[f32], &[f32]),
    b: B,
    (rows, c, width): (&mut [&mut [D]], usize, usize),
    (plus0, plus1): (&[f32; MR], &[f32; MR]),
) {
    let k = first.len() / MR;
    // Cannot fire: see "Panics".
    assert!(
        second.len() == first.len()
            && (width == NR || width == WIDE)
            && b.hold(k, width)
            && (MR + 1..=2 * MR).contains(&rows.len())
            && rows.iter().all(|row| row.len() >= c + width),
        "micro-kernel operand too short"
    );
    let (panels, plus, wide) = ((first, second), (plus0, plus1), width == WIDE);
    macro_rules! by_rows {
        ($($r:literal),*) => {
            match rows.len() - MR {
                $($r => pair_of::<$r, D, B>(isa, panels, b, (rows, c, wide), plus),)*
                // MR rows: the assert leaves no other count.
                _ => pair_of::<MR, D, B>(isa, panels, b, (rows, c, wide), plus),
            }
        };
    }
    by_rows!(1, 2, 3, 4, 5);
}

/// `tile_pair` for a second panel of R rows.
fn pair_of<'b, const R: usize, D: Slot, B: RowsOfB<'b>>(
    isa: Isa,
    (first, second): (&[f32], &[f32]),
    b: B,
    (rows, c, wide): (&mut [&mut [D]], usize, bool),
    (plus0, plus1): (&[f32; MR], &[f32; MR]),
) {
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() {
        let (panels, plus) = ((first, second), (plus0, plus1));
        // SAFETY: an `Isa` with AVX-512 exists only on a CPU that has AVX-512 F;
        // `tile_pair` checked the panels, `b` and MR + R rows of `rows` for
        // the tile's width.
        return unsafe {
            if wide {
                tile_pair_avx512::<R, 2, D, B>(panels, b, (rows, c), plus)
            } else {
                tile_pair_avx512::<R, 1, D, B>(panels, b, (rows, c), plus)
            }
        };
    }
    let (top, bottom) = rows.split_at_mut(MR);
    for h in 0..if wide { 2 } else { 1 } {
        let (b, c) = (b.shifted(h * NR), c + h * NR);
        tile_of::<MR, 2, D, B>(isa, first, b, (top, c), plus0);
        tile_of::<R, 2, D, B>(isa, second, b, (bottom, c), plus1);
    }
}

/// `tile_of::<R, NV, D>` for R = rows.len() and NV = `nv`.
fn tile<'b, D: Slot, B: RowsOfB<'b>>(
    isa: Isa,
    panel: &[f32],
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    nv: usize,
    plus: &[f32; MR],
) {
    macro_rules! by_shape {
        ($(($r:literal, $nv:literal)),*) => {
            match (rows.len(), nv) {
                $(($r, $nv) => tile_of::<$r, $nv, D, B>(isa, panel, b, (rows, c), plus),)*
                // Cannot fire: `Tiles::strip` cuts tiles of 1..=MR rows and 1 or 2 vectors
                // (a wide strip's lone panel in two halves).
                _ => unreachable!("tiles have 1..=MR rows and 1..=2 vectors"),
            }
        };
    }
    by_shape!(
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 1),
        (6, 1),
        (1, 2),
        (2, 2),
        (3, 2),
        (4, 2),
        (5, 2),
        (6, 2)
    );
}

/// `rows[r][c + j] = plus[r] + Σ_p panel[p·MR + r] · b_p[j]` for r < R, j < LANES · NV
/// and p over the panel's k = panel.len() / MR rows b_p of `b`, with the AVX2 or
/// AVX-512 kernel when `isa` has it.
///
/// # Panics
/// When `b` does not hold k rows of LANES · NV values, or a row of `rows` LANES · NV
/// values from `c` on (the callers size them so that it cannot fire).
pub fn tile_of<'b, const R: usize, const NV: usize, D: Slot, B: RowsOfB<'b>>(
    isa: Isa,
    panel: &[f32],
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    plus: &[f32; MR],
) {
    const { assert!(R >= 1 && R <= MR && NV >= 1 && NV * LANES <= NR) };
    let k = panel.len() / MR;
    // Cannot fire: see "Panics".
    assert!(
        b.hold(k, NV * LANES)
            && rows.len() == R
            && rows.iter().all(|row| row.len() >= c + NV * LANES),
        "micro-kernel operand too short"
    );
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() && NV == 2 {
        // SAFETY: an `Isa` with AVX-512 exists only on a CPU that has AVX-512 F;
        // `panel` holds k·MR values and `b` and `rows` were just checked for
        // LANES·NV = 16 columns.
        return unsafe { tile_avx512::<R, D, B>(panel, b, (rows, c), plus) };
    }
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: an `Isa` with AVX2 exists only on a CPU with AVX2 and FMA; `panel`
        // holds k·MR values and `b` and `rows` were just checked.
        return unsafe { tile_avx2::<R, NV, D, B>(panel, b, (rows, c), plus) };
    }
    let _ = isa;
    tile_scalar::<R, NV, D, B>(panel, b, (rows, c), plus)
}

/// The scalar twin of `tile_avx2`.
fn tile_scalar<'b, const R: usize, const NV: usize, D: Slot, B: RowsOfB<'b>>(
    panel: &[f32],
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    plus: &[f32; MR],
) {
    let mut acc = [[0.0; NR]; R];
    for (p, a) in panel.chunks_exact(MR).enumerate() {
        let row = b.row(p, NV * LANES);
        for (acc_row, &ar) in acc.iter_mut().zip(a) {
            for (c, &bv) in acc_row.iter_mut().zip(row) {
                *c = ar.mul_add(bv, *c);
            }
        }
    }
    for ((dst, acc), &plus) in rows.iter_mut().zip(&acc).zip(plus) {
        for (d, &v) in dst[c..][..NV * LANES].iter_mut().zip(acc) {
            d.set(v + plus);
        }
    }
}

/// `tile_avx2::<MR, 2>` on each of the whole panels `panels` (k·MR values each, one per
/// `pluses`) and its MR rows of `rows`, `halves` times 16 columns from column c.
///
/// # Safety
/// The CPU has AVX2 and FMA; `panels` holds `pluses.len()` panels of k·MR values, `b`
/// k rows of 16·`halves` values (`RowsOfB::hold`), and `rows` MR rows per panel of at
/// least c + 16·`halves` values.
///
/// # Panics
/// When k is 0 (the caller takes this path only for k > 0).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn whole_panels_avx2<'b, D: Slot, B: RowsOfB<'b>>(
    (panels, k): (&[f32], usize),
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    halves: usize,
    pluses: &[[f32; MR]],
) {
    let tiles = panels.chunks_exact(MR * k).zip(rows.chunks_exact_mut(MR));
    for ((panel, rows), plus) in tiles.zip(pluses) {
        for h in 0..halves {
            // SAFETY: the contract above, for this panel and its rows: row p of `b` holds
            // the 16 values from h·16 on, and each row the 16 from c + h·16 on.
            unsafe { tile_avx2::<MR, 2, D, B>(panel, b.shifted(h * NR), (rows, c + h * NR), plus) };
        }
    }
}

/// # Safety
/// The CPU has AVX2 and FMA; `panel` holds k·MR values, `b` k rows of LANES·NV
/// (`RowsOfB::hold`) where k = panel.len() / MR, and `rows` R rows of at least
/// c + LANES·NV values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2<'b, const R: usize, const NV: usize, D: Slot, B: RowsOfB<'b>>(
    panel: &[f32],
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    plus: &[f32; MR],
) {
    use std::arch::x86_64::*;
    let k = panel.len() / MR;
    // SAFETY: the caller guarantees AVX2/FMA and the operand lengths of the contract
    // above; each pointer step below stays within those lengths (or one past their end).
    unsafe {
        let mut acc = [[_mm256_setzero_ps(); NV]; R];
        let mut pa = panel.as_ptr();
        for p in 0..k {
            // In bounds by the contract: row p of `b` holds LANES·NV values.
            let pb = b.start(p);
            let bv: [__m256; NV] = std::array::from_fn(|v| _mm256_loadu_ps(pb.add(v * LANES)));
            for (r, acc) in acc.iter_mut().enumerate() {
                let ar = _mm256_broadcast_ss(&*pa.add(r));
                for (a, &b) in acc.iter_mut().zip(&bv) {
                    *a = _mm256_fmadd_ps(ar, b, *a);
                }
            }
            pa = advance(pa, MR);
        }
        for ((dst, acc), &plus) in rows.iter_mut().zip(&acc).zip(plus) {
            let plus = _mm256_set1_ps(plus);
            for (v, &a) in acc.iter().enumerate() {
                // In bounds by the contract: the row holds c + LANES·NV values, each with
                // f32's layout (`Slot`).
                let at = dst.as_mut_ptr().cast::<f32>().add(c + v * LANES);
                _mm256_storeu_ps(at, _mm256_add_ps(a, plus));
            }
        }
    }
}

/// `tile_avx2` for 16 columns in one 512-bit register per row: half the instructions,
/// and R chains of 16 lanes in flight instead of 2R of 8 (the same multiply-adds).
///
/// # Safety
/// The CPU has AVX-512 F; `panel` holds k·MR values, `b` k rows of 16
/// (`RowsOfB::hold`) where k = panel.len() / MR, and `rows` R rows of at least c + 16
/// values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn tile_avx512<'b, const R: usize, D: Slot, B: RowsOfB<'b>>(
    panel: &[f32],
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    plus: &[f32; MR],
) {
    use std::arch::x86_64::*;
    let k = panel.len() / MR;
    // SAFETY: the caller guarantees AVX-512 F and the operand lengths of the contract
    // above; each pointer step below stays within those lengths (or one past their end).
    unsafe {
        let mut acc = [_mm512_setzero_ps(); R];
        let mut pa = panel.as_ptr();
        for p in 0..k {
            // In bounds by the contract: row p of `b` holds 16 values.
            let bv = _mm512_loadu_ps(b.start(p));
            for (r, acc) in acc.iter_mut().enumerate() {
                *acc = _mm512_fmadd_ps(_mm512_set1_ps(*pa.add(r)), bv, *acc);
            }
            pa = advance(pa, MR);
        }
        // A loop of constant length, unrolled, keeps the sums in registers (an
        // iterator over `rows` made LLVM keep them on the stack).
        for r in 0..R {
            // In bounds by the contract: the row holds c + 16 values, each with f32's
            // layout (`Slot`).
            let at = rows[r].as_mut_ptr().cast::<f32>().add(c);
            _mm512_storeu_ps(at, _mm512_add_ps(acc[r], _mm512_set1_ps(plus[r])));
        }
    }
}

/// `tile_avx512` for a whole panel and R rows of the next at once, NV vectors of 16
/// columns wide: MR + R (times NV) accumulators, enough to hide the FMA latency, and
/// one load of each row of `b` for both panels (NV = 2: 2 loads per 24 multiply-adds).
///
/// # Safety
/// The CPU has AVX-512 F; both panels hold k·MR values, `b` k rows of 16·NV
/// (`RowsOfB::hold`) where k = first.len() / MR, and `rows` MR + R rows of at least
/// c + 16·NV values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn tile_pair_avx512<'b, const R: usize, const NV: usize, D: Slot, B: RowsOfB<'b>>(
    (first, second): (&[f32], &[f32]),
    b: B,
    (rows, c): (&mut [&mut [D]], usize),
    (plus0, plus1): (&[f32; MR], &[f32; MR]),
) {
    use std::arch::x86_64::*;
    let k = first.len() / MR;
    // SAFETY: the caller guarantees AVX-512 F and the operand lengths of the contract
    // above; each pointer step below stays within those lengths (or one past their end).
    unsafe {
        let mut top = [[_mm512_setzero_ps(); NV]; MR];
        let mut bottom = [[_mm512_setzero_ps(); NV]; R];
        let (mut pa0, mut pa1) = (first.as_ptr(), second.as_ptr());
        for p in 0..k {
            // In bounds by the contract: row p of `b` holds 16·NV values.
            let pb = b.start(p);
            let bv: [__m512; NV] = std::array::from_fn(|v| _mm512_loadu_ps(pb.add(v * NR)));
            for (r, acc) in top.iter_mut().enumerate() {
                let a = _mm512_set1_ps(*pa0.add(r));
                for (acc, &bv) in acc.iter_mut().zip(&bv) {
                    *acc = _mm512_fmadd_ps(a, bv, *acc);
                }
            }
            for (r, acc) in bottom.iter_mut().enumerate() {
                let a = _mm512_set1_ps(*pa1.add(r));
                for (acc, &bv) in acc.iter_mut().zip(&bv) {
                    *acc = _mm512_fmadd_ps(a, bv, *acc);
                }
            }
            // Separate steps: one shared index would split every multiply-add in two
            // (`base_register`).
            pa0 = advance(pa0, MR);
            pa1 = advance(pa1, MR);
        }
        // Unrolled, as in `tile_avx512`.
        for r in 0..MR + R {
            let (acc, plus) = if r < MR {
                (top[r], plus0[r])
            } else {
                (bottom[r - MR], plus1[r - MR])
            };
            let plus = _mm512_set1_ps(plus);
            for (v, &acc) in acc.iter().enumerate() {
                // In bounds by the contract: the row holds c + 16·NV values, each with
                // f32's layout (`Slot`).
                let at = rows[r].as_mut_ptr().cast::<f32>().add(c + v * NR);
                _mm512_storeu_ps(at, _mm512_add_ps(acc, plus));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize, seed: u32) -> Vec<f32> {
        (0..len as u32)
            .map(|i| ((i.wrapping_mul(2654435761) ^ seed) % 1000) as f32 / 500.0 - 1.0)
            .collect()
    }

    fn check<const R: usize, const NV: usize>(k: usize, ldb: usize) {
        let a = data(MR * k, 1);
        let b = data(k * ldb, 2);
        let (c, ldd) = (3, NR + 5);
        let plus: [f32; MR] = std::array::from_fn(|r| r as f32 - 2.5);
        let run = |isa| {
            let mut out = vec![f32::NAN; R * ldd];
            let mut rows: Vec<&mut [f32]> = out.chunks_mut(ldd).collect();
            tile_of::<R, NV, f32, _>(isa, &a, Strided { b: &b, ldb }, (&mut rows, c), &plus);
            out
        };
        let scalar = run(Isa::SCALAR);
        let bits = |t: &[f32]| t.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for isa in Isa::supported() {
            assert_eq!(
                bits(&run(isa)),
                bits(&scalar),
                "k {k} R {R} NV {NV} {isa:?}"
            );
        }
        for (i, &got) in scalar.iter().enumerate() {
            let (r, j) = (i / ldd, i % ldd);
            if (c..c + NV * LANES).contains(&j) {
                let want: f64 = (0..k)
                    .map(|p| a[p * MR + r] as f64 * b[p * ldb + j - c] as f64)
                    .sum::<f64>()
                    + plus[r] as f64;
                assert!((got as f64 - want).abs() < 1e-4, "k {k} R {R} NV {NV}");
            } else {
                assert!(got.is_nan(), "k {k} R {R} NV {NV}: wrote ({r}, {j})");
            }
        }
    }

    #[test]
    fn avx2_and_scalar_tiles_agree_with_the_sum() {
        for k in [0, 1, 7, 64] {
            check::<MR, 1>(k, 8);
            check::<MR, 2>(k, 19);
            check::<4, 2>(k, 16);
            check::<3, 1>(k, 9);
            check::<1, 2>(k, 24);
        }
    }

    #[test]
    fn products_cover_every_row_and_column() {
        // Rows with room for whole vectors, and rows that end inside the last one.
        for (m, k, cols, room) in [
            (1, 3, 5, 8),
            (4, 2, 16, 16),
            (8, 5, 17, 17),
            (13, 4, 40, 41),
            (64, 9, 32, 32),
            (16, 3, 16, 16),
        ] {
            let a = data(m * k, 3);
            let ldb = row_stride(cols);
            let b = data(k * ldb, 4);
            let bias: Vec<f32> = (0..m).map(|r| r as f32).collect();
            let mut out = vec![f32::NAN; m * room];
            let mut rows: Vec<&mut [f32]> = out.chunks_mut(room).collect();
            let mut panels = vec![f32::NAN; panels_len(m, k)];
            pack_panels(&mut panels, &a, (m, k), (k, 1));
            product(
                Isa::detect(),
                (&panels, m, k),
                &b,
                (ldb, cols),
                &mut rows,
                Some(&bias),
            );
            for r in 0..m {
                for c in 0..cols {
                    let want: f64 = (0..k)
                        .map(|p| a[r * k + p] as f64 * b[p * ldb + c] as f64)
                        .sum();
                    let got = out[r * room + c] as f64;
                    assert!(
                        (got - want - r as f64).abs() < 1e-5,
                        "{m}x{k}x{cols} at {r}, {c}"
                    );
                }
            }
        }
    }

    #[test]
    fn products_have_the_same_bits_on_every_isa() {
        // Whole panel pairs, a pair and a short panel, odd panels (the one alone last,
        // or before a last pair with a short panel), short strips; with AVX2 alone, the
        // whole panels in one call and a short panel after them.
        for (m, k, cols) in [
            (12, 9, 16),
            (64, 7, 32),
            (16, 6, 16),
            (22, 5, 48),
            (13, 5, 40),
            (24, 17, 33),
            (18, 3, 8),
            (7, 4, 16),
        ] {
            let a = data(m * k, 5);
            let ldb = row_stride(cols);
            let b = data(k * ldb, 6);
            let bias: Vec<f32> = (0..m).map(|r| r as f32 * 0.5).collect();
            let mut panels = vec![f32::NAN; panels_len(m, k)];
            pack_panels(&mut panels, &a, (m, k), (k, 1));
            let run = |isa| {
                let room = cols.next_multiple_of(LANES);
                let mut out = vec![f32::NAN; m * room];
                let mut rows: Vec<&mut [f32]> = out.chunks_mut(room).collect();
                let sizes = (ldb, cols);
                product(isa, (&panels, m, k), &b, sizes, &mut rows, Some(&bias));
                out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            };
            let scalar = run(Isa::SCALAR);
            for isa in Isa::supported() {
                assert!(run(isa) == scalar, "{m}x{k}x{cols} {isa:?}");
            }
        }
    }

    #[test]
    fn wide_strips_give_the_bits_of_two_strips() {
        // Pairs of whole panels, a panel alone before a pair with a short panel; rows
        // with room for the whole strip, and rows ending inside its second half (the
        // tiles fall back to two strips, dropping what the rows lack).
        for (m, k, room) in [
            (24, 9, 3 + WIDE),
            (13, 5, 3 + WIDE),
            (13, 5, 3 + 20),
            (12, 1, 35),
        ] {
            let a = data(m * k, 7);
            let ldb = WIDE + 5;
            let b = data(k * ldb, 8);
            let bias: Vec<f32> = (0..m).map(|r| r as f32 - 4.0).collect();
            let mut panels = vec![f32::NAN; panels_len(m, k)];
            pack_panels(&mut panels, &a, (m, k), (k, 1));
            let run = |isa, wide: bool| {
                let mut out = vec![f32::NAN; m * room];
                let mut rows: Vec<&mut [f32]> = out.chunks_mut(room).collect();
                let tiles = Tiles::new((&panels, m, k), &rows, Some(&bias));
                let b = Strided { b: &b, ldb };
                if wide {
                    tiles.strip(isa, b, (&mut rows, 3), WIDE / LANES);
                } else {
                    tiles.strip(isa, b, (&mut rows, 3), NR / LANES);
                    let rest = (room - 3 - NR).div_ceil(LANES).min(NR / LANES);
                    tiles.strip(isa, b.shifted(NR), (&mut rows, 3 + NR), rest);
                }
                out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            };
            let want = run(Isa::SCALAR, false);
            for isa in Isa::supported() {
                assert!(run(isa, true) == want, "{m}x{k} room {room} {isa:?}");
            }
        }
    }

    #[test]
    fn strips_read_in_place_have_the_same_bits_on_every_isa() {
        // Rows of `b` at uneven offsets into one slice (a convolution's columns): whole
        // panels and a short one, whole panels alone, fewer rows than a panel, and rows
        // ending inside a strip of two vectors (then every panel goes tile by tile).
        for (m, k, room, nv) in [
            (13, 5, 3 + WIDE, 4),
            (12, 4, 3 + NR, 2),
            (4, 3, 3 + WIDE, 4),
            (13, 5, 3 + 12, 2),
            (18, 7, 3 + NR, 2),
        ] {
            let a = data(m * k, 9);
            let x = data(k * 40 + 64, 10);
            // Out of order (some rows overlap), all below k·40.
            let offsets: Vec<usize> = (0..k).map(|p| p * 53 % (k * 40)).collect();
            let bias: Vec<f32> = (0..m).map(|r| r as f32 * 0.25).collect();
            let mut panels = vec![f32::NAN; panels_len(m, k)];
            pack_panels(&mut panels, &a, (m, k), (k, 1));
            let run = |isa| {
                let mut out = vec![f32::NAN; m * room];
                let mut rows: Vec<&mut [f32]> = out.chunks_mut(room).collect();
                let tiles = Tiles::new((&panels, m, k), &rows, Some(&bias));
                let b = Offsets::new(&x, &offsets).at(2);
                tiles.strip(isa, b, (&mut rows, 3), nv);
                out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            };
            let want = run(Isa::SCALAR);
            for isa in Isa::supported() {
                assert!(run(isa) == want, "{m}x{k} room {room} nv {nv} {isa:?}");
            }
        }
    }

    #[test]
    fn panels_hold_rows_interleaved_and_zero_padded() {
        let a: Vec<f32> = (0..8 * 3).map(|i| i as f32 + 1.0).collect();
        let mut p = vec![f32::NAN; panels_len(8, 3)];
        pack_panels(&mut p, &a, (8, 3), (3, 1));
        assert_eq!(p.len(), 2 * MR * 3);
        assert_eq!(&p[..MR], &[1.0, 4.0, 7.0, 10.0, 13.0, 16.0]);
        assert_eq!(&p[MR * 3..MR * 3 + MR], &[19.0, 22.0, 0.0, 0.0, 0.0, 0.0]);
        // The transposed view of the same buffer: (i, p) at a[i + 3·p].
        let mut t = vec![f32::NAN; panels_len(3, 8)];
        pack_panels(&mut t, &a, (3, 8), (1, 3));
        assert_eq!(t[panel_index(2, 1, 8)], 6.0);
        assert_eq!(&t[..MR], &[1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
        assert_eq!(&t[MR..2 * MR], &[4.0, 5.0, 6.0, 0.0, 0.0, 0.0]);
    }
}

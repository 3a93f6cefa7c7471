//! The window descriptions max pooling shares between its scalar kernel and the AVX2
//! one: regular column taps, the pooling's operands, and the taps as reads of a row
//! split into phases by the stride.

use std::ops::Range;

use crate::kernels::math::arith::is_nan;

/// Regular windows along the width: output column `o` reads input columns
/// `o * stride + offset` for each `offset` (kernel tap times dilation minus padding)
/// that lands inside the row.
pub struct ColumnTaps {
    pub stride: usize,
    pub offsets: Vec<isize>,
}

/// Max pooling of [height, width] planes: output row `oh` of a plane is the
/// NaN-propagating max over input rows `rows[oh]` and the column windows of `cols`
/// (`rows.len()` rows of `out_w` outputs); an empty window gives `lowest`.
pub struct MaxPool<'a, T> {
    pub width: usize,
    pub rows: &'a [Vec<usize>],
    pub cols: &'a ColumnTaps,
    pub lowest: T,
}

/// `x` replaces the running max `m`: it is larger, or NaN (only a NaN replaces a NaN).
#[inline(always)]
pub(crate) fn beats<T: Copy + PartialOrd>(x: T, m: T) -> bool {
    x > m || is_nan(x)
}

/// The lengths of the phases of a `width`-wide row split by `stride` (phase `p` holds
/// columns `p, p + stride, ...`). Only the first `width` phases can hold columns: a
/// stride longer than the row has empty phases past it, which are not listed.
pub(crate) fn phase_lens(width: usize, stride: usize) -> Vec<usize> {
    (0..stride.min(width))
        .map(|p| (width - p).div_ceil(stride))
        .collect()
}

/// A column tap as a read of the phases: output `o` reads `phase[o + shift]` of phase
/// `phase`, for the `o` in `outputs` (where that lies inside the phase).
pub(crate) struct PhaseTap {
    pub phase: usize,
    pub shift: isize,
    pub outputs: Range<usize>,
}

/// The taps of `cols` (in order) as reads of phases of the given lengths, for rows of
/// `out_w` outputs; taps that fall in an empty phase are left out.
pub(crate) fn phase_taps(cols: &ColumnTaps, phase_lens: &[usize], out_w: usize) -> Vec<PhaseTap> {
    let s = cols.stride as isize;
    let tap = |&d: &isize| {
        let (phase, shift) = (d.rem_euclid(s) as usize, d.div_euclid(s));
        let len = *phase_lens.get(phase)? as isize;
        // 0 <= o + shift < len.
        let start = (-shift).max(0) as usize;
        let end = (len - shift).clamp(0, out_w as isize) as usize;
        Some(PhaseTap {
            phase,
            shift,
            outputs: start..end.max(start),
        })
    };
    cols.offsets.iter().filter_map(tap).collect()
}

//! Max pooling of an f32 plane with stride 2 along the width, in AVX2: the twin of
//! `pool::max_pool` for that case, giving the same bits. For each output row, the
//! running max over its input rows is taken 16 columns at a time in registers and
//! split into the even and odd columns with two shuffles and two permutes (the
//! generic kernel splits the phases one element at a time); then each output is the
//! max over its column taps, read from those two halves by contiguous loads at the
//! taps' offsets. Only the outputs next to the edges, where a tap falls outside the
//! row, are computed one at a time.
//!
//! The max keeps the generic kernel's order and NaN rule (`x` replaces the running max
//! `m` when it is larger or NaN), so which zero or which NaN wins is the same too.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;
use std::ops::Range;

use super::window::{beats, phase_lens, phase_taps, ColumnTaps, MaxPool, PhaseTap};

/// The narrowest row this kernel takes: one block of 16 columns.
pub const MIN_WIDTH: usize = 16;

/// Lane by lane, `x` where it beats `m` (see `pool::beats`), else `m`: `vmaxps(x, m)`
/// is `x > m ? x : m`, which is all of it when no input is NaN (`NAN` false); otherwise
/// a NaN `x` is blended back in.
#[target_feature(enable = "avx2")]
#[inline]
fn max_with<const NAN: bool>(m: __m256, x: __m256) -> __m256 {
    let max = _mm256_max_ps(x, m);
    if NAN {
        _mm256_blendv_ps(max, x, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x))
    } else {
        max
    }
}

/// The 64-bit pairs of `v` in the order 0, 2, 1, 3.
#[target_feature(enable = "avx2")]
#[inline]
fn pairs_0213(v: __m256) -> __m256 {
    _mm256_castpd_ps(_mm256_permute4x64_pd::<0b11_01_10_00>(_mm256_castps_pd(v)))
}

/// Columns 0..8 in `a` and 8..16 in `b` as (even columns, odd columns).
#[target_feature(enable = "avx2")]
#[inline]
fn deinterleave(a: __m256, b: __m256) -> (__m256, __m256) {
    // Within each 128-bit lane: [a0 a2 b0 b2 | a4 a6 b4 b6], [a1 a3 b1 b3 | a5 a7 b5 b7].
    let even = _mm256_shuffle_ps::<0b10_00_10_00>(a, b);
    let odd = _mm256_shuffle_ps::<0b11_01_11_01>(a, b);
    (pairs_0213(even), pairs_0213(odd))
}

/// The running max over `srcs` (in order, not empty) of their 8 elements from `at`.
/// `N` is the number of `srcs` when it is a common one, which unrolls the loop over
/// them; 0 stands for any number. Without `NAN` it also returns lanes that are set
/// where an input may be NaN (then the max may be wrong): a NaN in `srcs[0]` stays in
/// the max (`vmaxps` keeps its second operand), the others are checked two at a time.
///
/// # Safety
/// Each of `srcs` must hold at least `at + 8` elements.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn max_at<const NAN: bool, const N: usize>(srcs: &[&[f32]], at: usize) -> (__m256, __m256) {
    let srcs = if N > 0 { &srcs[..N] } else { srcs };
    // SAFETY: the caller promises 8 elements from `at` in each source; loads need no
    // alignment.
    let read = |s: &[f32]| unsafe { _mm256_loadu_ps(s.as_ptr().add(at)) };
    let mut m = read(srcs[0]);
    let (mut suspect, mut unpaired) = (_mm256_setzero_ps(), None);
    for s in &srcs[1..] {
        let x = read(s);
        m = max_with::<NAN>(m, x);
        if !NAN {
            unpaired = match unpaired {
                None => Some(x),
                Some(y) => {
                    suspect = _mm256_or_ps(suspect, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, y));
                    None
                }
            };
        }
    }
    if let Some(y) = unpaired {
        suspect = _mm256_or_ps(suspect, _mm256_cmp_ps::<_CMP_UNORD_Q>(y, y));
    }
    (m, suspect)
}

/// The running max over the input rows `rows` (not empty, each at least `width >= 16`
/// long) of each column, split into the even and odd columns; `N` as for `max_at`.
/// Returns whether the rows hold a NaN: they are first maxed with plain `vmaxps`,
/// checking for NaN on the way, and again with NaN's rule when there is one. Inline:
/// it runs once per output row; a build that left it out of line ran a 2-thread
/// max_pool of [1,64,112,112] about 3% slower (each against the same reference build).
#[target_feature(enable = "avx2")]
#[inline]
fn split_row_max<const N: usize>(
    even: &mut [f32],
    odd: &mut [f32],
    rows: &[&[f32]],
    width: usize,
) -> bool {
    let nan = split_row_max_as::<false, N>(even, odd, rows, width);
    if nan {
        split_row_max_as::<true, N>(even, odd, rows, width);
    }
    nan
}

/// `split_row_max` with NaN's rule or (`NAN` false) without, then returning whether
/// a NaN may have been missed.
#[target_feature(enable = "avx2")]
#[inline]
fn split_row_max_as<const NAN: bool, const N: usize>(
    even: &mut [f32],
    odd: &mut [f32],
    rows: &[&[f32]],
    width: usize,
) -> bool {
    assert!(width >= 16 && rows.iter().all(|r| r.len() >= width));
    assert!(even.len() >= width / 2 && odd.len() >= width / 2);
    let mut suspect = _mm256_setzero_ps();
    // Blocks of 16 columns; the last ends at the row's end (or one before, to start at
    // an even column), recomputing columns the one before it stored, to the same
    // values. An odd width leaves its last column.
    let last = (width - 16) & !1;
    let mut c = 0;
    loop {
        let at = c.min(last);
        // SAFETY: `at + 16 <= width`, which every row holds and `even` and `odd` hold
        // half of; stores need no alignment.
        unsafe {
            let (a, a_nan) = max_at::<NAN, N>(rows, at);
            let (b, b_nan) = max_at::<NAN, N>(rows, at + 8);
            if !NAN {
                let maxes_nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(a, b);
                suspect = _mm256_or_ps(suspect, _mm256_or_ps(a_nan, b_nan));
                suspect = _mm256_or_ps(suspect, maxes_nan);
            }
            let (e, o) = deinterleave(a, b);
            _mm256_storeu_ps(even.as_mut_ptr().add(at / 2), e);
            _mm256_storeu_ps(odd.as_mut_ptr().add(at / 2), o);
        }
        if at == last {
            break;
        }
        c = at + 16;
    }
    let mut nan = _mm256_movemask_ps(suspect) != 0;
    for col in last + 16..width {
        let mut m = rows[0][col];
        for row in &rows[1..] {
            m = if beats(row[col], m) { row[col] } else { m };
        }
        even[col / 2] = m; // the last column of an odd width is even
        nan |= m.is_nan();
    }
    nan
}

/// `dst[o]` for each `o` in `0..dst.len()` (at least 8, and each of `srcs` as long):
/// the running max over `k` of `srcs[k][o]`; `N` as for `max_at`.
#[target_feature(enable = "avx2")]
fn max_over<const N: usize>(nan: bool, dst: &mut [MaybeUninit<f32>], srcs: &[&[f32]]) {
    if nan {
        max_over_as::<true, N>(dst, srcs)
    } else {
        max_over_as::<false, N>(dst, srcs)
    }
}

/// `max_over`, where `NAN` false promises that `srcs` hold no NaN.
#[target_feature(enable = "avx2")]
fn max_over_as<const NAN: bool, const N: usize>(dst: &mut [MaybeUninit<f32>], srcs: &[&[f32]]) {
    let len = dst.len();
    assert!(len >= 8 && srcs.iter().all(|s| s.len() >= len));
    let mut o = 0;
    while o < len {
        // The last block ends at the end, recomputing a few outputs (same values).
        let at = o.min(len - 8);
        // SAFETY: `at + 8 <= len`, which `dst` and every source hold.
        unsafe {
            let (m, _) = max_at::<NAN, N>(srcs, at);
            _mm256_storeu_ps(dst.as_mut_ptr().add(at).cast(), m);
        }
        o = at + 8;
    }
}

/// Output `o` of a row: the max over the taps that read inside their phase, from
/// `lowest` (as the generic kernel does at the edges).
fn edge_output(phases: [&[f32]; 2], taps: &[PhaseTap], o: usize, lowest: f32) -> f32 {
    let mut m = lowest;
    for t in taps.iter().filter(|t| t.outputs.contains(&o)) {
        let x = phases[t.phase][(o as isize + t.shift) as usize];
        m = if beats(x, m) { x } else { m };
    }
    m
}

/// The taps of an output row, the same for every row of the plane.
struct RowTaps {
    taps: Vec<PhaseTap>,
    /// The outputs all of whose taps read inside the row, when there are at least 8
    /// (else empty): these are computed 8 at a time.
    inner: Range<usize>,
    /// Tap `k` of output `inner.start + j` reads element `reads[k].1 + j` of phase
    /// `reads[k].0`.
    reads: Vec<(usize, usize)>,
}

impl RowTaps {
    fn new(cols: &ColumnTaps, lens: &[usize], out_w: usize) -> RowTaps {
        let taps = phase_taps(cols, lens, out_w);
        let start = taps.iter().map(|t| t.outputs.start).max().unwrap_or(0);
        let end = taps.iter().map(|t| t.outputs.end).min().unwrap_or(0);
        let inner = if end >= start + 8 && !taps.is_empty() {
            start..end
        } else {
            0..0
        };
        let reads = taps
            .iter()
            .map(|t| (t.phase, (inner.start as isize + t.shift) as usize))
            .collect();
        RowTaps { taps, inner, reads }
    }
}

/// `pool::max_pool_plane` for `cols.stride == 2` and `width >= MIN_WIDTH`.
#[target_feature(enable = "avx2,fma,f16c")]
pub fn max_pool_stride2(out: &mut [MaybeUninit<f32>], plane: &[f32], p: &MaxPool<f32>) {
    let (width, lowest) = (p.width, p.lowest);
    let lens = phase_lens(width, 2);
    let mut halves = [vec![lowest; lens[0]], vec![lowest; lens[1]]];
    let out_w = out.len() / p.rows.len().max(1);
    let taps = RowTaps::new(p.cols, &lens, out_w);
    let row = |i: &usize| &plane[i * width..][..width];
    for (dst, r) in out.chunks_exact_mut(out_w).zip(p.rows) {
        let [e, o] = &mut halves;
        let nan = match r[..] {
            [] => {
                e.fill(lowest);
                o.fill(lowest);
                false
            }
            [a, b] => split_row_max::<2>(e, o, &[row(&a), row(&b)], width),
            [a, b, c] => split_row_max::<3>(e, o, &[row(&a), row(&b), row(&c)], width),
            _ => split_row_max::<0>(e, o, &r.iter().map(row).collect::<Vec<_>>(), width),
        };
        pool_row(nan, dst, [&halves[0], &halves[1]], &taps, lowest);
    }
}

/// One output row from the even and odd columns of its input rows' max.
#[target_feature(enable = "avx2")]
fn pool_row(
    nan: bool,
    dst: &mut [MaybeUninit<f32>],
    phases: [&[f32]; 2],
    t: &RowTaps,
    lowest: f32,
) {
    let inner = t.inner.clone();
    for o in (0..inner.start).chain(inner.end..dst.len()) {
        dst[o].write(edge_output(phases, &t.taps, o, lowest));
    }
    if inner.is_empty() {
        return;
    }
    let src = |&(phase, first): &(usize, usize)| &phases[phase][first..first + inner.len()];
    let dst = &mut dst[inner.clone()];
    match t.reads[..] {
        [a, b] => max_over::<2>(nan, dst, &[src(&a), src(&b)]),
        [a, b, c] => max_over::<3>(nan, dst, &[src(&a), src(&b), src(&c)]),
        _ => max_over::<0>(nan, dst, &t.reads.iter().map(src).collect::<Vec<_>>()),
    }
}

//! Largest and smallest elements of a contiguous lane and their first positions, with
//! NumPy's NaN rules, in one pass: each chunk of the lane is folded into `LANES` running
//! extremes seeded with the best so far (compare and select, which LLVM turns into
//! vector max/min in the SIMD builds), tested for NaN, and only a chunk that beats the
//! best is reduced to one value and remembered; the first position of the extreme is
//! then searched in that chunk alone. The result does not depend on the build: the
//! extreme of a set of numbers is one value, NaN handling is exact, and positions are
//! first occurrences. Of a zero extreme, the first zero's sign comes back (NumPy leaves
//! which zero of `max([-0.0, 0.0])` unspecified). Below AVX-512, lanes of one length may
//! be scanned `GROUP` at a time, a chunk of each in turn (`extremes`, `arg_extremes`),
//! with the same per-lane steps and so the same answers. The AVX-512 build holds a
//! chunk of f32 in 8 of its 32 registers and tests it for NaN in mask registers; the
//! AVX2 build of the same loop keeps some of the chunk on the stack (seen in its
//! disassembly on the Zen 4 here).
//!
//! On aarch64 the plain build is the NEON build (untested here: no such machine).

use crate::kernels::isa::Isa;
use crate::kernels::math::arith::is_nan;
use crate::kernels::prefetch;

/// Elements per chunk: long enough that the test of a chunk against the best costs
/// little, short enough that the final search in the best chunk is short.
const CHUNK: usize = 128;

/// Running extremes per chunk: two AVX2 registers of f32.
const LANES: usize = 16;

/// How far ahead of a chunk the AVX2 scan asks for memory: of 1 to 16 KiB in a kernel
/// harness on an AVX2 Zen (4 KiB pages), 4 KiB was fastest, 6 and 8 KiB a few percent
/// behind. The AVX-512 level scans without it: on an AVX-512 Zen 4 the same harness
/// (argmax of each row of 4096×4096 f32, huge pages) was faster without it in four
/// of five runs (2.02–2.55 against 2.35–3.16 ms; once 3.18 against 3.03), and so was
/// argmax along rows in tsr (2.43–2.78 against 2.99–3.54 ms); again for the AVX-512
/// build of the scan, max along the rows of 4096×4096 f32 in tsr, one thread, medians
/// of three alternating rounds: 2.55–3.11 ms without, 4.33–4.76 with.
const PREFETCH_BYTES: usize = 4096;

/// Lanes that `extremes` and `arg_extremes` scan side by side, a chunk of each in
/// turn: the memory here serves several interleaved streams faster than one. Kernel
/// harness, max of each row of a 4096×4096 f32 matrix (huge pages), one thread of the
/// AVX2 Zen 3 here, three runs, best / median: one row at a time 3.63–3.77 / 3.89–4.37
/// ms, two rows 3.01–3.24 / 3.26–3.51, four 2.66–2.85 / 2.88–3.02 (with the prefetch
/// as well, four took 3.39–3.60 / 3.64–3.83, so the side-by-side scan goes without it).
/// The AVX-512 level scans lane by lane: on an AVX-512 Zen 4, max and argmax along the
/// rows of 4096×4096 f32 in tsr (one thread, medians of three alternating rounds) took
/// 2.47–2.57 ms lane by lane and 3.10–3.35 side by side, both in the AVX-512 build.
pub const GROUP: usize = 4;

/// The largest (`MAX`) or smallest element of a non-empty lane. With `SKIP_NAN` false
/// a NaN anywhere makes the result NaN (`max`); with it true NaN is ignored (`nanmax`)
/// and an all-NaN lane gives NaN. `None` for an empty lane.
pub fn extreme<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    isa: Isa,
    xs: &[T],
) -> Option<T> {
    let first = *xs.first()?;
    Some(find::<T, MAX, SKIP_NAN>(isa, xs).map_or(first, |(best, _)| best))
}

/// `argmax` (`MAX`) or `argmin` of a lane: the first position of the extreme, where a
/// NaN counts as the extreme (the first NaN wins) unless `SKIP_NAN`, which ignores NaN
/// and gives `None` for an all-NaN lane. `None` for an empty lane.
pub fn arg_extreme<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    isa: Isa,
    xs: &[T],
) -> Option<usize> {
    find::<T, MAX, SKIP_NAN>(isa, xs).map(|(_, at)| at)
}

/// `extreme` of each of `GROUP` lanes (read side by side below AVX-512 when they
/// have one length).
pub fn extremes<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    isa: Isa,
    lanes: [&[T]; GROUP],
) -> [Option<T>; GROUP] {
    let found = find_group::<T, MAX, SKIP_NAN>(isa, lanes);
    std::array::from_fn(|k| {
        let first = *lanes[k].first()?;
        Some(found[k].map_or(first, |(best, _)| best))
    })
}

/// `arg_extreme` of each of `GROUP` lanes (read side by side below AVX-512 when
/// they have one length).
pub fn arg_extremes<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    isa: Isa,
    lanes: [&[T]; GROUP],
) -> [Option<usize>; GROUP] {
    find_group::<T, MAX, SKIP_NAN>(isa, lanes).map(|found| found.map(|(_, at)| at))
}

/// `find` of each lane: side by side below AVX-512 when the lanes have one length and
/// each starts with a number, as `scan` requires (else one by one, through `find`'s
/// handling of a leading NaN).
fn find_group<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    isa: Isa,
    lanes: [&[T]; GROUP],
) -> [Option<(T, usize)>; GROUP] {
    let len = lanes[0].len();
    let plain = || {
        lanes
            .iter()
            .all(|lane| lane.len() == len && lane.first().is_some_and(|&x| !is_nan(x)))
    };
    if isa.avx512() || !plain() {
        return lanes.map(|lane| find::<T, MAX, SKIP_NAN>(isa, lane));
    }
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        return unsafe { scan_group_avx2::<T, MAX, SKIP_NAN>(lanes) }.map(Some);
    }
    scan_group::<T, MAX, SKIP_NAN>(lanes).map(Some)
}

/// The extreme of `xs` and its first position; `None` when `xs` is empty or, skipping
/// NaN, all NaN.
fn find<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    isa: Isa,
    xs: &[T],
) -> Option<(T, usize)> {
    let start = xs.iter().position(|&x| !is_nan(x));
    let start = match start {
        Some(0) => 0,
        // A leading NaN is the answer, unless NaN is skipped.
        _ if !SKIP_NAN => return xs.first().map(|&x| (x, 0)),
        Some(start) => start,
        None => return None,
    };
    let lane = &xs[start..];
    #[cfg(target_arch = "x86_64")]
    if isa.avx512() {
        // SAFETY: `Isa::avx512()` is true only when AVX-512 F/BW/VL/DQ, AVX2, FMA and
        // F16C were detected.
        let (best, at) = unsafe { scan_avx512::<T, MAX, SKIP_NAN>(lane) };
        return Some((best, start + at));
    }
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        let (best, at) = unsafe { scan_avx2::<T, MAX, SKIP_NAN>(lane) };
        return Some((best, start + at));
    }
    let _ = isa;
    let (best, at) = scan::<T, MAX, SKIP_NAN, false>(lane);
    Some((best, start + at))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn scan_avx2<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(xs: &[T]) -> (T, usize) {
    scan::<T, MAX, SKIP_NAN, true>(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")]
fn scan_avx512<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    xs: &[T],
) -> (T, usize) {
    scan::<T, MAX, SKIP_NAN, false>(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn scan_group_avx2<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    lanes: [&[T]; GROUP],
) -> [(T, usize); GROUP] {
    scan_group::<T, MAX, SKIP_NAN>(lanes)
}

/// The extreme of a lane whose first element is not NaN, and its first position (the
/// first NaN's unless `SKIP_NAN`); `PREFETCH` asks for each chunk's memory ahead.
#[inline(always)]
fn scan<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool, const PREFETCH: bool>(
    xs: &[T],
) -> (T, usize) {
    let mut scan = Scan::new(xs[0]);
    for (i, chunk) in xs.chunks_exact(CHUNK).enumerate() {
        if PREFETCH {
            prefetch::ahead(chunk, PREFETCH_BYTES);
        }
        scan.chunk::<MAX, SKIP_NAN>(chunk, i * CHUNK);
        if scan.nan.is_some() {
            break;
        }
    }
    scan.finish::<MAX, SKIP_NAN>(xs)
}

/// `scan` of `GROUP` lanes of one length, each starting with a number: chunk i of
/// every lane, then chunk i + 1 (a lane that met a NaN is done).
#[inline(always)]
fn scan_group<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(
    lanes: [&[T]; GROUP],
) -> [(T, usize); GROUP] {
    let mut scans = lanes.map(|lane| Scan::new(lane[0]));
    for at in (0..lanes[0].len() / CHUNK).map(|i| i * CHUNK) {
        for (scan, lane) in scans.iter_mut().zip(lanes) {
            if scan.nan.is_none() {
                scan.chunk::<MAX, SKIP_NAN>(&lane[at..at + CHUNK], at);
            }
        }
    }
    std::array::from_fn(|k| scans[k].finish::<MAX, SKIP_NAN>(lanes[k]))
}

/// A lane's scan up to some chunk: the best value so far (never NaN: NaN never beats
/// anything here, it is found by its own test or skipped), the start of the chunk it
/// first occurs in, and the position of the first NaN once one is met (unless
/// `SKIP_NAN`).
#[derive(Clone, Copy)]
struct Scan<T> {
    best: T,
    from: usize,
    nan: Option<usize>,
}

impl<T: Copy + PartialOrd> Scan<T> {
    fn new(first: T) -> Self {
        Scan {
            best: first,
            from: 0,
            nan: None,
        }
    }

    /// Takes in `chunk` (`CHUNK` elements, at position `at` of the lane): `LANES`
    /// running extremes seeded with the best so far, and only a chunk that beats the
    /// best reduced to one value. A NaN (unless `SKIP_NAN`) records its position and
    /// leaves the best alone.
    #[inline(always)]
    fn chunk<const MAX: bool, const SKIP_NAN: bool>(&mut self, chunk: &[T], at: usize) {
        let beats = beats::<T, MAX>;
        let mut m = [self.best; LANES];
        for part in chunk.chunks_exact(LANES) {
            for (mj, &x) in m.iter_mut().zip(part) {
                *mj = if beats(x, *mj) { x } else { *mj };
            }
        }
        if !SKIP_NAN && chunk.iter().fold(false, |nan, &x| nan | is_nan(x)) {
            self.nan = Some(at + chunk.iter().position(|&x| is_nan(x)).unwrap_or(0));
            return;
        }
        if m.iter()
            .fold(false, |better, &v| better | beats(v, self.best))
        {
            self.best = m
                .into_iter()
                .fold(self.best, |b, v| if beats(v, b) { v } else { b });
            self.from = at;
        }
    }

    /// The lane's extreme and its first position, from the scan of its whole chunks:
    /// the elements after them are folded in one by one.
    #[inline(always)]
    fn finish<const MAX: bool, const SKIP_NAN: bool>(self, xs: &[T]) -> (T, usize) {
        if let Some(at) = self.nan {
            return (xs[at], at);
        }
        let beats = beats::<T, MAX>;
        let (mut best, mut from) = (self.best, self.from);
        let tail = xs.len() / CHUNK * CHUNK;
        for (j, &x) in xs[tail..].iter().enumerate() {
            if !SKIP_NAN && is_nan(x) {
                return (x, tail + j);
            }
            if beats(x, best) {
                (best, from) = (x, tail + j);
            }
        }
        // Equal to `best` (either zero for a zero), never NaN: `best` is not NaN here.
        // The element itself comes back, so a zero extreme has the first zero's sign
        // (`best` may be a later zero of the other sign).
        let at = from + first_equal(&xs[from..], best);
        (xs[at], at)
    }
}

/// Whether x is larger (`MAX`) or smaller than m; false when either is NaN.
#[inline(always)]
fn beats<T: PartialOrd, const MAX: bool>(x: T, m: T) -> bool {
    if MAX {
        x > m
    } else {
        x < m
    }
}

/// The position of the first element of `xs` equal to `value` (0 when none is), found
/// `LANES` comparisons at a time: the compiler builds each part's mask with vector
/// compares, where a plain search compared one element per step (about 9% of the
/// scan's samples in a profile of argmax along the rows of a 4096 × 4096 f32 matrix on
/// a Zen 4).
#[inline(always)]
fn first_equal<T: Copy + PartialOrd>(xs: &[T], value: T) -> usize {
    // One bit per element of a part.
    const _: () = assert!(LANES <= u32::BITS as usize);
    let mut parts = xs.chunks_exact(LANES);
    for (i, part) in (&mut parts).enumerate() {
        let mask = part
            .iter()
            .enumerate()
            .fold(0u32, |mask, (j, &x)| mask | (u32::from(x == value) << j));
        if mask != 0 {
            return i * LANES + mask.trailing_zeros() as usize;
        }
    }
    let rest = parts.remainder();
    let found = rest.iter().position(|&x| x == value);
    found.map_or(0, |j| xs.len() - rest.len() + j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::math::arith::Arith;

    // The sequential definitions, the reference for the vectorized search.
    /// Index of the first maximum of a lane, where NaN counts as the maximum (the first
    /// NaN wins); `None` for an empty lane.
    pub fn argmax<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
        first_best(xs, |x, best| x > best)
    }

    /// Index of the first minimum of a lane, where NaN counts as the minimum (NumPy).
    pub fn argmin<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
        first_best(xs, |x, best| x < best)
    }

    /// Index of the first maximum among the elements that are not NaN; `None` when there
    /// are none (an empty or all-NaN lane).
    pub fn nanargmax<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
        first_best_not_nan(xs, |x, best| x > best)
    }

    /// Index of the first minimum among the elements that are not NaN (see `nanargmax`).
    pub fn nanargmin<T: Copy + PartialOrd>(xs: &[T]) -> Option<usize> {
        first_best_not_nan(xs, |x, best| x < best)
    }

    /// The first element that no later one `beats`, where a NaN beats everything and
    /// ends the search.
    fn first_best<T: Copy + PartialOrd>(xs: &[T], beats: impl Fn(T, T) -> bool) -> Option<usize> {
        let mut best = 0;
        let mut best_value = *xs.first()?;
        for (i, &x) in xs.iter().enumerate().skip(1) {
            if is_nan(best_value) {
                break;
            }
            if is_nan(x) || beats(x, best_value) {
                best = i;
                best_value = x;
            }
        }
        Some(best)
    }

    fn first_best_not_nan<T: Copy + PartialOrd>(
        xs: &[T],
        beats: impl Fn(T, T) -> bool,
    ) -> Option<usize> {
        let candidates = xs.iter().copied().enumerate().filter(|&(_, x)| !is_nan(x));
        let best = candidates.reduce(|best, x| if beats(x.1, best.1) { x } else { best });
        best.map(|(i, _)| i)
    }

    fn lanes() -> Vec<Vec<f32>> {
        let nan = f32::NAN;
        // Several chunks, with the maximum repeated in each (first occurrence matters).
        let base: Vec<f32> = (0..700).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let mut out = vec![vec![], vec![nan], vec![nan, nan], vec![1.0, nan, 3.0]];
        for at in [0, 1, 15, 16, 17, 100, 127, 128, 129, 300, 699] {
            let mut v = base.clone();
            v[at] = nan;
            out.push(v.clone());
            v[(at + 50) % 700] = f32::INFINITY;
            out.push(v);
        }
        for n in [1, 5, 15, 16, 17, 127, 128, 129, 203, 700] {
            out.push(base[..n].to_vec());
            let mut leading = base[..n].to_vec();
            leading[0] = nan;
            out.push(leading);
        }
        out.push(vec![f32::NEG_INFINITY, nan, f32::NEG_INFINITY]);
        out
    }

    /// Against the plain sequential definitions, on every build.
    #[test]
    fn extremes_and_positions_match_the_sequential_definitions() {
        for lane in lanes() {
            for isa in Isa::supported() {
                let plain = lane.iter().copied().reduce(Arith::maximum);
                let got = extreme::<f32, true, false>(isa, &lane);
                assert_eq!(got.map(f32::to_bits), plain.map(f32::to_bits), "{lane:?}");
                let plain = lane.iter().copied().reduce(Arith::minimum);
                let got = extreme::<f32, false, false>(isa, &lane);
                assert_eq!(got.map(f32::to_bits), plain.map(f32::to_bits), "{lane:?}");
                let kept = lane.iter().copied().filter(|x| !x.is_nan());
                let want = kept.reduce(f32::max).or(lane.first().copied());
                let got = extreme::<f32, true, true>(isa, &lane);
                assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "{lane:?}");
                assert_eq!(arg_extreme::<f32, true, false>(isa, &lane), argmax(&lane));
                assert_eq!(arg_extreme::<f32, false, false>(isa, &lane), argmin(&lane));
                assert_eq!(arg_extreme::<f32, true, true>(isa, &lane), nanargmax(&lane));
                assert_eq!(
                    arg_extreme::<f32, false, true>(isa, &lane),
                    nanargmin(&lane)
                );
            }
        }
        let ints: Vec<i64> = (0..100).map(|i| (i * 7919) % 113 - 56).collect();
        for isa in Isa::supported() {
            assert_eq!(
                extreme::<i64, true, false>(isa, &ints),
                ints.iter().max().copied()
            );
            assert_eq!(arg_extreme::<i64, false, false>(isa, &ints), argmin(&ints));
        }
    }

    /// Lanes given as a group give each lane's own answer: groups of one length
    /// with a NaN, an infinity, a leading NaN or zeros of both signs in some lanes,
    /// groups of mixed lengths, on every build.
    #[test]
    fn a_group_of_lanes_gives_each_lanes_answer() {
        let nan = f32::NAN;
        let base: Vec<f32> = (0..700).map(|i| ((i * 37) % 101) as f32 - 50.0).collect();
        let mut groups: Vec<Vec<Vec<f32>>> = Vec::new();
        for n in [0, 1, 15, 127, 128, 129, 300, 700] {
            let lane = |edit: &dyn Fn(&mut Vec<f32>)| {
                let mut v = base[..n].to_vec();
                edit(&mut v);
                v
            };
            let at = |k: usize| if n == 0 { 0 } else { (k * 131) % n };
            let nan_at = |k: usize| {
                move |v: &mut Vec<f32>| v.iter_mut().skip(at(k)).take(1).for_each(|x| *x = nan)
            };
            groups.push(vec![
                lane(&|_| ()),
                lane(&nan_at(1)),
                lane(&|v| {
                    v.iter_mut()
                        .skip(at(2))
                        .take(1)
                        .for_each(|x| *x = f32::INFINITY)
                }),
                lane(&nan_at(3)),
            ]);
            groups.push(vec![
                lane(&|v| v.iter_mut().for_each(|x| *x = -x.abs())),
                lane(&nan_at(5)),
                lane(&|v| v.iter_mut().for_each(|x| *x = 0.0 * x.signum())),
                lane(&|_| ()),
            ]);
        }
        groups.push(vec![
            base[..3].to_vec(),
            base[..200].to_vec(),
            vec![],
            vec![nan; 5],
        ]);
        // Two NaNs in different chunks (the first one's position is the answer); a
        // long lane with a leading NaN (the group goes one by one).
        let mut two = base.clone();
        (two[131], two[400]) = (nan, nan);
        let mut leading = base.clone();
        leading[0] = nan;
        groups.push(vec![two.clone(), base.clone(), two, base.clone()]);
        groups.push(vec![
            base[..300].to_vec(),
            leading[..300].to_vec(),
            base[..300].to_vec(),
            base[..300].to_vec(),
        ]);
        for group in &groups {
            let lanes: [&[f32]; GROUP] = std::array::from_fn(|k| group[k].as_slice());
            for isa in Isa::supported() {
                let bits = |v: Option<f32>| v.map(f32::to_bits);
                macro_rules! check {
                    ($max:literal, $skip:literal) => {
                        let got = extremes::<f32, $max, $skip>(isa, lanes);
                        let args = arg_extremes::<f32, $max, $skip>(isa, lanes);
                        for k in 0..GROUP {
                            let want = extreme::<f32, $max, $skip>(isa, lanes[k]);
                            assert_eq!(bits(got[k]), bits(want), "{:?}", lanes[k]);
                            let want = arg_extreme::<f32, $max, $skip>(isa, lanes[k]);
                            assert_eq!(args[k], want, "{:?}", lanes[k]);
                        }
                    };
                }
                check!(true, false);
                check!(false, false);
                check!(true, true);
                check!(false, true);
            }
        }
        // Other dtypes, side by side.
        let ints: Vec<i64> = (0..600).map(|i| (i * 7919) % 113 - 56).collect();
        let lanes: [&[i64]; GROUP] = std::array::from_fn(|k| &ints[k * 150..(k + 1) * 150]);
        let doubles: Vec<f64> = ints.iter().map(|&i| i as f64 * 0.5).collect();
        let lanes64: [&[f64]; GROUP] = std::array::from_fn(|k| &doubles[k * 150..(k + 1) * 150]);
        for isa in Isa::supported() {
            let got = (
                extremes::<i64, true, false>(isa, lanes),
                arg_extremes::<i64, false, false>(isa, lanes),
            );
            let got64 = (
                extremes::<f64, false, false>(isa, lanes64),
                arg_extremes::<f64, true, false>(isa, lanes64),
            );
            for k in 0..GROUP {
                assert_eq!(got.0[k], lanes[k].iter().max().copied());
                assert_eq!(got.1[k], argmin(lanes[k]));
                assert_eq!(got64.0[k], lanes64[k].iter().copied().reduce(f64::min));
                assert_eq!(got64.1[k], argmax(lanes64[k]));
            }
        }
    }

    /// The first equal element, at every position in and across parts and in the
    /// remainder, with zeros of either sign equal.
    #[test]
    fn first_equal_is_the_first_position_of_an_equal_element() {
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 100] {
            for at in 0..len {
                let mut xs: Vec<f32> = (0..len).map(|i| i as f32 + 1.0).collect();
                xs[at] = -0.0;
                if at + 3 < len {
                    xs[at + 3] = 0.0;
                }
                assert_eq!(first_equal(&xs, 0.0), at, "{len} {at}");
            }
            let ints: Vec<i64> = (0..len as i64).map(|i| i % 7).collect();
            let want = ints.iter().position(|&x| x == 5).unwrap_or(0);
            assert_eq!(first_equal(&ints, 5), want, "{len}");
            let none: Vec<f64> = vec![1.0; len];
            assert_eq!(first_equal(&none, 2.0), 0);
        }
    }

    /// A zero extreme is the first zero, sign included, on every build.
    #[test]
    fn a_zero_extreme_has_the_first_zeros_sign() {
        for (first, later) in [(-0.0f32, 0.0f32), (0.0, -0.0)] {
            let mut lane = vec![-1.0f32; 40];
            (lane[3], lane[17]) = (first, later);
            for isa in Isa::supported() {
                let got = extreme::<f32, true, false>(isa, &lane).map(f32::to_bits);
                assert_eq!(got, Some(first.to_bits()), "{isa:?}, first {first:?}");
                assert_eq!(arg_extreme::<f32, true, false>(isa, &lane), Some(3));
            }
        }
    }

    /// `arg_extreme` on every build, which must agree.
    fn arg<T: Copy + PartialOrd, const MAX: bool, const SKIP_NAN: bool>(xs: &[T]) -> Option<usize> {
        let scalar = arg_extreme::<T, MAX, SKIP_NAN>(Isa::SCALAR, xs);
        for isa in Isa::supported() {
            assert_eq!(scalar, arg_extreme::<T, MAX, SKIP_NAN>(isa, xs), "{isa:?}");
        }
        scalar
    }

    #[test]
    fn arg_extremes_first_occurrence_and_nan() {
        let nan = f64::NAN;
        assert_eq!(arg::<_, true, false>(&[1, 3, 3, 2]), Some(1));
        assert_eq!(arg::<_, true, false>(&[1.0, nan, 5.0, nan]), Some(1));
        assert_eq!(arg::<_, true, false>(&[f32::NAN, 1.0]), Some(0));
        assert_eq!(arg::<_, true, false>(&[false, true, true]), Some(1));
        assert_eq!(arg::<i8, true, false>(&[]), None);
        assert_eq!(arg::<_, false, false>(&[4, 1, 3, 1]), Some(1));
        assert_eq!(arg::<_, false, false>(&[1.0, nan, 0.0]), Some(1));
        assert_eq!(arg::<f32, false, false>(&[]), None);
        assert_eq!(arg::<_, true, true>(&[nan, 1.0, 5.0, nan, 5.0]), Some(2));
        assert_eq!(arg::<_, false, true>(&[nan, 1.0, 0.5, nan, 0.5]), Some(2));
        assert_eq!(arg::<_, true, true>(&[nan, nan]), None);
        assert_eq!(arg::<f64, false, true>(&[]), None);
        assert_eq!(arg::<_, true, true>(&[2i32, 7, 7]), Some(1));
    }

    /// A naive reference for one lane: the position of the first best non-NaN value.
    #[test]
    fn nan_arg_extremes_match_a_naive_search() {
        let vals = [3.0, f64::NAN, -1.0, 3.0, f64::NAN, -1.0, 2.0];
        for start in 0..vals.len() {
            let lane = &vals[start..];
            let finite: Vec<(usize, f64)> = lane
                .iter()
                .copied()
                .enumerate()
                .filter(|(_, x)| !x.is_nan())
                .collect();
            let max = finite.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
            let min = finite.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
            let first = |v: f64| finite.iter().find(|p| p.1 == v).map(|p| p.0);
            assert_eq!(arg::<_, true, true>(lane), first(max), "{lane:?}");
            assert_eq!(arg::<_, false, true>(lane), first(min), "{lane:?}");
        }
    }
}

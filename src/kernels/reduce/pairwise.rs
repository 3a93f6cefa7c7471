//! NumPy's pairwise summation tree, over one contiguous lane or down the columns of
//! many rows at once, with the same tree in every layout.
//!
//! The tree of a lane of `n` elements: `n < 8` is a plain running sum from zero; `n <= 128`
//! is a block summed with 8 interleaved partials `r[j] += x[8i + j]`, combined as
//! `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`, then the `n % 8` leftovers added in
//! order; longer lanes split at `half - half % 8` (`half = n / 2`) and add left + right.
//! It depends only on `n`, so:
//! - the AVX2 build (the same code compiled with `#[target_feature]`, its leaves for
//!   f32 and f64 accumulators written in vectors in `leaf_avx2`) gives the scalar
//!   twin's bits;
//! - the top levels may run on several threads (`parallel::join` above
//!   [`PARALLEL_MIN`]) without changing a bit;
//! - [`column_sums`] runs the tree over *rows*, with a vector of column accumulators in
//!   place of each scalar, so summing axis 0 of a matrix gives the bits of summing each
//!   column as a contiguous lane; its leaves are built for AVX-512, AVX2 and plain
//!   (`twin!`), the adds element by element in every build.
//!
//! On aarch64 the plain build is the NEON build (untested here: no such machine).

#[cfg(target_arch = "x86_64")]
use super::leaf_avx2::leaf_avx2;
use crate::kernels::isa::Isa;
use crate::kernels::math::arith::Arith;
use crate::kernels::parallel::{join, Section};
use crate::kernels::twin::twin;

/// Lanes of at most this many elements are one block of 8 partials; longer ones split.
const PAIRWISE_BLOCK: usize = 128;

/// Lanes longer than this run their two halves with `parallel::join`: big enough that the
/// join costs nothing next to the sum, small enough that 16M elements give 256 tasks.
pub const PARALLEL_MIN: usize = 1 << 16;

/// Bytes of the 8 partial rows of a tile of [`column_sums`]: they stay in L2 while the
/// rows stream past. Tiles as wide as this read memory in long sequential runs, which
/// narrower ones (with partials in L1) do not: on a 4096-column matrix, 512-column
/// tiles took twice as long.
const TILE_PARTIAL_BYTES: usize = 256 << 10;

/// Elements of one tile's tree below which it is not split across threads.
const COLUMN_TASK_MIN: usize = 1 << 20;

/// Row groups (8 rows each) added to the partials per pass of [`column_block`]: more
/// passes cost L2 traffic, more concurrent runs cost prefetching (3 to 5 were best).
const GROUPS_PER_PASS: usize = 4;

/// Where the tree splits a lane of `n > PAIRWISE_BLOCK` elements.
#[inline(always)]
fn split(n: usize) -> usize {
    let half = n / 2;
    half - half % 8
}

/// Sums `xs` converted by `to_acc` with NumPy's pairwise tree (see the module doc),
/// vectorized where the CPU allows and on several threads for long lanes.
pub fn pairwise_sum<T, A, F>(xs: &[T], to_acc: F) -> A
where
    T: Copy + Sync,
    A: Arith,
    F: Fn(T) -> A + Copy + Sync + Send,
{
    pairwise_sum_with(Isa::detect(), xs, to_acc)
}

/// [`pairwise_sum`] with the kernels of `isa` (`Isa::SCALAR` for the scalar twin).
pub fn pairwise_sum_with<T, A, F>(isa: Isa, xs: &[T], to_acc: F) -> A
where
    T: Copy + Sync,
    A: Arith,
    F: Fn(T) -> A + Copy + Sync + Send,
{
    if xs.len() > PARALLEL_MIN {
        let (left, right) = xs.split_at(split(xs.len()));
        let (l, r) = join(
            || pairwise_sum_with(isa, left, to_acc),
            || pairwise_sum_with(isa, right, to_acc),
        );
        return l.add(r);
    }
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        return unsafe { tree_avx2(xs, to_acc) };
    }
    let _ = isa;
    tree(xs, to_acc)
}

/// The tree, compiled for AVX2: the blocks' partials become vector registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn tree_avx2<T: Copy, A: Arith, F: Fn(T) -> A + Copy>(xs: &[T], to_acc: F) -> A {
    if xs.len() <= PAIRWISE_BLOCK {
        return leaf_avx2(xs, to_acc).unwrap_or_else(|| block(xs, to_acc));
    }
    let (left, right) = xs.split_at(split(xs.len()));
    tree_avx2(left, to_acc).add(tree_avx2(right, to_acc))
}

/// The scalar twin of `tree_avx2`.
fn tree<T: Copy, A: Arith, F: Fn(T) -> A + Copy>(xs: &[T], to_acc: F) -> A {
    if xs.len() <= PAIRWISE_BLOCK {
        return block(xs, to_acc);
    }
    let (left, right) = xs.split_at(split(xs.len()));
    tree(left, to_acc).add(tree(right, to_acc))
}

/// A leaf of the tree: at most `PAIRWISE_BLOCK` elements. The scalar twin of
/// `leaf_avx2`, and the AVX2 leaf of the other accumulator types.
#[inline(always)]
fn block<T: Copy, A: Arith, F: Fn(T) -> A + Copy>(xs: &[T], to_acc: F) -> A {
    // Whole arrays of 8 per step, so the compiler can keep the partials in registers
    // instead of interleaving them across loop iterations.
    let (eights, rest) = xs.as_chunks::<8>();
    let Some((first, eights)) = eights.split_first() else {
        // Fewer than 8: a plain running sum.
        return xs.iter().fold(A::default(), |s, &x| s.add(to_acc(x)));
    };
    let mut r: [A; 8] = std::array::from_fn(|j| to_acc(first[j]));
    for x in eights {
        r = std::array::from_fn(|j| r[j].add(to_acc(x[j])));
    }
    let mut s = combine(&r);
    for &x in rest {
        s = s.add(to_acc(x));
    }
    s
}

/// `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`. Not inlined: seeing this tree,
/// LLVM's SLP vectorizer would permute the partials into even/odd halves and shuffle
/// every loaded vector to match, instead of one plain vector add per 8 elements.
#[inline(never)]
fn combine<A: Arith>(r: &[A; 8]) -> A {
    (r[0].add(r[1]).add(r[2].add(r[3]))).add(r[4].add(r[5]).add(r[6].add(r[7])))
}

/// Columns per tile of [`column_sums`] for accumulators of type `A`: as many as keep
/// the tile's 8 partial rows within `TILE_PARTIAL_BYTES`.
pub fn column_tile<A>() -> usize {
    (TILE_PARTIAL_BYTES / (8 * size_of::<A>())).max(1)
}

/// Column sums of a stack of rows: for every base `b` in `bases` and column
/// `c < cols`, `out[k * cols + c]` is the pairwise sum over `r` (in order) of
/// `to_acc(data[bases[k] + rows[r] + c])`: the tree of a lane of `rows.len()` elements.
/// Every addressed element must lie in `data`. Runs in parallel over fixed tiles of
/// `tile` columns ([`column_tile`]) and the top levels of the tree; each output
/// element's arithmetic is the same on any number of threads.
#[allow(clippy::too_many_arguments)]
pub fn column_sums<T, A, F>(
    isa: Isa,
    out: &mut [A],
    data: &[T],
    bases: &[usize],
    rows: &[isize],
    cols: usize,
    tile: usize,
    to_acc: F,
) where
    T: Copy + Sync,
    A: Arith,
    F: Fn(T) -> A + Copy + Sync + Send,
{
    use rayon::prelude::*;
    if cols == 0 {
        return;
    }
    let tiles_per_row = cols.div_ceil(tile);
    let work = bases.len() * cols * rows.len();
    let job = |(t, dst): (usize, &mut [A])| {
        let (k, i) = (t / tiles_per_row, t % tiles_per_row);
        let start = bases[k] as isize + (i * tile) as isize;
        column_task(isa, dst, data, start, rows, to_acc);
    };
    // Tiles never straddle two bases: split `out` per base, then per tile.
    let tiles = out
        .chunks_mut(cols)
        .flat_map(|per_base| per_base.chunks_mut(tile));
    if work <= PARALLEL_MIN {
        tiles.enumerate().for_each(job);
    } else {
        let _section = Section::begin();
        tiles
            .collect::<Vec<_>>()
            .into_par_iter()
            .enumerate()
            .for_each(job);
    }
}

/// The tree over `rows` of one tile, its top levels joined on several threads (a wide
/// tile may be the only one).
fn column_task<T, A, F>(
    isa: Isa,
    dst: &mut [A],
    data: &[T],
    start: isize,
    rows: &[isize],
    to_acc: F,
) where
    T: Copy + Sync,
    A: Arith,
    F: Fn(T) -> A + Copy + Sync + Send,
{
    if rows.len() > PAIRWISE_BLOCK && rows.len() * dst.len() > COLUMN_TASK_MIN {
        let (top, bottom) = rows.split_at(split(rows.len()));
        let mut right = vec![A::default(); dst.len()];
        join(
            || column_task(isa, dst, data, start, top, to_acc),
            || column_task(isa, &mut right, data, start, bottom, to_acc),
        );
        return add_into(dst, &right);
    }
    // The leaves' partial rows, reused by every leaf of this subtree.
    column_tree(isa, dst, data, start, rows, &mut Vec::new(), to_acc)
}

/// The tree over `rows` of one tile on the calling thread, its leaves built for `isa`.
fn column_tree<T: Copy, A: Arith, F: Fn(T) -> A + Copy>(
    isa: Isa,
    dst: &mut [A],
    data: &[T],
    start: isize,
    rows: &[isize],
    partials: &mut Vec<A>,
    to_acc: F,
) {
    if rows.len() <= PAIRWISE_BLOCK {
        return column_leaf(isa, (dst, partials), (data, start, rows), to_acc);
    }
    let (top, bottom) = rows.split_at(split(rows.len()));
    let mut right = vec![A::default(); dst.len()];
    column_tree(isa, dst, data, start, top, partials, to_acc);
    column_tree(isa, &mut right, data, start, bottom, partials, to_acc);
    add_into(dst, &right);
}

twin! {
    /// `column_block` into `out` = (dst, partials) of the rows `source` = (data,
    /// start, rows), vectorized for the widest vectors `isa` allows: the adds are
    /// element by element, so every width gives the same bits.
    fn column_leaf[T: Copy, A: Arith, F: Fn(T) -> A + Copy](
        out: (&mut [A], &mut Vec<A>),
        source: (&[T], isize, &[isize]),
        to_acc: F,
    ) {
        let (data, start, rows) = source;
        column_block(out.0, data, start, rows, out.1, to_acc)
    }
}

#[inline(always)]
fn add_into<A: Arith>(dst: &mut [A], src: &[A]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = d.add(s);
    }
}

/// A leaf of the column tree: `block` with each scalar replaced by a row of the tile.
/// Partial `j` takes rows `j, 8 + j, 16 + j, ...` in turn; a pass adds
/// `GROUPS_PER_PASS` of them to it at once, so the partial row (in L2, for wide tiles)
/// is read and written once per pass, and the rows stream in a few sequential runs.
#[inline(always)]
fn column_block<T: Copy, A: Arith, F: Fn(T) -> A + Copy>(
    dst: &mut [A],
    data: &[T],
    start: isize,
    rows: &[isize],
    partials: &mut Vec<A>,
    to_acc: F,
) {
    let w = dst.len();
    // The caller guarantees every addressed element is in `data`.
    let row = |r: usize| &data[(start + rows[r]) as usize..][..w];
    let n = rows.len();
    if n < 8 {
        dst.fill(A::default());
        for r in 0..n {
            fold_rows(dst, [row(r)], false, to_acc);
        }
        return;
    }
    partials.resize(8 * w, A::default());
    let groups = n / 8;
    let mut g = 0;
    while g < groups {
        let k = (groups - g).min(GROUPS_PER_PASS);
        for (j, p) in partials.chunks_exact_mut(w).enumerate() {
            let at = |i: usize| row(8 * (g + i) + j);
            let fresh = g == 0;
            match k {
                1 => fold_rows(p, [at(0)], fresh, to_acc),
                2 => fold_rows(p, [at(0), at(1)], fresh, to_acc),
                3 => fold_rows(p, [at(0), at(1), at(2)], fresh, to_acc),
                _ => fold_rows(p, [at(0), at(1), at(2), at(3)], fresh, to_acc),
            }
        }
        g += k;
    }
    let r: [&[A]; 8] = std::array::from_fn(|j| &partials[j * w..(j + 1) * w]);
    for (c, d) in dst.iter_mut().enumerate() {
        let pair = |a: usize| r[a][c].add(r[a + 1][c]);
        *d = (pair(0).add(pair(2))).add(pair(4).add(pair(6)));
    }
    for r in 8 * groups..n {
        fold_rows(dst, [row(r)], false, to_acc);
    }
}

/// `acc[c]` += each of `rows[i][c]` in order, element by element (starting from
/// `rows[0][c]` instead when `fresh`, as the first row of a partial).
#[inline(always)]
fn fold_rows<T: Copy, A: Arith, F: Fn(T) -> A + Copy, const K: usize>(
    acc: &mut [A],
    rows: [&[T]; K],
    fresh: bool,
    to_acc: F,
) {
    let rows = rows.map(|r| &r[..acc.len()]);
    if fresh {
        for (c, a) in acc.iter_mut().enumerate() {
            *a = rows[1..]
                .iter()
                .fold(to_acc(rows[0][c]), |s, r| s.add(to_acc(r[c])));
        }
    } else {
        for (c, a) in acc.iter_mut().enumerate() {
            *a = rows.iter().fold(*a, |s, r| s.add(to_acc(r[c])));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NumPy's pairwise_sum, transcribed literally, as the reference.
    fn numpy_pairwise(a: &[f32]) -> f32 {
        let n = a.len();
        if n < 8 {
            let mut res = 0.0f32;
            for &x in a {
                res += x;
            }
            res
        } else if n <= 128 {
            let mut r = [0f32; 8];
            r.copy_from_slice(&a[..8]);
            let mut i = 8;
            while i < n - (n % 8) {
                for j in 0..8 {
                    r[j] += a[i + j];
                }
                i += 8;
            }
            let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            while i < n {
                res += a[i];
                i += 1;
            }
            res
        } else {
            let mut n2 = n / 2;
            n2 -= n2 % 8;
            numpy_pairwise(&a[..n2]) + numpy_pairwise(&a[n2..])
        }
    }

    /// Values whose sums round differently in almost any other order.
    fn awkward(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919) % 1013) as f32 * 0.1 - 40.0 + (i % 3) as f32 * 1e-4)
            .collect()
    }

    #[test]
    fn pairwise_matches_numpy_bitwise() {
        for n in [
            0,
            1,
            7,
            8,
            9,
            16,
            127,
            128,
            129,
            1000,
            4099,
            PARALLEL_MIN + 77,
        ] {
            let xs = awkward(n);
            let want = numpy_pairwise(&xs).to_bits();
            for isa in [Isa::SCALAR, Isa::detect()] {
                let got = pairwise_sum_with(isa, &xs, |x| x);
                assert_eq!(got.to_bits(), want, "n = {n}, {isa:?}");
            }
        }
        let ints: Vec<u8> = (0..=255).collect();
        assert_eq!(pairwise_sum(&ints, Arith::to_acc), 255 * 128);
    }

    /// The vector leaves equal the scalar twin bitwise at every leaf length (a running
    /// sum, 8 partials with and without leftovers, a split), for f32 and f64 lanes with
    /// signed zeros, infinities and NaN among the values.
    #[test]
    fn vector_leaves_equal_the_scalar_leaf() {
        let (s, v) = (Isa::SCALAR, Isa::detect());
        let specials = [
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e30,
            -1e-30,
        ];
        for n in (0..=40).chain([49, 63, 64, 65, 127, 128, 129, 300]) {
            let xs = awkward(n);
            let f32s = |isa| pairwise_sum_with(isa, &xs, |x| x).to_bits();
            assert_eq!(f32s(s), f32s(v), "f32, n = {n}");
            let wide: Vec<f64> = xs.iter().map(|&x| f64::from(x) / 3.0).collect();
            let f64s = |isa| pairwise_sum_with(isa, &wide, |x| x).to_bits();
            assert_eq!(f64s(s), f64s(v), "f64, n = {n}");
            for (k, &special) in specials.iter().enumerate() {
                let mut odd = xs.clone();
                odd.iter_mut().skip(k).step_by(5).for_each(|x| *x = special);
                let sum = |isa| pairwise_sum_with(isa, &odd, |x| x);
                let (a, b) = (sum(s), sum(v));
                assert!(
                    a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                    "n = {n}"
                );
            }
        }
        let zeros = [-0.0f32; 3];
        assert_eq!(
            pairwise_sum_with(v, &zeros, |x| x).to_bits(),
            0.0f32.to_bits()
        );
    }

    /// The AVX2 build and the scalar twin agree bitwise for f64, widened f32 and halves.
    #[test]
    fn simd_equals_scalar_for_every_accumulator() {
        let xs = awkward(10_007);
        let wide = |x: f32| f64::from(x) * 1.1;
        let (s, v) = (Isa::SCALAR, Isa::detect());
        let f64s = |isa| pairwise_sum_with(isa, &xs, wide).to_bits();
        assert_eq!(f64s(s), f64s(v));
        let halves: Vec<half::f16> = xs.iter().map(|&x| half::f16::from_f32(x)).collect();
        let h = |isa| pairwise_sum_with(isa, &halves, Arith::to_acc).to_bits();
        assert_eq!(h(s), h(v));
        let nan_to_zero = |x: f32| if x.is_nan() { 0.0 } else { x };
        let mut holes = xs.clone();
        holes.iter_mut().step_by(13).for_each(|x| *x = f32::NAN);
        let nansum = |isa| pairwise_sum_with(isa, &holes, nan_to_zero).to_bits();
        assert_eq!(nansum(s), nansum(v));
    }

    /// Column sums equal the pairwise sum of each column as a lane, bitwise, on every
    /// ISA of this CPU, for row counts around every branch of the tree and every number
    /// of row groups per pass, several tiles, reversed row order, and a tile wide enough
    /// to split across threads.
    #[test]
    fn columns_are_summed_with_the_lane_tree() {
        let rows_counts = [0, 1, 5, 8, 13, 24, 40, 56, 128, 129, 300, 1031];
        for (cols, tile) in [(2 * 16 + 5, Some(16)), (1100, None)] {
            for n_rows in rows_counts {
                if tile.is_none() && n_rows < 1000 {
                    continue;
                }
                let data = awkward(n_rows * cols + 3);
                let forward: Vec<isize> = (0..n_rows).map(|r| (r * cols) as isize).collect();
                let backward: Vec<isize> = forward
                    .iter()
                    .rev()
                    .map(|&o| o - forward[n_rows.saturating_sub(1)].max(0))
                    .collect();
                for (rows, base) in [
                    (&forward, 3usize),
                    (&backward, 3 + (n_rows.max(1) - 1) * cols),
                ] {
                    for isa in Isa::supported() {
                        let mut out = vec![f32::NAN; 2 * cols];
                        let bases = [base, base];
                        let tile = tile.unwrap_or_else(column_tile::<f32>);
                        column_sums(isa, &mut out, &data, &bases, rows, cols, tile, |x| x);
                        for c in 0..cols {
                            let lane: Vec<f32> = rows
                                .iter()
                                .map(|&r| data[(base as isize + r) as usize + c])
                                .collect();
                            let want = numpy_pairwise(&lane).to_bits();
                            assert_eq!(out[c].to_bits(), want, "{n_rows} rows, col {c}");
                            assert_eq!(out[cols + c].to_bits(), want);
                        }
                    }
                }
            }
        }
    }
}

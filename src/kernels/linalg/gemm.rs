//! f32/f64 matrix products: the `gemm` crate's packed, runtime-dispatched micro-kernels
//! (AVX2+FMA on x86-64, NEON on aarch64 — the latter untested here), called single-
//! threaded on fixed tiles of the output that we run in parallel ourselves, plus our own
//! matrix-vector kernel.
//!
//! Why the crate: measured on this (loaded, 2-core Xeon) machine, 1 thread, min of
//! runs, through the interpreter: 1024³ f32 in 50–60 ms (~40 GFLOP/s), 2048³ in
//! ~350 ms, 64³ in 8.4 µs; NumPy's OpenBLAS, run alongside, took 19–35 ms, 160–310 ms
//! and 4.2 µs (its AVX-512 kernels; 8.6 µs for 64³ when forced to its AVX2 kernels).
//! The old plain i-k-j kernel was not timed side by side; a packed kernel of our own
//! was not attempted, so whether one would beat the crate is open.
//!
//! Why our own tiling: the crate's rayon mode splits work by the pool size; here the
//! tiles depend only on (m, n, k), the inner dimension is never split, and each tile is
//! one single-threaded call, so every output element sees the same operations in the
//! same order for any number of threads.

use std::ops::{Add, Mul};

use gemm::Parallelism;

use super::mat::Mat;
use crate::kernels::parallel::{for_each_chunk_mut, for_each_item, Disjoint};

/// The element types the `gemm` crate multiplies.
pub trait GemmFloat:
    Copy + Default + Send + Sync + 'static + Add<Output = Self> + Mul<Output = Self>
{
    const ONE: Self;
}

impl GemmFloat for f32 {
    const ONE: f32 = 1.0;
}

impl GemmFloat for f64 {
    const ONE: f64 = 1.0;
}

/// Products below this many multiply-adds run as one call on the calling thread.
const PARALLEL_MACS: usize = 1 << 19;
/// Tiles are split further while there are fewer than this many...
const MIN_TILES: usize = 8;
/// ...and each still has more than this much work...
const TILE_MACS: usize = 1 << 20;
/// ...and the longer edge is at least twice this (smaller tiles pack too often).
const MIN_TILE_EDGE: usize = 64;
/// No tile edge is longer than this (keeps several tiles per large product).
const MAX_TILE_EDGE: usize = 512;
/// Tile edges are multiples of this (a multiple of the crate's micro-tile sizes).
const TILE_ALIGN: usize = 16;
/// Rows of a matrix-vector product per parallel chunk.
const MATVEC_ROWS: usize = 256;

/// `out = a · b`, `out` row-major (a.rows × b.cols). An inner size of 0 gives zeros.
pub fn gemm<T: GemmFloat>(out: &mut [T], a: Mat<T>, b: Mat<T>) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let out = &mut out[..m * n];
    if k == 0 {
        out.fill(T::default());
        return;
    }
    if out.is_empty() {
        return;
    }
    if n == 1 && a.col_stride() == 1 {
        return matvec(out, a, b);
    }
    let (tm, tn) = tile_shape(m, n, k);
    let (row_tiles, col_tiles) = (m.div_ceil(tm), n.div_ceil(tn));
    let dst = Disjoint::new(out);
    let tile = |t: usize| {
        let (r, c) = (t / col_tiles * tm, t % col_tiles * tn);
        let (r_end, c_end) = ((r + tm).min(m), (c + tn).min(n));
        // SAFETY: tile t covers rows r..r_end and columns c..c_end of the m × n output,
        // which lie inside `out`, and no two tiles overlap, so the writes are disjoint.
        unsafe {
            call(
                dst.at(r * n + c),
                n,
                a.block(r..r_end, 0..k),
                b.block(0..k, c..c_end),
            )
        }
    };
    // Tiles not yet started when Ctrl-C is pressed are skipped.
    for_each_item(row_tiles * col_tiles, || (), |_, t| tile(t));
}

/// One single-threaded crate call: the (a.rows × b.cols) block at `dst` (row stride
/// `dst_row_stride`, unit column stride) becomes a · b.
///
/// # Safety
/// `dst` must be valid for writes over the whole block, and not aliased meanwhile.
unsafe fn call<T: GemmFloat>(dst: *mut T, dst_row_stride: usize, a: Mat<T>, b: Mat<T>) {
    // SAFETY: `Mat::new` proved every element of `a` and `b` (and so of their blocks)
    // lies inside their slices; the caller vouches for `dst`.
    unsafe {
        gemm::gemm(
            a.rows(),
            b.cols(),
            a.cols(),
            dst,
            1,
            dst_row_stride as isize,
            false,
            a.as_ptr(),
            a.col_stride(),
            a.row_stride(),
            b.as_ptr(),
            b.col_stride(),
            b.row_stride(),
            T::default(),
            T::ONE,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// Tile edges for an m × n output with inner size k: a function of the shape only.
/// Starting from tiles of at most `MAX_TILE_EDGE`, the longer edge is halved while
/// there are too few tiles to share among threads and they are still large.
fn tile_shape(m: usize, n: usize, k: usize) -> (usize, usize) {
    if m * n * k < PARALLEL_MACS {
        return (m, n);
    }
    let edge = |len: usize, parts: usize| len.div_ceil(parts).next_multiple_of(TILE_ALIGN);
    let (mut rt, mut ct) = (m.div_ceil(MAX_TILE_EDGE), n.div_ceil(MAX_TILE_EDGE));
    loop {
        let (tm, tn) = (edge(m, rt), edge(n, ct));
        let tiles = m.div_ceil(tm) * n.div_ceil(tn);
        if tiles >= MIN_TILES || tm * tn * k <= TILE_MACS || tm.max(tn) < 2 * MIN_TILE_EDGE {
            return (tm.min(m), tn.min(n));
        }
        if tm >= tn {
            rt *= 2;
        } else {
            ct *= 2;
        }
    }
}

/// `out = a · b` for a single column `b` and rows of `a` contiguous: a dot product per
/// row, parallel over fixed blocks of rows (memory bound: it streams `a` once).
fn matvec<T: GemmFloat>(out: &mut [T], a: Mat<T>, b: Mat<T>) {
    let x: Vec<T> = (0..b.rows()).map(|p| b.at(p, 0)).collect();
    for_each_chunk_mut(out, MATVEC_ROWS, |start, chunk| {
        for (r, o) in chunk.iter_mut().enumerate() {
            // Cannot fire: `matmul` takes this path only for an `a` with unit column stride.
            let row = a.row(start + r).expect("matvec rows are contiguous");
            *o = dot(row, &x);
        }
    });
}

/// Lanes of the dot product's partial sums (two AVX2 registers of f32).
const LANES: usize = 16;

/// Σ x·y with `LANES` interleaved partial sums combined in a fixed order; compiled for
/// AVX2 when present. Multiplies and adds are separate (never fused), so the AVX2 and
/// the portable build give the same bits.
fn dot<T: GemmFloat>(x: &[T], y: &[T]) -> T {
    #[cfg(target_arch = "x86_64")]
    if crate::kernels::isa::Isa::detect().avx2() {
        // SAFETY: `Isa::detect` found AVX2 and FMA on this CPU.
        return unsafe { dot_avx2(x, y) };
    }
    dot_lanes(x, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2<T: GemmFloat>(x: &[T], y: &[T]) -> T {
    dot_lanes(x, y)
}

#[inline(always)]
fn dot_lanes<T: GemmFloat>(x: &[T], y: &[T]) -> T {
    let mut acc = [T::default(); LANES];
    // Fixed-length arrays: no bounds checks, so the lanes vectorize.
    let ((xc, xr), (yc, yr)) = (x.as_chunks::<LANES>(), y.as_chunks::<LANES>());
    for (xs, ys) in xc.iter().zip(yc) {
        for l in 0..LANES {
            acc[l] = acc[l] + xs[l] * ys[l];
        }
    }
    for (l, (&p, &q)) in xr.iter().zip(yr).enumerate() {
        acc[l] = acc[l] + p * q;
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            acc[l] = acc[l] + acc[l + width];
        }
    }
    acc[0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::with_threads;

    fn data(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5
            })
            .collect()
    }

    fn naive(out: &mut [f64], a: &Mat<f32>, b: &Mat<f32>) {
        for i in 0..a.rows() {
            for j in 0..b.cols() {
                out[i * b.cols() + j] = (0..a.cols())
                    .map(|p| a.at(i, p) as f64 * b.at(p, j) as f64)
                    .sum();
            }
        }
    }

    /// Shapes around the parallel threshold and the crate's blocking, with k larger
    /// than its k-block and m, n not multiples of the micro-tile.
    const SHAPES: [(usize, usize, usize); 7] = [
        (3, 3, 3),
        (64, 64, 64),
        (1, 700, 301),
        (301, 1100, 1),
        (257, 1031, 131),
        (130, 77, 1200),
        (517, 19, 389),
    ];

    #[test]
    fn tiles_match_the_naive_product_for_any_thread_count() {
        for (m, k, n) in SHAPES {
            let (a, b) = (data(m * k, 1), data(k * n, 2));
            // a row-major; b read through its transpose's buffer (column-major).
            let am = Mat::row_major(&a, m, k);
            let bm = Mat::row_major(&b, n, k).t();
            let mut want = vec![0.0; m * n];
            naive(&mut want, &am, &bm);
            let run = || {
                let mut out = vec![f32::NAN; m * n];
                gemm(&mut out, am, bm);
                out
            };
            let one = with_threads(1, run);
            for (g, w) in one.iter().zip(&want) {
                assert!(
                    (*g as f64 - w).abs() <= 1e-5 * (k as f64).sqrt(),
                    "{m}x{k}x{n}"
                );
            }
            for threads in [2, 3] {
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&with_threads(threads, run)), bits(&one), "{m}x{k}x{n}");
            }
        }
    }

    #[test]
    fn tiles_cover_the_output_and_depend_on_the_shape_only() {
        for (m, n, k) in [
            (1024, 1024, 1024),
            (1, 4096, 4096),
            (4096, 3, 4096),
            (100, 100, 10),
        ] {
            let (tm, tn) = tile_shape(m, n, k);
            assert!(tm >= 1 && tn >= 1 && tm <= m && tn <= n);
            if m * n * k >= PARALLEL_MACS {
                assert!(tm.max(tn) >= MIN_TILE_EDGE.min(m.max(n)));
            }
        }
    }

    #[test]
    fn dot_is_the_same_with_and_without_avx2() {
        let (x, y) = (data(1000, 3), data(1000, 4));
        for len in [0, 1, 15, 16, 17, 1000] {
            let want: f64 = (0..len).map(|i| x[i] as f64 * y[i] as f64).sum();
            let got = dot(&x[..len], &y[..len]);
            assert_eq!(got.to_bits(), dot_lanes(&x[..len], &y[..len]).to_bits());
            assert!((got as f64 - want).abs() < 1e-4);
        }
    }
}

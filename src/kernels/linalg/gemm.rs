//! f32/f64 matrix products: our packed GEMM on the register micro-kernels of
//! `gemm_kernel` (AVX-512, AVX2+FMA or scalar, as `Isa::detect` allows), run on tiles of
//! the output in parallel, plus a matrix-vector kernel.
//!
//! Every output element is one chain of fused multiply-adds over the inner index in
//! order (see `gemm_kernel`), so neither the tiling, the cache blocking nor the ISA
//! changes a bit: any thread count and any x86 CPU give the same product.
//!
//! Blocking, inside each tile: B in blocks of `kc × nc` packed into panels of the
//! kernel's width, A in blocks of `mc × kc` packed into panels of its height; each A
//! panel (in L1) runs against every B panel of the block in turn (streamed from L2/L3),
//! so that the kernel walks C along its rows.

use std::mem::MaybeUninit;

use super::dot::dot_rows;
use super::gemm_kernel::{Direct, GemmFloat, MicroKernel};
use super::gemm_pack::{pack_a, pack_b, packed_len};
use super::mat::Mat;
use crate::kernels::cache::{data_caches, LINE};
use crate::kernels::interrupt;
use crate::kernels::isa::Isa;
use crate::kernels::parallel::{for_each_chunk_mut, for_each_item, threads, Disjoint};

/// Inner-dimension block: an A panel of `mr × KC` (12 KiB for f32 on AVX-512) stays
/// in L1 while the B panels of a `KC × NC` block (1 MiB of f32, 2 MiB of f64) stream
/// from L2. Each block after the first reloads C, so a long block saves C traffic; a
/// block of B larger than L2 would stream from L3 (inferred from the sizes, no cache
/// counters). On the Xeon of 2026-12-04 (family 6 model 207, 48 KiB L1d, 2 MiB L2),
/// one build with KC set at run time, medians of 15 calls (5 for 2048³): 1024³ on one
/// thread (two runs each) 16.0 / 16.1 ms at 512, 14.2 / 15.1 at 256, 14.4 / 14.6 at
/// 192; one run each, 512 → 256: 2048³ 129 → 116 ms; on two threads 1024³ 8.3 → 7.6,
/// 2048³ 67.5 → 60.7.
/// f64 and other CPUs were not measured at 256 (on the AVX-512 Zen 4 of earlier
/// sessions, 1 MiB of L2, 512 with A's panels outer had beaten 256 with B's panels
/// outer; 256 with A's outer was not tried there). A CPU with a small L2 blocks
/// otherwise (`Blocks::small_l2`).
const KC: usize = 256;
/// Rows of A packed at once (a multiple of every kernel's `mr`).
const MC: usize = 192;
/// Columns of B packed at once.
const NC: usize = 1024;
/// An L2 below this per core holds no `KC × NC` block of f32 B: see `Blocks::small_l2`.
const SMALL_L2: usize = 1 << 20;
/// Rows of A packed at once on a CPU with a small L2 (a multiple of every `mr`).
const SMALL_L2_MC: usize = 48;
// Both row blocks are whole panels of every kernel's height (4, 6 and 12).
const _: () = assert!(MC.is_multiple_of(12) && SMALL_L2_MC.is_multiple_of(12));
/// The longest inner block on a CPU with a small L2.
const SMALL_L2_MAX_KC: usize = 1024;
/// Products below this many multiply-adds run as one call on the calling thread.
const PARALLEL_MACS: usize = 1 << 19;
/// Tiles are split further while there are fewer than this many per thread (2048³ on
/// 2 threads of the 2026-12-04 Xeon, alternating runs: 60.6–61.3 ms with 4, 58.8–59.6
/// with 2, as fewer tiles pack each block of A and B fewer times; measured at 2 threads
/// only)...
const TILES_PER_THREAD: usize = 2;
/// ...and each still has more than this much work (the products of the last layer of
/// benches/compare's MLP, 256 × 256 × 10 and its gradients 10 × 256 × 256 and
/// 256 × 10 × 256 (m × k × n), ran on one thread at 1 << 20; at 1 << 18 they split, and
/// its train step at 2 threads took 1.36 / 1.33 ms against 1.40 / 1.37, 1.23–1.26
/// against 1.27–1.29 with the elementwise chunk halved too)...
const TILE_MACS: usize = 1 << 18;
/// ...and the longer edge is at least twice this (smaller tiles pack too often).
const MIN_TILE_EDGE: usize = 64;
/// Tiles start at edges of at most this (plus part of a register tile: tiles are
/// whole register tiles).
const MAX_TILE_EDGE: usize = 2048;
/// On several threads, a B of at most this many values is packed once and shared
/// (each tile would pack its own columns of it again), unless the product is one
/// block of the inner dimension with no more rows than columns (see `shares_b`)...
const SHARED_B_VALUES: usize = 1 << 20;
/// ...and A is split into about this many blocks of rows per thread.
const SHARED_B_BLOCKS_PER_THREAD: usize = 2;
/// Rows of a matrix-vector product per parallel chunk.
const MATVEC_ROWS: usize = 256;
/// A matrix-vector product's matrix larger than this (in bytes) streams from memory,
/// not from the last-level cache (32 MiB on the Zen 3 of docs/PERFORMANCE.md, where
/// `dot_rows` with A in cache was faster 3 rows at a time up to 2048² f32, 16 MiB, and
/// slower from 2896², 32 MiB).
const STREAMED_BYTES: usize = 24 << 20;

/// `out = a · b`, `out` row-major (a.rows × b.cols). An inner size of 0 gives zeros.
pub fn gemm<T: GemmFloat>(out: &mut [T], a: Mat<T>, b: Mat<T>) {
    gemm_on(Isa::detect(), out, a, b);
}

/// `gemm` into a buffer not yet written: each of its a.rows × b.cols elements is
/// written once. (A new result zeroed first, then written: [8,512,64] @ [8,64,512]
/// took 8.3–8.6 ms on one thread of an AVX2 Zen here, 5.1–5.4 on two; written once,
/// 7.7 and 4.0–4.4.)
pub fn gemm_uninit<T: GemmFloat>(out: &mut [MaybeUninit<T>], a: Mat<T>, b: Mat<T>) {
    gemm_uninit_on(Isa::detect(), out, a, b);
}

/// Cache blocks of a product: inner-dimension blocks of `kc`, `mc` rows of A and `nc`
/// columns of B packed at once. They change no bit: each output element stays one
/// chain over the inner index in order, carried through C between blocks.
#[derive(Clone, Copy, Debug)]
struct Blocks {
    kc: usize,
    mc: usize,
    nc: usize,
}

impl Blocks {
    /// The blocks for `kernel` on this CPU's caches.
    fn of<T: GemmFloat>(kernel: &MicroKernel<T>) -> Blocks {
        match data_caches() {
            Some(caches) if caches.l2 < SMALL_L2 => Blocks::small_l2::<T>(kernel.mr, caches.l1),
            _ => Blocks {
                kc: KC,
                mc: MC,
                nc: NC,
            },
        }
    }

    /// Where even one `KC × NC` block of B streams from L3, long inner blocks: C is
    /// read and written once per block, and an A panel of `mr` rows filling three
    /// quarters of L1 (`l1`) still stays there (the block kept between `KC` and
    /// `SMALL_L2_MAX_KC`; B's packing buffer grows with it, to 4 MiB per thread). On the Zen 3 of docs/PERFORMANCE.md
    /// (32 KiB L1d, 512 KiB L2: 1024 for f32 on AVX2, 512 for f64), one build with the
    /// blocks set at run time, medians in three alternating rounds, one thread: f32
    /// 1024³ 24.4–25.7 ms at (KC, MC) = (256, 192), 23.8–24.0 at (1024, 48); 2048³
    /// 207–221 at (256, 192), 190–196 at (1024, 48); f64 1024³ 47.4–51.7 at (256, 192),
    /// 48.7–50.9 at (512, 48) (no change beyond the noise). Same-run ratios to NumPy
    /// (`benches/compare --only matmul`, 1 | 2 threads), builds before and after in
    /// two alternating runs each: 1024³ 1.05–1.09 | 1.03–1.04 → 0.98–1.01 | 0.92–1.01,
    /// 2048³ 1.07–1.08 | 1.06–1.10 → 1.02–1.07 | 0.95–1.01. `mc` is cut to keep the
    /// packed A block (48 × 1024 f32, 192 KiB) in L2 beside B's lines.
    fn small_l2<T>(mr: usize, l1: usize) -> Blocks {
        let kc = l1 / 4 * 3 / (mr * size_of::<T>());
        Blocks {
            kc: kc.clamp(KC, SMALL_L2_MAX_KC),
            mc: SMALL_L2_MC,
            nc: NC,
        }
    }
}

/// `gemm` on the kernels of `isa` (the same bits on each).
fn gemm_on<T: GemmFloat>(isa: Isa, out: &mut [T], a: Mat<T>, b: Mat<T>) {
    let kernel = T::kernel(isa);
    gemm_in_blocks(kernel, Blocks::of(&kernel), out, a, b);
}

/// `gemm_on` with the kernels of `kernel` and the cache blocks `blocks`.
fn gemm_in_blocks<T: GemmFloat>(
    kernel: MicroKernel<T>,
    blocks: Blocks,
    out: &mut [T],
    a: Mat<T>,
    b: Mat<T>,
) {
    // SAFETY: the same memory, viewed as possibly uninitialized; `gemm_blocked` writes
    // only initialized values into it, so it stays initialized.
    let out = unsafe { &mut *(out as *mut [T] as *mut [MaybeUninit<T>]) };
    gemm_blocked(kernel, blocks, out, a, b);
}

/// `gemm_uninit` on the kernels of `isa`. The micro-kernels read the output only to
/// accumulate onto what an earlier block of the inner index wrote.
fn gemm_uninit_on<T: GemmFloat>(isa: Isa, out: &mut [MaybeUninit<T>], a: Mat<T>, b: Mat<T>) {
    let kernel = T::kernel(isa);
    gemm_blocked(kernel, Blocks::of(&kernel), out, a, b);
}

/// `gemm_uninit_on` with the kernels of `kernel` and the cache blocks `blocks`.
fn gemm_blocked<T: GemmFloat>(
    kernel: MicroKernel<T>,
    blocks: Blocks,
    out: &mut [MaybeUninit<T>],
    a: Mat<T>,
    b: Mat<T>,
) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let out = &mut out[..m * n];
    if k == 0 {
        for o in out.iter_mut() {
            o.write(T::default());
        }
        return;
    }
    if out.is_empty() {
        return;
    }
    if n == 1 {
        // A matrix-vector product wants A's rows as slices (unit column stride).
        if let Some(rows) = (0..m).map(|r| a.row(r)).collect::<Option<Vec<_>>>() {
            return matvec(kernel.isa, out, &rows, b);
        }
    }
    let unit_columns = a.col_stride() == 1 && b.col_stride() == 1;
    if let Some(narrow) = kernel.direct {
        if m * n * k < PARALLEL_MACS && n % narrow.cols() == 0 && unit_columns {
            return direct(narrow, kernel.direct_wide, out, a, b);
        }
    }
    let threads = threads();
    if threads > 1 && m * n * k >= PARALLEL_MACS && shares_b(m, k, n) {
        return shared_b(kernel, blocks, out, (a, b), threads);
    }
    let (row_tiles, col_tiles) = tile_counts(m, n, k, threads);
    // Tiles of whole register tiles, their edges differing by at most one: edges
    // rounded up to 48 rows made 256³ on 2 threads tiles of 144 and 112 rows, one
    // thread's pair (the items of `for_each_item` are ranges): 0.128–0.139 ms against
    // 0.124–0.132 (medians of 200 calls in three rounds, docs/PERFORMANCE.md's Xeon).
    let row = |i: usize| part_start(i, row_tiles, m, kernel.mr);
    let col = |j: usize| part_start(j, col_tiles, n, kernel.nr);
    let dst = Disjoint::new(out);
    let tile = |t: usize| {
        let (i, j) = (t / col_tiles, t % col_tiles);
        let (r, c, r_end, c_end) = (row(i), col(j), row(i + 1), col(j + 1));
        // SAFETY: tile t covers rows r..r_end and columns c..c_end of the m × n output,
        // which lie inside `out`, and no two tiles overlap, so the accesses are disjoint.
        unsafe {
            tile_product(
                (kernel, blocks),
                dst.at(r * n + c).cast(),
                n,
                a.block(r..r_end, 0..k),
                b.block(0..k, c..c_end),
            )
        }
    };
    // Tiles not yet started when Ctrl-C is pressed are skipped.
    for_each_item(row_tiles * col_tiles, || (), |_, t| tile(t));
}

/// `out = a · b` for a small product whose operands have unit column strides and whose
/// width is a multiple of the direct tile's, on the calling thread: the kernel reads A
/// and B where they are (packing them took a third of a 64³ product's time in a profile
/// on an AVX-512 Zen 4), with the packed kernel's bits. Strips take the wide tile while
/// they can.
fn direct<T: GemmFloat>(
    narrow: Direct<T>,
    wide: Option<Direct<T>>,
    out: &mut [MaybeUninit<T>],
    a: Mat<T>,
    b: Mat<T>,
) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let (lda, ldb) = (a.row_stride(), b.row_stride());
    let c = out.as_mut_ptr().cast::<T>();
    let mut j = 0;
    while j < n {
        let tile = wide.filter(|w| n - j >= w.cols()).unwrap_or(narrow);
        for i in (0..m).step_by(tile.rows()) {
            // SAFETY: rows i.. of A (k columns each) and columns j..j + cols of B (k rows;
            // j + cols ≤ n: n is a multiple of the narrow tile's width, the wide one is
            // twice as wide, so j stays a multiple of the narrow width, and the wide
            // tile is taken only where it fits) are elements of the views; the block of
            // min(rows, m - i) rows × cols at (i, j) lies inside the m × n output.
            unsafe {
                tile.run(
                    (m - i, k),
                    (a.as_ptr().offset(i as isize * lda), lda),
                    (b.as_ptr().add(j), ldb),
                    (c.add(i * n + j), n),
                )
            };
        }
        j += tile.cols();
    }
}

/// The (a.rows × b.cols) block at `dst` (row stride `ldc`, unit column stride) becomes
/// a · b, on the calling thread.
///
/// # Safety
/// `dst` must be valid for reads and writes over the whole block, and not aliased
/// meanwhile.
unsafe fn tile_product<T: GemmFloat>(
    (kernel, blocks): (MicroKernel<T>, Blocks),
    dst: *mut T,
    ldc: usize,
    a: Mat<T>,
    b: Mat<T>,
) {
    let (kc_max, mc_max, nc_max) = largest_blocks(blocks, a, b);
    // B's panels start on a cache line too.
    let line = LINE / std::mem::size_of::<T>();
    let a_len = packed_len(mc_max, kc_max, kernel.mr).next_multiple_of(line);
    let b_len = packed_len(nc_max, kc_max, kernel.nr);
    T::with_scratch(a_len + b_len, |scratch| {
        let (a_packed, b_packed) = scratch.split_at_mut(a_len);
        // SAFETY: the caller's contract, passed on.
        unsafe { blocked((kernel, blocks), dst, ldc, (a, b), (a_packed, b_packed)) }
    });
}

/// True when a product on several threads packs B once for all its row blocks
/// (`shared_b`) rather than splitting the output into tiles. With one block of the
/// inner dimension and no more rows in A than columns in B, tiles split the columns
/// as well and each packs one block of B anyway, while `shared_b`'s row blocks are
/// thin and its two phases (pack, then multiply) wait on each other (`KC` here: the
/// block measured, whatever the CPU's blocks). 2 threads of the
/// Xeon of docs/PERFORMANCE.md, medians of 5 × 50–200 calls in three alternating
/// rounds, ms, shared → tiles (m × k × n): 256³ 0.165–0.168 → 0.146–0.147,
/// 128 × 256 × 256 0.115–0.120 → 0.108–0.109; but 784 × 256 × 256 0.376–0.385 →
/// 0.420–0.456, and with tiles for every m ≤ n the MLP train step of benches/compare
/// (its forward `x @ w.T` is 256 × 784 × 256) took 1.52–1.55 ms against 1.36–1.42.
fn shares_b(m: usize, k: usize, n: usize) -> bool {
    k * n <= SHARED_B_VALUES && (m > n || k > KC)
}

/// The largest (kc, mc, nc) blocks of the product a · b.
fn largest_blocks<T: Copy>(blocks: Blocks, a: Mat<T>, b: Mat<T>) -> (usize, usize, usize) {
    (
        blocks.kc.min(a.cols()),
        blocks.mc.min(a.rows()),
        blocks.nc.min(b.cols()),
    )
}

/// `tile_product` with its packing buffers (for `packed_len` of the largest blocks).
///
/// # Safety
/// As `tile_product`.
unsafe fn blocked<T: GemmFloat>(
    (kernel, blocks): (MicroKernel<T>, Blocks),
    dst: *mut T,
    ldc: usize,
    (a, b): (Mat<T>, Mat<T>),
    (a_packed, b_packed): (&mut [T], &mut [T]),
) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let (mr, nr) = (kernel.mr, kernel.nr);
    let (kc_max, mc_max, nc_max) = largest_blocks(blocks, a, b);
    for jc in (0..n).step_by(blocks.nc) {
        let nc = nc_max.min(n - jc);
        for pc in (0..k).step_by(blocks.kc) {
            let kc = kc_max.min(k - pc);
            pack_b(b_packed, b.block(pc..pc + kc, jc..jc + nc), nr);
            let b_panels = b_packed.chunks_exact(kc * nr).take(nc.div_ceil(nr));
            for ic in (0..m).step_by(blocks.mc) {
                // Ctrl-C: the interpreter discards this product, so stop mid-tile
                // (a large tile takes a while, far longer in a debug build).
                if interrupt::requested() {
                    return;
                }
                let mc = mc_max.min(m - ic);
                pack_a(a_packed, a.block(ic..ic + mc, pc..pc + kc), mr, kernel.isa);
                let a_panels = a_packed.chunks_exact(kc * mr).take(mc.div_ceil(mr));
                for (iq, a_panel) in a_panels.enumerate() {
                    for (jq, b_panel) in b_panels.clone().enumerate() {
                        let (i, j) = (ic + iq * mr, jc + jq * nr);
                        let clip = (mr.min(m - i), nr.min(n - j));
                        // SAFETY: (i, j) and the clipped tile from it lie inside the
                        // block the caller vouches for; the panels hold kc·mr and kc·nr.
                        unsafe {
                            let c = dst.add(i * ldc + j);
                            run_clipped(kernel, kc, (a_panel, b_panel), c, ldc, clip, pc > 0)
                        };
                    }
                }
            }
        }
    }
}

/// `out = a · b` on several threads with B packed once: its blocks of `kc` rows are
/// packed in parallel (each cut into column panels shared among the threads), then
/// blocks of A's rows run in parallel against all of them. Each output element is
/// still one chain over k in order (the same bits as a tile).
fn shared_b<T: GemmFloat>(
    kernel: MicroKernel<T>,
    blocks: Blocks,
    out: &mut [MaybeUninit<T>],
    (a, b): (Mat<T>, Mat<T>),
    threads: usize,
) {
    let (m, k, n) = (a.rows(), a.cols(), b.cols());
    let (mr, nr) = (kernel.mr, kernel.nr);
    // Block pc (rows pc..pc + kc of B) is packed at pc · width as ⌈n / nr⌉ panels [kc][nr].
    let width = n.div_ceil(nr) * nr;
    let Blocks { kc: kc_max, mc, .. } = blocks;
    let blocks: Vec<(usize, usize)> = (0..k)
        .step_by(kc_max)
        .map(|pc| (pc, kc_max.min(k - pc)))
        .collect();
    // Each block's panels in `threads` groups: one block of B (k ≤ kc, as in a 256³
    // product) was packed by one thread while the other waited.
    let b_panels = n.div_ceil(nr);
    let groups = threads.min(b_panels);
    let group_panels = |g: usize| g * b_panels / groups;
    // Blocks of A's rows of at most mc, at least SHARED_B_BLOCKS_PER_THREAD per thread,
    // as many as a multiple of the thread count, their sizes differing by at most one
    // panel so that the threads finish together (256 rows on 2 threads were blocks of
    // 72, 72, 72 and 40 rows: 144 rows against 112).
    let panels = m.div_ceil(mr);
    let row_blocks = panels
        .div_ceil(mc / mr)
        .max(SHARED_B_BLOCKS_PER_THREAD * threads)
        .next_multiple_of(threads)
        .min(panels);
    let block_row = |t: usize| part_start(t, row_blocks, m, mr);
    let most_rows = panels.div_ceil(row_blocks) * mr;
    T::with_scratch(k * width, |b_packed| {
        let packing = Disjoint::new(b_packed);
        for_each_item(
            blocks.len() * groups,
            || (),
            |_, item| {
                let ((pc, kc), g) = (blocks[item / groups], item % groups);
                let (p0, p1) = (group_panels(g), group_panels(g + 1));
                let (start, len) = (pc * width + p0 * kc * nr, (p1 - p0) * kc * nr);
                // SAFETY: panels p0..p1 of the block at pc lie inside its kc · width
                // values, inside the k · width buffer; no two items share a panel.
                let dst = unsafe { packing.part(start, len) };
                pack_b(dst, b.block(pc..pc + kc, p0 * nr..(p1 * nr).min(n)), nr);
            },
        );
        let b_packed: &[T] = b_packed;
        let dst = Disjoint::new(out);
        for_each_item(
            row_blocks,
            || (),
            |_, t| {
                let (r, r_end) = (block_row(t), block_row(t + 1));
                T::with_scratch(packed_len(most_rows, kc_max.min(k), mr), |a_packed| {
                    for &(pc, kc) in &blocks {
                        pack_a(a_packed, a.block(r..r_end, pc..pc + kc), mr, kernel.isa);
                        let b_block = &b_packed[pc * width..(pc + kc) * width];
                        let a_panels = a_packed
                            .chunks_exact(kc * mr)
                            .take((r_end - r).div_ceil(mr));
                        for (iq, a_panel) in a_panels.enumerate() {
                            for (jq, b_panel) in b_block.chunks_exact(kc * nr).enumerate() {
                                let (i, j) = (r + iq * mr, jq * nr);
                                let clip = (mr.min(m - i), nr.min(n - j));
                                // SAFETY: (i, j) and the clipped tile from it lie inside the
                                // m × n output, in rows r..r_end that only this item writes;
                                // the panels hold kc·mr and kc·nr values.
                                unsafe {
                                    run_clipped(
                                        kernel,
                                        kc,
                                        (a_panel, b_panel),
                                        dst.at(i * n + j).cast(),
                                        n,
                                        clip,
                                        pc > 0,
                                    )
                                };
                            }
                        }
                    }
                });
            },
        );
    });
}

/// Values in the largest register tile (12 × 32 for f32 on AVX-512).
const MAX_TILE: usize = 12 * 32;

/// One kernel call on a tile of which only `rows × cols` lie inside the output: a
/// partial tile goes through a full-size scratch tile.
///
/// # Safety
/// As `MicroKernel::run` for the `rows × cols` part of the tile at `c`; the panels hold
/// `kc · mr` and `kc · nr` values.
unsafe fn run_clipped<T: GemmFloat>(
    kernel: MicroKernel<T>,
    kc: usize,
    (a_panel, b_panel): (&[T], &[T]),
    c: *mut T,
    ldc: usize,
    (rows, cols): (usize, usize),
    accumulate: bool,
) {
    let (a, b, nr) = (a_panel.as_ptr(), b_panel.as_ptr(), kernel.nr);
    if (rows, cols) == (kernel.mr, nr) {
        // SAFETY: the whole tile is inside the output (the caller's contract).
        return unsafe { kernel.run(kc, (a, b), (c, ldc), accumulate) };
    }
    let mut scratch = [T::default(); MAX_TILE];
    // The output is read only to accumulate (it may not be written yet otherwise).
    if accumulate {
        for i in 0..rows {
            for j in 0..cols {
                // SAFETY: (i, j) is inside the part of the tile in the output.
                scratch[i * nr + j] = unsafe { *c.add(i * ldc + j) };
            }
        }
    }
    // SAFETY: the scratch tile holds mr × nr ≤ MAX_TILE values at row stride nr.
    unsafe { kernel.run(kc, (a, b), (scratch.as_mut_ptr(), nr), accumulate) };
    for i in 0..rows {
        for j in 0..cols {
            // SAFETY: as for the reads.
            unsafe { *c.add(i * ldc + j) = scratch[i * nr + j] };
        }
    }
}

/// The first of `len` rows (or columns) in part `i` of `parts`, the parts made of
/// whole units of `unit` (a kernel's `mr` or `nr`) and differing by at most one unit.
fn part_start(i: usize, parts: usize, len: usize, unit: usize) -> usize {
    (i * len.div_ceil(unit) / parts * unit).min(len)
}

/// How many tiles along the rows and along the columns of an m × n output with inner
/// size k on `threads` threads (the bits do not depend on the tiling). Starting from
/// tiles of at most `MAX_TILE_EDGE`, the longer edge is halved while there are too few
/// tiles to share among the threads and they are still large. One thread gets few,
/// large tiles: each tile packs its own blocks of A and B.
fn tile_counts(m: usize, n: usize, k: usize, threads: usize) -> (usize, usize) {
    if m * n * k < PARALLEL_MACS {
        return (1, 1);
    }
    let min_tiles = if threads > 1 {
        TILES_PER_THREAD * threads
    } else {
        1
    };
    let (mut rt, mut ct) = (m.div_ceil(MAX_TILE_EDGE), n.div_ceil(MAX_TILE_EDGE));
    loop {
        let (tm, tn) = (m.div_ceil(rt), n.div_ceil(ct));
        if rt * ct >= min_tiles || tm * tn * k <= TILE_MACS || tm.max(tn) < 2 * MIN_TILE_EDGE {
            return (rt, ct);
        }
        if tm >= tn {
            rt *= 2;
        } else {
            ct *= 2;
        }
    }
}

/// `out = a · b` for a single column `b` and the rows of `a` as slices: a dot product
/// per row, parallel over fixed blocks of rows (memory bound: it streams `a` once).
fn matvec<T: GemmFloat>(isa: Isa, out: &mut [MaybeUninit<T>], a_rows: &[&[T]], b: Mat<T>) {
    let x: Vec<T> = (0..b.rows()).map(|p| b.at(p, 0)).collect();
    let bytes = a_rows
        .len()
        .saturating_mul(x.len())
        .saturating_mul(size_of::<T>());
    let streamed = bytes > STREAMED_BYTES;
    for_each_chunk_mut(out, MATVEC_ROWS, |start, chunk| {
        let rows = &a_rows[start..start + chunk.len()];
        let mut dots = [T::default(); MATVEC_ROWS];
        let dots = &mut dots[..chunk.len()];
        dot_rows(isa, rows, &x, dots, streamed);
        for (o, &d) in chunk.iter_mut().zip(dots.iter()) {
            o.write(d);
        }
    });
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

    /// `xs` as f64 (exactly).
    fn widened(xs: &[f32]) -> Vec<f64> {
        xs.iter().map(|&x| x as f64).collect()
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

    /// Shapes around the parallel threshold and past each block (KC, MC, NC), with m
    /// and n not multiples of any register tile; on several threads the ones with a
    /// small enough B take `shared_b` (an MLP layer's among them; one B of two panels,
    /// fewer than three threads' packing groups), except (130, 77, 1200): one block of
    /// k with m ≤ n, it takes tiles that split the columns (`shares_b`).
    const SHAPES: [(usize, usize, usize); 9] = [
        (256, 784, 250),
        (300, 64, 40),
        (3, 3, 3),
        (64, 64, 64),
        (1, 700, 301),
        (301, 1100, 1),
        (257, 1031, 131),
        (130, 77, 1200),
        (517, 19, 389),
    ];

    #[test]
    fn tiles_match_the_naive_product_for_any_thread_count_and_isa() {
        for (m, k, n) in SHAPES {
            let (a, b) = (data(m * k, 1), data(k * n, 2));
            // a row-major; b read through its transpose's buffer (column-major).
            let am = Mat::row_major(&a, m, k);
            let bm = Mat::row_major(&b, n, k).t();
            let mut want = vec![0.0; m * n];
            naive(&mut want, &am, &bm);
            let on = |isa: Isa| {
                let mut out = vec![f32::NAN; m * n];
                gemm_on(isa, &mut out, am, bm);
                out
            };
            let run = || on(Isa::detect());
            let one = with_threads(1, run);
            for (g, w) in one.iter().zip(&want) {
                assert!(
                    (*g as f64 - w).abs() <= 1e-5 * (k as f64).sqrt(),
                    "{m}x{k}x{n}"
                );
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for threads in [2, 3] {
                assert_eq!(bits(&with_threads(threads, run)), bits(&one), "{m}x{k}x{n}");
            }
            for isa in Isa::supported() {
                let got = with_threads(2, || on(isa));
                assert_eq!(bits(&got), bits(&one), "{m}x{k}x{n} on {isa:?}");
            }
        }
    }

    /// Blocks change no bit: the blocks for a small L2 (f32 and f64), and small odd ones
    /// that make several of each block (with a partial last one), give the bits of the
    /// default blocks, on one thread (one tile) and two (`shared_b`, but tiles at
    /// offsets for the last shape: one block of k with m ≤ n).
    #[test]
    fn every_blocking_gives_the_same_bits() {
        let default = Blocks {
            kc: KC,
            mc: MC,
            nc: NC,
        };
        let odd = Blocks {
            kc: 37,
            mc: 12,
            nc: 40,
        };
        for (m, k, n) in [
            (130, 1100, 70),
            (61, 2100, 131),
            (257, 300, 33),
            (130, 200, 1200),
        ] {
            let (a, b) = (data(m * k, 7), data(k * n, 8));
            let (am, bm) = (Mat::row_major(&a, m, k), Mat::row_major(&b, k, n));
            let (a64, b64) = (widened(&a), widened(&b));
            let (am64, bm64) = (Mat::row_major(&a64, m, k), Mat::row_major(&b64, k, n));
            for isa in Isa::supported() {
                let (k32, k64) = (f32::kernel(isa), f64::kernel(isa));
                let small32 = Blocks::small_l2::<f32>(k32.mr, 32 << 10);
                let small64 = Blocks::small_l2::<f64>(k64.mr, 32 << 10);
                for threads in [1, 2] {
                    let f32_bits = |blocks| {
                        let mut out = vec![f32::NAN; m * n];
                        with_threads(threads, || gemm_in_blocks(k32, blocks, &mut out, am, bm));
                        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    };
                    let f64_bits = |blocks| {
                        let mut out = vec![f64::NAN; m * n];
                        let run = || gemm_in_blocks(k64, blocks, &mut out, am64, bm64);
                        with_threads(threads, run);
                        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                    };
                    let case = format!("{m}x{k}x{n} on {isa:?}, {threads} threads");
                    let want = f32_bits(default);
                    assert_eq!(f32_bits(small32), want, "{case}");
                    assert_eq!(f32_bits(odd), want, "{case}");
                    let want = f64_bits(default);
                    assert_eq!(f64_bits(small64), want, "f64 {case}");
                    assert_eq!(f64_bits(odd), want, "f64 {case}");
                }
            }
        }
        // The small-L2 blocks of the Zen 3 (32 KiB L1d) for its AVX2 kernels (mr = 6),
        // and a large L1 clamped.
        assert_eq!(Blocks::small_l2::<f32>(6, 32 << 10).kc, 1024);
        assert_eq!(Blocks::small_l2::<f64>(6, 32 << 10).kc, 512);
        assert_eq!(Blocks::small_l2::<f32>(6, 1 << 20).kc, SMALL_L2_MAX_KC);
    }

    /// The bits of `a · b` on the kernels of `isa`, each value widened to f64 (exactly).
    fn product_bits<T: GemmFloat + Into<f64>>(isa: Isa, a: Mat<T>, b: Mat<T>) -> Vec<u64> {
        let mut out = vec![T::default(); a.rows() * b.cols()];
        gemm_on(isa, &mut out, a, b);
        out.into_iter().map(|x| x.into().to_bits()).collect()
    }

    /// Small products of row-major operands (the unpacked path when the width is a
    /// multiple of the kernel's, the packed one otherwise) against the scalar ISA's
    /// packed kernel, bit for bit, and the naive product.
    #[test]
    fn small_row_major_products_have_the_packed_bits() {
        for (m, k, n) in [
            (64, 64, 64),
            (13, 300, 32),
            (70, 5, 96),
            (1, 9, 64),
            (25, 64, 40),
            (7, 20, 160),
            (8, 33, 64),
            (9, 17, 128),
            (11, 40, 64),
        ] {
            let (a, b) = (data(m * k, 3), data(k * n, 4));
            let (am, bm) = (Mat::row_major(&a, m, k), Mat::row_major(&b, k, n));
            let mut want = vec![0.0; m * n];
            naive(&mut want, &am, &bm);
            let scalar = product_bits(Isa::SCALAR, am, bm);
            for (g, w) in scalar.iter().zip(&want) {
                let g = f64::from_bits(*g);
                assert!((g - w).abs() <= 1e-5 * (k as f64).sqrt(), "{m}x{k}x{n}");
            }
            for isa in Isa::supported() {
                assert_eq!(product_bits(isa, am, bm), scalar, "{m}x{k}x{n} on {isa:?}");
            }
        }
        // f64 (a wide tile, and a wide and a narrow one), A a block of a wider matrix
        // (row stride above its width).
        for n in [64, 48] {
            let (a, b) = (data(64 * 80, 5), data(64 * n, 6));
            let (a64, b64) = (widened(&a), widened(&b));
            let am = Mat::row_major(&a64, 64, 80).block(0..64, 3..67);
            let bm = Mat::row_major(&b64, 64, n);
            let scalar = product_bits(Isa::SCALAR, am, bm);
            for isa in Isa::supported() {
                assert_eq!(product_bits(isa, am, bm), scalar, "f64 × {n} on {isa:?}");
            }
        }
    }

    #[test]
    fn tiles_cover_the_output_evenly_and_give_each_thread_several() {
        for (m, n, k) in [
            (1024, 1024, 1024),
            (1, 4096, 4096),
            (4096, 3, 4096),
            (100, 100, 10),
            (256, 784, 256),
        ] {
            for threads in [1, 2, 3, 8] {
                let (rt, ct) = tile_counts(m, n, k, threads);
                for (len, parts, unit) in [
                    (m, rt, 12),
                    (m, rt, 6),
                    (m, rt, 4),
                    (n, ct, 32),
                    (n, ct, 16),
                    (n, ct, 8),
                ] {
                    let starts: Vec<usize> = (0..=parts)
                        .map(|i| part_start(i, parts, len, unit))
                        .collect();
                    assert_eq!((starts[0], starts[parts]), (0, len), "{m}x{n}x{k}");
                    let sizes: Vec<usize> = starts.windows(2).map(|w| w[1] - w[0]).collect();
                    // Whole units, at most one apart, but the last part's partial one.
                    assert!(sizes[..parts - 1].iter().all(|s| s % unit == 0));
                    let spread = sizes
                        .iter()
                        .max()
                        .zip(sizes.iter().min())
                        .map(|(a, b)| a - b);
                    assert!(spread <= Some(unit), "{sizes:?}");
                }
                if m * n * k >= PARALLEL_MACS {
                    let edge = m.div_ceil(rt).max(n.div_ceil(ct));
                    assert!(edge >= MIN_TILE_EDGE.min(m.max(n)));
                }
            }
        }
        assert_eq!(tile_counts(1024, 1024, 1024, 1), (1, 1));
        let (rt, ct) = tile_counts(1024, 1024, 1024, 2);
        assert!(rt * ct >= 2 * TILES_PER_THREAD);
        // 256³ on 2 threads: rows 0..132 and 132..256 of 12-row panels (not 144 and 112).
        assert_eq!(tile_counts(256, 256, 256, 2), (2, 2));
        assert_eq!(part_start(1, 2, 256, 12), 132);
    }
}

//! The GEMM's register micro-kernels for f32 and f64: AVX-512, AVX2+FMA and the scalar
//! twin. A kernel multiplies one packed panel of `mr` rows of A by one of `nr` columns
//! of B and adds the result into an `mr × nr` tile of C held in registers.
//!
//! Every output element is one chain of fused multiply-adds in order of the inner
//! index, continued from the value already in C (or from zero for the first block of
//! the inner dimension). A fused multiply-add rounds once, the same on every ISA, and
//! the chain does not depend on the tile sizes, the blocking or the thread that runs
//! it — so all three kernels, at any blocking, give the same bits.

use super::dot::Fma;
use crate::kernels::cache::LINE;
use crate::kernels::isa::Isa;

/// `c[i·ldc + j] = c·[accumulate] + Σ_p a[p·mr + i] · b[p·nr + j]` for i < mr, j < nr,
/// p < kc (fused multiply-adds in order of p).
type KernelFn<T> = unsafe fn(usize, *const T, *const T, *mut T, usize, bool);

/// `c[i·ldc + j] = Σ_p a[i·lda + p] · b[p·ldb + j]` for i < rows, p < k and j below the
/// tile's width (fused multiply-adds in order of p, from zero): the kernel's chain read
/// straight from A and B with unit column strides, no packing. `rows` is 1 to the tile's
/// height. Arguments: rows, k, (a, lda), (b, ldb), (c, ldc).
type DirectFn<T> = unsafe fn(usize, usize, (*const T, isize), (*const T, isize), (*mut T, usize));

/// A micro-kernel and its register tile.
#[derive(Clone, Copy)]
pub struct MicroKernel<T> {
    /// Rows of the tile (of each packed A panel).
    pub mr: usize,
    /// Columns of the tile (of each packed B panel).
    pub nr: usize,
    /// The level it was picked for (the packing's copies use it too).
    pub isa: Isa,
    run: KernelFn<T>,
    /// The same tile on unpacked operands (`mr × nr`), where the ISA has one.
    pub direct: Option<Direct<T>>,
    /// A direct tile of half the rows and twice the columns, where the registers allow
    /// it (AVX-512): per step of the inner index 4 vector loads of B and 6 broadcasts
    /// of A feed 24 multiply-adds instead of 2 and 12, and fewer rows of A are
    /// addressed. [64,64,64] @ [64,64,64] on one thread of the Xeon of
    /// docs/PERFORMANCE.md, medians of 5 × 1000 calls in two rounds: 0.252 / 0.241 ms
    /// with 12 × 32 tiles, 0.223 / 0.220 with 6 × 64.
    pub direct_wide: Option<Direct<T>>,
}

/// A kernel on unpacked operands: tiles of up to `rows` rows by exactly `cols` columns.
/// Made only with its kernel (`direct_kernel!`), so the sizes are the kernel's.
#[derive(Clone, Copy)]
pub struct Direct<T> {
    rows: usize,
    cols: usize,
    run: DirectFn<T>,
}

impl<T> MicroKernel<T> {
    /// Runs the kernel over an inner block of `kc`.
    ///
    /// # Safety
    /// `a` holds `kc · mr` values, `b` holds `kc · nr`, and `c` is valid for reads and
    /// writes of `mr` rows of `nr` values at row stride `ldc`, aliased by nothing else.
    pub unsafe fn run(
        &self,
        kc: usize,
        (a, b): (*const T, *const T),
        (c, ldc): (*mut T, usize),
        accumulate: bool,
    ) {
        // SAFETY: the caller's contract is the kernel's; `run` came from
        // `GemmFloat::kernel`, which picks a SIMD kernel only for an `Isa` whose
        // features this CPU has.
        unsafe { (self.run)(kc, a, b, c, ldc, accumulate) }
    }
}

impl<T> Direct<T> {
    /// Rows of its tile (at most).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of its tile.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Writes `min(rows, self.rows)` rows of `cols` columns at `c` (row stride `ldc`):
    /// the product of those rows × `k` of A at `a` (row stride `lda`, unit column
    /// stride) and `k × cols` of B at `b` (row stride `ldb`, unit column stride), with
    /// the bits of `MicroKernel::run` over the same values packed.
    ///
    /// Writes nothing for `rows == 0`.
    ///
    /// # Safety
    /// Those elements of A and B are readable, and the block written at `c` is
    /// writable and aliased by nothing else.
    pub unsafe fn run(
        &self,
        (rows, k): (usize, usize),
        a: (*const T, isize),
        b: (*const T, isize),
        c: (*mut T, usize),
    ) {
        if rows == 0 {
            return;
        }
        // SAFETY: the caller's contract, for 1 to `self.rows` rows; `run` came from
        // `GemmFloat::kernel`, which picks a SIMD kernel only for an `Isa` whose
        // features this CPU has.
        unsafe { (self.run)(rows.min(self.rows), k, a, b, c) }
    }
}

/// The element types the GEMM multiplies.
pub trait GemmFloat: Fma + Send + Sync + 'static {
    /// The fastest micro-kernel `isa` allows.
    fn kernel(isa: Isa) -> MicroKernel<Self>;
    /// Runs `f` on a buffer of `len` values starting on a cache line, kept by this
    /// thread between calls (the GEMM's packing space: allocating and zeroing it per
    /// call cost as much as a 256³ product). Its contents on entry are unspecified.
    fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [Self]) -> R) -> R;
}

/// Implements `GemmFloat::with_scratch` on a thread-local buffer of `$t`.
macro_rules! scratch_of {
    ($t:ty) => {
        fn with_scratch<R>(len: usize, f: impl FnOnce(&mut [$t]) -> R) -> R {
            thread_local! {
                static SCRATCH: std::cell::RefCell<Vec<$t>> = const { std::cell::RefCell::new(Vec::new()) };
            }
            // Packed panels start on a cache line, so that no vector load splits.
            let aligned = |buf: &mut Vec<$t>| {
                let slack = LINE / std::mem::size_of::<$t>();
                if buf.len() < len + slack {
                    buf.resize(len + slack, 0.0);
                }
                let start = buf.as_ptr().align_offset(LINE).min(slack);
                f(&mut buf[start..start + len])
            };
            SCRATCH.with(|cell| match cell.try_borrow_mut() {
                Ok(mut buf) => aligned(&mut buf),
                // Re-entered on this thread (a nested parallel call ran here while
                // waiting): a buffer of its own.
                Err(_) => aligned(&mut Vec::new()),
            })
        }
    };
}

/// Implements `GemmFloat` for `$t` with its AVX-512 and AVX2 kernels and their tiles.
macro_rules! gemm_float {
    ($t:ty, ($mr512:literal, $nr512:literal, $avx512:ident, $direct512:ident, $wide512:ident),
     ($mr2:literal, $nr2:literal, $avx2:ident, $direct2:ident)) => {
        // The direct tiles the GEMM's `direct` relies on: the narrow one is the packed
        // kernel's, the wide one has half its rows and twice its columns.
        #[cfg(target_arch = "x86_64")]
        const _: () = {
            let (narrow, wide) = (x86::$direct512, x86::$wide512);
            assert!(narrow.rows == $mr512 && narrow.cols == $nr512);
            assert!(wide.rows == $mr512 / 2 && wide.cols == 2 * $nr512);
            let avx2 = x86::$direct2;
            assert!(avx2.rows == $mr2 && avx2.cols == $nr2);
        };
        impl GemmFloat for $t {
            scratch_of!($t);

            fn kernel(isa: Isa) -> MicroKernel<$t> {
                #[cfg(target_arch = "x86_64")]
                if isa.avx512() {
                    return MicroKernel {
                        mr: $mr512,
                        nr: $nr512,
                        isa,
                        run: x86::$avx512,
                        direct: Some(x86::$direct512),
                        direct_wide: Some(x86::$wide512),
                    };
                }
                #[cfg(target_arch = "x86_64")]
                if isa.avx2() {
                    return MicroKernel {
                        mr: $mr2,
                        nr: $nr2,
                        isa,
                        run: x86::$avx2,
                        direct: Some(x86::$direct2),
                        direct_wide: None,
                    };
                }
                MicroKernel {
                    mr: SCALAR_MR,
                    nr: SCALAR_NR,
                    isa,
                    run: scalar::<$t>,
                    direct: None,
                    direct_wide: None,
                }
            }
        }
    };
}
gemm_float!(
    f32,
    (12, 32, f32_avx512, F32_DIRECT_AVX512, F32_WIDE_AVX512),
    (6, 16, f32_avx2, F32_DIRECT_AVX2)
);
gemm_float!(
    f64,
    (12, 16, f64_avx512, F64_DIRECT_AVX512, F64_WIDE_AVX512),
    (6, 8, f64_avx2, F64_DIRECT_AVX2)
);

const SCALAR_MR: usize = 4;
const SCALAR_NR: usize = 4;

/// The portable kernel (`mul_add` is exact everywhere: a libm call without FMA).
///
/// # Safety
/// As `MicroKernel::run`, with `mr = SCALAR_MR`, `nr = SCALAR_NR`.
unsafe fn scalar<T: GemmFloat>(
    kc: usize,
    a: *const T,
    b: *const T,
    c: *mut T,
    ldc: usize,
    accumulate: bool,
) {
    let mut acc = [[T::default(); SCALAR_NR]; SCALAR_MR];
    for (i, row) in acc.iter_mut().enumerate() {
        for (j, v) in row.iter_mut().enumerate() {
            if accumulate {
                // SAFETY: (i, j) is inside the tile the caller vouches for.
                *v = unsafe { *c.add(i * ldc + j) };
            }
        }
    }
    for p in 0..kc {
        // SAFETY: p < kc, so both panels' row p is inside them.
        let (ap, bp) = unsafe { (a.add(p * SCALAR_MR), b.add(p * SCALAR_NR)) };
        for (i, row) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let x = unsafe { *ap.add(i) };
            for (j, v) in row.iter_mut().enumerate() {
                // SAFETY: as above.
                *v = x.mul_add(unsafe { *bp.add(j) }, *v);
            }
        }
    }
    for (i, row) in acc.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            // SAFETY: (i, j) is inside the tile.
            unsafe { *c.add(i * ldc + j) = v };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use crate::kernels::cache::LINE;
    use std::arch::x86_64::*;

    /// A SIMD kernel: `$mr` rows by `$nv` vectors of `$lanes` columns, the tile in
    /// registers, one vector load per B vector and one broadcast per A value.
    macro_rules! simd_kernel {
        ($name:ident, $features:literal, $t:ty, $mr:literal, $nv:literal, $lanes:literal,
         [$zero:ident, $load:ident, $store:ident, $set1:ident, $fma:ident]) => {
            /// # Safety
            /// As `MicroKernel::run`, and the CPU has `
            #[doc = $features]
            /// `.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn $name(
                kc: usize,
                a: *const $t,
                b: *const $t,
                c: *mut $t,
                ldc: usize,
                accumulate: bool,
            ) {
                const NR: usize = $nv * $lanes;
                // The tile's lines of C are asked for first, so that its stores at the
                // end do not wait on them: with a short inner block (k = 64) a 12 × 32
                // tile is 64 · 24 FMAs (about 1,500 cycles) and C is new memory. [8,512,64] @
                // [8,64,512] on one thread of the AVX-512 Zen 4 here, alternating
                // builds, medians 4.12–4.23 → 3.47–3.70 ms; 256³ and 1024³ unchanged.
                // (A prefetch never faults and changes no value; `wrapping_add` keeps
                // the address arithmetic defined.)
                for i in 0..$mr {
                    let row = c.wrapping_add(i * ldc).cast::<i8>();
                    let last = row.wrapping_add(NR * size_of::<$t>() - 1);
                    for line in [row, row.wrapping_add(LINE), last] {
                        _mm_prefetch::<_MM_HINT_T0>(line);
                    }
                }
                let mut acc = [[$zero(); $nv]; $mr];
                if accumulate {
                    for i in 0..$mr {
                        for v in 0..$nv {
                            // SAFETY: row i, columns v·lanes.. of the caller's tile.
                            acc[i][v] = unsafe { $load(c.add(i * ldc + v * $lanes)) };
                        }
                    }
                }
                for p in 0..kc {
                    // SAFETY: p < kc: row p of each packed panel.
                    let (ap, bp) = unsafe { (a.add(p * $mr), b.add(p * NR)) };
                    let mut bv = [$zero(); $nv];
                    for v in 0..$nv {
                        // SAFETY: as above.
                        bv[v] = unsafe { $load(bp.add(v * $lanes)) };
                    }
                    for i in 0..$mr {
                        // SAFETY: as above.
                        let x = $set1(unsafe { *ap.add(i) });
                        for v in 0..$nv {
                            acc[i][v] = $fma(x, bv[v], acc[i][v]);
                        }
                    }
                }
                for i in 0..$mr {
                    for v in 0..$nv {
                        // SAFETY: as for the loads.
                        unsafe { $store(c.add(i * ldc + v * $lanes), acc[i][v]) };
                    }
                }
            }
        };
    }

    /// `$direct`: the `Direct` tile of `$mr` rows by `$nv` vectors of `$lanes` columns,
    /// the chain of a SIMD kernel on unpacked A and B, for R = 1 to `$mr` rows (one
    /// instance per row count in `$rows`, which lists 1 to `$mr` - 1; `$mr` is the rest).
    macro_rules! direct_kernel {
        ($direct:ident, $features:literal, $t:ty, $mr:literal, $nv:literal, $lanes:literal,
         [$($rows:literal),*], [$zero:ident, $load:ident, $store:ident, $set1:ident,
         $fma:ident]) => {
            pub(super) const $direct: super::Direct<$t> = {
                /// # Safety
                /// As `Direct::run`, and the CPU has `
                #[doc = $features]
                /// `.
                #[target_feature(enable = $features)]
                unsafe fn run(
                    rows: usize,
                    k: usize,
                    a: (*const $t, isize),
                    b: (*const $t, isize),
                    c: (*mut $t, usize),
                ) {
                    /// The tile of `R` rows, its accumulators in registers.
                    #[target_feature(enable = $features)]
                    unsafe fn tile<const R: usize>(
                        k: usize,
                        (a, lda): (*const $t, isize),
                        (b, ldb): (*const $t, isize),
                        (c, ldc): (*mut $t, usize),
                    ) {
                        let mut acc = [[$zero(); $nv]; R];
                        for p in 0..k {
                            // SAFETY: p < k: row p of B's k × cols block.
                            let bp = unsafe { b.offset(p as isize * ldb) };
                            let mut bv = [$zero(); $nv];
                            for v in 0..$nv {
                                // SAFETY: as above.
                                bv[v] = unsafe { $load(bp.add(v * $lanes)) };
                            }
                            for i in 0..R {
                                // SAFETY: i < R ≤ rows, p < k: inside A's rows × k block.
                                let x = $set1(unsafe { *a.offset(i as isize * lda).add(p) });
                                for v in 0..$nv {
                                    acc[i][v] = $fma(x, bv[v], acc[i][v]);
                                }
                            }
                        }
                        for i in 0..R {
                            for v in 0..$nv {
                                // SAFETY: row i < R of the caller's rows × cols block at c.
                                unsafe { $store(c.add(i * ldc + v * $lanes), acc[i][v]) };
                            }
                        }
                    }
                    // SAFETY: the caller's contract, for `rows` rows.
                    unsafe {
                        match rows {
                            $($rows => tile::<$rows>(k, a, b, c),)*
                            _ => tile::<$mr>(k, a, b, c),
                        }
                    }
                }
                super::Direct {
                    rows: $mr,
                    cols: $nv * $lanes,
                    run,
                }
            };
        };
    }

    /// The kernels of one element type on one ISA: the packed kernel, its direct twin
    /// and, where given, a wide direct tile (see `Direct`).
    macro_rules! kernels {
        ($features:literal, $t:ty, $lanes:literal, $ops:tt,
         $name:ident ($mr:literal, $nv:literal), $direct:ident [$($rows:literal),*]
         $(, $wide:ident ($wmr:literal, $wnv:literal) [$($wrows:literal),*])?) => {
            simd_kernel!($name, $features, $t, $mr, $nv, $lanes, $ops);
            direct_kernel!($direct, $features, $t, $mr, $nv, $lanes, [$($rows),*], $ops);
            $(direct_kernel!(
                $wide, $features, $t, $wmr, $wnv, $lanes, [$($wrows),*], $ops
            );)?
        };
    }

    kernels!(
        "avx512f,avx2,fma",
        f32,
        16,
        [_mm512_setzero_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_fmadd_ps],
        f32_avx512(12, 2),
        F32_DIRECT_AVX512[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        F32_WIDE_AVX512(6, 4)[1, 2, 3, 4, 5]
    );
    kernels!(
        "avx512f,avx2,fma",
        f64,
        8,
        [_mm512_setzero_pd, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd, _mm512_fmadd_pd],
        f64_avx512(12, 2),
        F64_DIRECT_AVX512[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        F64_WIDE_AVX512(6, 4)[1, 2, 3, 4, 5]
    );
    kernels!(
        "avx2,fma",
        f32,
        8,
        [_mm256_setzero_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_fmadd_ps],
        f32_avx2(6, 2),
        F32_DIRECT_AVX2[1, 2, 3, 4, 5]
    );
    kernels!(
        "avx2,fma",
        f64,
        4,
        [_mm256_setzero_pd, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd, _mm256_fmadd_pd],
        f64_avx2(6, 2),
        F64_DIRECT_AVX2[1, 2, 3, 4, 5]
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kernel against the scalar one on the same data, bit for bit, from zero and
    /// accumulating into C.
    fn same_bits<T: GemmFloat + PartialEq + std::fmt::Debug>(value: impl Fn(usize) -> T) {
        for isa in Isa::supported() {
            let k = T::kernel(isa);
            let kc = 37;
            let a: Vec<T> = (0..kc * k.mr).map(&value).collect();
            let b: Vec<T> = (0..kc * k.nr).map(|i| value(i * 7 + 3)).collect();
            let c0: Vec<T> = (0..k.mr * (k.nr + 3)).map(|i| value(i * 5 + 1)).collect();
            for accumulate in [false, true] {
                let mut got = c0.clone();
                // SAFETY: sizes as the kernel's contract, ldc = nr + 3 ≥ nr.
                unsafe {
                    let c = (got.as_mut_ptr(), k.nr + 3);
                    k.run(kc, (a.as_ptr(), b.as_ptr()), c, accumulate)
                };
                let mut want = c0.clone();
                for i in 0..k.mr {
                    for j in 0..k.nr {
                        let mut s = if accumulate {
                            c0[i * (k.nr + 3) + j]
                        } else {
                            T::default()
                        };
                        for p in 0..kc {
                            s = a[p * k.mr + i].mul_add(b[p * k.nr + j], s);
                        }
                        want[i * (k.nr + 3) + j] = s;
                    }
                }
                assert_eq!(got, want, "{isa:?} accumulate={accumulate}");
            }
        }
    }

    #[test]
    fn every_isa_kernel_is_the_fused_chain() {
        same_bits(|i| ((i * 2654435761) % 1000) as f32 / 37.0 - 13.0);
        same_bits(|i| ((i * 2654435761) % 1000) as f64 / 37.0 - 13.0);
    }
}

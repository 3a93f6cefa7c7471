//! The dot product under the matrix-vector product: `LANES` interleaved chains of
//! fused multiply-adds, combined by a fixed tree. The SIMD loops (AVX-512, AVX2) keep
//! exactly the lanes of the scalar loop, one chain per lane, so every ISA gives the
//! same bits; written with intrinsics because LLVM vectorized the plain loop two lanes
//! at a time.

use crate::kernels::isa::Isa;

/// Interleaved partial sums: lane `l` sums the elements at `l`, `l + LANES`, ...
pub const LANES: usize = 32;

/// The float types with a fused multiply-add (f32, f64) and a vector dot loop.
pub trait Fma: Copy + Default {
    /// `self · a + b` rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `self + a`.
    fn add(self, a: Self) -> Self;
    /// `dot_chunks_scalar` on the best kernel `isa` allows (the SIMD kernels also take
    /// the tail); returns the elements consumed.
    fn dot_chunks(isa: Isa, x: &[Self], y: &[Self], acc: &mut [Self; LANES]) -> usize;
    /// Rows per pass of `dot_rows_chunks` on `isa`: as many as its registers hold
    /// accumulators for, or more for rows `streamed` from memory (see
    /// `F32_STREAMED_ROWS_AVX2`).
    fn rows_per_pass(isa: Isa, streamed: bool) -> usize;
    /// `dot_chunks_scalar` of `Self::rows_per_pass(isa, _)` rows of `y`'s length
    /// against `y` at once, `acc[r]` for row `r`; `None` when `isa` has no such kernel.
    fn dot_rows_chunks(
        isa: Isa,
        rows: &[&[Self]],
        y: &[Self],
        acc: &mut [[Self; LANES]],
    ) -> Option<usize>;
}

/// Implements `Fma` for a float type and its kernels in `x86`.
macro_rules! fma_of {
    ($t:ty, $avx512:ident, $avx2:ident, ($rows_avx512:ident, $rows512:expr),
     ($rows_avx2:ident, $rows2:expr, $streamed2:expr)) => {
        impl Fma for $t {
            fn mul_add(self, a: $t, b: $t) -> $t {
                <$t>::mul_add(self, a, b)
            }

            fn add(self, a: $t) -> $t {
                self + a
            }

            fn dot_chunks(isa: Isa, x: &[$t], y: &[$t], acc: &mut [$t; LANES]) -> usize {
                #[cfg(target_arch = "x86_64")]
                if isa.avx512() {
                    // SAFETY: an `Isa` with AVX-512 exists only on a CPU that has it
                    // (and AVX2 and FMA).
                    return unsafe { x86::$avx512(x, y, acc) };
                }
                #[cfg(target_arch = "x86_64")]
                if isa.avx2() {
                    // SAFETY: an `Isa` with AVX2 exists only on a CPU with AVX2 and FMA.
                    return unsafe { x86::$avx2(x, y, acc) };
                }
                let _ = isa;
                dot_chunks_scalar(x, y, acc)
            }

            fn rows_per_pass(isa: Isa, streamed: bool) -> usize {
                if isa.avx512() {
                    $rows512
                } else if streamed {
                    $streamed2
                } else {
                    $rows2
                }
            }

            fn dot_rows_chunks(
                isa: Isa,
                rows: &[&[$t]],
                y: &[$t],
                acc: &mut [[$t; LANES]],
            ) -> Option<usize> {
                let n = rows.len();
                if acc.len() != n || rows.iter().any(|r| r.len() != y.len()) {
                    return None;
                }
                #[cfg(target_arch = "x86_64")]
                if isa.avx512() && n == $rows512 {
                    // SAFETY: an `Isa` with AVX-512 exists only on a CPU that has it
                    // (and AVX2 and FMA); `rows` and `acc` have `$rows512` entries, each
                    // row `y`'s length.
                    return Some(unsafe { x86::$rows_avx512::<{ $rows512 }>(rows, y, acc) });
                }
                #[cfg(target_arch = "x86_64")]
                if isa.avx2() && n == $rows2 {
                    // SAFETY: an `Isa` with AVX2 exists only on a CPU with AVX2 and FMA;
                    // `rows` and `acc` have `$rows2` entries, each row `y`'s length.
                    return Some(unsafe { x86::$rows_avx2::<{ $rows2 }>(rows, y, acc) });
                }
                #[cfg(target_arch = "x86_64")]
                if isa.avx2() && n == $streamed2 {
                    // SAFETY: as above, with `$streamed2` entries.
                    return Some(unsafe { x86::$rows_avx2::<{ $streamed2 }>(rows, y, acc) });
                }
                let _ = (isa, y);
                None
            }
        }
    };
}
fma_of!(
    f32,
    f32_avx512,
    f32_avx2,
    (f32_rows_avx512, F32_ROWS_AVX512),
    (f32_rows_avx2, F32_ROWS_AVX2, F32_STREAMED_ROWS_AVX2)
);
fma_of!(
    f64,
    f64_avx512,
    f64_avx2,
    (f64_rows_avx512, F64_ROWS_AVX512),
    (f64_rows_avx2, F64_ROWS_AVX2, F64_STREAMED_ROWS_AVX2)
);

// Rows each SIMD kernel of `Fma::dot_rows_chunks` takes per pass. Each row keeps
// `LANES / lanes` accumulator vectors, and one more register holds a vector of `y`;
// AVX-512 has 32 registers, AVX2 16. AVX2 f32 takes 3 rows (12 + 1): with 4, LLVM's
// loop moved 28 registers and kept two accumulators on the stack (three stores and
// three loads per 16 FMAs); 3 rows were faster in cache (from memory more rows win:
// see `F32_STREAMED_ROWS_AVX2`). AVX2 f64 keeps 2 rows (16 + 1, the same spills)
// because 1 row, all in registers, streamed slower: 4096² f64, 1 thread, medians of
// three alternating rounds, 7.89–8.82 ms against 6.65–7.56 (the Zen 3 of
// docs/PERFORMANCE.md's session 57).
const F32_ROWS_AVX512: usize = 8;
const F64_ROWS_AVX512: usize = 4;
const F32_ROWS_AVX2: usize = 3;
const F64_ROWS_AVX2: usize = 2;
/// Rows per pass of AVX2 f32 over rows streamed from memory: more rows keep more reads
/// in flight, worth the spilled accumulators there but not in cache. In a kernel
/// harness on the AVX2 Zen 3 of docs/PERFORMANCE.md (one thread, A in huge pages),
/// 4096² (64 MiB) with 3, 4, 5, 6 and 8 rows: medians of 10 × 10 calls 1.97, 1.89,
/// 1.83, 1.84 and 2.03 ms; in cache, best of 7, 3 rows against 5: 1024² 70–82 µs
/// against 81–93, 2048² (16 MiB) 324–349 against 348–369, and 2896² (32 MiB, the L3)
/// 836–912 against 781–876.
const F32_STREAMED_ROWS_AVX2: usize = 5;
/// AVX2 f64 streams its usual 2 rows (which already spill; more were not measured).
const F64_STREAMED_ROWS_AVX2: usize = F64_ROWS_AVX2;

/// The most rows any `Fma::dot_rows_chunks` takes per pass.
const MAX_ROWS: usize = 8;
const _: () = assert!(
    F32_ROWS_AVX512 <= MAX_ROWS
        && F64_ROWS_AVX512 <= MAX_ROWS
        && F32_ROWS_AVX2 <= MAX_ROWS
        && F32_STREAMED_ROWS_AVX2 <= MAX_ROWS
        && F64_ROWS_AVX2 <= MAX_ROWS
        && F64_STREAMED_ROWS_AVX2 <= MAX_ROWS
);

/// Σ x·y over the common length.
pub fn dot<T: Fma>(isa: Isa, x: &[T], y: &[T]) -> T {
    let len = x.len().min(y.len());
    let (x, y) = (&x[..len], &y[..len]);
    let mut acc = [T::default(); LANES];
    let whole = T::dot_chunks(isa, x, y, &mut acc);
    finish(acc, &x[whole..], &y[whole..])
}

/// `out[r] = dot(isa, rows[r], y)` for every row, with exactly those bits. Where a SIMD
/// kernel exists it takes `T::rows_per_pass` rows per pass over `y`: a matrix-vector
/// product is bound by memory, and several rows streaming at once keep more of it in
/// flight (4096² f32 in 3.55 ms instead of 4.75, one thread of an AVX2 Zen, in a kernel
/// harness). AVX-512's 32 registers hold twice the rows: on the AVX-512 Zen 4 here, in
/// a harness (huge pages, best/median of 200, two runs), 4096² f32 with 8 rows
/// 3.03–3.19 / 3.37–3.59 ms against AVX2's 4 rows (now 3) 3.80–4.26 / 4.44–4.55, and
/// 2048 × 4096 f64 with 4 rows 2.66–2.97 / 2.94–3.23 against 2 rows 4.75–4.80 /
/// 5.07–5.17. `streamed` says the rows come from memory rather than the last-level
/// cache; it picks only the rows per pass, never the bits.
pub fn dot_rows<T: Fma>(isa: Isa, rows: &[&[T]], y: &[T], out: &mut [T], streamed: bool) {
    let mut done = 0;
    let mut acc = [[T::default(); LANES]; MAX_ROWS];
    let group = T::rows_per_pass(isa, streamed).min(MAX_ROWS);
    for (rs, os) in rows.chunks_exact(group).zip(out.chunks_exact_mut(group)) {
        let acc = &mut acc[..group];
        acc.fill([T::default(); LANES]);
        let Some(whole) = T::dot_rows_chunks(isa, rs, y, acc) else {
            break;
        };
        for ((o, acc), r) in os.iter_mut().zip(acc.iter()).zip(rs) {
            *o = finish(*acc, &r[whole..], &y[whole..]);
        }
        done += group;
    }
    for (o, r) in out.iter_mut().zip(rows).skip(done) {
        *o = dot(isa, r, y);
    }
}

/// The lanes' last elements (`x` and `y` past the whole chunks), then the fixed tree.
fn finish<T: Fma>(mut acc: [T; LANES], x: &[T], y: &[T]) -> T {
    for (l, (&p, &q)) in x.iter().zip(y).enumerate() {
        acc[l] = p.mul_add(q, acc[l]);
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            acc[l] = acc[l].add(acc[l + width]);
        }
    }
    acc[0]
}

/// The portable loop over whole chunks of `LANES`; returns the elements it consumed.
fn dot_chunks_scalar<T: Fma>(x: &[T], y: &[T], acc: &mut [T; LANES]) -> usize {
    let (xc, yc) = (x.as_chunks::<LANES>().0, y.as_chunks::<LANES>().0);
    for (xs, ys) in xc.iter().zip(yc) {
        for l in 0..LANES {
            acc[l] = xs[l].mul_add(ys[l], acc[l]);
        }
    }
    xc.len().min(yc.len()) * LANES
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::LANES;
    use std::arch::x86_64::*;

    /// A SIMD `dot_chunks`: `LANES / $lanes` vectors of accumulators, lane for lane the
    /// scalar loop's.
    macro_rules! simd_dot {
        ($name:ident, $features:literal, $t:ty, $lanes:literal,
         $load:ident, $store:ident, $fma:ident) => {
            /// # Safety
            /// The CPU has the features this function is compiled for.
            #[target_feature(enable = $features)]
            pub unsafe fn $name(x: &[$t], y: &[$t], acc: &mut [$t; LANES]) -> usize {
                const NV: usize = LANES / $lanes;
                let chunks = x.len().min(y.len()) / LANES;
                // SAFETY: every load and store below is of `$lanes` values at an offset
                // of a multiple of `$lanes` inside `acc`, or inside the first
                // `chunks · LANES` values of `x` and `y`.
                unsafe {
                    let mut v: [_; NV] = [$load(acc.as_ptr()); NV];
                    for (i, v) in v.iter_mut().enumerate() {
                        *v = $load(acc.as_ptr().add(i * $lanes));
                    }
                    for c in 0..chunks {
                        let (xp, yp) = (x.as_ptr().add(c * LANES), y.as_ptr().add(c * LANES));
                        for (i, v) in v.iter_mut().enumerate() {
                            let o = i * $lanes;
                            *v = $fma($load(xp.add(o)), $load(yp.add(o)), *v);
                        }
                    }
                    for (i, v) in v.iter().enumerate() {
                        $store(acc.as_mut_ptr().add(i * $lanes), *v);
                    }
                }
                // The tail here too: compiled with FMA, `mul_add` is one instruction
                // (in `dot`, without the feature, it is a call to libm's `fma`).
                let (whole, len) = (chunks * LANES, x.len().min(y.len()));
                for (l, (p, q)) in x[whole..len].iter().zip(&y[whole..len]).enumerate() {
                    acc[l] = p.mul_add(*q, acc[l]);
                }
                len
            }
        };
    }

    /// A SIMD `dot_chunks` of `R` rows against one `y` at once: each `y` vector is
    /// loaded once for all rows, and each row's lanes are exactly `dot_chunks`'.
    macro_rules! simd_dot_rows {
        ($name:ident, $features:literal, $t:ty, $lanes:literal,
         $load:ident, $store:ident, $fma:ident) => {
            /// # Safety
            /// The CPU has the features this function is compiled for; `rows` and `acc`
            /// have `R` entries and every row is at least `y`'s length.
            #[target_feature(enable = $features)]
            pub unsafe fn $name<const R: usize>(
                rows: &[&[$t]],
                y: &[$t],
                acc: &mut [[$t; LANES]],
            ) -> usize {
                const NV: usize = LANES / $lanes;
                let chunks = y.len() / LANES;
                let rp: [*const $t; R] = std::array::from_fn(|r| rows[r].as_ptr());
                // SAFETY: loads and stores are of `$lanes` values at offsets of a
                // multiple of `$lanes` inside `acc[r]`, or inside the first
                // `chunks · LANES` values of `y` and of each row (the caller's promise).
                unsafe {
                    let mut v = [[$load(acc[0].as_ptr()); NV]; R];
                    for (vr, a) in v.iter_mut().zip(acc.iter()) {
                        for (i, v) in vr.iter_mut().enumerate() {
                            *v = $load(a.as_ptr().add(i * $lanes));
                        }
                    }
                    for c in 0..chunks {
                        let yp = y.as_ptr().add(c * LANES);
                        for i in 0..NV {
                            let o = c * LANES + i * $lanes;
                            let yv = $load(yp.add(i * $lanes));
                            for (vr, p) in v.iter_mut().zip(rp) {
                                vr[i] = $fma($load(p.add(o)), yv, vr[i]);
                            }
                        }
                    }
                    for (vr, a) in v.iter().zip(acc.iter_mut()) {
                        for (i, v) in vr.iter().enumerate() {
                            $store(a.as_mut_ptr().add(i * $lanes), *v);
                        }
                    }
                }
                chunks * LANES
            }
        };
    }

    /// `simd_dot!` and `simd_dot_rows!` for one float type on one ISA.
    macro_rules! simd_dots {
        (($dot:ident, $dot_rows:ident), $features:literal, $t:ty,
         $lanes:literal, $load:ident, $store:ident, $fma:ident) => {
            simd_dot!($dot, $features, $t, $lanes, $load, $store, $fma);
            simd_dot_rows!($dot_rows, $features, $t, $lanes, $load, $store, $fma);
        };
    }

    simd_dots!(
        (f32_avx512, f32_rows_avx512),
        "avx512f,avx2,fma",
        f32,
        16,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_fmadd_ps
    );
    simd_dots!(
        (f64_avx512, f64_rows_avx512),
        "avx512f,avx2,fma",
        f64,
        8,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_fmadd_pd
    );
    simd_dots!(
        (f32_avx2, f32_rows_avx2),
        "avx2,fma",
        f32,
        8,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_fmadd_ps
    );
    simd_dots!(
        (f64_avx2, f64_rows_avx2),
        "avx2,fma",
        f64,
        4,
        _mm256_loadu_pd,
        _mm256_storeu_pd,
        _mm256_fmadd_pd
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values in [-0.5, 0.5) in a scrambled order.
    fn data(len: usize, seed: u64) -> Vec<f32> {
        (0..len as u64)
            .map(|i| ((i * 7919 + seed * 104729) % 1000) as f32 / 1000.0 - 0.5)
            .collect()
    }

    #[test]
    fn dot_is_the_same_on_every_isa() {
        let (x, y) = (data(1000, 3), data(1000, 4));
        let (x64, y64): (Vec<f64>, Vec<f64>) = (
            x.iter().map(|&v| v as f64 * 1.1).collect(),
            y.iter().map(|&v| v as f64).collect(),
        );
        for len in [0, 1, 15, 16, 17, 31, 32, 33, 65, 1000] {
            let want: f64 = (0..len).map(|i| x[i] as f64 * y[i] as f64).sum();
            let scalar = dot(Isa::SCALAR, &x[..len], &y[..len]);
            assert!((scalar as f64 - want).abs() < 1e-4);
            let scalar64 = dot(Isa::SCALAR, &x64[..len], &y64[..len]);
            for isa in Isa::supported() {
                assert_eq!(
                    dot(isa, &x[..len], &y[..len]).to_bits(),
                    scalar.to_bits(),
                    "{isa:?}"
                );
                assert_eq!(
                    dot(isa, &x64[..len], &y64[..len]).to_bits(),
                    scalar64.to_bits(),
                    "{isa:?}"
                );
            }
        }
    }

    #[test]
    fn rows_at_once_give_each_row_its_dot() {
        let y = data(1000, 5);
        let a = data(17 * 1000, 6);
        let a64: Vec<f64> = a.iter().map(|&v| v as f64 * 1.1).collect();
        let y64: Vec<f64> = y.iter().map(|&v| v as f64).collect();
        for len in [0, 1, 31, 32, 33, 95, 1000] {
            // Passes of 2, 3, 4, 5 and 8 rows (the kernels' counts) and the rest one by
            // one.
            for n_rows in [0, 1, 2, 3, 4, 5, 7, 8, 9, 17] {
                let rows: Vec<&[f32]> = a.chunks(1000).take(n_rows).map(|r| &r[..len]).collect();
                let rows64: Vec<&[f64]> =
                    a64.chunks(1000).take(n_rows).map(|r| &r[..len]).collect();
                for isa in Isa::supported() {
                    for streamed in [false, true] {
                        let mut out = vec![f32::NAN; n_rows];
                        dot_rows(isa, &rows, &y[..len], &mut out, streamed);
                        let mut out64 = vec![f64::NAN; n_rows];
                        dot_rows(isa, &rows64, &y64[..len], &mut out64, streamed);
                        for r in 0..n_rows {
                            let want = dot(Isa::SCALAR, rows[r], &y[..len]);
                            let got = out[r].to_bits();
                            assert_eq!(got, want.to_bits(), "{isa:?} {len} {r} {streamed}");
                            let want64 = dot(Isa::SCALAR, rows64[r], &y64[..len]);
                            let got64 = out64[r].to_bits();
                            assert_eq!(got64, want64.to_bits(), "{isa:?} {len} {r} {streamed}");
                        }
                    }
                }
            }
        }
    }
}

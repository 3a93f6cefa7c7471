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
}

/// Implements `Fma` for a float type and its kernels in `x86`.
macro_rules! fma_of {
    ($t:ty, $avx512:ident, $avx2:ident) => {
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
        }
    };
}
fma_of!(f32, f32_avx512, f32_avx2);
fma_of!(f64, f64_avx512, f64_avx2);

/// Σ x·y over the common length.
pub fn dot<T: Fma>(isa: Isa, x: &[T], y: &[T]) -> T {
    let len = x.len().min(y.len());
    let (x, y) = (&x[..len], &y[..len]);
    let mut acc = [T::default(); LANES];
    let whole = T::dot_chunks(isa, x, y, &mut acc);
    for (l, (&p, &q)) in x[whole..].iter().zip(&y[whole..]).enumerate() {
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

    simd_dot!(
        f32_avx512,
        "avx512f,avx2,fma",
        f32,
        16,
        _mm512_loadu_ps,
        _mm512_storeu_ps,
        _mm512_fmadd_ps
    );
    simd_dot!(
        f64_avx512,
        "avx512f,avx2,fma",
        f64,
        8,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_fmadd_pd
    );
    simd_dot!(
        f32_avx2,
        "avx2,fma",
        f32,
        8,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_fmadd_ps
    );
    simd_dot!(
        f64_avx2,
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
}

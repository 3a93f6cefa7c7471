//! Depthwise convolution of an f32 plane by a 3×3 kernel (stride and dilation 1) in
//! AVX-512 and AVX2: the twins of `depthwise::plane` for that case, giving the same
//! bits. The nine weights stay in registers; four output rows are computed together,
//! a vector of columns at a time, so the six input rows they read are loaded once per
//! tap column and the four sums run side by side. Each sum adds the taps in the same
//! order as the generic kernel, with separate multiplies and adds. One body, written
//! once by `plane_3x3!` for each vector width.

use std::arch::x86_64::*;
use std::mem::MaybeUninit;

use super::planes::Planes;

/// Outputs per AVX-512 vector: rows at least this wide take `plane_3x3_avx512`.
pub const AVX512_LANES: usize = 16;
/// Outputs per AVX2 vector.
pub const AVX2_LANES: usize = 8;

/// Defines `pub fn $name` (with `$features`) for vectors `$vec` of `$lanes` f32 and
/// their intrinsics.
macro_rules! plane_3x3 {
    ($(#[$m:meta])* $name:ident, $features:literal, $vec:ty, $lanes:expr,
     $set1:ident, $zero:ident, $load:ident, $store:ident, $add:ident, $mul:ident) => {
        $(#[$m])*
        #[target_feature(enable = $features)]
        pub fn $name(
            out: &mut [MaybeUninit<f32>],
            padded: &[f32],
            w: &[f32],
            bias: f32,
            p: &Planes,
        ) {
            /// One output channel's plane and kernel.
            struct Rows<'a> {
                padded: &'a [f32],
                padded_width: usize,
                width: usize,
                w: [$vec; 9],
                bias: $vec,
            }

            impl Rows<'_> {
                /// Output rows `r..r + R` (which exist), a vector of columns at a time;
                /// the last block ends at the row's end, recomputing a few outputs (to
                /// the same values).
                #[target_feature(enable = $features)]
                #[inline]
                fn block<const R: usize>(&self, out: &mut [MaybeUninit<f32>], r: usize) {
                    let width = self.width;
                    let mut c = 0;
                    while c < width {
                        let at = c.min(width - $lanes);
                        let mut acc = [$zero(); R];
                        // Input row `r + q` feeds output rows `r + k` with kernel row
                        // `q - k`, so each output still takes its taps in order (kernel
                        // row, then column), and each input vector is loaded once and
                        // used at once.
                        for q in 0..R + 2 {
                            for j in 0..3 {
                                let from = (r + q) * self.padded_width + at + j;
                                // SAFETY: row `r + q` <= rows + 1 and the vector's
                                // last column, at + j + (lanes - 1) <= width + 1, lie
                                // inside `padded` (asserted below).
                                let x = unsafe { $load(self.padded.as_ptr().add(from)) };
                                // Plain index arithmetic: with `R` a constant it all
                                // unrolls (an iterator adapter here was left as a call
                                // per step).
                                for i in 0..3 {
                                    if q >= i && q - i < R {
                                        let w = self.w[i * 3 + j];
                                        acc[q - i] = $add(acc[q - i], $mul(w, x));
                                    }
                                }
                            }
                        }
                        for (k, acc) in acc.iter().enumerate() {
                            let to = (r + k) * width + at;
                            // SAFETY: row `r + k` < rows and at + lanes <= width:
                            // inside `out`.
                            unsafe {
                                let dst = out.as_mut_ptr().add(to).cast::<f32>();
                                $store(dst, $add(*acc, self.bias));
                            }
                        }
                        c = at + $lanes;
                    }
                }
            }

            let [rows, width] = p.out();
            let padded_width = p.padded()[1];
            // The windows stay inside `padded` and the blocks inside `out`, which the
            // unchecked loads and stores rely on.
            assert!(w.len() == 9 && width >= $lanes && padded_width == width + 2);
            assert!(padded.len() >= (rows + 2) * padded_width && out.len() == rows * width);
            let rows_at = Rows {
                padded,
                padded_width,
                width,
                w: std::array::from_fn(|k| $set1(w[k])),
                bias: $set1(bias),
            };
            let mut r = 0;
            while r < rows {
                match rows - r {
                    1 => rows_at.block::<1>(out, r),
                    2 => rows_at.block::<2>(out, r),
                    3 => rows_at.block::<3>(out, r),
                    _ => rows_at.block::<4>(out, r),
                }
                r += (rows - r).min(4);
            }
        }
    };
}

plane_3x3!(
    /// `depthwise::plane` for a 3×3 kernel with stride and dilation 1 and rows of at
    /// least 16 outputs, 16 columns per vector.
    plane_3x3_avx512,
    "avx512f",
    __m512,
    AVX512_LANES,
    _mm512_set1_ps,
    _mm512_setzero_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_add_ps,
    _mm512_mul_ps
);

plane_3x3!(
    /// `depthwise::plane` for a 3×3 kernel with stride and dilation 1 and rows of at
    /// least 8 outputs, 8 columns per vector.
    plane_3x3_avx2,
    "avx2,fma,f16c",
    __m256,
    AVX2_LANES,
    _mm256_set1_ps,
    _mm256_setzero_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_add_ps,
    _mm256_mul_ps
);

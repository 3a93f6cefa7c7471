//! A small f32 GEMM for `C += A·Bᵀ` where A is [m, k] and B is [n, k], both with rows
//! of k contiguous values (activations and dequantized weight rows), and C is written
//! transposed, `c[j·ldc + i]`. Register tiles of 4 A-rows × 3 B-rows keep 12 vector
//! accumulators; each output is one dot product in a fixed order, so results do not
//! depend on how the caller splits the work.

use crate::kernels::isa::Isa;

const MR: usize = 4;
const NR: usize = 3;

/// `c[j·ldc + i] += Σ_p a[i·lda + p] · b[j·ldb + p]` for i < m, j < n, p < k.
/// An error, writing nothing, when a slice is too short for the shape it is told.
#[allow(clippy::too_many_arguments)]
pub fn gemm_nt(
    isa: Isa,
    (a, lda, m): (&[f32], usize, usize),
    (b, ldb, n): (&[f32], usize, usize),
    k: usize,
    c: &mut [f32],
    ldc: usize,
) -> Result<(), String> {
    let fits = |len: usize, rows: usize, ld: usize, cols: usize| {
        rows == 0 || (rows - 1) * ld + cols <= len
    };
    if !(fits(a.len(), m, lda, k) && fits(b.len(), n, ldb, k) && fits(c.len(), n, ldc, m)) {
        return Err(format!(
            "gemm_nt: operands of {} / {} / {} values are too short for {m}×{k} · ({n}×{k})ᵀ",
            a.len(),
            b.len(),
            c.len()
        ));
    }
    let a_row = |i: usize| &a[i * lda..i * lda + k];
    let b_row = |j: usize| &b[j * ldb..j * ldb + k];
    for i0 in (0..m).step_by(MR) {
        for j0 in (0..n).step_by(NR) {
            if i0 + MR <= m && j0 + NR <= n {
                let t = tile::<MR, NR>(
                    isa,
                    std::array::from_fn(|i| a_row(i0 + i)),
                    std::array::from_fn(|j| b_row(j0 + j)),
                    k,
                );
                for (j, col) in (0..NR).map(|j| (j, j0 + j)) {
                    for i in 0..MR {
                        c[col * ldc + i0 + i] += t[i][j];
                    }
                }
            } else {
                for i in i0..(i0 + MR).min(m) {
                    for j in j0..(j0 + NR).min(n) {
                        c[j * ldc + i] += tile::<1, 1>(isa, [a_row(i)], [b_row(j)], k)[0][0];
                    }
                }
            }
        }
    }
    Ok(())
}

/// The MR×NR dot products of `a`'s rows with `b`'s rows over their first k values.
fn tile<const M: usize, const N: usize>(
    isa: Isa,
    a: [&[f32]; M],
    b: [&[f32]; N],
    k: usize,
) -> [[f32; N]; M] {
    #[cfg(target_arch = "x86_64")]
    if isa.avx2() {
        // SAFETY: `Isa::avx2()` is true only when AVX2, FMA and F16C were detected.
        return unsafe { avx2::tile(a, b, k) };
    }
    let _ = isa;
    tile_scalar(a, b, k)
}

/// The scalar twin of the AVX2 tile: eight partial sums per dot, as the vector lanes.
fn tile_scalar<const M: usize, const N: usize>(
    a: [&[f32]; M],
    b: [&[f32]; N],
    k: usize,
) -> [[f32; N]; M] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            let mut lanes = [0f32; 8];
            let (ac, at) = a[i][..k].as_chunks::<8>();
            let (bc, bt) = b[j][..k].as_chunks::<8>();
            for (x, y) in ac.iter().zip(bc) {
                for l in 0..8 {
                    lanes[l] += x[l] * y[l];
                }
            }
            let mut s = lanes.iter().sum::<f32>();
            for (x, y) in at.iter().zip(bt) {
                s += x * y;
            }
            s
        })
    })
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2,fma")]
    pub fn tile<const M: usize, const N: usize>(
        a: [&[f32]; M],
        b: [&[f32]; N],
        k: usize,
    ) -> [[f32; N]; M] {
        let k = a.iter().chain(&b).map(|r| r.len()).fold(k, usize::min);
        let mut acc = [[_mm256_setzero_ps(); N]; M];
        let mut p = 0;
        while p + 8 <= k {
            let mut bv = [_mm256_setzero_ps(); N];
            for (v, row) in bv.iter_mut().zip(&b) {
                // SAFETY: p + 8 <= k <= row.len(); unaligned loads are allowed.
                *v = unsafe { _mm256_loadu_ps(row.as_ptr().add(p)) };
            }
            for (acc, row) in acc.iter_mut().zip(&a) {
                // SAFETY: p + 8 <= k <= row.len(); unaligned loads are allowed.
                let av = unsafe { _mm256_loadu_ps(row.as_ptr().add(p)) };
                for (s, &bj) in acc.iter_mut().zip(&bv) {
                    *s = _mm256_fmadd_ps(av, bj, *s);
                }
            }
            p += 8;
        }
        let mut out = [[0f32; N]; M];
        for i in 0..M {
            for j in 0..N {
                let mut lanes = [0f32; 8];
                // SAFETY: `lanes` is 8 writable f32s; unaligned stores are allowed.
                unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), acc[i][j]) };
                let mut s = lanes.iter().sum::<f32>();
                for q in p..k {
                    s += a[i][q] * b[j][q];
                }
                out[i][j] = s;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
        let mut c = vec![0f32; m * n];
        for j in 0..n {
            for i in 0..m {
                c[j * m + i] = (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum();
            }
        }
        c
    }

    #[test]
    fn matches_naive_on_exact_values() {
        // Small integers: every partial sum is exact, so any summation order agrees.
        for (m, n, k) in [
            (1, 1, 1),
            (4, 3, 8),
            (5, 7, 19),
            (9, 4, 64),
            (3, 2, 0),
            (0, 3, 4),
        ] {
            let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
            let b: Vec<f32> = (0..n * k).map(|i| (i % 5) as f32 - 2.0).collect();
            let want = naive(&a, &b, m, n, k);
            for isa in [Isa::SCALAR, Isa::detect()] {
                let mut c = vec![0f32; m * n];
                gemm_nt(isa, (&a, k, m), (&b, k, n), k, &mut c, m).unwrap();
                assert_eq!(c, want, "{m}x{n}x{k} {isa:?}");
            }
        }
    }

    #[test]
    fn accumulates_and_ignores_bad_shapes() {
        let a = [1.0f32, 2.0];
        let b = [3.0f32, 4.0];
        let mut c = [1.0f32];
        gemm_nt(Isa::detect(), (&a, 2, 1), (&b, 2, 1), 2, &mut c, 1).unwrap();
        assert_eq!(c, [12.0]);
        let bad = gemm_nt(Isa::detect(), (&a, 2, 2), (&b, 2, 1), 2, &mut c, 1);
        assert!(bad.is_err());
        assert_eq!(c, [12.0]);
    }
}

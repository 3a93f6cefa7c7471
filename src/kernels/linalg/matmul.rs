//! Matrix products of strided matrix views, for every element type: f32/f64 on the
//! packed GEMM (`gemm`), f16 through f32 (converted once, multiplied in f32, rounded
//! once), bf16 in `matmul_bf16`, bool and integers on a plain wrapping kernel. Every
//! product is computed the same way whatever the number of threads.

use std::mem::MaybeUninit;

use half::{bf16, f16};

use super::gemm::{gemm, gemm_uninit};
use super::mat::Mat;
use super::matmul_bf16;
use crate::kernels::alloc::filled;
use crate::kernels::math::arith::Arith;
use crate::kernels::parallel::for_each_chunk_mut;

/// Element types with a matrix product: `out = a · b`, with `out` row-major
/// (a.rows() × b.cols()) and `a.cols() == b.rows()`. An inner size of 0 gives zeros.
pub trait MatMul: Arith {
    fn matmul(out: &mut [Self], a: Mat<Self>, b: Mat<Self>);

    /// `matmul` into a buffer not yet written; every element is written. The GEMM
    /// types write each once; the others zero the buffer first.
    fn matmul_uninit(out: &mut [MaybeUninit<Self>], a: Mat<Self>, b: Mat<Self>) {
        for o in out.iter_mut() {
            o.write(Self::default());
        }
        // SAFETY: every element was written just above.
        let out = unsafe { &mut *(out as *mut [MaybeUninit<Self>] as *mut [Self]) };
        Self::matmul(out, a, b);
    }
}

impl MatMul for f32 {
    fn matmul(out: &mut [f32], a: Mat<f32>, b: Mat<f32>) {
        gemm(out, a, b);
    }

    fn matmul_uninit(out: &mut [MaybeUninit<f32>], a: Mat<f32>, b: Mat<f32>) {
        gemm_uninit(out, a, b);
    }
}

impl MatMul for f64 {
    fn matmul(out: &mut [f64], a: Mat<f64>, b: Mat<f64>) {
        gemm(out, a, b);
    }

    fn matmul_uninit(out: &mut [MaybeUninit<f64>], a: Mat<f64>, b: Mat<f64>) {
        gemm_uninit(out, a, b);
    }
}

/// f16: both operands converted to f32 once, multiplied in f32, rounded once.
fn via_f32<T: Copy>(out: &mut [T], a: Mat<T>, b: Mat<T>, up: fn(T) -> f32, down: fn(f32) -> T) {
    let (a32, b32) = (a.collect_row_major(up), b.collect_row_major(up));
    let mut wide = vec![0.0f32; out.len()];
    gemm(
        &mut wide,
        Mat::row_major(&a32, a.rows(), a.cols()),
        Mat::row_major(&b32, b.rows(), b.cols()),
    );
    for (o, w) in out.iter_mut().zip(wide) {
        *o = down(w);
    }
}

impl MatMul for f16 {
    fn matmul(out: &mut [f16], a: Mat<f16>, b: Mat<f16>) {
        via_f32(out, a, b, f16::to_f32, f16::from_f32);
    }
}

impl MatMul for bf16 {
    fn matmul(out: &mut [bf16], a: Mat<bf16>, b: Mat<bf16>) {
        matmul_bf16::matmul(out, a, b);
    }
}

macro_rules! exact_matmul {
    ($($t:ty),*) => {$(
        impl MatMul for $t {
            fn matmul(out: &mut [$t], a: Mat<$t>, b: Mat<$t>) {
                exact(out, a, b);
            }
        }
    )*};
}
exact_matmul!(bool, u8, u16, u32, u64, i8, i16, i32, i64);

/// Output elements per parallel chunk of the exact kernel, in rows' worth of work.
const EXACT_CHUNK_MACS: usize = 1 << 16;

/// Bool and integers: the i-k-j loop (streams rows of `b`) accumulating in `T::Acc`
/// (i64 or u64, wrapping; bool is an or of ands), parallel over fixed blocks of rows.
fn exact<T: Arith>(out: &mut [T], a: Mat<T>, b: Mat<T>) {
    let (k, n) = (a.cols(), b.cols());
    if n == 0 {
        return;
    }
    let rows_per_chunk = (EXACT_CHUNK_MACS / (k * n).max(1)).max(1);
    for_each_chunk_mut(out, rows_per_chunk * n, |start, chunk| {
        let mut acc = vec![T::Acc::default(); n];
        for (r, out_row) in chunk.chunks_exact_mut(n).enumerate() {
            let i = start / n + r;
            acc.fill(T::Acc::default());
            for p in 0..k {
                let x = a.at(i, p).to_acc();
                for (j, s) in acc.iter_mut().enumerate() {
                    *s = s.add(x.mul(b.at(p, j).to_acc()));
                }
            }
            for (o, &s) in out_row.iter_mut().zip(&acc) {
                *o = T::from_acc(s);
            }
        }
    });
}

/// `a · b` (row-major, a.rows × b.cols) in a new buffer written once; `None` when it
/// cannot be allocated.
pub fn matmul_new<T: MatMul>(a: Mat<T>, b: Mat<T>) -> Option<Vec<T>> {
    // SAFETY: `matmul_uninit` writes every element of its output.
    unsafe { filled(a.rows() * b.cols(), |out| T::matmul_uninit(out, a, b)) }
}

/// `matmul_batch` of products of one shape into a new buffer written once; `None`
/// when it cannot be allocated or the shapes differ.
pub fn matmul_batch_new<T: MatMul>(pairs: &[(Mat<T>, Mat<T>)]) -> Option<Vec<T>> {
    let (m, n) = pairs.first().map_or((0, 0), |(a, b)| (a.rows(), b.cols()));
    if pairs.iter().any(|(a, b)| (a.rows(), b.cols()) != (m, n)) {
        return None;
    }
    // SAFETY: `matmul_batch` writes every element of an output holding each product's
    // m × n results.
    unsafe { filled(pairs.len() * m * n, |out| matmul_batch(out, pairs)) }
}

/// `matmul` over a stack of products: `out` holds `pairs.len()` row-major results one
/// after another, each written. Stacks of small products run in parallel over fixed
/// groups of items; each item is computed exactly as alone.
fn matmul_batch<T: MatMul>(out: &mut [MaybeUninit<T>], pairs: &[(Mat<T>, Mat<T>)]) {
    let Some((a, b)) = pairs.first() else { return };
    let item = a.rows() * b.cols();
    if item == 0 {
        return;
    }
    // Items per parallel task: enough work to be worth a task (at least one item).
    let per_task = (1 << 17) / (item * a.cols()).max(1);
    for_each_chunk_mut(out, per_task.max(1) * item, |start, chunk| {
        for (o, (a, b)) in chunk.chunks_exact_mut(item).zip(&pairs[start / item..]) {
            T::matmul_uninit(o, *a, *b);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
        let mut out = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    out[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        out
    }

    fn product<T: MatMul>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
        let mut out = vec![T::default(); m * n];
        T::matmul(&mut out, Mat::row_major(a, m, k), Mat::row_major(b, k, n));
        out
    }

    #[test]
    fn every_type_matches_the_triple_loop() {
        for (m, k, n) in [
            (1, 1, 1),
            (2, 3, 4),
            (5, 1, 3),
            (3, 7, 1),
            (4, 0, 2),
            (0, 3, 2),
        ] {
            let a: Vec<f64> = (0..m * k).map(|i| (i as f64) * 0.5 - 2.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| 3.0 - i as f64).collect();
            let want = naive(&a, &b, m, k, n);
            assert_eq!(product(&a, &b, m, k, n), want, "{m}x{k}x{n}");
            let a32: Vec<f32> = a.iter().map(|&x| x as f32).collect();
            let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
            let got: Vec<f64> = product(&a32, &b32, m, k, n)
                .iter()
                .map(|&x| x as f64)
                .collect();
            assert_eq!(got, want);
            let ai: Vec<i32> = a.iter().map(|&x| (x * 2.0) as i32).collect();
            let bi: Vec<i32> = b.iter().map(|&x| x as i32).collect();
            let af: Vec<f64> = ai.iter().map(|&x| x as f64).collect();
            let want: Vec<i32> = naive(&af, &b, m, k, n).iter().map(|&x| x as i32).collect();
            assert_eq!(product(&ai, &bi, m, k, n), want);
        }
    }

    /// A product into a new buffer, written once, against one into a zeroed buffer.
    fn new_equals_written<T: MatMul>(a: &[T], b: &[T], (m, k, n): (usize, usize, usize)) {
        let (am, bm) = (Mat::row_major(a, m, k), Mat::row_major(b, k, n));
        let want = product(a, b, m, k, n);
        let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&matmul_new(am, bm).unwrap()),
            bits(&want),
            "{m}x{k}x{n}"
        );
        let pairs = [(am, bm); 3];
        let batch = matmul_batch_new(&pairs).unwrap();
        assert_eq!(bits(&batch), bits(&want.repeat(3)), "{m}x{k}x{n} x3");
    }

    #[test]
    fn new_buffers_hold_the_same_products() {
        // (m, k, n): partial register tiles, a matrix-vector product, an empty inner
        // size, and products large enough for tiles and a shared B on several threads.
        for s in [13, 70, 37, 300, 50, 1, 7, 0, 5, 64, 64, 64, 100, 300, 100].chunks_exact(3) {
            let (m, k, n) = (s[0], s[1], s[2]);
            let a: Vec<f64> = (0..m * k)
                .map(|i| ((i * 37) % 101) as f64 / 7.0 - 5.0)
                .collect();
            let b: Vec<f64> = (0..k * n)
                .map(|i| ((i * 53) % 97) as f64 / 9.0 - 4.0)
                .collect();
            new_equals_written(&a, &b, (m, k, n));
            let (a32, b32): (Vec<f32>, Vec<f32>) = (
                a.iter().map(|&x| x as f32).collect(),
                b.iter().map(|&x| x as f32).collect(),
            );
            new_equals_written(&a32, &b32, (m, k, n));
            let (ai, bi): (Vec<i32>, Vec<i32>) = (
                a.iter().map(|&x| x as i32).collect(),
                b.iter().map(|&x| x as i32).collect(),
            );
            new_equals_written(&ai, &bi, (m, k, n));
            let (ah, bh): (Vec<f16>, Vec<f16>) = (
                a.iter().map(|&x| f16::from_f64(x)).collect(),
                b.iter().map(|&x| f16::from_f64(x)).collect(),
            );
            new_equals_written(&ah, &bh, (m, k, n));
        }
    }

    #[test]
    fn half_accumulates_in_f32() {
        // 2048 + 1 + 1 + ... is 2048 forever in f16 steps, but exact in f32.
        let k = 9;
        let a = vec![f16::ONE; k];
        let mut b = vec![f16::ONE; k];
        b[0] = f16::from_f32(2048.0);
        assert_eq!(product(&a, &b, 1, k, 1), [f16::from_f32(2056.0)]);
    }

    #[test]
    fn bool_is_logical_and_ints_wrap() {
        let out = product(&[true, false], &[false, true, true, true], 1, 2, 2);
        assert_eq!(out, [false, true]);
        assert_eq!(product(&[16u8, 16], &[16u8, 1], 1, 2, 1), [16]); // 256 + 16 wraps to 16
    }

    #[test]
    fn strided_views_read_the_right_elements() {
        // A 3×4 buffer read reversed along rows, transposed, and with a broadcast row.
        let data: Vec<i64> = (0..12).collect();
        let rev = Mat::new(&data, 8, (3, 4), (-4, 1)).unwrap();
        assert_eq!(rev.at(0, 0), 8);
        assert_eq!(rev.t().at(3, 2), 3);
        let bcast = Mat::new(&data, 1, (5, 4), (0, 2)).unwrap();
        assert_eq!(bcast.at(4, 2), 5);
        assert!(Mat::new(&data, 9, (3, 4), (-4, 1)).is_none());
        assert!(Mat::new(&data, 0, (2, 7), (6, 1)).is_none());
        assert!(Mat::new(&data, 99, (0, 7), (6, 1)).is_some());
        assert_eq!(rev.block(1..3, 2..4).at(1, 1), 3);
        let mut out = vec![0i64; 4 * 4];
        i64::matmul(&mut out, rev.t(), rev);
        let a: Vec<f64> = rev.t().collect_row_major(|x| x as f64);
        let b: Vec<f64> = rev.collect_row_major(|x| x as f64);
        let want: Vec<i64> = naive(&a, &b, 4, 3, 4).iter().map(|&x| x as i64).collect();
        assert_eq!(out, want);
    }
}

//! Plain matrix product of contiguous row-major matrices (the i-k-j loop, which streams
//! rows of B), accumulating in the element type's accumulator (f32 for f16/bf16).

use super::arith::Arith;

/// `out = a · b` for row-major `a` (m×k), `b` (k×n) and `out` (m×n). With k = 0 the
/// product is all zeros.
pub fn matmul<T: Arith>(out: &mut [T], a: &[T], b: &[T], m: usize, k: usize, n: usize) {
    if n == 0 {
        return;
    }
    let mut acc = vec![T::Acc::default(); n];
    for (i, out_row) in out.chunks_exact_mut(n).take(m).enumerate() {
        acc.fill(T::Acc::default());
        for (p, &x) in a[i * k..(i + 1) * k].iter().enumerate() {
            let x = x.to_acc();
            for (s, &y) in acc.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *s = s.add(x.mul(y.to_acc()));
            }
        }
        for (o, &s) in out_row.iter_mut().zip(&acc) {
            *o = T::from_acc(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

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

    #[test]
    fn matches_triple_loop() {
        for (m, k, n) in [(1, 1, 1), (2, 3, 4), (5, 1, 3), (3, 7, 1), (4, 0, 2)] {
            let a: Vec<f64> = (0..m * k).map(|i| (i as f64) * 0.5 - 2.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| 3.0 - i as f64).collect();
            let mut out = vec![f64::NAN; m * n];
            matmul(&mut out, &a, &b, m, k, n);
            assert_eq!(out, naive(&a, &b, m, k, n), "{m}x{k}x{n}");
            let ai: Vec<i32> = a.iter().map(|&x| (x * 2.0) as i32).collect();
            let bi: Vec<i32> = b.iter().map(|&x| x as i32).collect();
            let mut outi = vec![0i32; m * n];
            matmul(&mut outi, &ai, &bi, m, k, n);
            let af: Vec<f64> = ai.iter().map(|&x| x as f64).collect();
            let want: Vec<i32> = naive(&af, &b, m, k, n).iter().map(|&x| x as i32).collect();
            assert_eq!(outi, want);
        }
    }

    #[test]
    fn half_accumulates_in_f32() {
        // 2048 + 1 + 1 + ... is 2048 forever in f16 steps, but exact in f32.
        let k = 9;
        let a = vec![f16::ONE; k];
        let mut b = vec![f16::ONE; k];
        b[0] = f16::from_f32(2048.0);
        let mut out = [f16::ZERO];
        matmul(&mut out, &a, &b, 1, k, 1);
        assert_eq!(out[0], f16::from_f32(2056.0));
    }

    #[test]
    fn bool_is_logical_and_ints_wrap() {
        let mut out = [false; 2];
        matmul(
            &mut out,
            &[true, false],
            &[false, true, true, true],
            1,
            2,
            2,
        );
        assert_eq!(out, [false, true]);
        let mut o8 = [0u8];
        matmul(&mut o8, &[16u8, 16], &[16u8, 1], 1, 2, 1);
        assert_eq!(o8, [16]); // 256 + 16 wraps to 16
    }
}

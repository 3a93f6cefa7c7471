//! Portable dot products of a quantized weight row with a quantized activation row:
//! integer sums per sub-block, scaled in f32 once per block. The AVX2 kernels compute
//! the same integers (tests check the two agree exactly when the floats are exact).

use crate::quant::blocks::{unpack_scales_mins, BlockQ4K, BlockQ5K, BlockQ6K, BlockQ8K, BlockQ8_0};
use crate::quant::rounding::f16_to_f32;

/// Σ a·b over two equally long runs of small integers.
#[inline(always)]
fn idot(a: impl Iterator<Item = i32>, b: &[i8]) -> i32 {
    a.zip(b).map(|(x, &y)| x * y as i32).sum()
}

/// The min term of Q4_K/Q5_K: Σ_s m[s]·(Σ of the 32 activation quants of sub-block s).
#[inline(always)]
fn min_term(mins: &[u8], bsums: &[i16; 16]) -> i32 {
    mins.iter()
        .zip(bsums.chunks_exact(2))
        .map(|(&m, b)| m as i32 * (b[0] as i32 + b[1] as i32))
        .sum()
}

pub fn q4k_q8k(w: &[[u8; 144]], a: &[[u8; 292]]) -> f32 {
    let mut sum = 0f32;
    for (wb, ab) in w.iter().zip(a) {
        let (x, y) = (BlockQ4K::read(wb), BlockQ8K::read(ab));
        let sm = unpack_scales_mins(&x.scales);
        let mut sumi = 0i32;
        for (j, (q4, q8)) in x.qs.chunks_exact(32).zip(y.qs.chunks_exact(64)).enumerate() {
            let lo = idot(q4.iter().map(|&q| (q & 0xf) as i32), &q8[..32]);
            let hi = idot(q4.iter().map(|&q| (q >> 4) as i32), &q8[32..]);
            sumi += sm[2 * j] as i32 * lo + sm[2 * j + 1] as i32 * hi;
        }
        let summ = min_term(&sm[8..], &y.bsums);
        sum += y.d * f16_to_f32(x.d) * sumi as f32 - y.d * f16_to_f32(x.dmin) * summ as f32;
    }
    sum
}

pub fn q5k_q8k(w: &[[u8; 176]], a: &[[u8; 292]]) -> f32 {
    let mut sum = 0f32;
    for (wb, ab) in w.iter().zip(a) {
        let (x, y) = (BlockQ5K::read(wb), BlockQ8K::read(ab));
        let sm = unpack_scales_mins(&x.scales);
        let mut sumi = 0i32;
        for (j, (q5, q8)) in x.qs.chunks_exact(32).zip(y.qs.chunks_exact(64)).enumerate() {
            let bit = |h: u8, b: usize| (((h >> b) & 1) << 4) as i32;
            let lo = idot(
                q5.iter()
                    .zip(&x.qh)
                    .map(|(&q, &h)| (q & 0xf) as i32 | bit(h, 2 * j)),
                &q8[..32],
            );
            let hi = idot(
                q5.iter()
                    .zip(&x.qh)
                    .map(|(&q, &h)| (q >> 4) as i32 | bit(h, 2 * j + 1)),
                &q8[32..],
            );
            sumi += sm[2 * j] as i32 * lo + sm[2 * j + 1] as i32 * hi;
        }
        let summ = min_term(&sm[8..], &y.bsums);
        sum += y.d * f16_to_f32(x.d) * sumi as f32 - y.d * f16_to_f32(x.dmin) * summ as f32;
    }
    sum
}

pub fn q6k_q8k(w: &[[u8; 210]], a: &[[u8; 292]]) -> f32 {
    let mut sum = 0f32;
    for (wb, ab) in w.iter().zip(a) {
        let (x, y) = (BlockQ6K::read(wb), BlockQ8K::read(ab));
        let mut q = [0i32; 256];
        for (h, q) in q.chunks_exact_mut(128).enumerate() {
            let (ql, qh) = (&x.ql[64 * h..64 * h + 64], &x.qh[32 * h..32 * h + 32]);
            for l in 0..32 {
                q[l] = ((ql[l] & 0xf) | ((qh[l] & 3) << 4)) as i32 - 32;
                q[l + 32] = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) as i32 - 32;
                q[l + 64] = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i32 - 32;
                q[l + 96] = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i32 - 32;
            }
        }
        let sumi: i32 = q
            .chunks_exact(16)
            .zip(y.qs.chunks_exact(16))
            .zip(&x.scales)
            .map(|((q, q8), &sc)| sc as i32 * idot(q.iter().copied(), q8))
            .sum();
        sum += y.d * f16_to_f32(x.d) * sumi as f32;
    }
    sum
}

pub fn q8_0_q8_0(w: &[[u8; 34]], a: &[[u8; 34]]) -> f32 {
    let mut sum = 0f32;
    for (wb, ab) in w.iter().zip(a) {
        let (x, y) = (BlockQ8_0::read(wb), BlockQ8_0::read(ab));
        let sumi = idot(x.qs.iter().map(|&q| q as i32), &y.qs);
        sum += f16_to_f32(x.d) * f16_to_f32(y.d) * sumi as f32;
    }
    sum
}

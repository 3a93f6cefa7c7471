//! Portable dot products of a quantized weight row with a quantized activation row:
//! integer sums per sub-block, scaled in f32 once per block. They keep the SIMD
//! kernels' lanes: eight i32 partial sums per block, lane `l` holding bytes
//! `4l..4l + 4` of every 32-value run, each scaled into its own f32 lane with a fused
//! multiply-add and summed by the same tree at the end — so every ISA gives the same
//! bits.

use crate::quant::blocks::{unpack_scales_mins, BlockQ4K, BlockQ5K, BlockQ6K, BlockQ8K, BlockQ8_0};
use crate::quant::rounding::f16_to_f32;

/// Integer lanes of a block (a SIMD register of i32).
const LANES: usize = 8;

/// Adds `scale · Σ q·y` for one run of 32 values into the lanes, lane `l` taking
/// values `4l..4l + 4`.
#[inline(always)]
fn add_run(lanes: &mut [i32; LANES], scale: i32, q: impl Iterator<Item = i32>, y: &[i8]) {
    let mut sums = [0i32; LANES];
    for (i, (x, &y)) in q.zip(y).enumerate() {
        sums[i / 4 % LANES] += x * y as i32;
    }
    for (lane, s) in lanes.iter_mut().zip(sums) {
        *lane += scale * s;
    }
}

/// `acc[l] += d · lanes[l]` rounded once per lane.
#[inline(always)]
fn scale_into<const N: usize>(acc: &mut [f32; N], d: f32, lanes: &[i32; N]) {
    for (a, &v) in acc.iter_mut().zip(lanes) {
        *a = d.mul_add(v as f32, *a);
    }
}

/// The SIMD horizontal sum of 4 lanes: (a0 + a2) + (a1 + a3).
fn hsum4(a: &[f32; 4]) -> f32 {
    (a[0] + a[2]) + (a[1] + a[3])
}

/// The SIMD horizontal sum of 8 lanes: the two halves added lane by lane, then `hsum4`.
fn hsum8(a: &[f32; 8]) -> f32 {
    hsum4(&[a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]])
}

/// The min term of Q4_K/Q5_K in 4 lanes: lane `l` is m[2l]·(bsums of sub-block 2l) +
/// m[2l+1]·(bsums of sub-block 2l+1).
#[inline(always)]
fn min_lanes(mins: &[u8], bsums: &[i16; 16]) -> [i32; 4] {
    let pair = |s: usize| bsums[2 * s] as i32 + bsums[2 * s + 1] as i32;
    std::array::from_fn(|l| {
        mins[2 * l] as i32 * pair(2 * l) + mins[2 * l + 1] as i32 * pair(2 * l + 1)
    })
}

pub fn q4k_q8k(w: &[[u8; 144]], a: &[[u8; 292]]) -> f32 {
    let (mut acc, mut acc_m) = ([0f32; 8], [0f32; 4]);
    for (wb, ab) in w.iter().zip(a) {
        let (x, y) = (BlockQ4K::read(wb), BlockQ8K::read(ab));
        let sm = unpack_scales_mins(&x.scales);
        scale_into(
            &mut acc_m,
            -y.d * f16_to_f32(x.dmin),
            &min_lanes(&sm[8..], &y.bsums),
        );
        let mut sumi = [0i32; LANES];
        for (j, (q4, q8)) in x.qs.chunks_exact(32).zip(y.qs.chunks_exact(64)).enumerate() {
            add_run(
                &mut sumi,
                sm[2 * j] as i32,
                q4.iter().map(|&q| (q & 0xf) as i32),
                &q8[..32],
            );
            add_run(
                &mut sumi,
                sm[2 * j + 1] as i32,
                q4.iter().map(|&q| (q >> 4) as i32),
                &q8[32..],
            );
        }
        scale_into(&mut acc, y.d * f16_to_f32(x.d), &sumi);
    }
    hsum8(&acc) + hsum4(&acc_m)
}

pub fn q5k_q8k(w: &[[u8; 176]], a: &[[u8; 292]]) -> f32 {
    let (mut acc, mut acc_m) = ([0f32; 8], [0f32; 4]);
    for (wb, ab) in w.iter().zip(a) {
        let (x, y) = (BlockQ5K::read(wb), BlockQ8K::read(ab));
        let sm = unpack_scales_mins(&x.scales);
        scale_into(
            &mut acc_m,
            -y.d * f16_to_f32(x.dmin),
            &min_lanes(&sm[8..], &y.bsums),
        );
        let mut sumi = [0i32; LANES];
        for (j, (q5, q8)) in x.qs.chunks_exact(32).zip(y.qs.chunks_exact(64)).enumerate() {
            let bit = |h: u8, b: usize| (((h >> b) & 1) << 4) as i32;
            let lo = q5
                .iter()
                .zip(&x.qh)
                .map(|(&q, &h)| (q & 0xf) as i32 | bit(h, 2 * j));
            let hi = q5
                .iter()
                .zip(&x.qh)
                .map(|(&q, &h)| (q >> 4) as i32 | bit(h, 2 * j + 1));
            add_run(&mut sumi, sm[2 * j] as i32, lo, &q8[..32]);
            add_run(&mut sumi, sm[2 * j + 1] as i32, hi, &q8[32..]);
        }
        scale_into(&mut acc, y.d * f16_to_f32(x.d), &sumi);
    }
    hsum8(&acc) + hsum4(&acc_m)
}

pub fn q6k_q8k(w: &[[u8; 210]], a: &[[u8; 292]]) -> f32 {
    let mut acc = [0f32; 8];
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
        // Runs of 32 values; each half of a run has its own scale (lanes 0-3, 4-7).
        let mut sumi = [0i32; LANES];
        for (r, (q, q8)) in q.chunks_exact(32).zip(y.qs.chunks_exact(32)).enumerate() {
            let mut lanes = [[0i32; LANES]; 2];
            for (half, lanes) in lanes.iter_mut().enumerate() {
                add_run(lanes, x.scales[2 * r + half] as i32, q.iter().copied(), q8);
            }
            for l in 0..LANES {
                sumi[l] += lanes[l / 4][l];
            }
        }
        scale_into(&mut acc, y.d * f16_to_f32(x.d), &sumi);
    }
    hsum8(&acc)
}

pub fn q8_0_q8_0(w: &[[u8; 34]], a: &[[u8; 34]]) -> f32 {
    // Even blocks into one set of lanes, odd ones into another (a last odd-numbered
    // block into the first), added lane by lane at the end.
    let mut acc = [[0f32; 8]; 2];
    let pairs = w.len().min(a.len()) / 2 * 2;
    for (i, (wb, ab)) in w.iter().zip(a).enumerate() {
        let (x, y) = (BlockQ8_0::read(wb), BlockQ8_0::read(ab));
        let mut sumi = [0i32; LANES];
        add_run(&mut sumi, 1, x.qs.iter().map(|&q| q as i32), &y.qs);
        let set = if i < pairs { i % 2 } else { 0 };
        scale_into(&mut acc[set], f16_to_f32(x.d) * f16_to_f32(y.d), &sumi);
    }
    hsum8(&std::array::from_fn(|l| acc[0][l] + acc[1][l]))
}

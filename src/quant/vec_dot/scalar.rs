//! Portable dot products of a quantized weight row with a quantized activation row,
//! the twins of the SIMD kernels.
//!
//! K-quants (Q4_K, Q5_K, Q6_K against Q8_K): each block's sum Σ scale·Σ q·y is an
//! exact i32 (the Q4_K/Q5_K min term Σ min·bsum another), so any lane layout gives the
//! same integers; the f32 part is one fused multiply-add per block term into a single
//! accumulator, in block order — so every ISA and every tile shape gives the same bits.
//!
//! Q8_0 keeps the SIMD kernel's lanes: eight i32 partial sums per block, lane `l`
//! holding bytes `4l..4l + 4`, each scaled into its own f32 lane with a fused
//! multiply-add and summed by the same tree at the end.

use crate::quant::blocks::{unpack_scales_mins, BlockQ4K, BlockQ5K, BlockQ6K, BlockQ8K, BlockQ8_0};
use crate::quant::rounding::f16_to_f32;

/// Integer lanes of a Q8_0 block (a SIMD register of i32).
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

/// Σ q·y over each 16 values of a block (exact).
fn sums16(q: &[i32; 256], y: &[i8; 256]) -> [i32; 16] {
    std::array::from_fn(|s| (16 * s..16 * s + 16).map(|i| q[i] * y[i] as i32).sum())
}

/// A Q4_K/Q5_K block's integer sums: Σ scale·Σ q·y over the 8 sub-blocks of 32, and
/// the min term Σ min·(sum of the sub-block's activations).
fn scaled_sums(q: &[i32; 256], scales: &[u8; 12], y: &BlockQ8K) -> (i32, i32) {
    let sm = unpack_scales_mins(scales);
    let s16 = sums16(q, &y.qs);
    let pair = |v: &[i32], s: usize| v[2 * s] + v[2 * s + 1];
    let bsums = y.bsums.map(i32::from);
    (0..8).fold((0, 0), |(isum, msum), s| {
        (
            isum + sm[s] as i32 * pair(&s16, s),
            msum + sm[8 + s] as i32 * pair(&bsums, s),
        )
    })
}

/// `acc` plus a block: d_y·d·isum, then (`MINS`: Q4_K/Q5_K) −d_y·dmin·msum, each one
/// fused multiply-add. Inlined, so SIMD callers get the FMA instruction.
#[inline(always)]
pub(super) fn add_block<const MINS: bool>(
    acc: f32,
    (yd, d, dmin): (f32, f32, f32),
    (isum, msum): (i32, i32),
) -> f32 {
    let acc = (yd * d).mul_add(isum as f32, acc);
    match MINS {
        true => (-yd * dmin).mul_add(msum as f32, acc),
        false => acc,
    }
}

/// The 256 quants of a Q4_K/Q5_K block in order (`qh`: Q5_K's fifth bits).
fn q45_quants(qs: &[u8; 128], qh: Option<&[u8; 32]>) -> [i32; 256] {
    std::array::from_fn(|i| {
        let (j, half, l) = (i / 64, i / 32 % 2, i % 32);
        let nibble = (qs[32 * j + l] >> (4 * half)) & 0xf;
        let bit = qh.map_or(0, |qh| (qh[l] >> (2 * j + half)) & 1);
        (nibble | bit << 4) as i32
    })
}

pub fn q4k_q8k(w: &[[u8; 144]], a: &[[u8; 292]]) -> f32 {
    w.iter().zip(a).fold(0.0, |acc, (wb, ab)| {
        let (x, y) = (BlockQ4K::read(wb), BlockQ8K::read(ab));
        let sums = scaled_sums(&q45_quants(&x.qs, None), &x.scales, &y);
        add_block::<true>(acc, (y.d, f16_to_f32(x.d), f16_to_f32(x.dmin)), sums)
    })
}

pub fn q5k_q8k(w: &[[u8; 176]], a: &[[u8; 292]]) -> f32 {
    w.iter().zip(a).fold(0.0, |acc, (wb, ab)| {
        let (x, y) = (BlockQ5K::read(wb), BlockQ8K::read(ab));
        let sums = scaled_sums(&q45_quants(&x.qs, Some(&x.qh)), &x.scales, &y);
        add_block::<true>(acc, (y.d, f16_to_f32(x.d), f16_to_f32(x.dmin)), sums)
    })
}

pub fn q6k_q8k(w: &[[u8; 210]], a: &[[u8; 292]]) -> f32 {
    w.iter().zip(a).fold(0.0, |acc, (wb, ab)| {
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
        let s16 = sums16(&q, &y.qs);
        let isum: i32 = (0..16).map(|s| x.scales[s] as i32 * s16[s]).sum();
        add_block::<false>(acc, (y.d, f16_to_f32(x.d), 0.0), (isum, 0))
    })
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

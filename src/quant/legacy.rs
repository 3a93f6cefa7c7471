//! The 32-value block types that predate k-quants: Q4_0, Q4_1, Q5_0, Q5_1 (weights) and
//! Q8_1 (an activation type). Quantizers are ggml's `quantize_row_*_ref`; float → int
//! conversions follow C on x86 (`c_trunc`).

use super::blocks::{BlockQ4_0, BlockQ4_1, BlockQ5_0, BlockQ5_1, BlockQ8_1};
use super::rounding::{c_round, c_trunc, f16_to_f32, fp16};

/// The value with the largest magnitude (the first one on ties), or 0.
#[inline(always)]
fn signed_absmax(x: &[f32; 32]) -> f32 {
    let mut amax = 0f32;
    let mut max = 0f32;
    for &v in x {
        if amax < v.abs() {
            amax = v.abs();
            max = v;
        }
    }
    max
}

/// (min, max) as ggml's quantizers find them, starting from ±f32::MAX.
#[inline(always)]
fn min_max(x: &[f32; 32]) -> (f32, f32) {
    let mut min = f32::MAX;
    let mut max = -f32::MAX;
    for &v in x {
        if v < min {
            min = v;
        }
        if v > max {
            max = v;
        }
    }
    (min, max)
}

#[inline(always)]
fn inverse(d: f32) -> f32 {
    if d != 0.0 {
        1.0 / d
    } else {
        0.0
    }
}

/// Splits 5-bit quants into low nibbles (element j low, j+16 high) and the fifth bits.
#[inline(always)]
fn pack5(q: [u8; 32]) -> ([u8; 16], [u8; 4]) {
    let mut qh = 0u32;
    let qs = std::array::from_fn(|j| {
        qh |= (((q[j] & 0x10) >> 4) as u32) << j;
        qh |= (((q[j + 16] & 0x10) >> 4) as u32) << (j + 16);
        (q[j] & 0xf) | ((q[j + 16] & 0xf) << 4)
    });
    (qs, qh.to_le_bytes())
}

/// The 5-bit quant `j` of a Q5_0/Q5_1 block.
#[inline(always)]
fn unpack5(qs: &[u8; 16], qh: &[u8; 4], j: usize) -> u8 {
    let h = u32::from_le_bytes(*qh);
    let (nib, bit) = if j < 16 {
        (qs[j] & 0xf, (h >> j) & 1)
    } else {
        (qs[j - 16] >> 4, (h >> j) & 1)
    };
    nib | ((bit as u8) << 4)
}

#[inline(always)]
pub fn quantize_q4_0(x: &[f32; 32], out: &mut [u8; 18]) {
    let d = signed_absmax(x) / -8.0;
    let id = inverse(d);
    let q = |v: f32| (c_trunc(v * id + 8.5) as i8).min(15) as u8;
    BlockQ4_0 {
        d: fp16(d),
        qs: std::array::from_fn(|j| q(x[j]) | (q(x[j + 16]) << 4)),
    }
    .write(out);
}

#[inline(always)]
pub fn dequantize_q4_0(b: &[u8; 18], out: &mut [f32; 32]) {
    let blk = BlockQ4_0::read(b);
    let d = f16_to_f32(blk.d);
    for (j, &q) in blk.qs.iter().enumerate() {
        out[j] = ((q & 0xf) as i32 - 8) as f32 * d;
        out[j + 16] = ((q >> 4) as i32 - 8) as f32 * d;
    }
}

#[inline(always)]
pub fn quantize_q4_1(x: &[f32; 32], out: &mut [u8; 20]) {
    let (min, max) = min_max(x);
    let d = (max - min) / 15.0;
    let id = inverse(d);
    let q = |v: f32| (c_trunc((v - min) * id + 0.5) as i8).min(15) as u8;
    BlockQ4_1 {
        d: fp16(d),
        m: fp16(min),
        qs: std::array::from_fn(|j| q(x[j]) | (q(x[j + 16]) << 4)),
    }
    .write(out);
}

#[inline(always)]
pub fn dequantize_q4_1(b: &[u8; 20], out: &mut [f32; 32]) {
    let blk = BlockQ4_1::read(b);
    let (d, m) = (f16_to_f32(blk.d), f16_to_f32(blk.m));
    for (j, &q) in blk.qs.iter().enumerate() {
        out[j] = (q & 0xf) as f32 * d + m;
        out[j + 16] = (q >> 4) as f32 * d + m;
    }
}

#[inline(always)]
pub fn quantize_q5_0(x: &[f32; 32], out: &mut [u8; 22]) {
    let d = signed_absmax(x) / -16.0;
    let id = inverse(d);
    let (qs, qh) = pack5(std::array::from_fn(|j| {
        (c_trunc(x[j] * id + 16.5) as i8).min(31) as u8
    }));
    BlockQ5_0 { d: fp16(d), qh, qs }.write(out);
}

#[inline(always)]
pub fn dequantize_q5_0(b: &[u8; 22], out: &mut [f32; 32]) {
    let blk = BlockQ5_0::read(b);
    let d = f16_to_f32(blk.d);
    for (j, o) in out.iter_mut().enumerate() {
        *o = (unpack5(&blk.qs, &blk.qh, j) as i32 - 16) as f32 * d;
    }
}

#[inline(always)]
pub fn quantize_q5_1(x: &[f32; 32], out: &mut [u8; 24]) {
    let (min, max) = min_max(x);
    let d = (max - min) / 31.0;
    let id = inverse(d);
    let (qs, qh) = pack5(std::array::from_fn(|j| {
        c_trunc((x[j] - min) * id + 0.5) as u8
    }));
    BlockQ5_1 {
        d: fp16(d),
        m: fp16(min),
        qh,
        qs,
    }
    .write(out);
}

#[inline(always)]
pub fn dequantize_q5_1(b: &[u8; 24], out: &mut [f32; 32]) {
    let blk = BlockQ5_1::read(b);
    let (d, m) = (f16_to_f32(blk.d), f16_to_f32(blk.m));
    for (j, o) in out.iter_mut().enumerate() {
        *o = unpack5(&blk.qs, &blk.qh, j) as f32 * d + m;
    }
}

#[inline(always)]
pub fn quantize_q8_1(x: &[f32; 32], out: &mut [u8; 36]) {
    let mut amax = 0f32;
    for &v in x {
        amax = if amax > v.abs() { amax } else { v.abs() };
    }
    let d = amax / 127.0;
    let id = inverse(d);
    let qs: [i8; 32] = std::array::from_fn(|j| c_round(x[j] * id) as i8);
    let sum: i32 = qs.iter().map(|&q| q as i32).sum();
    BlockQ8_1 {
        d: fp16(d),
        s: fp16(sum as f32 * d),
        qs,
    }
    .write(out);
}

/// ggml has no Q8_1 dequantizer; this is `x = q·d`, as for Q8_0.
#[inline(always)]
pub fn dequantize_q8_1(b: &[u8; 36], out: &mut [f32; 32]) {
    let blk = BlockQ8_1::read(b);
    let d = f16_to_f32(blk.d);
    for (o, &q) in out.iter_mut().zip(&blk.qs) {
        *o = q as f32 * d;
    }
}

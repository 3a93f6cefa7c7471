//! Q2_K and Q3_K: dequantization only (so GGUF files using them open), following
//! ggml's `dequantize_row_q2_K` / `dequantize_row_q3_K` operation for operation.

use super::blocks::{BlockQ2K, BlockQ3K, QK_K};
use super::rounding::f16_to_f32;

/// `x = (d·sc)·q − dmin·m` with 4-bit scales and mins per 16 values, 2-bit quants.
#[inline(always)]
pub fn dequantize_q2_k(b: &[u8; 84], out: &mut [f32; QK_K]) {
    let blk = BlockQ2K::read(b);
    let (d, min) = (f16_to_f32(blk.d), f16_to_f32(blk.dmin));
    for (n, y) in out.chunks_exact_mut(128).enumerate() {
        let q = &blk.qs[32 * n..32 * n + 32];
        for (g, y) in y.chunks_exact_mut(16).enumerate() {
            // Groups alternate between the two 16-byte halves of q, moving to the next
            // 2-bit plane after each pair.
            let sc = blk.scales[8 * n + g];
            let (dl, ml) = (d * (sc & 0xf) as f32, min * (sc >> 4) as f32);
            let (half, shift) = (16 * (g % 2), 2 * (g / 2));
            for (o, &qb) in y.iter_mut().zip(&q[half..half + 16]) {
                *o = dl * ((qb >> shift) & 3) as f32 - ml;
            }
        }
    }
}

/// The 16 six-bit Q3_K scales, unpacked from 12 bytes as ggml does (offset by 32).
#[inline(always)]
fn q3_scales(s: &[u8; 12]) -> [i8; 16] {
    const LOW2: u32 = 0x0303_0303;
    const LOW4: u32 = 0x0f0f_0f0f;
    let w = |i: usize| u32::from_le_bytes([s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]);
    let (a0, a1, tmp) = (w(0), w(1), w(2));
    let words = [
        (a0 & LOW4) | ((tmp & LOW2) << 4),
        (a1 & LOW4) | (((tmp >> 2) & LOW2) << 4),
        ((a0 >> 4) & LOW4) | (((tmp >> 4) & LOW2) << 4),
        ((a1 >> 4) & LOW4) | (((tmp >> 6) & LOW2) << 4),
    ];
    let mut out = [0i8; 16];
    for (o, word) in out.chunks_exact_mut(4).zip(words) {
        for (v, byte) in o.iter_mut().zip(word.to_le_bytes()) {
            *v = byte as i8;
        }
    }
    out
}

/// `x = (d·(sc − 32))·q` with q = 2 low bits minus 4 unless the high bit is set.
#[inline(always)]
pub fn dequantize_q3_k(b: &[u8; 110], out: &mut [f32; QK_K]) {
    let blk = BlockQ3K::read(b);
    let d = f16_to_f32(blk.d);
    let scales = q3_scales(&blk.scales);
    for (n, y) in out.chunks_exact_mut(128).enumerate() {
        let q = &blk.qs[32 * n..32 * n + 32];
        for (g, y) in y.chunks_exact_mut(16).enumerate() {
            let dl = d * (scales[8 * n + g] as i32 - 32) as f32;
            let (half, shift) = (16 * (g % 2), 2 * (g / 2));
            let mask = 1u8 << (4 * n + g / 2);
            let hm = &blk.hmask[half..half + 16];
            for ((o, &qb), &h) in y.iter_mut().zip(&q[half..half + 16]).zip(hm) {
                let low = ((qb >> shift) & 3) as i32;
                let v = low - if h & mask != 0 { 0 } else { 4 };
                *o = dl * v as f32;
            }
        }
    }
}

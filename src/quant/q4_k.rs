//! Q4_K: 256 values as 8 sub-blocks of 32 with 6-bit scales and mins, 4-bit quants.

use super::blocks::{unpack_scales_mins, BlockQ4K, QK_K};
use super::rounding::f16_to_f32;
use super::scale_min;

/// ggml's `quantize_row_q4_K_ref` for one block.
#[inline(always)]
pub fn quantize(x: &[f32; QK_K], out: &mut [u8; 144]) {
    let r = scale_min::quantize(x, 15, (-1.0, 0.1, 20));
    let mut qs = [0u8; 128];
    for (j, chunk) in qs.chunks_exact_mut(32).enumerate() {
        for (l, o) in chunk.iter_mut().enumerate() {
            *o = r.q[64 * j + l] | (r.q[64 * j + 32 + l] << 4);
        }
    }
    BlockQ4K {
        d: r.d,
        dmin: r.dmin,
        scales: r.scales,
        qs,
    }
    .write(out);
}

/// ggml's `dequantize_row_q4_K` for one block: `x = (d·sc)·q − dmin·m`.
#[inline(always)]
pub fn dequantize(b: &[u8; 144], out: &mut [f32; QK_K]) {
    let blk = BlockQ4K::read(b);
    let (d, dmin) = (f16_to_f32(blk.d), f16_to_f32(blk.dmin));
    let sm = unpack_scales_mins(&blk.scales);
    for (j, (qs, y)) in blk
        .qs
        .chunks_exact(32)
        .zip(out.chunks_exact_mut(64))
        .enumerate()
    {
        let (d1, m1) = (d * sm[2 * j] as f32, dmin * sm[8 + 2 * j] as f32);
        let (d2, m2) = (d * sm[2 * j + 1] as f32, dmin * sm[9 + 2 * j] as f32);
        let (lo, hi) = y.split_at_mut(32);
        for ((&q, a), b) in qs.iter().zip(lo).zip(hi) {
            *a = d1 * (q & 0xf) as f32 - m1;
            *b = d2 * (q >> 4) as f32 - m2;
        }
    }
}

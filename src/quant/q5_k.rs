//! Q5_K: Q4_K's scales and mins with 5-bit quants (the fifth bits packed in `qh`).

use super::blocks::{unpack_scales_mins, BlockQ5K, QK_K};
use super::rounding::f16_to_f32;
use super::scale_min;

/// ggml's `quantize_row_q5_K_ref` for one block.
#[inline(always)]
pub fn quantize(x: &[f32; QK_K], out: &mut [u8; 176]) {
    let r = scale_min::quantize(x, 31, (-0.5, 0.1, 15));
    let mut qs = [0u8; 128];
    let mut qh = [0u8; 32];
    for (j, chunk) in qs.chunks_exact_mut(32).enumerate() {
        for (l, o) in chunk.iter_mut().enumerate() {
            let (l1, l2) = (r.q[64 * j + l], r.q[64 * j + 32 + l]);
            qh[l] |= ((l1 >> 4) << (2 * j)) | ((l2 >> 4) << (2 * j + 1));
            *o = (l1 & 0xf) | ((l2 & 0xf) << 4);
        }
    }
    BlockQ5K {
        d: r.d,
        dmin: r.dmin,
        scales: r.scales,
        qh,
        qs,
    }
    .write(out);
}

/// ggml's `dequantize_row_q5_K` for one block: `x = (d·sc)·q − dmin·m`.
#[inline(always)]
pub fn dequantize(b: &[u8; 176], out: &mut [f32; QK_K]) {
    let blk = BlockQ5K::read(b);
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
        for (((&q, &h), a), b) in qs.iter().zip(&blk.qh).zip(lo).zip(hi) {
            let h1 = ((h >> (2 * j)) & 1) << 4;
            let h2 = ((h >> (2 * j + 1)) & 1) << 4;
            *a = d1 * ((q & 0xf) | h1) as f32 - m1;
            *b = d2 * ((q >> 4) | h2) as f32 - m2;
        }
    }
}

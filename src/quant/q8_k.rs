//! Q8_K: 256 values, an f32 scale, 8-bit quants and the sums of each 16; the activation
//! type that Q2_K..Q6_K weights are dotted with.

use super::blocks::{BlockQ8K, QK_K};
use super::rounding::nearest_int;

/// ggml's `quantize_row_q8_K_ref` for one block. The largest-magnitude value becomes
/// −127, so `d` has the opposite sign. An all-zero block gets `d = 0`, zero quants and
/// (where ggml leaves them unwritten) zero sums.
#[inline(always)]
pub fn quantize(x: &[f32; QK_K], out: &mut [u8; 292]) {
    let mut max = 0f32;
    let mut amax = 0f32;
    for &v in x {
        if v.abs() > amax {
            amax = v.abs();
            max = v;
        }
    }
    let mut blk = BlockQ8K {
        d: 0.0,
        qs: [0; QK_K],
        bsums: [0; 16],
    };
    if amax != 0.0 {
        let iscale = -127.0 / max;
        for (q, &v) in blk.qs.iter_mut().zip(x) {
            *q = nearest_int(iscale * v).min(127) as i8;
        }
        for (s, g) in blk.bsums.iter_mut().zip(blk.qs.chunks_exact(16)) {
            *s = g.iter().map(|&q| q as i32).sum::<i32>() as i16;
        }
        blk.d = 1.0 / iscale;
    }
    blk.write(out);
}

/// `x = d·q`.
#[inline(always)]
pub fn dequantize(b: &[u8; 292], out: &mut [f32; QK_K]) {
    let blk = BlockQ8K::read(b);
    for (o, &q) in out.iter_mut().zip(&blk.qs) {
        *o = blk.d * q as f32;
    }
}

//! Q8_0: 32 values, an f16 scale and 8-bit quants. Also the activation type that Q8_0
//! weights are dotted with.

use super::blocks::BlockQ8_0;
use super::rounding::{c_round, f16_to_f32, fp16};

/// ggml's `quantize_row_q8_0_ref` for one block: `d = amax/127`, `q = round(x/d)`.
#[inline(always)]
pub fn quantize(x: &[f32; 32], out: &mut [u8; 34]) {
    let mut amax = 0f32;
    for &v in x {
        amax = if amax > v.abs() { amax } else { v.abs() };
    }
    let d = amax / 127.0;
    let id = if d != 0.0 { 1.0 / d } else { 0.0 };
    BlockQ8_0 {
        d: fp16(d),
        qs: std::array::from_fn(|j| c_round(x[j] * id) as i8),
    }
    .write(out);
}

/// ggml's `dequantize_row_q8_0` for one block: `x = q·d`.
#[inline(always)]
pub fn dequantize(b: &[u8; 34], out: &mut [f32; 32]) {
    let blk = BlockQ8_0::read(b);
    let d = f16_to_f32(blk.d);
    for (o, &q) in out.iter_mut().zip(&blk.qs) {
        *o = q as f32 * d;
    }
}

//! Q6_K: 256 values as 16 sub-blocks of 16 with signed 8-bit scales, 6-bit quants.

use super::blocks::{BlockQ6K, QK_K};
use super::lanes::to_lanes;
use super::rounding::{f16_to_f32, fp16, nearest_int};
use super::search::{make_qx_quants, GROUP_MAX_EPS};

/// ggml's `quantize_row_q6_K_ref` for one block.
#[inline(always)]
pub fn quantize(x: &[f32; QK_K], out: &mut [u8; 210]) {
    let found = make_qx_quants(&to_lanes::<16, 16>(x), 32);
    let mut max_scale = 0f32;
    let mut max_abs_scale = 0f32;
    for &s in &found.scale.0 {
        if s.abs() > max_abs_scale {
            max_abs_scale = s.abs();
            max_scale = s;
        }
    }
    if max_abs_scale < GROUP_MAX_EPS {
        out.fill(0);
        return;
    }
    let iscale = -128.0 / max_scale;
    let d = fp16(1.0 / iscale);
    let scales: [i8; 16] =
        std::array::from_fn(|s| nearest_int(iscale * found.scale.0[s]).min(127) as i8);

    let mut q = [0u8; QK_K];
    for (s, (qs, xs)) in q.chunks_exact_mut(16).zip(x.chunks_exact(16)).enumerate() {
        let ds = f16_to_f32(d) * scales[s] as f32;
        if ds == 0.0 {
            for (o, l) in qs.iter_mut().zip(&found.q) {
                *o = l.0[s] as u8;
            }
            continue;
        }
        for (o, &v) in qs.iter_mut().zip(xs) {
            *o = (nearest_int(v / ds).clamp(-32, 31) + 32) as u8;
        }
    }

    let mut ql = [0u8; 128];
    let mut qh = [0u8; 64];
    for (h, (ql, qh)) in ql
        .chunks_exact_mut(64)
        .zip(qh.chunks_exact_mut(32))
        .enumerate()
    {
        let q = &q[128 * h..128 * h + 128];
        for l in 0..32 {
            let (q1, q2, q3, q4) = (q[l], q[l + 32], q[l + 64], q[l + 96]);
            ql[l] = (q1 & 0xf) | ((q3 & 0xf) << 4);
            ql[l + 32] = (q2 & 0xf) | ((q4 & 0xf) << 4);
            qh[l] = (q1 >> 4) | ((q2 >> 4) << 2) | ((q3 >> 4) << 4) | ((q4 >> 4) << 6);
        }
    }
    BlockQ6K { ql, qh, scales, d }.write(out);
}

/// ggml's `dequantize_row_q6_K` for one block: `x = (d·scale)·q`.
#[inline(always)]
pub fn dequantize(b: &[u8; 210], out: &mut [f32; QK_K]) {
    let blk = BlockQ6K::read(b);
    let d = f16_to_f32(blk.d);
    let ds: [f32; 16] = std::array::from_fn(|s| d * blk.scales[s] as f32);
    for (h, y) in out.chunks_exact_mut(128).enumerate() {
        let (ql, qh) = (&blk.ql[64 * h..64 * h + 64], &blk.qh[32 * h..32 * h + 32]);
        let ds = &ds[8 * h..8 * h + 8];
        for l in 0..32 {
            let is = l / 16;
            let q1 = ((ql[l] & 0xf) | ((qh[l] & 3) << 4)) as i32 - 32;
            let q2 = ((ql[l + 32] & 0xf) | (((qh[l] >> 2) & 3) << 4)) as i32 - 32;
            let q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) as i32 - 32;
            let q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) as i32 - 32;
            y[l] = ds[is] * q1 as f32;
            y[l + 32] = ds[is + 2] * q2 as f32;
            y[l + 64] = ds[is + 4] * q3 as f32;
            y[l + 96] = ds[is + 6] * q4 as f32;
        }
    }
}

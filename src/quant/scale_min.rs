//! The shared core of the Q4_K and Q5_K reference quantizers: per 32-value sub-block an
//! asymmetric scale and min (`make_qkx2_quants`), both quantized to 6 bits against
//! f16 super-block scales, then every value re-quantized against the stored scales.

use half::f16;

use super::blocks::{pack_scales_mins, QK_K};
use super::lanes::{to_lanes, F};
use super::rounding::{f16_to_f32, fp16, nearest_int};
use super::search::make_qkx2_quants;

/// The fields Q4_K and Q5_K share, and the quants (0..=nmax) they then pack.
pub struct ScaleMinBlock {
    pub d: f16,
    pub dmin: f16,
    pub scales: [u8; 12],
    pub q: [u8; QK_K],
}

/// `quantize_row_q{4,5}_K_ref` up to the packing of the quants, with the search's
/// (rmin, rdelta, nstep).
#[inline(always)]
pub fn quantize(x: &[f32; QK_K], nmax: i32, search: (f32, f32, i32)) -> ScaleMinBlock {
    let xl = to_lanes::<8, 32>(x);
    let mut sum_x2 = F::splat(0.0);
    for &xi in &xl {
        sum_x2 = sum_x2 + xi * xi;
    }
    let av_x = (sum_x2 / F::splat(32.0)).sqrt();
    let w: [F<8>; 32] = std::array::from_fn(|i| av_x + xl[i].abs());
    let found = make_qkx2_quants(&xl, &w, nmax, search);

    let mut max_scale = 0f32;
    let mut max_min = 0f32;
    for (&scale, &min) in found.scale.0.iter().zip(&found.min.0) {
        if scale > max_scale {
            max_scale = scale;
        }
        if min > max_min {
            max_min = min;
        }
    }
    let inv_scale = if max_scale > 0.0 {
        63.0 / max_scale
    } else {
        0.0
    };
    let inv_min = if max_min > 0.0 { 63.0 / max_min } else { 0.0 };
    let ls = found
        .scale
        .0
        .map(|s| (nearest_int(inv_scale * s) as u8).min(63));
    let lm = found
        .min
        .0
        .map(|m| (nearest_int(inv_min * m) as u8).min(63));
    let d = fp16(max_scale / 63.0);
    let dmin = fp16(max_min / 63.0);

    let mut q = [0u8; QK_K];
    for (s, (qs, xs)) in q.chunks_exact_mut(32).zip(x.chunks_exact(32)).enumerate() {
        let ds = f16_to_f32(d) * ls[s] as f32;
        if ds == 0.0 {
            for (o, l) in qs.iter_mut().zip(&found.q) {
                *o = l.0[s] as u8;
            }
            continue;
        }
        let dm = f16_to_f32(dmin) * lm[s] as f32;
        for (o, &v) in qs.iter_mut().zip(xs) {
            *o = nearest_int((v + dm) / ds).clamp(0, nmax) as u8;
        }
    }
    ScaleMinBlock {
        d,
        dmin,
        scales: pack_scales_mins(&ls, &lm),
        q,
    }
}

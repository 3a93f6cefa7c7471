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

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    fn block<const B: usize>(seed: u8) -> [u8; B] {
        std::array::from_fn(|i| (i as u8).wrapping_mul(97).wrapping_add(seed))
    }

    /// ggml's loops address element e = 128n + 32j + 16h + l through byte 32n + 16h + l,
    /// bit pair j and scale 8n + 2j + h.
    fn position(e: usize) -> (usize, usize, usize) {
        let (n, r) = (e / 128, e % 128);
        let (j, h, l) = (r / 32, (r % 32) / 16, r % 16);
        (32 * n + 16 * h + l, 2 * j, 8 * n + 2 * j + h)
    }

    #[test]
    fn q2_k_follows_ggml_element_order() {
        let mut b = block::<84>(3);
        b[80..82].copy_from_slice(&f16::from_f32(0.5).to_le_bytes());
        b[82..84].copy_from_slice(&f16::from_f32(0.25).to_le_bytes());
        let mut out = [0f32; QK_K];
        dequantize_q2_k(&b, &mut out);
        for (e, &v) in out.iter().enumerate() {
            let (byte, shift, s) = position(e);
            let q = (b[16 + byte] >> shift) & 3;
            let want = 0.5 * (b[s] & 0xf) as f32 * q as f32 - 0.25 * (b[s] >> 4) as f32;
            assert_eq!(v, want, "element {e}");
        }
    }

    #[test]
    fn q3_k_follows_ggml_element_order() {
        let mut b = block::<110>(11);
        b[108..110].copy_from_slice(&f16::from_f32(0.125).to_le_bytes());
        let scales = q3_scales(&std::array::from_fn(|i| b[96 + i]));
        let mut out = [0f32; QK_K];
        dequantize_q3_k(&b, &mut out);
        for (e, &v) in out.iter().enumerate() {
            let (byte, shift, s) = position(e);
            // The high-bit mask advances once per 32 elements, over both halves.
            let bit = (b[byte % 32] >> (e / 32)) & 1;
            let q = ((b[32 + byte] >> shift) & 3) as i32 - if bit == 1 { 0 } else { 4 };
            let want = 0.125 * (scales[s] as i32 - 32) as f32 * q as f32;
            assert_eq!(v, want, "element {e}");
        }
        // The packing ggml's Q3_K quantizer writes: low nibbles in bytes 0..8 (scales 8..16
        // in the high nibbles), the top two bits in bytes 8..12.
        let sc: [u8; 12] = block::<12>(5);
        for (j, &v) in q3_scales(&sc).iter().enumerate() {
            let low = if j < 8 { sc[j] & 0xf } else { sc[j - 8] >> 4 };
            let high = (sc[8 + j % 4] >> (2 * (j / 4))) & 3;
            assert_eq!(v as u8, low | (high << 4), "scale {j}");
        }
    }
}

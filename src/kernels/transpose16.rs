//! The 16 × 16 transpose of 32-bit words in AVX-512 registers, for the quantized
//! rows-by-lane dot, which turns 16 rows of memory into 16 lanes; and its in-lane half,
//! `transpose4_in_lanes`, for the bf16 few-rows product, whose loads do the cross-lane
//! part.

use std::arch::x86_64::*;

/// Transposes 16 rows of 16 i32: `out[c]` lane `r` = `rows[r]` lane `c`.
#[target_feature(enable = "avx512f")]
#[inline]
pub fn transpose16(rows: &[__m512i; 16]) -> [__m512i; 16] {
    let u = transpose4_in_lanes(rows);
    // u[4q + c]: in 128-bit lane L, rows 4q..4q + 4 of column 4L + c. Then the 4×4
    // transpose of 128-bit lanes across u[c], u[4 + c], u[8 + c], u[12 + c].
    let mut out = [_mm512_setzero_si512(); 16];
    for c in 0..4 {
        let v0 = _mm512_shuffle_i32x4::<0b01_00_01_00>(u[c], u[4 + c]);
        let v1 = _mm512_shuffle_i32x4::<0b11_10_11_10>(u[c], u[4 + c]);
        let v2 = _mm512_shuffle_i32x4::<0b01_00_01_00>(u[8 + c], u[12 + c]);
        let v3 = _mm512_shuffle_i32x4::<0b11_10_11_10>(u[8 + c], u[12 + c]);
        out[c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(v0, v2);
        out[4 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(v0, v2);
        out[8 + c] = _mm512_shuffle_i32x4::<0b10_00_10_00>(v1, v3);
        out[12 + c] = _mm512_shuffle_i32x4::<0b11_01_11_01>(v1, v3);
    }
    out
}

/// The 4 × 4 transposes of 32-bit words inside each 128-bit lane, four registers at a
/// time: `out[4q + c]` lane L word `w` = `rows[4q + w]` lane L word `c`.
#[target_feature(enable = "avx512f")]
#[inline]
pub fn transpose4_in_lanes(rows: &[__m512i; 16]) -> [__m512i; 16] {
    // t[4q + 2h + s]: in each 128-bit lane, words 2s and 2s + 1 of rows 4q + 2h and
    // 4q + 2h + 1, interleaved.
    let t: [__m512i; 16] = std::array::from_fn(|i| {
        let (x, y) = (rows[i & !1], rows[i | 1]);
        match i % 2 {
            0 => _mm512_unpacklo_epi32(x, y),
            _ => _mm512_unpackhi_epi32(x, y),
        }
    });
    std::array::from_fn(|i| {
        let (q, c) = (i / 4, i % 4);
        let (x, y) = (t[4 * q + c / 2], t[4 * q + 2 + c / 2]);
        match c % 2 {
            0 => _mm512_unpacklo_epi64(x, y),
            _ => _mm512_unpackhi_epi64(x, y),
        }
    })
}

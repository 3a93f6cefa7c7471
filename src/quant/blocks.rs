//! The GGML block structs: `#[repr(C)]` with their sizes checked at compile time, read
//! from and written to little-endian bytes field by field (no transmutes).

use half::f16;

use super::QType;

/// Elements in a k-quant super-block.
pub const QK_K: usize = 256;

/// A fixed-size little-endian field of a block.
pub trait Field: Sized {
    const SIZE: usize;
    /// Reads the field from the start of `b` (at least SIZE bytes).
    fn get(b: &[u8]) -> Self;
    /// Writes the field to the start of `b` (at least SIZE bytes).
    fn put(&self, b: &mut [u8]);
}

impl Field for f16 {
    const SIZE: usize = 2;
    fn get(b: &[u8]) -> Self {
        f16::from_le_bytes([b[0], b[1]])
    }
    fn put(&self, b: &mut [u8]) {
        b[..2].copy_from_slice(&self.to_le_bytes());
    }
}

impl Field for f32 {
    const SIZE: usize = 4;
    fn get(b: &[u8]) -> Self {
        f32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    fn put(&self, b: &mut [u8]) {
        b[..4].copy_from_slice(&self.to_le_bytes());
    }
}

impl<const N: usize> Field for [u8; N] {
    const SIZE: usize = N;
    fn get(b: &[u8]) -> Self {
        let mut a = [0; N];
        a.copy_from_slice(&b[..N]);
        a
    }
    fn put(&self, b: &mut [u8]) {
        b[..N].copy_from_slice(self);
    }
}

impl<const N: usize> Field for [i8; N] {
    const SIZE: usize = N;
    fn get(b: &[u8]) -> Self {
        <[u8; N]>::get(b).map(|v| v as i8)
    }
    fn put(&self, b: &mut [u8]) {
        for (o, &v) in b.iter_mut().zip(self) {
            *o = v as u8;
        }
    }
}

impl<const N: usize> Field for [i16; N] {
    const SIZE: usize = 2 * N;
    fn get(b: &[u8]) -> Self {
        let mut a = [0; N];
        for (v, c) in a.iter_mut().zip(b.as_chunks::<2>().0) {
            *v = i16::from_le_bytes(*c);
        }
        a
    }
    fn put(&self, b: &mut [u8]) {
        for (o, v) in b.chunks_exact_mut(2).zip(self) {
            o.copy_from_slice(&v.to_le_bytes());
        }
    }
}

/// Declares block structs: the fields in storage order, with size checks and codecs.
macro_rules! blocks {
    ($($(#[$doc:meta])* $name:ident: $qt:ident, $len:literal elements, $bytes:literal bytes
        { $($field:ident: $ty:ty),* $(,)? })*) => {$(
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            $(pub $field: $ty),*
        }

        // Compile-time checks: a wrong layout fails the build, never a run.
        const _: () = assert!(std::mem::size_of::<$name>() == $bytes);
        const _: () = assert!(0 $(+ <$ty as Field>::SIZE)* == $bytes);

        impl $name {
            pub const QTYPE: QType = QType::$qt;
            /// Elements per block.
            pub const LEN: usize = $len;
            /// Bytes per block.
            pub const BYTES: usize = $bytes;

            pub fn read(b: &[u8; $bytes]) -> Self {
                let mut _off = 0;
                $(
                    let $field = <$ty as Field>::get(&b[_off..]);
                    _off += <$ty as Field>::SIZE;
                )*
                $name { $($field),* }
            }

            pub fn write(&self, b: &mut [u8; $bytes]) {
                let mut _off = 0;
                $(
                    self.$field.put(&mut b[_off..]);
                    _off += <$ty as Field>::SIZE;
                )*
            }
        }
    )*};
}

blocks! {
    /// Q4_0: `x = d * (q - 8)`.
    BlockQ4_0: Q4_0, 32 elements, 18 bytes { d: f16, qs: [u8; 16] }
    /// Q4_1: `x = d * q + m`.
    BlockQ4_1: Q4_1, 32 elements, 20 bytes { d: f16, m: f16, qs: [u8; 16] }
    /// Q5_0: `x = d * (q - 16)`, the fifth bits in `qh`.
    BlockQ5_0: Q5_0, 32 elements, 22 bytes { d: f16, qh: [u8; 4], qs: [u8; 16] }
    /// Q5_1: `x = d * q + m`, the fifth bits in `qh`.
    BlockQ5_1: Q5_1, 32 elements, 24 bytes { d: f16, m: f16, qh: [u8; 4], qs: [u8; 16] }
    /// Q8_0: `x = d * q`.
    BlockQ8_0: Q8_0, 32 elements, 34 bytes { d: f16, qs: [i8; 32] }
    /// Q8_1: `x = d * q`; `s` = d · Σq (used by dot products only).
    BlockQ8_1: Q8_1, 32 elements, 36 bytes { d: f16, s: f16, qs: [i8; 32] }
    /// Q2_K: 16 sub-blocks of 16, 4-bit scales and mins.
    BlockQ2K: Q2K, 256 elements, 84 bytes {
        scales: [u8; 16], qs: [u8; 64], d: f16, dmin: f16,
    }
    /// Q3_K: 16 sub-blocks of 16, 6-bit signed scales, the third bits in `hmask`.
    BlockQ3K: Q3K, 256 elements, 110 bytes {
        hmask: [u8; 32], qs: [u8; 64], scales: [u8; 12], d: f16,
    }
    /// Q4_K: 8 sub-blocks of 32, 6-bit scales and mins (see `unpack_scales_mins`).
    BlockQ4K: Q4K, 256 elements, 144 bytes {
        d: f16, dmin: f16, scales: [u8; 12], qs: [u8; 128],
    }
    /// Q5_K: Q4_K plus the fifth bits in `qh`.
    BlockQ5K: Q5K, 256 elements, 176 bytes {
        d: f16, dmin: f16, scales: [u8; 12], qh: [u8; 32], qs: [u8; 128],
    }
    /// Q6_K: 16 sub-blocks of 16, signed 8-bit scales; `d` is stored last.
    BlockQ6K: Q6K, 256 elements, 210 bytes {
        ql: [u8; 128], qh: [u8; 64], scales: [i8; 16], d: f16,
    }
    /// Q8_K: the activation type of k-quant dot products; `d` is f32 and `bsums`
    /// holds the sum of each 16 quants (the SIMD Q4_K/Q5_K/Q6_K kernels read their
    /// min and bias terms from it: only ever quantized here, never read from a file).
    BlockQ8K: Q8K, 256 elements, 292 bytes { d: f32, qs: [i8; 256], bsums: [i16; 16] }
}

/// Q4_K/Q5_K's 12 scale bytes unpacked (ggml's `get_scale_min_k4`, done four bytes at
/// a time): the 8 six-bit scales followed by the 8 six-bit mins.
#[inline(always)]
pub fn unpack_scales_mins(s: &[u8; 12]) -> [u8; 16] {
    let (scales, mins) = unpack_scales_mins_words(s);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&scales.to_le_bytes());
    out[8..].copy_from_slice(&mins.to_le_bytes());
    out
}

/// `unpack_scales_mins` as two little-endian words, the 8 scales and the 8 mins: the
/// form a kernel moves into a vector register in one instruction each (building it from
/// the 16 bytes took a `vmovd` and three `vpinsrd`: Q4_K 4096² matvec on AVX-512
/// VNNI, 1 thread, Zen 4, best of 600, alternating: 0.483–0.485 → 0.449–0.463 ms).
#[inline(always)]
pub fn unpack_scales_mins_words(s: &[u8; 12]) -> (u64, u64) {
    const LOW6: u32 = 0x3f3f_3f3f;
    const LOW4: u32 = 0x0f0f_0f0f;
    const LOW2: u32 = 0x0303_0303;
    let w = |i: usize| u32::from_le_bytes([s[4 * i], s[4 * i + 1], s[4 * i + 2], s[4 * i + 3]]);
    let (w0, w1, w2) = (w(0), w(1), w(2));
    let word = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
    (
        word(w0 & LOW6, (w2 & LOW4) | (((w0 >> 6) & LOW2) << 4)),
        word(w1 & LOW6, ((w2 >> 4) & LOW4) | (((w1 >> 6) & LOW2) << 4)),
    )
}

/// The inverse of `unpack_scales_mins` for 6-bit `sc` and `m` (as ggml's quantizers
/// pack them).
pub fn pack_scales_mins(sc: &[u8; 8], m: &[u8; 8]) -> [u8; 12] {
    let mut b = [0u8; 12];
    for j in 0..4 {
        b[j] = sc[j] | ((sc[j + 4] >> 4) << 6);
        b[j + 4] = m[j] | ((m[j + 4] >> 4) << 6);
        b[j + 8] = (sc[j + 4] & 0xf) | ((m[j + 4] & 0xf) << 4);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_type_table() {
        let rows = [
            (BlockQ4_0::QTYPE, BlockQ4_0::LEN, BlockQ4_0::BYTES),
            (BlockQ4_1::QTYPE, BlockQ4_1::LEN, BlockQ4_1::BYTES),
            (BlockQ5_0::QTYPE, BlockQ5_0::LEN, BlockQ5_0::BYTES),
            (BlockQ5_1::QTYPE, BlockQ5_1::LEN, BlockQ5_1::BYTES),
            (BlockQ8_0::QTYPE, BlockQ8_0::LEN, BlockQ8_0::BYTES),
            (BlockQ8_1::QTYPE, BlockQ8_1::LEN, BlockQ8_1::BYTES),
            (BlockQ2K::QTYPE, BlockQ2K::LEN, BlockQ2K::BYTES),
            (BlockQ3K::QTYPE, BlockQ3K::LEN, BlockQ3K::BYTES),
            (BlockQ4K::QTYPE, BlockQ4K::LEN, BlockQ4K::BYTES),
            (BlockQ5K::QTYPE, BlockQ5K::LEN, BlockQ5K::BYTES),
            (BlockQ6K::QTYPE, BlockQ6K::LEN, BlockQ6K::BYTES),
            (BlockQ8K::QTYPE, BlockQ8K::LEN, BlockQ8K::BYTES),
        ];
        for (qt, len, bytes) in rows {
            assert_eq!((qt.block_len(), qt.block_bytes()), (len, bytes), "{qt:?}");
        }
    }

    #[test]
    fn read_write_round_trip() {
        let bytes: [u8; 292] = std::array::from_fn(|i| (i * 7 + 3) as u8);
        let b = BlockQ8K::read(&bytes);
        assert_eq!(b.d, f32::from_le_bytes([3, 10, 17, 24]));
        assert_eq!(b.qs[0], 31);
        assert_eq!(b.bsums[0], i16::from_le_bytes([bytes[260], bytes[261]]));
        let mut back = [0u8; 292];
        b.write(&mut back);
        assert_eq!(back, bytes);
        let q6: [u8; 210] = std::array::from_fn(|i| i as u8);
        let b6 = BlockQ6K::read(&q6);
        assert_eq!(b6.d.to_bits(), u16::from_le_bytes([208, 209]));
        assert_eq!(b6.scales[0], -64);
    }

    #[test]
    fn scale_packing_round_trips_and_matches_get_scale_min_k4() {
        let sc: [u8; 8] = [0, 63, 17, 42, 5, 60, 33, 48];
        let m: [u8; 8] = [63, 1, 2, 40, 59, 16, 31, 9];
        let packed = pack_scales_mins(&sc, &m);
        let un = unpack_scales_mins(&packed);
        assert_eq!(&un[..8], &sc);
        assert_eq!(&un[8..], &m);
        // The worked example of docs/KQUANT.md: every scale 63, every min 0.
        let b = [255, 255, 255, 255, 0, 0, 0, 0, 15, 15, 15, 15];
        assert_eq!(
            unpack_scales_mins(&b),
            [63, 63, 63, 63, 63, 63, 63, 63, 0, 0, 0, 0, 0, 0, 0, 0]
        );
    }
}

//! Counter-based random numbers: the stream is a pure function of (seed, counter),
//! so results do not depend on threads or chunking.
//!
//! # The stream
//!
//! `seed(n)` sets the key to `n` and the counter to 0. A session that never calls
//! `seed` starts as `seed(0)`, so a script gives the same numbers on every run.
//!
//! Block `c` of the stream is Philox4x32-10 of the counter `[c mod 2^32, c >> 32, 0,
//! 0]` under the key `[n mod 2^32, n >> 32]`: four 32-bit words `w0 w1 w2 w3`, read
//! as two 64-bit words `w0 << 32 | w1` and `w2 << 32 | w3` where a kind needs 64 bits.
//! A draw of `N` values taking `K` values per block reads blocks `counter ..
//! counter + ceil(N / K)` and then advances the counter past them (the counter counts
//! blocks of four words); value `i` (row-major) comes from block `counter + i / K`,
//! lane `i % K`. Per kind:
//!
//! - `rand` f32: `K = 4`, `(w >> 8) * 2^-24` from each word (its top 24 bits), in
//!   [0, 1). f16 and bf16 take that f32 value rounded toward zero, so they stay below 1.
//! - `rand` f64: `K = 2`, the top 53 bits of each 64-bit word times `2^-53`.
//! - `randn`: `K = 2`, Box–Muller on the block: with `a`, `b` the top 53 bits of the two
//!   64-bit words, `u1 = (a + 1) 2^-53` in (0, 1] and `u2 = b 2^-53`; `r = sqrt(-2 ln
//!   u1)`, values `r cos(2π u2)` then `r sin(2π u2)`, computed in f64 with this
//!   module's own `ln` and `sin_cos` (never the platform libm) and rounded to the dtype
//!   once, so `randn(s, dtype=f32)` is `randn(s, dtype=f64).to(f32)` for the same seed.
//! - `randint(low, high)`: `K = 2`, `low + ((w * (high - low)) >> 64)` for each 64-bit
//!   word `w` (multiply-high). Each result takes the floor or the ceiling of
//!   `2^64 / (high - low)` of the words, a relative bias below `(high - low) / 2^64`
//!   (under 2^-32 for any range below 2^32). The values do not depend on the dtype.
//!
//! # Stability promise
//!
//! For a given seed and sequence of draws, these values are the same on every platform,
//! for every thread count, and in every future version of tsr; `tests/random_stream.rs`
//! pins them bit for bit. Changing the stream is a breaking change.
//!
//! This module is the stream's arithmetic; `kernels::elementwise::random::fill` draws
//! large buffers in parallel, in chunks at fixed boundaries (each value depends only on
//! its index anyway).

mod libm;
mod philox;

use half::{bf16, f16};

use philox::philox4x32;

/// The session's generator state: `seed(n)` sets the key and resets the counter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RandomState {
    pub key: u64,
    /// The next unused block of the stream.
    pub counter: u64,
}

impl RandomState {
    /// The state `seed(n)` sets; the default state is `from_seed(0)`.
    pub fn from_seed(seed: u64) -> RandomState {
        RandomState {
            key: seed,
            counter: 0,
        }
    }

    /// Reserves the blocks a draw of `n` values, `K` per block, reads: returns the
    /// first and advances the counter past them.
    pub fn take_blocks<const K: usize>(&mut self, n: usize) -> u64 {
        let start = self.counter;
        self.counter = start.wrapping_add(n.div_ceil(K) as u64);
        start
    }
}

/// Fills `out` from consecutive blocks starting at block `first` under `key`, `K`
/// values per block made by `each` from the block's four words.
pub fn fill_blocks<T, const K: usize>(
    out: &mut [T],
    key: u64,
    first: u64,
    each: &impl Fn([u32; 4]) -> [T; K],
) {
    let key = [key as u32, (key >> 32) as u32];
    for (lanes, b) in out.chunks_mut(K).zip(0u64..) {
        let c = first.wrapping_add(b);
        let words = philox4x32([c as u32, (c >> 32) as u32, 0, 0], key);
        for (o, v) in lanes.iter_mut().zip(each(words)) {
            *o = v;
        }
    }
}

/// The 64-bit word `hi << 32 | lo`.
pub fn word64(hi: u32, lo: u32) -> u64 {
    (u64::from(hi) << 32) | u64::from(lo)
}

/// 2^-24 and 2^-53: exact scale factors for 24- and 53-bit integers.
const TWO_M24: f32 = 1.0 / (1u32 << 24) as f32;
const TWO_M53: f64 = 1.0 / (1u64 << 53) as f64;

/// A uniform f32 in [0, 1) from the top 24 bits of `w`.
pub fn uniform_f32(w: u32) -> f32 {
    (w >> 8) as f32 * TWO_M24
}

/// A uniform f16 in [0, 1): the f32 value rounded toward zero.
pub fn uniform_f16(w: u32) -> f16 {
    let v = uniform_f32(w);
    let h = f16::from_f32(v);
    if h.to_f32() > v {
        // h > v >= 0, so the next f16 below h is one bit pattern down.
        f16::from_bits(h.to_bits().saturating_sub(1))
    } else {
        h
    }
}

/// A uniform bf16 in [0, 1): the f32 value rounded toward zero (bf16 is the top half
/// of an f32, so truncating the bits does exactly that).
pub fn uniform_bf16(w: u32) -> bf16 {
    bf16::from_bits((uniform_f32(w).to_bits() >> 16) as u16)
}

/// A uniform f64 in [0, 1) from the top 53 bits of the word `hi << 32 | lo`.
pub fn uniform_f64(hi: u32, lo: u32) -> f64 {
    (word64(hi, lo) >> 11) as f64 * TWO_M53
}

/// A uniform f64 in (0, 1] from the top 53 bits of the word `hi << 32 | lo`, plus one,
/// times 2^-53: its logarithm is finite.
fn uniform_open_f64(hi: u32, lo: u32) -> f64 {
    ((word64(hi, lo) >> 11) + 1) as f64 * TWO_M53
}

/// A standard exponential value, `-ln u` for `u` in (0, 1] from the word `hi << 32 |
/// lo` (as Box–Muller's `u1`), with this module's own `ln`: in [0, 36.8].
pub fn exponential(hi: u32, lo: u32) -> f64 {
    -libm::ln(uniform_open_f64(hi, lo))
}

/// Two independent standard normals from one block (Box–Muller), bit-reproducible.
pub fn normal_pair(w: [u32; 4]) -> [f64; 2] {
    let u1 = uniform_open_f64(w[0], w[1]);
    let u2 = uniform_f64(w[2], w[3]);
    let r = (-2.0 * libm::ln(u1)).sqrt();
    let (s, c) = libm::sin_cos(std::f64::consts::TAU * u2);
    [r * c, r * s]
}

/// An offset in [0, range) from a 64-bit word by multiply-high (see the module docs
/// for its bias bound).
pub fn below(word: u64, range: u64) -> u64 {
    ((u128::from(word) * u128::from(range)) >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_conversions_cover_the_unit_interval() {
        assert_eq!(uniform_f32(0), 0.0);
        assert_eq!(uniform_f32(u32::MAX), 1.0 - TWO_M24);
        assert_eq!(uniform_f32(0x8000_0000), 0.5);
        assert_eq!(uniform_f64(0, 0), 0.0);
        assert_eq!(uniform_f64(u32::MAX, u32::MAX), 1.0 - TWO_M53);
        assert_eq!(uniform_f16(u32::MAX).to_f32(), 1.0 - 2f32.powi(-11));
        assert_eq!(uniform_bf16(u32::MAX).to_f32(), 1.0 - 2f32.powi(-8));
        for w in [0, 1 << 8, 0x1234_5678, 0x7fff_ffff, 0xffff_ff00] {
            let v = uniform_f32(w);
            let (h, b) = (uniform_f16(w).to_f32(), uniform_bf16(w).to_f32());
            assert!(h <= v && v - h < 2f32.powi(-11), "f16 of {v}");
            assert!(b <= v && v - b < 2f32.powi(-8), "bf16 of {v}");
        }
    }

    #[test]
    fn below_maps_words_onto_the_range() {
        assert_eq!(below(0, 10), 0);
        assert_eq!(below(u64::MAX, 10), 9);
        assert_eq!(below(word64(0x8000_0000, 0), 10), 5);
        assert_eq!(below(u64::MAX, u64::MAX), u64::MAX - 1);
        assert_eq!(below(word64(0x1234, 0x5678), 1), 0);
    }

    #[test]
    fn normal_pair_is_finite_at_the_extremes() {
        for w in [[0; 4], [u32::MAX; 4], [0, 0, u32::MAX, u32::MAX]] {
            let [a, b] = normal_pair(w);
            assert!(a.is_finite() && b.is_finite(), "{w:?}");
        }
        // u1 = 2^-53, the smallest: r = sqrt(106 ln 2), u2 = 0 puts it all in cos.
        let [a, b] = normal_pair([0, 0, 0, 0]);
        assert!((a - (106.0 * std::f64::consts::LN_2).sqrt()).abs() < 1e-12 && b == 0.0);
    }

    #[test]
    fn exponential_is_finite_and_non_negative() {
        assert_eq!(exponential(u32::MAX, u32::MAX), 0.0);
        let largest = exponential(0, 0);
        assert!((largest - 53.0 * std::f64::consts::LN_2).abs() < 1e-12);
        assert!((exponential(0x8000_0000, 0) - std::f64::consts::LN_2).abs() < 1e-12);
    }
}

//! Random bit patterns for the kernels' tests: a xorshift64 stream, the same sequence
//! for the same seed on every machine.

/// A stream of 64-bit patterns from `seed` (which must not be 0).
pub fn random_bits(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

//! Draws from the counter-based random stream (`tensor::random`) into a buffer, in
//! parallel over chunks at fixed boundaries: chunk `c` starts at block
//! `counter + c · CHUNK / K`, so the values are those of one serial draw for any
//! thread count, and Ctrl-C stops a large draw between chunks.

use crate::kernels::parallel::for_each_chunk_mut;
use crate::tensor::random::{fill_blocks, RandomState};

/// Values per parallel task: fixed, so the split never depends on the thread count.
pub const CHUNK: usize = 1 << 16;

/// Fills `out` with the next values of `rng`'s stream, `K` per block, made by `each`
/// from a block's four words, and advances the counter past the blocks read.
pub fn fill<T: Send, const K: usize>(
    rng: &mut RandomState,
    out: &mut [T],
    each: impl Fn([u32; 4]) -> [T; K] + Sync,
) {
    // Evaluated at compile time for each K: it cannot fire in a run.
    const { assert!(CHUNK.is_multiple_of(K), "chunks must hold whole blocks") };
    let (key, first) = (rng.key, rng.take_blocks::<K>(out.len()));
    for_each_chunk_mut(out, CHUNK, |start, chunk| {
        let block = first.wrapping_add((start / K) as u64);
        fill_blocks(chunk, key, block, &each);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::random::uniform_f32;

    fn draw_f32(rng: &mut RandomState, n: usize) -> Vec<f32> {
        let mut out = vec![0.0f32; n];
        fill(rng, &mut out, |w| w.map(uniform_f32));
        out
    }

    #[test]
    fn value_i_depends_only_on_its_index() {
        // One big draw (parallel chunks) equals many small draws (serial), whatever the
        // split; the counter advances by whole blocks.
        let n = 3 * CHUNK + 5;
        let whole = draw_f32(&mut RandomState::from_seed(3), n);
        let mut rng = RandomState::from_seed(3);
        let mut pieces = Vec::new();
        for len in [4, 8, CHUNK, 2 * CHUNK - 20, 4, 4, 5] {
            pieces.extend(draw_f32(&mut rng, len));
        }
        assert_eq!(whole, pieces);
        assert_eq!(rng.counter, (n as u64).div_ceil(4));
        // A draw that ends mid-block skips the rest of that block.
        let mut rng = RandomState::from_seed(3);
        let first = draw_f32(&mut rng, 3);
        assert_eq!(rng.counter, 1);
        assert_eq!(draw_f32(&mut rng, 4), whole[4..8]);
        assert_eq!(first, whole[..3]);
    }

    #[test]
    fn seeds_and_counters_give_different_streams() {
        let a = draw_f32(&mut RandomState::from_seed(1), 64);
        let b = draw_f32(&mut RandomState::from_seed(2), 64);
        assert_ne!(a, b);
        assert_eq!(RandomState::default(), RandomState::from_seed(0));
        let big = RandomState::from_seed(u64::MAX);
        assert_ne!(
            draw_f32(&mut big.clone(), 8),
            draw_f32(&mut RandomState::from_seed(0), 8)
        );
    }
}

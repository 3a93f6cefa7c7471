//! Counter-based random numbers: the stream is a pure function of (seed, counter),
//! so results do not depend on threads or chunking.

/// The session's generator state: `seed(n)` sets the key and resets the counter.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RandomState {
    pub key: u64,
    pub counter: u64,
}

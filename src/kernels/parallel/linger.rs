//! Workers kept awake between parallel sections. When a section ends, the pool's other
//! workers spin for up to `LINGER` waiting for the next one instead of going to sleep,
//! as ONNX Runtime's and OpenBLAS's threads do. rayon puts an idle worker to sleep
//! after a few dozen rounds of looking for work (15–40 µs here), and on the 2-core KVM
//! guest this was measured on (AMD EPYC, Zen 4) waking it took 20–40 µs: a
//! 2-thread call that starts with a little serial work (laying out the image of a
//! convolution, quantizing a matrix-vector product's activations) then ran its first
//! items on one thread. In a stand-alone rayon program (40 µs of serial work, then 30
//! items of 70 µs on 2 threads, 580 calls) the second thread started 26.8 µs after the
//! fork (p50; p90 31.5) and a call took 1119 µs at the median; with workers lingering
//! 300 µs, 0.9 µs (p90 1.4) and 1095 µs (ideal: 1090). tsr lingers 200 µs. In tsr at
//! 2 threads (medians of 11 alternating processes, ms): 3×3 conv [1,64,56,56] 1.19 →
//! 1.10, 7×7 stride 2 1.37 → 1.33, conv_transpose 0.456 → 0.406, matvec 4096² 2.04 →
//! 2.00; the Q4_K matvec 0.297 → 0.311 (faster in 7 of the 11 pairs: within this
//! host's noise).
//!
//! Every fork of the pool begins a [`Section`]; a lingering task stops as soon as the
//! next one begins (or `LINGER` has passed), so it never holds up a section. Nothing
//! here changes which thread computes what, so no value changes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the other workers wait for the next section: longer than the serial work
/// between two sections of a call, or of consecutive calls in a loop, usually is.
const LINGER: Duration = Duration::from_micros(200);

/// Sections begun so far: a lingering worker stops when this moves.
static BEGUN: AtomicUsize = AtomicUsize::new(0);
/// Sections running now, nested ones included.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// One fork of the thread pool, from its start to its join (held as a guard around
/// the fork). When the outermost section ends, the other workers linger for the next.
pub struct Section {
    /// Keeps a `Section` from being made but by `begin`, which counts it.
    _private: (),
}

impl Section {
    /// Held until the fork has joined: dropped at once, it would set the workers
    /// lingering while the fork's own work waits for them.
    #[must_use]
    pub fn begin() -> Section {
        BEGUN.fetch_add(1, Ordering::Relaxed);
        RUNNING.fetch_add(1, Ordering::Relaxed);
        Section { _private: () }
    }
}

impl Drop for Section {
    fn drop(&mut self) {
        if RUNNING.fetch_sub(1, Ordering::Relaxed) == 1 {
            linger();
        }
    }
}

/// Queues one task per other worker (on this thread's queue, whence idle workers take
/// them) that spins until the next section begins or `LINGER` has passed. Skipped with
/// one thread; when the pool has more threads than the machine has CPUs (spinning
/// would take time from the threads that work); and when the section was begun off the
/// pool (`tsr test` runs its scripts on threads of their own, several at once).
fn linger() {
    let threads = rayon::current_num_threads();
    if threads <= 1 || threads > cpus() || rayon::current_thread_index().is_none() {
        return;
    }
    let begun = BEGUN.load(Ordering::Relaxed);
    for _ in 1..threads {
        rayon::spawn(move || {
            wait_for_section_after(begun, LINGER);
        });
    }
}

/// Spins until a section after the first `begun` has begun (true) or `limit` has
/// passed (false).
fn wait_for_section_after(begun: usize, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if BEGUN.load(Ordering::Relaxed) != begun {
            return true;
        }
        if start.elapsed() >= limit {
            return false;
        }
        std::hint::spin_loop();
    }
}

/// CPUs this process may run on (1 when unknown).
fn cpus() -> usize {
    static CPUS: OnceLock<usize> = OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::{for_each_item, with_threads};

    /// A waiting task returns when a section begins, not at its limit (an hour here).
    #[test]
    fn a_waiting_task_stops_when_a_section_begins() {
        let begun = BEGUN.load(Ordering::Relaxed);
        let waiter =
            std::thread::spawn(move || wait_for_section_after(begun, Duration::from_secs(3600)));
        drop(Section::begin());
        assert_eq!(waiter.join().ok(), Some(true));
    }

    /// Sections nest and follow each other on a pool with lingering workers, and every
    /// item still runs once: a lingering task gives way to the next section.
    #[test]
    fn sections_run_every_item_with_workers_lingering() {
        for threads in 1..=3 {
            let counts = with_threads(threads, || {
                (0..50)
                    .map(|_| {
                        let done = AtomicUsize::new(0);
                        for_each_item(
                            8,
                            || (),
                            |_, _| {
                                let _inner = Section::begin();
                                done.fetch_add(1, Ordering::Relaxed);
                            },
                        );
                        done.into_inner()
                    })
                    .collect::<Vec<_>>()
            });
            assert!(counts.iter().all(|&c| c == 8), "{threads} threads");
        }
    }
}

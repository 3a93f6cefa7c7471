//! Items shared out among the threads of `parallel::for_each_item`: each thread owns a
//! contiguous range of item numbers and runs it from the front (consecutive items
//! often read the same inputs, which are then in its cache), and a thread whose range
//! is done takes items from the back of another's, so the threads finish within an
//! item of each other.

use std::ops::Range;
use std::sync::{Mutex, MutexGuard};

/// The items not yet taken, per owning thread.
pub struct Ranges {
    ranges: Vec<Mutex<Range<usize>>>,
}

impl Ranges {
    /// `0..n` cut into `parts` contiguous ranges whose lengths differ by at most one.
    pub fn new(n: usize, parts: usize) -> Ranges {
        let parts = parts.max(1);
        let start = |p: usize| p * (n / parts) + p.min(n % parts);
        Ranges {
            ranges: (0..parts)
                .map(|p| Mutex::new(start(p)..start(p + 1)))
                .collect(),
        }
    }

    /// The next item for the owner of range `own`: the front of its own range, else
    /// the back of the next range with items left; `None` when every item is taken.
    pub fn next(&self, own: usize) -> Option<usize> {
        let k = self.ranges.len();
        // Own range's lock is released before any other is taken: holding it while
        // locking another would deadlock two threads that run out at the same time.
        let front = self.lock(own % k).next();
        front.or_else(|| (1..k).find_map(|d| self.lock((own + d) % k).next_back()))
    }

    fn lock(&self, r: usize) -> MutexGuard<'_, Range<usize>> {
        // A poisoned lock still holds a valid range (it is only read and shrunk).
        self.ranges[r].lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_run_their_range_in_order_then_take_from_the_back() {
        let r = Ranges::new(10, 3);
        // Ranges 0..4, 4..7, 7..10.
        assert_eq!((r.next(1), r.next(1)), (Some(4), Some(5)));
        assert_eq!(r.next(2), Some(7));
        assert_eq!(r.next(1), Some(6));
        // Range 1 is done: its owner takes from the back of range 2, then range 0.
        assert_eq!((r.next(1), r.next(1)), (Some(9), Some(8)));
        assert_eq!(r.next(1), Some(3));
        assert_eq!(r.next(0), Some(0));
        let rest: Vec<_> = std::iter::from_fn(|| r.next(2)).collect();
        assert_eq!(rest, [2, 1]);
        assert_eq!(r.next(0), None);
    }

    #[test]
    fn threads_that_run_out_together_do_not_deadlock() {
        // Each round, every thread drains its own range at once and then turns to the
        // others' at about the same moment; a lock held across that turn deadlocks.
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for parts in [2, 3, 4] {
                for _ in 0..2000 {
                    let r = Ranges::new(4 * parts, parts);
                    let taken = std::sync::atomic::AtomicUsize::new(0);
                    std::thread::scope(|s| {
                        for own in 0..parts {
                            let (r, taken) = (&r, &taken);
                            s.spawn(move || {
                                while r.next(own).is_some() {
                                    taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                }
                            });
                        }
                    });
                    assert_eq!(taken.into_inner(), 4 * parts);
                }
            }
            let _ = done.send(());
        });
        let waited = finished.recv_timeout(std::time::Duration::from_secs(120));
        assert!(waited.is_ok(), "threads deadlocked taking items");
    }

    #[test]
    fn every_item_is_taken_once_for_any_split() {
        for (n, parts) in [(0, 1), (0, 3), (1, 2), (5, 8), (17, 4), (100, 7)] {
            let r = Ranges::new(n, parts);
            let mut seen = vec![0; n];
            let mut own = 0;
            while let Some(i) = r.next(own) {
                seen[i] += 1;
                own = (own + i) % parts;
            }
            assert!(seen.iter().all(|&c| c == 1), "{n} items, {parts} parts");
        }
    }
}

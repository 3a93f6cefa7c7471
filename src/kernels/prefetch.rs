//! Software prefetch for scans that stream from memory.
//!
//! The hardware prefetcher follows a sequential read, but a scan that does some work
//! per line keeps fewer misses in flight than the memory can serve. Asking for each
//! chunk's lines 4 KiB ahead took argmax along the rows of a 4096×4096 f32 matrix
//! (huge pages) from 6.01–6.09 to 5.75–5.99 ms on one thread of an AVX2 Zen here
//! (tsr, alternating builds); on 4 KiB pages, where each new page also waits on the
//! TLB, from 9.4 to 7.7–8.0 ms (a kernel harness). A prefetch is a
//! hint: it never faults and changes no value, so it may point past the data.

use super::cache::LINE;

/// Asks for the cache lines of `xs`'s bytes moved `ahead` bytes further on, as a
/// sequential scan will read them next. Does nothing off x86-64.
#[inline(always)]
pub fn ahead<T>(xs: &[T], ahead: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let start = xs.as_ptr().cast::<u8>().wrapping_add(ahead);
        for line in (0..size_of_val(xs)).step_by(LINE) {
            // SAFETY: a prefetch reads nothing into the program and never faults, so
            // any address will do; `wrapping_add` keeps the pointer arithmetic defined
            // past the end of `xs`.
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(line).cast());
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (xs, ahead);
}

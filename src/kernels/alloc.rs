//! Result buffers. Large ones come from the allocator's zeroed memory (fresh pages,
//! faulted in by the kernel's own writes rather than written twice) and, on Linux, are
//! marked for transparent huge pages: a 64 MiB result then costs 32 page faults instead
//! of 16,384, which is most of the gap to NumPy (it asks for huge pages the same way).
//! Buffers a kernel writes in full are not zeroed at all (`filled`): reused heap
//! memory would otherwise be cleared by a memset as long as the kernel's own pass.
//! Freed buffers up to `REUSED_BUFFER_MAX_BYTES` stay in the process for the next
//! result (`reuse_freed_buffers`), so a loop making a 64 MiB result does not fault its
//! pages in afresh every time.

use std::mem::MaybeUninit;

use super::interrupt;
use crate::tensor::Elem;

/// Buffers at least this large are advised to use huge pages (2 MiB each).
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// The largest buffer the allocator keeps for reuse after it is freed, and the most
/// free memory it keeps at the top of its heap.
const REUSED_BUFFER_MAX_BYTES: usize = 256 << 20;

/// Makes glibc's allocator keep freed buffers of up to `REUSED_BUFFER_MAX_BYTES` for
/// the next allocation. By default it returns every buffer over 32 MiB to the system
/// on free, and the next one of that size costs a page fault per page, the kernel
/// zeroing each: adding two 16M-element f32 tensors took 11 ms that way, 6.4 ms with
/// the memory reused. One arena: the interpreter runs on a thread of its own, and a
/// thread's own arena cannot hold a buffer over 64 MiB, so it would be mapped afresh.
/// Called once at startup; elsewhere (other C libraries) it does nothing.
pub fn reuse_freed_buffers() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let max = REUSED_BUFFER_MAX_BYTES as libc::c_int;
        // SAFETY: mallopt only sets allocator parameters (under the allocator's lock);
        // a value it refuses leaves the default, which is harmless.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
            libc::mallopt(libc::M_MMAP_THRESHOLD, max);
            libc::mallopt(libc::M_TRIM_THRESHOLD, max);
        }
    }
}

/// `n` zeros of `T`, or `None` when the size overflows or the system refuses.
pub fn zeroed<T: Elem>(n: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(n).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout has a nonzero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return None;
    }
    if layout.size() >= HUGE_PAGE_MIN_BYTES {
        advise_huge_pages(ptr.cast::<u8>(), layout.size());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `n` values of `T`,
    // and all-zero bytes are a valid value of every element type (bool, integers,
    // f16, bf16, f32, f64: false or zero).
    Some(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

/// An empty vector with room for exactly `n` values (huge pages advised for a large
/// one), or `None` when the size overflows or the system refuses.
pub fn with_capacity<T>(n: usize) -> Option<Vec<T>> {
    let mut buf: Vec<T> = Vec::new();
    buf.try_reserve_exact(n).ok()?;
    let bytes = n * std::mem::size_of::<T>();
    if bytes >= HUGE_PAGE_MIN_BYTES {
        advise_huge_pages(buf.as_mut_ptr().cast::<u8>(), bytes);
    }
    Some(buf)
}

/// A buffer of `n` values of `T` written by `fill`, without zeroing it first; `None`
/// when the size overflows or the system refuses. When Ctrl-C stopped `fill` early the
/// buffer is zeros instead (the interpreter discards that value anyway).
///
/// # Safety
/// `fill` must write every element of the slice it is given, unless an interrupt is
/// requested (`interrupt::requested`) while it runs.
pub unsafe fn filled<T: Elem>(
    n: usize,
    fill: impl FnOnce(&mut [MaybeUninit<T>]),
) -> Option<Vec<T>> {
    let mut buf: Vec<T> = Vec::new();
    buf.try_reserve_exact(n).ok()?;
    let bytes = n * std::mem::size_of::<T>();
    if bytes >= HUGE_PAGE_MIN_BYTES {
        advise_huge_pages(buf.as_mut_ptr().cast::<u8>(), bytes);
    }
    fill(&mut buf.spare_capacity_mut()[..n]);
    if interrupt::requested() {
        return zeroed(n);
    }
    // SAFETY: the capacity is at least `n`, and `fill` wrote all `n` elements (the
    // caller's promise, since no interrupt was requested).
    unsafe { buf.set_len(n) };
    Some(buf)
}

/// A copy of `src` in a new buffer written once (not zeroed first), or `None` when the
/// system refuses.
pub fn copy_of<T: Elem>(src: &[T]) -> Option<Vec<T>> {
    // SAFETY: the closure writes every element of the `src.len()` it is given.
    unsafe {
        filled(src.len(), |dst| {
            for (d, &s) in dst.iter_mut().zip(src) {
                d.write(s);
            }
        })
    }
}

/// The elements of a slice that has been written in full.
///
/// # Safety
/// Every element of `xs` must be initialized.
pub unsafe fn assume_written<T>(xs: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`, and the caller promises that
    // every element holds a value.
    unsafe { &mut *(xs as *mut [MaybeUninit<T>] as *mut [T]) }
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    const PAGE: usize = 4096;
    let start = (ptr as usize).next_multiple_of(PAGE);
    let end = (ptr as usize + len) / PAGE * PAGE;
    if end > start {
        // SAFETY: [start, end) lies inside the allocation just made (rounded inwards to
        // whole pages); MADV_HUGEPAGE only changes how the kernel backs those pages, not
        // their contents, and a refusal (e.g. THP disabled) is harmless, so the result
        // is ignored.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: *mut u8, _: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_buffers_of_any_size() {
        assert!(zeroed::<f32>(0).unwrap().is_empty());
        let small = zeroed::<f64>(10).unwrap();
        assert!(small.len() == 10 && small.iter().all(|&x| x == 0.0));
        let big = zeroed::<f32>(3 << 20).unwrap();
        assert!(big.len() == 3 << 20 && big.iter().all(|&x| x == 0.0));
        assert!(zeroed::<i64>(usize::MAX / 4).is_none());
    }

    #[test]
    fn filled_buffers_hold_what_was_written() {
        let fill = |xs: &mut [MaybeUninit<i32>]| {
            for (i, x) in xs.iter_mut().enumerate() {
                x.write(i as i32 * 3);
            }
        };
        for n in [0, 1, 1000, 3 << 20] {
            // SAFETY: `fill` writes every element.
            let v = unsafe { filled(n, fill) }.unwrap();
            assert!(v.len() == n && v.iter().enumerate().all(|(i, &x)| x == i as i32 * 3));
        }
        // SAFETY: the size is refused before `fill` could run.
        assert!(unsafe { filled::<f64>(usize::MAX / 4, |_| {}) }.is_none());
    }
}

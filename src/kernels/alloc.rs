//! Result buffers. Large ones come from the allocator's zeroed memory (fresh pages,
//! faulted in by the kernel's own writes rather than written twice) and, on Linux, are
//! marked for transparent huge pages: a 64 MiB result then costs 32 page faults instead
//! of 16,384, which is most of the gap to NumPy (it asks for huge pages the same way).

use crate::tensor::Elem;

/// Buffers at least this large are advised to use huge pages (2 MiB each).
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

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
}

//! Copies into results too large to stay in cache, with stores that bypass it.
//!
//! A normal store to memory that is not in cache first reads the line (to merge the
//! write into it), so writing a 64 MiB result moves 128 MiB; a streaming
//! (non-temporal) store writes whole lines without reading them. A kernel that makes
//! such a result writes each piece into a small buffer that stays in cache, then
//! `copy_out` moves it on: writing 64 MiB this way took 4.3 ms on an AVX2 Zen here,
//! against 9.2 ms with normal stores. For a result that fits in cache the next op
//! would rather find it there, so small results take normal stores.

use std::mem::MaybeUninit;

use super::isa::Isa;

/// Results of at least this many bytes are written with streaming stores (more than
/// the last-level cache of the CPUs tsr runs on holds for one core).
pub const STREAM_MIN_BYTES: usize = 16 << 20;

/// Copies `src` into `dst`, writing the first `min(src.len(), dst.len())` elements
/// (callers pass equal lengths), with streaming stores when `stream` is set and the
/// ISA allows them (AVX2 machines), else normal ones. Returns once the copy is visible
/// to other threads.
pub fn copy_out<T: Copy>(isa: Isa, src: &[T], dst: &mut [MaybeUninit<T>], stream: bool) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    #[cfg(target_arch = "x86_64")]
    if stream && isa.avx2() {
        // SAFETY: an `Isa` with AVX2 exists only on a CPU that has it (and AVX).
        unsafe { x86::stream(src, dst) };
        return;
    }
    let _ = (isa, stream);
    for (d, &s) in dst.iter_mut().zip(src) {
        d.write(s);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// Streaming stores need 32-byte aligned addresses.
    const ALIGN: usize = 32;

    /// `copy_out` with streaming stores: normal stores up to the first 32-byte aligned
    /// address and after the last whole 32 bytes, streaming ones between.
    ///
    /// # Safety
    /// The CPU has AVX; `src` and `dst` have the same length.
    #[target_feature(enable = "avx")]
    pub unsafe fn stream<T: Copy>(src: &[T], dst: &mut [MaybeUninit<T>]) {
        let bytes = std::mem::size_of_val(src);
        let (s, d) = (src.as_ptr().cast::<u8>(), dst.as_mut_ptr().cast::<u8>());
        let head = ((d as usize).next_multiple_of(ALIGN) - d as usize).min(bytes);
        let body = (bytes - head) / ALIGN * ALIGN;
        // SAFETY: both buffers hold `bytes` bytes and do not overlap (one is borrowed
        // shared, the other exclusively); `head`, `head + body` and `bytes` lie within
        // them, and the streaming stores go to `d + head + 32i`, which is 32-byte
        // aligned, for whole 32-byte pieces inside `body`. Every byte of `dst` is
        // written by one of the three parts, so each `T` in it is a copy of one in
        // `src`: a valid value.
        unsafe {
            std::ptr::copy_nonoverlapping(s, d, head);
            for off in (head..head + body).step_by(ALIGN) {
                let v = _mm256_loadu_si256(s.add(off).cast());
                _mm256_stream_si256(d.add(off).cast(), v);
            }
            std::ptr::copy_nonoverlapping(
                s.add(head + body),
                d.add(head + body),
                bytes - head - body,
            );
            // Streaming stores are weakly ordered: fence them before another thread
            // may read the result.
            _mm_sfence();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_every_element_at_any_alignment_and_length() {
        let src: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 7.0).collect();
        let bytes: Vec<u8> = (0..1000).map(|i| (i * 7) as u8).collect();
        for isa in Isa::supported() {
            for stream in [false, true] {
                for start in 0..9 {
                    for len in [0, 1, 7, 8, 9, 31, 64, 100, 991 - start] {
                        let mut dst = vec![MaybeUninit::new(f32::NAN); 1000];
                        copy_out(isa, &src[..len], &mut dst[start..start + len], stream);
                        for (i, d) in dst[start..start + len].iter().enumerate() {
                            // SAFETY: the whole vector was initialized with NaN.
                            assert_eq!(unsafe { d.assume_init() }.to_bits(), src[i].to_bits());
                        }
                        let mut dst = vec![MaybeUninit::new(0u8); 1000];
                        copy_out(isa, &bytes[..len], &mut dst[start..start + len], stream);
                        // SAFETY: as above.
                        let got: Vec<u8> = dst[start..start + len]
                            .iter()
                            .map(|d| unsafe { d.assume_init() })
                            .collect();
                        assert_eq!(got, bytes[..len]);
                    }
                }
            }
        }
    }
}

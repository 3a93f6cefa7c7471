//! Results too large to stay in cache, written with stores that bypass it.
//!
//! A normal store to memory that is not in cache first reads the line (to merge the
//! write into it), so writing a 64 MiB result moves 128 MiB; a streaming
//! (non-temporal) store writes whole lines without reading them. A kernel that makes
//! such a result computes each piece into a small buffer that stays in cache, and
//! `write_in_pieces` moves it on: writing 64 MiB this way took 4.3 ms on an AVX2 Zen
//! here, against 9.2 ms with normal stores (measured when pieces were still copied
//! whole). For a result that fits in cache the next op would rather find it there, so
//! small results take normal stores.

use std::mem::MaybeUninit;

use super::cache::LINE;
use super::isa::Isa;
use crate::tensor::Elem;

/// Results of at least this many bytes are written with streaming stores (more than
/// the last-level cache of the CPUs tsr runs on holds for one core).
pub const STREAM_MIN_BYTES: usize = 16 << 20;

/// Writes `out` piece by piece through `scratch`, a buffer that stays in cache:
/// `fill(start, buf)` computes the values `start..start + buf.len()` of `out` (pieces of
/// `piece` values, the last one shorter) into the buffer, which is then copied out —
/// with streaming stores when `stream` is set and the ISA has them — up to the start of
/// the cache line of `out` it ends in; the values from there on wait in the buffer for
/// the next piece. Copied whole, each piece ending inside a line left that line written
/// partly by normal stores (which first read it from memory) and partly by streaming
/// ones: 16M f32 in pieces of 4096 into memory 16 bytes past a line start (where the
/// allocator puts large buffers) took 4.6–5.1 ms that way, 3.8–4.0 with the carry,
/// 3.5–3.6 into line-aligned memory (a harness on the AVX2 Zen 3 here, best–median of
/// 40). Only the ends of `out` share lines with other writers. The streaming stores are
/// fenced before this returns, so they are ordered before the caller's later stores.
pub fn write_in_pieces<T: Elem>(
    isa: Isa,
    stream: bool,
    out: &mut [MaybeUninit<T>],
    piece: usize,
    scratch: &mut Vec<T>,
    mut fill: impl FnMut(usize, &mut [T]),
) {
    let piece = piece.clamp(1, out.len().max(1));
    scratch.resize(piece + LINE / std::mem::size_of::<T>(), T::default());
    let copy = CopyOut::new(isa, stream);
    // Values computed but not yet copied out: the buffer's first `carried`.
    let mut carried = 0;
    for start in (0..out.len()).step_by(piece) {
        let len = piece.min(out.len() - start);
        fill(start, &mut scratch[carried..carried + len]);
        let (from, ready) = (start - carried, carried + len);
        let cut = match out.get(start + len) {
            Some(next) => ready - values_into_line(next.as_ptr()).min(ready),
            None => ready,
        };
        copy.copy(&scratch[..cut], &mut out[from..from + cut]);
        scratch.copy_within(cut..ready, 0);
        carried = ready - cut;
    }
}

/// How many values lie between the start of `at`'s cache line and `at` (fewer than a
/// line holds: element types' sizes divide a line and their addresses are multiples of
/// their size).
fn values_into_line<T: Elem>(at: *const T) -> usize {
    at as usize % LINE / std::mem::size_of::<T>()
}

/// Copies pieces of a result out, from one thread. Streaming stores are weakly
/// ordered, so dropping the `CopyOut` fences them: the copies are visible to other
/// threads once it is gone. One fence per run of copies rather than per copy: writing
/// 64 MiB in 16 KiB pieces took 3.4–3.6 ms with a fence after each piece and 2.4 ms
/// with one per 256 KiB (a C harness on an AVX-512 Zen 4 here).
struct CopyOut {
    stream: bool,
}

impl CopyOut {
    /// Streaming stores when `stream` is set and the ISA allows them (AVX2 machines),
    /// else normal ones.
    fn new(isa: Isa, stream: bool) -> CopyOut {
        CopyOut {
            stream: stream && isa.avx2(),
        }
    }

    /// Copies `src` into `dst`, writing the first `min(src.len(), dst.len())` elements
    /// (callers pass equal lengths).
    fn copy<T: Copy>(&self, src: &[T], dst: &mut [MaybeUninit<T>]) {
        let n = src.len().min(dst.len());
        let (src, dst) = (&src[..n], &mut dst[..n]);
        if self.stream {
            // SAFETY: `stream` is set only when the ISA has AVX2 (and AVX), and an
            // `Isa` with AVX2 exists only on a CPU that has it.
            #[cfg(target_arch = "x86_64")]
            return unsafe { x86::stream(src, dst) };
        }
        for (d, &s) in dst.iter_mut().zip(src) {
            d.write(s);
        }
    }
}

impl Drop for CopyOut {
    fn drop(&mut self) {
        if self.stream {
            // SAFETY: every x86-64 CPU has SSE, whose fence this is.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                std::arch::x86_64::_mm_sfence()
            };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;

    /// Streaming stores need 32-byte aligned addresses.
    const ALIGN: usize = 32;

    /// `CopyOut::copy` with streaming stores: normal stores up to the first 32-byte
    /// aligned address and after the last whole 32 bytes, streaming ones between. Not
    /// visible to other threads before an `sfence` (`CopyOut`'s drop).
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
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `write_in_pieces` into `dst[start..start + len]` with `value(i)` for index `i`
    /// (never zero); checks every value, that nothing outside was touched and that
    /// `fill` saw the pieces in order.
    fn check_pieces<T: Elem>(
        value: impl Fn(usize) -> T,
        isa: Isa,
        stream: bool,
        (start, len, piece): (usize, usize, usize),
    ) {
        let mut dst = [MaybeUninit::new(T::default()); 1100];
        let (mut scratch, mut calls) = (Vec::new(), Vec::new());
        let out = &mut dst[start..start + len];
        write_in_pieces(isa, stream, out, piece, &mut scratch, |at, buf| {
            calls.push((at, buf.len()));
            for (i, b) in buf.iter_mut().enumerate() {
                *b = value(at + i);
            }
        });
        let unit = piece.clamp(1, len.max(1));
        let want: Vec<_> = (0..len)
            .step_by(unit)
            .map(|at| (at, unit.min(len - at)))
            .collect();
        let case = format!("{isa:?} {stream} {start} {len} {piece}");
        assert_eq!(calls, want, "{case}");
        for (i, d) in dst.iter().enumerate() {
            // SAFETY: the whole array was initialized.
            let got = unsafe { d.assume_init() };
            let inside = (start..start + len).contains(&i);
            let want = if inside {
                value(i - start)
            } else {
                T::default()
            };
            assert_eq!(got, want, "{case} at {i}");
        }
    }

    #[test]
    fn pieces_write_every_value_at_any_alignment_length_and_piece() {
        for isa in Isa::supported() {
            for stream in [false, true] {
                for start in 0..70 {
                    for len in [0, 1, 15, 16, 17, 63, 64, 65, 300, 1000 - start] {
                        for piece in [0, 1, 3, 16, 64, 100, 256, 5000] {
                            let shape = (start, len, piece);
                            check_pieces(|i| (i * 7 % 255 + 1) as u8, isa, stream, shape);
                            check_pieces(|i| i as u32 * 3 + 1, isa, stream, shape);
                            check_pieces(|i| i as u64 * 5 + 1, isa, stream, shape);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn values_into_line_reach_back_to_the_line_start() {
        fn check<T: Elem>() {
            let xs = [T::default(); 64];
            let size = std::mem::size_of::<T>();
            for x in &xs {
                let back = values_into_line(std::ptr::from_ref(x));
                assert!(back < LINE / size);
                assert_eq!((x as *const T as usize - back * size) % LINE, 0);
            }
        }
        check::<u8>();
        check::<u16>();
        check::<f32>();
        check::<f64>();
    }

    #[test]
    fn copies_every_element_at_any_alignment_and_length() {
        let src: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5 - 7.0).collect();
        let bytes: Vec<u8> = (0..1000).map(|i| (i * 7) as u8).collect();
        for isa in Isa::supported() {
            for stream in [false, true] {
                for start in 0..9 {
                    for len in [0, 1, 7, 8, 9, 31, 64, 100, 991 - start] {
                        let mut dst = vec![MaybeUninit::new(f32::NAN); 1000];
                        CopyOut::new(isa, stream).copy(&src[..len], &mut dst[start..start + len]);
                        for (i, d) in dst[start..start + len].iter().enumerate() {
                            // SAFETY: the whole vector was initialized with NaN.
                            assert_eq!(unsafe { d.assume_init() }.to_bits(), src[i].to_bits());
                        }
                        let mut dst = vec![MaybeUninit::new(0u8); 1000];
                        let copy = CopyOut::new(isa, stream);
                        copy.copy(&bytes[..len], &mut dst[start..start + len]);
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

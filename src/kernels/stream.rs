//! Results too large to stay in cache, written with stores that bypass it.
//!
//! A normal store to memory that is not in cache first reads the line (to merge the
//! write into it), so writing a 64 MiB result moves 128 MiB; a streaming
//! (non-temporal) store writes whole lines without reading them. A kernel that makes
//! such a result computes each piece into a small buffer that stays in cache, and
//! `write_in_pieces` moves it on: writing 64 MiB this way took 4.3 ms on an AVX2 Zen
//! here, against 9.2 ms with normal stores. For a result that fits in cache the next op
//! would rather find it there, so small results take normal stores.

use std::mem::MaybeUninit;

use super::isa::Isa;

/// Results of at least this many bytes are written with streaming stores (more than
/// the last-level cache of the CPUs tsr runs on holds for one core).
pub const STREAM_MIN_BYTES: usize = 16 << 20;

/// Bytes of a cache line, the unit streaming stores combine into.
const LINE: usize = 64;

/// Writes `out` piece by piece through `scratch`, a buffer that stays in cache:
/// `fill(start, buf)` computes the values `start..start + buf.len()` of `out` (pieces of
/// `piece` values, the last one shorter) into the buffer, which is then copied out —
/// with streaming stores when `stream` is set and the ISA has them — up to the last
/// whole cache line of `out` it reaches; the values past that line's start wait in the
/// buffer for the next piece. A piece ending inside a line would leave that line half
/// streamed and half stored normally by the next piece, and the normal store waits for
/// the streamed half to reach memory and the line to come back: 16M f32 in pieces of
/// 4096 into memory 16 bytes past a line start (where the allocator puts large
/// buffers) took 4.6–5.1 ms that way, 3.8–4.0 with the carry, 3.5–3.6 line-aligned (a
/// harness on the AVX2 Zen 3 here, best–median of 40). Values written in one call are
/// visible to other threads when it returns (one fence at the end).
pub fn write_in_pieces<T: Copy + Default>(
    isa: Isa,
    stream: bool,
    out: &mut [MaybeUninit<T>],
    piece: usize,
    scratch: &mut Vec<T>,
    mut fill: impl FnMut(usize, &mut [T]),
) {
    let piece = piece.max(1);
    let size = std::mem::size_of::<T>();
    // Values a line holds; a type that does not divide a line carries nothing.
    let per_line = if size > 0 && LINE.is_multiple_of(size) {
        LINE / size
    } else {
        1
    };
    scratch.resize(piece + per_line, T::default());
    let copy = CopyOut::new(isa, stream);
    let (mut carried, mut written) = (0, 0);
    for start in (0..out.len()).step_by(piece) {
        let len = piece.min(out.len() - start);
        fill(start, &mut scratch[carried..carried + len]);
        let ready = carried + len;
        let end = written + ready;
        let cut = if end == out.len() {
            ready
        } else {
            // Back to the start of the line holding `out[end]`, or to the first value
            // in the buffer when the line began before it.
            let into_line = match per_line {
                1 => 0,
                _ => out[end..].as_ptr() as usize % LINE / size,
            };
            ready - into_line.min(ready)
        };
        copy.copy(&scratch[..cut], &mut out[written..written + cut]);
        scratch.copy_within(cut..ready, 0);
        (carried, written) = (ready - cut, written + cut);
    }
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

    /// `write_in_pieces` into `dst[start..start + len]` with value `i` for index `i`;
    /// checks every value and that `fill` saw the pieces in order.
    fn check_pieces<T: Copy + Default + PartialEq + std::fmt::Debug>(
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
        let want: Vec<_> = (0..len)
            .step_by(piece)
            .map(|at| (at, piece.min(len - at)))
            .collect();
        assert_eq!(calls, want, "{isa:?} {stream} {start} {len} {piece}");
        for (i, d) in dst[start..start + len].iter().enumerate() {
            // SAFETY: the whole vector was initialized.
            let got = unsafe { d.assume_init() };
            assert_eq!(
                got,
                value(i),
                "{isa:?} {stream} {start} {len} {piece} at {i}"
            );
        }
    }

    #[test]
    fn pieces_write_every_value_at_any_alignment_length_and_piece() {
        for isa in Isa::supported() {
            for stream in [false, true] {
                for start in 0..70 {
                    for len in [0, 1, 15, 16, 17, 63, 64, 65, 300, 1000 - start] {
                        for piece in [1, 3, 16, 64, 100, 256] {
                            let shape = (start, len, piece);
                            check_pieces(|i| i as f32 * 0.25 - 9.0, isa, stream, shape);
                            check_pieces(|i| (i * 7) as u8, isa, stream, shape);
                        }
                    }
                }
            }
        }
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

//! Dequantization of every GGML type tsr reads to f32, bit for bit as ggml's reference
//! dequantizers compute it (each multiply and subtract rounded to f32 in ggml's order,
//! never fused). Parallel over fixed chunks of blocks; on x86-64 the same code is also
//! compiled for AVX2 (plain multiplies and subtracts vectorize to the same bits).

use std::mem::MaybeUninit;

use super::{dense, legacy, low_k, q4_k, q5_k, q6_k, q8_0, q8_k, QType};
use crate::kernels::alloc::filled;
use crate::kernels::isa::Isa;
use crate::kernels::parallel::{for_each_chunk_mut, for_each_chunk_mut_with};
use crate::kernels::stream::{write_in_pieces, STREAM_MIN_BYTES};
use crate::kernels::twin::twin;

/// Runs the block function `$f` over the whole blocks of `$src`, writing `$dst`.
/// (A macro rather than a generic function so that `$f` is inlined into the AVX2 copy.)
macro_rules! each {
    ($src:expr, $dst:expr, $f:path) => {
        for (b, o) in $src.as_chunks().0.iter().zip($dst.as_chunks_mut().0) {
            $f(b, o);
        }
    };
}
pub(super) use each;

/// Elements per parallel work item (whole blocks of every type).
const CHUNK: usize = 1 << 16;
/// Elements a work item dequantizes into its cached buffer at a time (whole blocks of
/// every type; a divisor of `CHUNK`).
const PIECE: usize = 1 << 12;

/// Checks that `bytes` hold exactly `n` elements of `qtype`.
pub fn check_len(op: &str, qtype: QType, bytes: usize, n: usize) -> Result<(), String> {
    match qtype.bytes_for(n) {
        None => Err(format!(
            "{op}: {n} elements are not a whole number of {} blocks of {}",
            qtype.name(),
            qtype.block_len()
        )),
        Some(want) if want != bytes => Err(format!(
            "{op}: {n} {} elements take {want} bytes, but the data has {bytes}",
            qtype.name()
        )),
        Some(_) => Ok(()),
    }
}

/// The `n` values stored in `bytes` as `qtype`, as f32.
pub fn dequantize(bytes: &[u8], qtype: QType, n: usize) -> Result<Vec<f32>, String> {
    check_len("dequantize", qtype, bytes.len(), n)?;
    let isa = Isa::detect();
    // Each piece is dequantized in cache, then copied out: a large result with
    // streaming stores. 16M Q4_K values on an AVX2 Zen (1 thread, benches/compare
    // medians of three runs) took 18.8 ms zeroing the whole buffer first, 15.4 zeroing
    // each chunk in cache, 11.7 streamed; on the AVX2 Zen 3 of 2026-12-06 (1 thread,
    // medians of 400 calls, three alternating runs) 6.3–6.8 ms streamed in whole
    // pieces, 4.0–4.3 cut at cache lines (`write_in_pieces`).
    let stream = n * std::mem::size_of::<f32>() >= STREAM_MIN_BYTES;
    let fill = |out: &mut [MaybeUninit<f32>]| {
        for_each_chunk_mut_with(out, CHUNK, Vec::new, |scratch, start, o| {
            write_in_pieces(isa, stream, o, PIECE, scratch, |at, piece| {
                dequantize_values(isa, qtype, bytes, start + at, piece)
            })
        })
    };
    // SAFETY: `write_in_pieces` writes every value of each work item's part.
    let out = unsafe { filled(n, fill) };
    out.ok_or_else(|| format!("dequantize: cannot allocate {n} f32 values"))
}

/// Dequantizes `bytes` (whole blocks of `qtype`) into `out`, which must hold exactly
/// the number of values they encode.
pub fn dequantize_into(bytes: &[u8], qtype: QType, out: &mut [f32]) -> Result<(), String> {
    check_len("dequantize", qtype, bytes.len(), out.len())?;
    let isa = Isa::detect();
    for_each_chunk_mut(out, CHUNK, |start, o| {
        dequantize_values(isa, qtype, bytes, start, o)
    });
    Ok(())
}

/// The values `start..start + out.len()` of `bytes` into `out`; `start` and the length
/// are whole blocks, and the caller has checked that `bytes` holds them.
fn dequantize_values(isa: Isa, qtype: QType, bytes: &[u8], start: usize, out: &mut [f32]) {
    let (bl, bb) = (qtype.block_len(), qtype.block_bytes());
    let first = start / bl * bb;
    let last = (first + out.len() / bl * bb).min(bytes.len());
    dequantize_blocks(isa, qtype, &bytes[first..last], out);
}

twin! {
    /// Dequantizes the whole blocks in `bytes` into `out` (as many as both hold), on
    /// this thread. The caller has checked the lengths.
    pub fn dequantize_blocks[](qtype: QType, bytes: &[u8], out: &mut [f32]) {
        blocks(qtype, bytes, out)
    }
}

#[inline(always)]
fn blocks(qtype: QType, bytes: &[u8], out: &mut [f32]) {
    match qtype {
        QType::Q4_0 => each!(bytes, out, legacy::dequantize_q4_0),
        QType::Q4_1 => each!(bytes, out, legacy::dequantize_q4_1),
        QType::Q5_0 => each!(bytes, out, legacy::dequantize_q5_0),
        QType::Q5_1 => each!(bytes, out, legacy::dequantize_q5_1),
        QType::Q8_0 => each!(bytes, out, q8_0::dequantize),
        QType::Q8_1 => each!(bytes, out, legacy::dequantize_q8_1),
        QType::Q2K => each!(bytes, out, low_k::dequantize_q2_k),
        QType::Q3K => each!(bytes, out, low_k::dequantize_q3_k),
        QType::Q4K => each!(bytes, out, q4_k::dequantize),
        QType::Q5K => each!(bytes, out, q5_k::dequantize),
        QType::Q6K => each!(bytes, out, q6_k::dequantize),
        QType::Q8K => each!(bytes, out, q8_k::dequantize),
        QType::F32
        | QType::F16
        | QType::BF16
        | QType::F64
        | QType::I8
        | QType::I16
        | QType::I32
        | QType::I64 => {
            dense::to_f32(qtype, bytes, out);
        }
    }
}

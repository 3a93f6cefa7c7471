//! Quantization of f32 values, byte for byte as ggml's reference quantizers
//! (`quantize_row_*_ref`, no importance matrix). Blocks are independent, so the work is
//! split in fixed chunks of blocks and the bytes do not depend on the thread count; on
//! x86-64 the same code is also compiled for AVX2 (no fused multiply-adds, so the
//! vectorized searches give the same bits).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::dequant::each;
use super::{dense, legacy, q4_k, q5_k, q6_k, q8_0, q8_k, QType};
use crate::kernels::isa::Isa;
use crate::kernels::parallel::for_each_chunk_mut;
use crate::kernels::twin::twin;

/// Values per parallel work item (whole blocks of every type).
const CHUNK: usize = 4096;

/// The types `quantize` writes.
pub const QUANTIZABLE: [QType; 13] = [
    QType::F32,
    QType::F16,
    QType::BF16,
    QType::Q4_0,
    QType::Q4_1,
    QType::Q5_0,
    QType::Q5_1,
    QType::Q8_0,
    QType::Q8_1,
    QType::Q4K,
    QType::Q5K,
    QType::Q6K,
    QType::Q8K,
];

/// `x` quantized to `qtype`: whole blocks, in order. Errors name an unsupported type or
/// a length that is not a whole number of blocks.
pub fn quantize(x: &[f32], qtype: QType) -> Result<Vec<u8>, String> {
    quantize_reporting(x, qtype, &|_, _| {})
}

/// [`quantize`], calling `progress(done, total)` (values quantized so far, of all)
/// from the worker threads as each fixed chunk is finished. The bytes are the same.
pub fn quantize_reporting(
    x: &[f32],
    qtype: QType,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<u8>, String> {
    quantize_with(Isa::detect(), x, qtype, progress)
}

pub(crate) fn quantize_with(
    isa: Isa,
    x: &[f32],
    qtype: QType,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<u8>, String> {
    if !QUANTIZABLE.contains(&qtype) {
        let names: Vec<&str> = QUANTIZABLE.iter().map(|t| t.name()).collect();
        return Err(format!(
            "quantize: cannot quantize to {} (supported: {})",
            qtype.name(),
            names.join(", ")
        ));
    }
    let nbytes = qtype.bytes_for(x.len()).ok_or_else(|| {
        format!(
            "quantize: {} values are not a whole number of {} blocks of {}",
            x.len(),
            qtype.name(),
            qtype.block_len()
        )
    })?;
    // Huge pages for a large result: the dot products stream these bytes, and with
    // 4 KiB pages a Q6_K 4096² matvec ran 2.75 ms against 2.0 in a kernel harness here
    // (page walks cost more in a virtual machine).
    let mut out = crate::kernels::alloc::zeroed::<u8>(nbytes)
        .ok_or_else(|| format!("quantize: cannot allocate {nbytes} bytes"))?;
    let chunk_bytes = CHUNK / qtype.block_len() * qtype.block_bytes();
    let done = AtomicUsize::new(0);
    for_each_chunk_mut(&mut out, chunk_bytes, |start, o| {
        let first = start / chunk_bytes * CHUNK;
        let chunk = &x[first..(first + CHUNK).min(x.len())];
        quantize_blocks(isa, qtype, chunk, o);
        let d = done.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len();
        progress(d, x.len());
    });
    Ok(out)
}

/// Quantizes the whole blocks of `x` into `out` on this thread (a row of activations).
pub fn quantize_blocks(isa: Isa, qtype: QType, x: &[f32], out: &mut [u8]) {
    // LLVM vectorizes Q6_K's AVX-512 build with scatters (most of its time in a
    // profile): it took 38–43 ms for 1M values on an AVX-512 Zen 4 here, the AVX2
    // build 15.4.
    let isa = match qtype {
        QType::Q6K => isa.at_most_avx2(),
        _ => isa,
    };
    blocks_on(isa, qtype, x, out)
}

twin! {
    fn blocks_on[](qtype: QType, x: &[f32], out: &mut [u8]) {
        blocks(qtype, x, out)
    }
}

#[inline(always)]
fn blocks(qtype: QType, x: &[f32], out: &mut [u8]) {
    match qtype {
        QType::Q4_0 => each!(x, out, legacy::quantize_q4_0),
        QType::Q4_1 => each!(x, out, legacy::quantize_q4_1),
        QType::Q5_0 => each!(x, out, legacy::quantize_q5_0),
        QType::Q5_1 => each!(x, out, legacy::quantize_q5_1),
        QType::Q8_0 => each!(x, out, q8_0::quantize),
        QType::Q8_1 => each!(x, out, legacy::quantize_q8_1),
        QType::Q4K => each!(x, out, q4_k::quantize),
        QType::Q5K => each!(x, out, q5_k::quantize),
        QType::Q6K => each!(x, out, q6_k::quantize),
        QType::Q8K => each!(x, out, q8_k::quantize),
        _ => {
            dense::from_f32(qtype, x, out);
        }
    }
}

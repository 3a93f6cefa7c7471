//! `x @ w.T` for f32 activations x [..., K] and a quantized weight w [N, K] (GGML's
//! layout), without dequantizing the whole weight:
//!
//! * a weight type with a fused kernel: each activation row is quantized once to
//!   ggml's `vec_dot_type` (Q8_K or Q8_0) and every output is an integer dot product of
//!   two quantized rows — for every batch size, as ggml does, so an output never
//!   depends on the other rows of the batch (the SIMD kernels work in tiles of weight
//!   rows by activation rows, each output with the bits of its own dot product);
//! * other types: tiles of weight rows are dequantized into a small f32 buffer (K in
//!   chunks of `KC`) and multiplied with the blocked f32 GEMM (each output one dot
//!   product in a fixed order, again independent of the batch).
//!
//! Work is split over output columns (weight rows) in fixed chunks, and each output is
//! computed by one thread in a fixed order: results do not depend on the thread count.

use std::sync::OnceLock;

use super::dequant::dequantize_blocks;
use super::quantize::quantize_blocks;
use super::vec_dot::{vec_dot_rows, vec_dot_type, ActivationRows};
use super::QTensor;
use crate::kernels::isa::Isa;
use crate::kernels::linalg::gemm_nt::gemm_nt;
use crate::kernels::parallel::{for_each_chunk_mut, for_each_chunk_mut_with};
use crate::kernels::transpose::transpose;
use crate::tensor::{DType, Tensor};

/// Weight rows per parallel work item in the fused path.
const DOT_ROWS: usize = 16;
/// Weight rows per tile in the GEMM path (a multiple of the GEMM's 3-row register tile).
const TILE_ROWS: usize = 24;
/// K values per dequantized tile (a multiple of every block length).
const KC: usize = 1024;

/// `x @ w.T`: x is f32 (other float dtypes are converted) with shape [..., K], w is a
/// quantized [N, K] weight; the result is f32 [..., N].
pub fn matmul_f32_q(x: &Tensor, w: &QTensor) -> Result<Tensor, String> {
    matmul_with(Isa::detect(), x, w)
}

pub(crate) fn matmul_with(isa: Isa, x: &Tensor, w: &QTensor) -> Result<Tensor, String> {
    w.check()?;
    let &[n, k] = w.shape.as_slice() else {
        return Err(format!(
            "matmul: a quantized weight must be 2-d [N, K], got shape {:?}",
            w.shape
        ));
    };
    let Some((&xk, lead)) = x.shape().split_last() else {
        return Err("matmul: x must have at least one dimension".to_string());
    };
    if xk != k {
        return Err(format!(
            "matmul: x has {xk} values per row but the {} weight [{n}, {k}] has rows of {k}",
            w.qtype.name()
        ));
    }
    if !x.dtype().is_float() {
        return Err(format!(
            "matmul: x must be a float tensor, got {}",
            x.dtype().name()
        ));
    }
    let mut shape = lead.to_vec();
    shape.push(n);
    crate::tensor::budget::check("matmul", &shape, DType::F32).map_err(|e| e.to_string())?;
    // Cannot overflow: the whole shape's count passed the budget.
    let m: usize = lead.iter().product();
    let xc = x.to_dtype(DType::F32).contiguous();
    let xs = xc
        .storage_slice::<f32>()
        .filter(|xs| xs.len() == m * k)
        .ok_or("matmul: x converted to f32 does not hold its shape's values")?;
    let mut out_t = vec![0f32; n * m];
    if n > 0 && m > 0 {
        let wdata = w.data.as_slice();
        match vec_dot_type(w.qtype) {
            Some(at) => fused(isa, w, at, xs, m, k, &mut out_t)?,
            _ => tiled(isa, w, (xs, m, k), wdata, &mut out_t)?,
        }
    }
    let out = if m == 1 {
        out_t
    } else {
        // The shared parallel, tiled transpose: an element-by-element serial loop here
        // held a 32-row Q4_K matmul of [4096, 4096] at 2.66 ms on two threads, against
        // 2.22 ms with it (Intel Xeon of docs/PERFORMANCE.md, session 47).
        transpose(&out_t, n, m)
    };
    Tensor::from_vec(out, &shape).map_err(|e| e.to_string())
}

/// Integer dot products of quantized rows; `out_t` is [n, m].
fn fused(
    isa: Isa,
    w: &QTensor,
    at: super::QType,
    xs: &[f32],
    m: usize,
    k: usize,
    out_t: &mut [f32],
) -> Result<(), String> {
    let abytes = at
        .bytes_for(k)
        .ok_or_else(|| format!("matmul: rows of {k} are not whole {} blocks", at.name()))?;
    let wbytes = w.qtype.bytes_for(k).ok_or_else(|| {
        format!(
            "matmul: rows of {k} are not whole {} blocks",
            w.qtype.name()
        )
    })?;
    let mut aq = vec![0u8; m * abytes];
    // One activation row per chunk.
    for_each_chunk_mut(&mut aq, abytes, |start, o| {
        let row = start / abytes.max(1) * k;
        quantize_blocks(isa, at, &xs[row..row + k], o)
    });
    // Prepared for the Q8_0 kernels once, for every chunk of weight rows, from two
    // activation rows (one takes the single-row dots): for the AVX2 tile, the scales
    // as f32 and the whole pairs' quants in groups of rows (about 1⅛ bytes per value)
    // or, with VNNI, the packed pairs of blocks (about 3 bytes per value, ¾ of the f32
    // activations' size), on top of the quantized rows' 1.06.
    let acts = ActivationRows::new(isa, w.qtype, (&aq, abytes));
    let wdata = w.data.as_slice();
    for_each_chunk_mut(out_t, DOT_ROWS * m, |start, oc| {
        let wc = &wdata[start / m * wbytes..][..oc.len() / m * wbytes];
        vec_dot_rows(isa, w.qtype, (wc, wbytes), &acts, oc);
    });
    Ok(())
}

/// Dequantized weight tiles times the activations with the f32 GEMM; `out_t` is [n, m].
fn tiled(
    isa: Isa,
    w: &QTensor,
    (xs, m, k): (&[f32], usize, usize),
    wdata: &[u8],
    out_t: &mut [f32],
) -> Result<(), String> {
    let (bl, bb) = (w.qtype.block_len(), w.qtype.block_bytes());
    let wbytes = k / bl * bb;
    // The first shape error of a tile (none unless the tiling above is wrong).
    let failed = OnceLock::new();
    for_each_chunk_mut_with(
        out_t,
        TILE_ROWS * m,
        || vec![0f32; TILE_ROWS * KC],
        |buf, start, oc| {
            let rows = oc.len() / m;
            let wc = &wdata[start / m * wbytes..][..rows * wbytes];
            for k0 in (0..k).step_by(KC) {
                let kl = KC.min(k - k0);
                let (b0, b1) = (k0 / bl * bb, (k0 + kl) / bl * bb);
                for (wrow, dst) in wc.chunks_exact(wbytes.max(1)).zip(buf.chunks_exact_mut(kl)) {
                    dequantize_blocks(isa, w.qtype, &wrow[b0..b1], dst);
                }
                if let Err(e) = gemm_nt(isa, (&xs[k0..], k, m), (buf, kl, rows), kl, oc, m) {
                    let _ = failed.set(e);
                }
            }
        },
    );
    failed.into_inner().map_or(Ok(()), Err)
}

//! The tensor-level API of `QTensor`: quantize a tensor, dequantize it (also straight
//! into the transposed [K, N] layout), sizes and validation.

use super::dequant::{check_len, dequantize, dequantize_blocks};
use super::quantize::quantize_reporting;
use super::{QBytes, QTensor, QType};
use crate::kernels::isa::Isa;
use crate::kernels::parallel::for_each_chunk_mut_with;
use crate::tensor::Tensor;

/// Output rows (K values) per parallel work item of `dequantize_transposed`.
const T_ROWS: usize = 256;
/// Weight rows dequantized together before being scattered into columns.
const T_COLS: usize = 16;

impl QTensor {
    /// A quantized tensor over `data`, checked to hold exactly `shape`'s elements.
    pub fn new(qtype: QType, shape: Vec<usize>, data: QBytes) -> Result<QTensor, String> {
        let t = QTensor { qtype, shape, data };
        t.check()?;
        Ok(t)
    }

    /// Elements (the product of the shape), or None when it overflows.
    pub fn numel(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }

    /// Bytes of quantized data.
    pub fn nbytes(&self) -> usize {
        self.data.as_slice().len()
    }

    /// Checks that the rows are whole blocks and the data has exactly the bytes the shape
    /// needs.
    pub fn check(&self) -> Result<(), String> {
        let row = self.shape.last().copied().unwrap_or(1);
        if !row.is_multiple_of(self.qtype.block_len()) {
            return Err(format!(
                "quantized tensor: rows of {row} are not a whole number of {} blocks of {}",
                self.qtype.name(),
                self.qtype.block_len()
            ));
        }
        let n = self.numel().ok_or_else(|| {
            format!(
                "quantized tensor: shape {:?} has too many elements",
                self.shape
            )
        })?;
        check_len("quantized tensor", self.qtype, self.nbytes(), n)
    }

    /// `t` (any dtype, converted to f32) quantized to `qtype` row by row; the last
    /// dimension must be a whole number of blocks.
    pub fn quantize(t: &Tensor, qtype: QType) -> Result<QTensor, String> {
        QTensor::quantize_reporting(t, qtype, &|_, _| {})
    }

    /// [`QTensor::quantize`], reporting progress as `quantize_reporting` does.
    pub fn quantize_reporting(
        t: &Tensor,
        qtype: QType,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<QTensor, String> {
        let row = t.shape().last().copied().unwrap_or(1);
        if !row.is_multiple_of(qtype.block_len()) {
            return Err(format!(
                "quantize: the last dimension ({row}) must be a multiple of the {} block size {}",
                qtype.name(),
                qtype.block_len()
            ));
        }
        let bytes = quantize_reporting(&t.to_vec::<f32>(), qtype, progress)?;
        Ok(QTensor {
            qtype,
            shape: t.shape().to_vec(),
            data: QBytes::Owned(bytes.into()),
        })
    }

    /// The values as an f32 tensor of the same shape.
    pub fn dequantize(&self) -> Result<Tensor, String> {
        self.check()?;
        let n = self.numel().unwrap_or(0);
        let values = dequantize(self.data.as_slice(), self.qtype, n)?;
        Tensor::from_vec(values, &self.shape).map_err(|e| e.to_string())
    }

    /// For a 2-d [N, K] weight, the f32 [K, N] tensor `w.T`, written directly in that
    /// layout (tiles of rows are dequantized and scattered into columns).
    pub fn dequantize_transposed(&self) -> Result<Tensor, String> {
        self.check()?;
        let &[n, k] = self.shape.as_slice() else {
            return Err(format!(
                "dequantize_transposed: expected a 2-d [N, K] tensor, got shape {:?}",
                self.shape
            ));
        };
        let mut out = vec![0f32; k * n];
        if n > 0 && k > 0 {
            let (bl, bb) = (self.qtype.block_len(), self.qtype.block_bytes());
            let row_bytes = k / bl * bb;
            let (isa, qtype, data) = (Isa::detect(), self.qtype, self.data.as_slice());
            for_each_chunk_mut_with(
                &mut out,
                T_ROWS * n,
                || vec![0f32; T_COLS * T_ROWS],
                |buf, start, oc| {
                    let k0 = start / n;
                    let kl = oc.len() / n;
                    let (b0, b1) = (k0 / bl * bb, (k0 + kl) / bl * bb);
                    for (tj, tile) in data.chunks(T_COLS * row_bytes).enumerate() {
                        let rows = tile.len() / row_bytes;
                        for (wrow, dst) in
                            tile.chunks_exact(row_bytes).zip(buf.chunks_exact_mut(kl))
                        {
                            dequantize_blocks(isa, qtype, &wrow[b0..b1], dst);
                        }
                        for (kk, orow) in oc.chunks_exact_mut(n).enumerate() {
                            let col = &mut orow[tj * T_COLS..tj * T_COLS + rows];
                            for (r, o) in col.iter_mut().enumerate() {
                                *o = buf[r * kl + kk];
                            }
                        }
                    }
                },
            );
        }
        Tensor::from_vec(out, &[k, n]).map_err(|e| e.to_string())
    }
}

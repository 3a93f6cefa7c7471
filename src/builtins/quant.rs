//! Quantized tensors: `quantize`, `dequantize`, and the fused `x @ q.T` product.

use std::rc::Rc;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::progress::Progress;
use crate::quant::{QTensor, QType, QUANTIZABLE};
use crate::runtime::value::{QuantValue, Value};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "quantize",
        params: &["x", "qtype"],
        doc: "x quantized row by row to a GGML type (\"q4_k\", \"q5_k\", \"q6_k\", \"q8_0\", ...), byte-exact with ggml's reference quantizer.",
        func: quantize,
    },
    Builtin {
        name: "dequantize",
        params: &["q", "transpose=false"],
        doc: "The f32 values of a quantized tensor (bit-exact with ggml); transpose=true writes a [N, K] weight as [K, N] directly.",
        func: dequantize,
    },
];

fn quant_arg(a: &Bound, i: usize) -> Result<&QuantValue, Diagnostic> {
    match &a.req(i)?.value {
        Value::Quant(q) => Ok(q),
        other => Err(a.arg_err(
            i,
            format!("expected a quantized tensor, got {}", other.describe()),
        )),
    }
}

fn quantize(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let name = a.string(1)?;
    let qtype = QType::from_name(&name)
        .filter(|t| QUANTIZABLE.contains(t))
        .ok_or_else(|| {
            let names: Vec<&str> = QUANTIZABLE.iter().map(|t| t.name()).collect();
            a.arg_err(
                1,
                format!("cannot quantize to \"{name}\"; types: {}", names.join(", ")),
            )
        })?;
    let progress = Progress::new("quantize");
    let q = QTensor::quantize_reporting(&x, qtype, &|done, total| progress.update(done, total))
        .map_err(|e| a.arg_err(0, e))?;
    Ok(Value::Quant(QuantValue {
        q: Rc::new(q),
        transposed: false,
    }))
}

fn dequantize(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let q = quant_arg(&a, 0)?;
    let transpose = a.bool_or(1, false)? != q.transposed;
    let t = if transpose {
        q.q.dequantize_transposed()
    } else {
        q.q.dequantize()
    };
    t.map(Value::from).map_err(|e| a.arg_err(0, e))
}

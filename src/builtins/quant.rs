//! Quantized tensors: `quantize`, `dequantize`, and the fused `x @ q.T` product.

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::progress::Progress;
use crate::quant::{QTensor, QType, QUANTIZABLE};
use crate::runtime::value::{QuantValue, Value};
use crate::runtime::{builtin, Arg, FromArg};
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "quantize",
        doc: "x quantized row by row to a GGML type (\"q4_k\", \"q5_k\", \"q6_k\", \"q8_0\", ...), byte-exact with ggml's reference quantizer.",
        fn(_, a; x: Tensor, qtype: String) {
            quantize(&a, &x, &qtype)
        }
    },
    builtin! {
        name: "dequantize",
        doc: "The f32 values of a quantized tensor (bit-exact with ggml); transpose=true writes a [N, K] weight as [K, N] directly.",
        fn(_, a; q: Quantized, transpose: bool = false) {
            let q = q.0;
            let t = if transpose != q.transposed {
                q.q.dequantize_transposed()
            } else {
                q.q.dequantize()
            };
            t.map(Value::from).map_err(|e| a.arg_err("q", e))
        }
    },
];

/// A quantized tensor argument.
struct Quantized<'a>(&'a QuantValue);

impl<'a> FromArg<'a> for Quantized<'a> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.value()? {
            Value::Quant(q) => Ok(Quantized(q)),
            other => Err(arg.err(format!(
                "expected a quantized tensor, got {}",
                other.describe()
            ))),
        }
    }
}

fn quantize(a: &Bound, x: &Tensor, name: &str) -> Result<Value, Diagnostic> {
    let qtype = QType::from_name(name)
        .filter(|t| QUANTIZABLE.contains(t))
        .ok_or_else(|| {
            let names: Vec<&str> = QUANTIZABLE.iter().map(|t| t.name()).collect();
            a.arg_err(
                "qtype",
                format!("cannot quantize to \"{name}\"; types: {}", names.join(", ")),
            )
        })?;
    let progress = Progress::new("quantize");
    let q = QTensor::quantize_reporting(x, qtype, &|done, total| progress.update(done, total))
        .map_err(|e| a.arg_err("x", e))?;
    Ok(Value::Quant(QuantValue {
        q: Rc::new(q),
        transposed: false,
    }))
}

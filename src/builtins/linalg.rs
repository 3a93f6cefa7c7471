//! Linear algebra builtins.

use super::Builtin;
use crate::ops;
use crate::runtime::builtin;
use crate::runtime::quant_matmul::quant_matmul;
use crate::runtime::value::{QuantValue, Value};
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "matmul",
        doc: "Matrix product as numpy.matmul (also `a @ b`): 1-D, 2-D and batched with broadcast batch dims.",
        fn(_, bound; a: &Value, b: &Value) {
            // matmul(x, q) with a quantized q [N, K] (GGML's weight layout) is x @ q.T.
            if let Value::Quant(q) = b {
                let weight = Value::Quant(QuantValue {
                    q: q.q.clone(),
                    transposed: !q.transposed,
                });
                return match quant_matmul(a, &weight) {
                    Some(r) => r
                        .map(Value::from)
                        .map_err(|e| bound.err(format!("matmul: {e}"))),
                    None => Err(bound.err("matmul: unsupported operands")),
                };
            }
            let (a, b): (Tensor, Tensor) = (bound.convert("a")?, bound.convert("b")?);
            ops::matmul(&a, &b)
                .map(Value::from)
                .map_err(|e| bound.tensor_err(e))
        }
    },
    builtin! {
        name: "dot",
        doc: "numpy.dot: the sum over the last axis of a and the second-to-last of b (inner product of 1-D, matrix product of 2-D); a 0-d operand multiplies.",
        fn(_, bound; a: Tensor, b: Tensor) {
            ops::linalg::dot(&a, &b)
                .map(Value::from)
                .map_err(|e| bound.tensor_err(e))
        }
    },
];

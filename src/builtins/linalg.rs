//! Linear algebra builtins.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops;
use crate::runtime::value::{QuantValue, Value};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "matmul",
        params: &["a", "b"],
        doc: "Matrix product as numpy.matmul (also `a @ b`): 1-D, 2-D and batched with broadcast batch dims.",
        func: matmul,
    },
    Builtin {
        name: "dot",
        params: &["a", "b"],
        doc: "numpy.dot: the sum over the last axis of a and the second-to-last of b (inner product of 1-D, matrix product of 2-D); a 0-d operand multiplies.",
        func: dot,
    },
];

fn matmul(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    // matmul(x, q) with a quantized q [N, K] (GGML's weight layout) is x @ q.T.
    if let Value::Quant(q) = &a.req(1)?.value {
        let weight = Value::Quant(QuantValue {
            q: q.q.clone(),
            transposed: !q.transposed,
        });
        let result = crate::runtime::quant_matmul::quant_matmul(&a.req(0)?.value, &weight);
        return match result {
            Some(r) => r
                .map(Value::from)
                .map_err(|e| a.err(format!("matmul: {e}"))),
            None => Err(a.err("matmul: unsupported operands")),
        };
    }
    ops::matmul(&a.tensor(0)?, &a.tensor(1)?)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn dot(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    ops::linalg::dot(&a.tensor(0)?, &a.tensor(1)?)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

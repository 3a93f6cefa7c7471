//! The quantized matrix product behind `x @ q.T` and `q @ x`.

use std::rc::Rc;

use crate::autograd::{rules, Var};
use crate::quant::{matmul_f32_q, QTensor};
use crate::tensor::{DType, Tensor};

use super::value::Value;

/// `x @ q.T` (x [..., K], q [N, K]) and `q @ x` without dequantizing q; `None` when
/// neither operand is quantized. Recorded with respect to x (q is a constant).
pub fn quant_matmul(l: &Value, r: &Value) -> Option<Result<Var, String>> {
    let y = product(l, r)?;
    let (x, q, x_left) = match (l, r) {
        (x, Value::Quant(q)) => (x, q, true),
        (Value::Quant(q), x) => (x, q, false),
        _ => return None,
    };
    Some(y.map(|y| match x {
        Value::Tensor(x) => {
            let q: Rc<QTensor> = Rc::clone(&q.q);
            rules::matmul_weight(x, y, x_left, move || q.dequantize())
        }
        _ => Var::constant(y),
    }))
}

/// The product's values.
fn product(l: &Value, r: &Value) -> Option<Result<Tensor, String>> {
    let as_f32 = |t: &Tensor| {
        if t.dtype() == DType::F32 {
            t.clone()
        } else {
            t.to_dtype(DType::F32)
        }
    };
    Some(match (l, r) {
        (Value::Quant(_), Value::Quant(_)) => {
            Err("matmul of two quantized tensors: dequantize one".into())
        }
        (x, Value::Quant(q)) if q.transposed => match x.to_tensor() {
            Some(x) => matmul_f32_q(&as_f32(&x), &q.q),
            None => Err(format!(
                "cannot multiply {} by a quantized tensor",
                x.describe()
            )),
        },
        (Value::Quant(q), x) if !q.transposed => match x.to_tensor() {
            // q @ x = (x.T @ q.T).T
            Some(x) if x.ndim() == 1 => matmul_f32_q(&as_f32(&x), &q.q),
            Some(x) if x.ndim() == 2 => x
                .transpose(0, 1)
                .map_err(|e| e.to_string())
                .and_then(|xt| matmul_f32_q(&as_f32(&xt.contiguous()), &q.q))
                .and_then(|y| y.transpose(0, 1).map_err(|e| e.to_string())),
            Some(x) => Err(format!(
                "q @ x needs a 1-D or 2-D x, got shape {:?}",
                x.shape()
            )),
            None => Err(format!(
                "cannot multiply a quantized tensor by {}",
                x.describe()
            )),
        },
        (Value::Quant(q), _) | (_, Value::Quant(q)) => Err(format!(
            "a quantized {} multiplies as x @ q.T (q is [N, K]) or q @ x",
            q.type_line()
        )),
        _ => return None,
    })
}

//! Math functions of numbers: `sqrt(2.0)` is a float, computed in f64 as Python's
//! `math.sqrt`, not a 0-d tensor. The value goes through the tensor op's own
//! per-element function (one definition of each function), on a 0-d tensor of the
//! number's own type: bool, i64 or f64.

use crate::ops::{self, BinaryOp, Operand, UnaryOp};
use crate::runtime::value::Value;
use crate::tensor::{DType, Scalar, Tensor, TensorError};

/// `op(s)`. Where the op keeps the dtype (`abs`, `floor`, `round`, ...) an int stays
/// an int; where a tensor op would give f32 for an int (`sqrt(2)`), the int is taken
/// as an f64, as Python takes it. Int results that overflow are an error, as in
/// scalar arithmetic.
pub(super) fn unary(op: UnaryOp, s: Scalar) -> Result<Value, TensorError> {
    let mut r = ops::unary(op, &s.to_tensor())?;
    if r.dtype() == DType::F32 {
        r = ops::unary(op, &Tensor::scalar(s.to_f64()))?;
    }
    if let Scalar::Int(i) = s {
        let overflows = match op {
            UnaryOp::Neg | UnaryOp::Abs => i == i64::MIN,
            UnaryOp::Square => i.checked_mul(i).is_none(),
            _ => false,
        };
        if overflows {
            return Err(TensorError::value(
                op.name(),
                format!("integer overflow in {}({i})", op.name()),
            ));
        }
    }
    Ok(item(&r))
}

/// `op(a, b)` of two numbers; ints and floats promote as tensors of i64 and f64 do,
/// except that a float function of ints (`atan2(1, 2)`) takes them as f64, as `unary`.
pub(super) fn binary(op: BinaryOp, a: Scalar, b: Scalar) -> Result<Value, TensorError> {
    let (x, y) = (a.to_tensor(), b.to_tensor());
    let mut r = ops::binary(op, Operand::Tensor(&x), Operand::Tensor(&y))?;
    if r.dtype() == DType::F32 {
        let (x, y) = (Tensor::scalar(a.to_f64()), Tensor::scalar(b.to_f64()));
        r = ops::binary(op, Operand::Tensor(&x), Operand::Tensor(&y))?;
    }
    Ok(item(&r))
}

/// The number a one-element result holds.
pub(super) fn item(t: &Tensor) -> Value {
    Value::from_item(t).unwrap_or_else(|| Value::from(t.clone()))
}

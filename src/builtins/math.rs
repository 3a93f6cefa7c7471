//! Elementwise math builtins.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::interp::value::Value;
use crate::ops::{self, BinaryOp, Operand, UnaryOp};

macro_rules! unary_builtin {
    ($name:literal, $op:expr, $doc:literal) => {
        Builtin {
            name: $name,
            params: &["x"],
            doc: $doc,
            func: |_, a| unary(&a, $op),
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    unary_builtin!("abs", UnaryOp::Abs, "Absolute value, elementwise."),
    unary_builtin!(
        "sqrt",
        UnaryOp::Sqrt,
        "Square root, elementwise (nan below 0); ints give f32."
    ),
    unary_builtin!(
        "exp",
        UnaryOp::Exp,
        "e to the power x, elementwise; ints give f32."
    ),
    unary_builtin!(
        "log",
        UnaryOp::Log,
        "Natural logarithm, elementwise (-inf at 0, nan below); ints give f32."
    ),
    Builtin {
        name: "maximum",
        params: &["a", "b"],
        doc: "Elementwise maximum with broadcasting; NaN wins.",
        func: |ctx, a| binary(ctx, &a, BinaryOp::Maximum),
    },
    Builtin {
        name: "minimum",
        params: &["a", "b"],
        doc: "Elementwise minimum with broadcasting; NaN wins.",
        func: |ctx, a| binary(ctx, &a, BinaryOp::Minimum),
    },
];

fn unary(a: &Bound, op: UnaryOp) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    ops::unary(op, &x)
        .map(Value::Tensor)
        .map_err(|e| a.tensor_err(e))
}

/// Scalars stay weak (`maximum(x, 0)` keeps x's dtype).
fn operand<'a>(a: &'a Bound, i: usize) -> Result<Operand<'a>, Diagnostic> {
    let v = &a.req(i)?.value;
    match (v, v.as_scalar()) {
        (Value::Tensor(t), _) => Ok(Operand::Tensor(t)),
        (_, Some(s)) => Ok(Operand::Scalar(s)),
        _ => Err(a.arg_err(
            i,
            format!("expected a tensor or number, got {}", v.describe()),
        )),
    }
}

fn binary(_: &mut Ctx, a: &Bound, op: BinaryOp) -> Result<Value, Diagnostic> {
    ops::binary(op, operand(a, 0)?, operand(a, 1)?)
        .map(Value::Tensor)
        .map_err(|e| a.tensor_err(e))
}

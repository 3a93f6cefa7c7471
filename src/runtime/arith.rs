//! Operators on values: scalar arithmetic done inline (no tensor allocation), anything
//! involving a tensor handed to `ops` with weak-scalar promotion.

use crate::autograd::{self, rules::VarOperand, GradError};
use crate::diag::{Diagnostic, ErrorKind};
use crate::kernels::math::Arith;
use crate::ops::{self, BinaryOp, UnaryOp};
use crate::span::Span;
use crate::syntax::ast::{BinOp, UnOp};
use crate::tensor::{budget, Scalar, TensorError};

use super::grad_diag::grad_diag;
use super::quant_matmul::quant_matmul;
use super::sequence_ops::{self, SeqError};
use super::tensor_diag::tensor_diag;
use super::value::Value;

/// Where the operands of a binary expression were written.
#[derive(Clone, Copy)]
pub struct OperandSpans {
    pub lhs: Span,
    pub rhs: Span,
    pub whole: Span,
}

pub fn binary(op: BinOp, l: &Value, r: &Value, at: OperandSpans) -> Result<Value, Diagnostic> {
    if matches!(op, BinOp::In | BinOp::NotIn) {
        let found = seq(sequence_ops::contains(l, r), l, r, at)?;
        return Ok(Value::Bool(found == (op == BinOp::In)));
    }
    // Scalars first: they are the common case in loops.
    if let (Some(a), Some(b)) = (l.as_scalar(), r.as_scalar()) {
        if let Some(result) = scalars(op, a, b, at.whole) {
            return result;
        }
    }
    if op == BinOp::MatMul {
        if let Some(result) = quant_matmul(l, r) {
            return result.map(Value::from).map_err(|msg| {
                Diagnostic::new(at.whole, format!("matmul: {msg}"))
                    .with_label(at.lhs, format!("left operand is {}", l.describe()))
                    .with_label(at.rhs, format!("right operand is {}", r.describe()))
            });
        }
    }
    if let Some(result) = recorded(op, l, r) {
        return result.map_err(|e| match e {
            GradError::Tensor(e) => operand_diag(e, l, r, at),
            other => grad_diag(other, at.whole),
        });
    }
    let tensor_result = match (op, l.as_operand(), r.as_operand()) {
        (BinOp::MatMul, Some(_), Some(_)) => match (l.to_tensor(), r.to_tensor()) {
            (Some(a), Some(b)) => Some(ops::matmul(&a, &b)),
            _ => None,
        },
        // `and`, `or` and `@` have no tensor op: they are handled elsewhere.
        (_, Some(a), Some(b)) => {
            BinaryOp::from_symbol(op.symbol()).map(|top| ops::binary(top, a, b))
        }
        _ => None,
    };
    match tensor_result {
        Some(result) => result
            .map(Value::from)
            .map_err(|e| operand_diag(e, l, r, at)),
        None => other_binary(op, l, r, at),
    }
}

/// `l op r` recorded for gradients, when an operand is tracked and grad mode is on.
fn recorded(op: BinOp, l: &Value, r: &Value) -> Option<Result<Value, GradError>> {
    let tracked = |v: &Value| matches!(v, Value::Tensor(t) if t.is_tracked());
    if !(autograd::enabled() && (tracked(l) || tracked(r))) {
        return None;
    }
    let (a, b) = (l.as_var_operand()?, r.as_var_operand()?);
    let result = match (op, a, b) {
        (BinOp::MatMul, VarOperand::Var(a), VarOperand::Var(b)) => autograd::rules::matmul(a, b),
        _ => autograd::rules::binary(BinaryOp::from_symbol(op.symbol())?, a, b),
    };
    Some(result.map(Value::from))
}

/// A tensor op's error on `l op r`: a broadcast error labels the operands' shapes,
/// others say what the operands are.
pub fn operand_diag(e: TensorError, l: &Value, r: &Value, at: OperandSpans) -> Diagnostic {
    let broadcast = matches!(e, TensorError::Broadcast { .. });
    let d = tensor_diag(e, at.whole, &[at.lhs, at.rhs]);
    if broadcast {
        d
    } else {
        d.with_label(at.lhs, format!("left operand is {}", l.describe()))
            .with_label(at.rhs, format!("right operand is {}", r.describe()))
    }
}

/// `a op b` on scalars, computed inline; `None` for `@` (tensors only) and `in`
/// (containers only).
#[inline]
pub fn scalars(op: BinOp, a: Scalar, b: Scalar, whole: Span) -> Option<Result<Value, Diagnostic>> {
    (!matches!(op, BinOp::MatMul | BinOp::In | BinOp::NotIn)).then(|| {
        scalar_binary(op, a, b)
            .map_err(|msg| Diagnostic::new(whole, msg).with_kind(ErrorKind::Value))
    })
}

/// Strings, tuples, dicts, none, dtypes and other non-numeric operands.
fn other_binary(op: BinOp, l: &Value, r: &Value, at: OperandSpans) -> Result<Value, Diagnostic> {
    use BinOp::*;
    let result = match (op, l, r) {
        (Add, Value::Str(a), Value::Str(b)) => return concat(a, b, at.whole),
        (Add, Value::Tuple(a), Value::Tuple(b)) => sequence_ops::concat_tuples(a, b),
        (Mul, Value::Tuple(_) | Value::Str(_), Value::Int(n)) => sequence_ops::repeat(l, *n),
        (Mul, Value::Int(n), Value::Tuple(_) | Value::Str(_)) => sequence_ops::repeat(r, *n),
        (Eq, _, _) => sequence_ops::equal(l, r).map(Value::Bool),
        (Ne, _, _) => sequence_ops::equal(l, r).map(|e| Value::Bool(!e)),
        (Lt | Le | Gt | Ge, Value::Str(_), Value::Str(_))
        | (Lt | Le | Gt | Ge, Value::Tuple(_), Value::Tuple(_)) => {
            sequence_ops::ordered(op, l, r).map(Value::Bool)
        }
        _ => {
            return Err(Diagnostic::new(
                at.whole,
                format!(
                    "`{}` is not defined for {} and {}",
                    op.symbol(),
                    l.kind(),
                    r.kind()
                ),
            )
            .with_label(at.lhs, format!("this is {}", l.describe()))
            .with_label(at.rhs, format!("this is {}", r.describe()))
            .with_kind(ErrorKind::Type))
        }
    };
    seq(result, l, r, at)
}

/// A sequence operator's result, its error as a diagnostic over the expression.
fn seq<T>(
    result: Result<T, SeqError>,
    l: &Value,
    r: &Value,
    at: OperandSpans,
) -> Result<T, Diagnostic> {
    result.map_err(|e| match e {
        SeqError::Message(m) => Diagnostic::new(at.whole, m)
            .with_label(at.lhs, format!("this is {}", l.describe()))
            .with_label(at.rhs, format!("this is {}", r.describe())),
        SeqError::Tensor(e) => tensor_diag(e, at.whole, &[]),
    })
}

/// `a + b` on strings, held to the memory limit first (doubling a string in a loop
/// reaches any limit in a few dozen steps).
fn concat(a: &str, b: &str, whole: Span) -> Result<Value, Diagnostic> {
    budget::check_items("+", "a string", a.len().saturating_add(b.len()), 1)
        .map_err(|e| tensor_diag(e, whole, &[]))?;
    Ok(Value::str(&format!("{a}{b}")))
}

fn int_of(s: Scalar) -> Option<i64> {
    match s {
        Scalar::Float(_) => None,
        other => Some(other.to_i64()),
    }
}

/// `x op y` for the operators that keep two ints an int, computed without building a
/// `Value`; `None` on overflow or another operator, which [`scalar_binary`] handles.
#[inline(always)]
pub fn int_binary(op: BinOp, x: i64, y: i64) -> Option<i64> {
    match op {
        BinOp::Add => x.checked_add(y),
        BinOp::Sub => x.checked_sub(y),
        BinOp::Mul => x.checked_mul(y),
        _ => None,
    }
}

/// Scalar (int, float, bool) operators with Python's semantics, except that integer
/// overflow is an error instead of a big integer. Inlined: its result then stays in
/// registers in the loops that need it fast.
#[inline]
pub fn scalar_binary(op: BinOp, a: Scalar, b: Scalar) -> Result<Value, String> {
    use BinOp::*;
    if let (Scalar::Int(x), Scalar::Int(y)) = (a, b) {
        if let Some(v) = int_binary(op, x, y) {
            return Ok(Value::Int(v));
        }
    }
    if let (Scalar::Bool(x), Scalar::Bool(y)) = (a, b) {
        match op {
            BitAnd => return Ok(Value::Bool(x & y)),
            BitOr => return Ok(Value::Bool(x | y)),
            BitXor => return Ok(Value::Bool(x ^ y)),
            _ => {}
        }
    }
    let overflow = || format!("integer overflow in `{}`", op.symbol());
    if let (Some(x), Some(y)) = (int_of(a), int_of(b)) {
        let v = match op {
            Add => x.checked_add(y).ok_or_else(overflow)?,
            Sub => x.checked_sub(y).ok_or_else(overflow)?,
            Mul => x.checked_mul(y).ok_or_else(overflow)?,
            Div => return Ok(Value::Float(x as f64 / y as f64)),
            FloorDiv | Rem if y == 0 => return Err("integer division by zero".into()),
            FloorDiv => {
                let q = x.checked_div(y).ok_or_else(overflow)?;
                if x % y != 0 && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            Rem => {
                let r = x.checked_rem(y).ok_or_else(overflow)?;
                if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }
            }
            Pow if y < 0 => return Ok(Value::Float((x as f64).powf(y as f64))),
            Pow => {
                let e = u32::try_from(y).map_err(|_| overflow())?;
                x.checked_pow(e).ok_or_else(overflow)?
            }
            BitAnd => x & y,
            BitOr => x | y,
            BitXor => x ^ y,
            Eq | Ne | Lt | Le | Gt | Ge => return Ok(Value::Bool(compare(op, x, y))),
            MatMul | And | Or | In | NotIn => {
                return Err(format!("`{}` needs tensors", op.symbol()))
            }
        };
        return Ok(Value::Int(v));
    }
    let (x, y) = (a.to_f64(), b.to_f64());
    let v = match op {
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div => x / y,
        FloorDiv => Arith::floor_div(x, y),
        Rem => Arith::rem(x, y),
        Pow => x.powf(y),
        Eq | Ne | Lt | Le | Gt | Ge => return Ok(Value::Bool(compare(op, x, y))),
        BitAnd | BitOr | BitXor => {
            return Err(format!("`{}` is not defined for floats", op.symbol()))
        }
        MatMul | And | Or | In | NotIn => return Err(format!("`{}` needs tensors", op.symbol())),
    };
    Ok(Value::Float(v))
}

/// A comparison operator applied to two numbers of one type.
fn compare<T: PartialOrd>(op: BinOp, x: T, y: T) -> bool {
    match op {
        BinOp::Eq => x == y,
        BinOp::Ne => x != y,
        BinOp::Lt => x < y,
        BinOp::Le => x <= y,
        BinOp::Gt => x > y,
        _ => x >= y,
    }
}

pub fn unary(op: UnOp, v: &Value, span: Span) -> Result<Value, Diagnostic> {
    let err = |msg: String| Diagnostic::new(span, msg);
    match (op, v) {
        (UnOp::Not, v) => v.truthy().map(|b| Value::Bool(!b)).map_err(err),
        (UnOp::Neg, Value::Int(i)) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(|| err("integer overflow in `-`".into())),
        (UnOp::Neg, Value::Float(f)) => Ok(Value::Float(-f)),
        (UnOp::Neg, Value::Bool(b)) => Ok(Value::Int(-(*b as i64))),
        (UnOp::BitNot, Value::Int(i)) => Ok(Value::Int(!i)),
        (UnOp::BitNot, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (UnOp::Neg | UnOp::BitNot, Value::Tensor(t)) => {
            let top = if op == UnOp::Neg {
                UnaryOp::Neg
            } else {
                UnaryOp::BitNot
            };
            autograd::rules::unary(top, t)
                .map(Value::from)
                .map_err(|e| grad_diag(e, span))
        }
        (_, v) => Err(err(format!(
            "`{}` is not defined for {}",
            if op == UnOp::Neg { "-" } else { "~" },
            v.describe()
        ))
        .with_kind(ErrorKind::Type)),
    }
}

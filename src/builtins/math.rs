//! Elementwise math builtins.

use super::scalar_math as scalar;
use super::{Bound, Builtin};
use crate::autograd::rules::{self, VarOperand};
use crate::autograd::Var;
use crate::diag::Diagnostic;
use crate::ops::{self, BinaryOp, Operand, UnaryOp};
use crate::runtime::arith;
use crate::runtime::builtin;
use crate::runtime::value::Value;
use crate::syntax::ast::BinOp;
use crate::tensor::Tensor;

/// A builtin `NAME(x)` for a unary op, named by the op.
macro_rules! unary_builtin {
    ($op:ident, $doc:literal) => {
        builtin! {
            name: UnaryOp::$op.name(),
            doc: concat!($doc, " Of a number, a number (a float computed in f64)."),
            fn(_, a; x: VarOperand) {
                unary(&a, UnaryOp::$op, x)
            }
        }
    };
}

/// A builtin `NAME(a, b)` for a broadcasting binary op.
macro_rules! binary_builtin {
    ($name:literal, $op:ident, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, bound; a: VarOperand, b: VarOperand) {
                binary(&bound, BinaryOp::$op, a, b)
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    unary_builtin!(Abs, "Absolute value, elementwise."),
    unary_builtin!(
        Neg,
        "Negation, elementwise (as unary -); integers wrap; an error for bool tensors."
    ),
    unary_builtin!(
        Sign,
        "-1, 0 or 1 by the sign of x (nan stays nan), elementwise; keeps the dtype."
    ),
    unary_builtin!(
        Square,
        "x * x, elementwise; keeps the dtype (integers wrap)."
    ),
    unary_builtin!(
        Sqrt,
        "Square root, elementwise (nan below 0); ints give f32."
    ),
    unary_builtin!(Reciprocal, "1 / x, elementwise; ints give f32."),
    unary_builtin!(Exp, "e to the power x, elementwise; ints give f32."),
    unary_builtin!(Exp2, "2 to the power x, elementwise; ints give f32."),
    unary_builtin!(
        Log,
        "Natural logarithm, elementwise (-inf at 0, nan below); ints give f32."
    ),
    unary_builtin!(
        Log2,
        "Base-2 logarithm, elementwise (-inf at 0, nan below); ints give f32."
    ),
    unary_builtin!(
        Log10,
        "Base-10 logarithm, elementwise (-inf at 0, nan below); ints give f32."
    ),
    unary_builtin!(Sin, "Sine of x in radians, elementwise; ints give f32."),
    unary_builtin!(Cos, "Cosine of x in radians, elementwise; ints give f32."),
    unary_builtin!(Tan, "Tangent of x in radians, elementwise; ints give f32."),
    unary_builtin!(
        Asin,
        "Inverse sine in radians, elementwise (nan outside [-1, 1]); ints give f32."
    ),
    unary_builtin!(
        Acos,
        "Inverse cosine in radians, elementwise (nan outside [-1, 1]); ints give f32."
    ),
    unary_builtin!(
        Atan,
        "Inverse tangent in radians, elementwise; ints give f32."
    ),
    unary_builtin!(Sinh, "Hyperbolic sine, elementwise; ints give f32."),
    unary_builtin!(Cosh, "Hyperbolic cosine, elementwise; ints give f32."),
    unary_builtin!(Tanh, "Hyperbolic tangent, elementwise; ints give f32."),
    unary_builtin!(
        Asinh,
        "Inverse hyperbolic sine, elementwise; ints give f32."
    ),
    unary_builtin!(
        Acosh,
        "Inverse hyperbolic cosine, elementwise (nan below 1); ints give f32."
    ),
    unary_builtin!(
        Atanh,
        "Inverse hyperbolic tangent, elementwise (inf at 1, nan beyond); ints give f32."
    ),
    unary_builtin!(
        Floor,
        "Largest whole number not above x, elementwise; integer dtypes are kept."
    ),
    unary_builtin!(
        Ceil,
        "Smallest whole number not below x, elementwise; integer dtypes are kept."
    ),
    unary_builtin!(
        Trunc,
        "Rounds toward zero, elementwise; integer dtypes are kept."
    ),
    unary_builtin!(
        Erf,
        "The error function 2/sqrt(pi) * integral of exp(-t^2) from 0 to x, elementwise; ints give f32."
    ),
    unary_builtin!(
        Erfc,
        "1 - erf(x) without cancellation for large x, elementwise; ints give f32."
    ),
    unary_builtin!(
        Log1p,
        "ln(1 + x), accurate near 0, elementwise (-inf at -1, nan below); ints give f32."
    ),
    unary_builtin!(
        Expm1,
        "exp(x) - 1, accurate near 0, elementwise; ints give f32."
    ),
    unary_builtin!(
        Lgamma,
        "ln(abs(gamma(x))) (torch.lgamma), elementwise; inf at 0 and the negative integers; ints give f32."
    ),
    unary_builtin!(
        Digamma,
        "psi(x), the derivative of lgamma (torch.digamma), elementwise; -inf at 0, nan at the negative integers; ints give f32."
    ),
    unary_builtin!(
        Trigamma,
        "psi'(x), the derivative of digamma (torch.polygamma(1, x)), elementwise; inf at 0 and the negative integers; ints give f32."
    ),
    builtin! {
        name: "polygamma",
        doc: "The n-th derivative of digamma (torch.polygamma), elementwise: digamma for n = 0, trigamma for 1; for n >= 1, inf at 0 and the negative integers for odd n, -inf for even; ints give f32.",
        fn(_, a; n: i64, x: Var) {
            a.recorded(rules::polygamma(n, &x))
        }
    },
    unary_builtin!(
        Sinc,
        "sin(pi x) / (pi x) with 1 at 0 (numpy.sinc), elementwise; ints give f32."
    ),
    unary_builtin!(
        Deg2rad,
        "Degrees to radians, x * pi / 180, elementwise; ints give f32."
    ),
    unary_builtin!(
        Rad2deg,
        "Radians to degrees, x * 180 / pi, elementwise; ints give f32."
    ),
    binary_builtin!(
        "atan2",
        Atan2,
        "The angle in radians, in [-pi, pi], of the point (b, a) (numpy.arctan2(a, b)), with broadcasting; ints give f32."
    ),
    binary_builtin!(
        "hypot",
        Hypot,
        "sqrt(a^2 + b^2) without overflow in between, with broadcasting; ints give f32."
    ),
    binary_builtin!(
        "logaddexp",
        LogAddExp,
        "ln(exp(a) + exp(b)) without overflow, with broadcasting; ints give f32."
    ),
    binary_builtin!(
        "copysign",
        CopySign,
        "The magnitude of a with the sign of b (-0.0 and nan signs count), with broadcasting; ints give f32."
    ),
    binary_builtin!(
        "fmod",
        Fmod,
        "Remainder of a / b with a's sign (C fmod, torch.fmod), with broadcasting; keeps integer dtypes; integer division by zero is an error."
    ),
    binary_builtin!(
        "remainder",
        Rem,
        "Remainder of a / b with b's sign, as a % b (numpy.remainder), with broadcasting; integer division by zero is an error."
    ),
    builtin! {
        name: "nan_to_num",
        doc: "x with nan, inf and -inf replaced by nan, posinf and neginf (none: the dtype's largest and smallest finite values), as numpy.nan_to_num.",
        fn(_, a; x: VarOperand, nan: f64 = 0.0, posinf: Option<f64> = none, neginf: Option<f64> = none) {
            let result = match x {
                VarOperand::Var(x) => {
                    let y = ops::unary::nan_to_num(x, nan, posinf, neginf).map_err(|e| a.tensor_err(e))?;
                    return a.recorded(rules::nan_to_num(x, y));
                }
                VarOperand::Scalar(s) => {
                    let x = Tensor::scalar(s.to_f64());
                    ops::unary::nan_to_num(&x, nan, posinf, neginf).map(|t| scalar::item(&t))
                }
            };
            result.map_err(|e| a.tensor_err(e))
        }
    },
    builtin! {
        name: "isclose",
        doc: "True where abs(a - b) <= atol + rtol * abs(b), with broadcasting (numpy.isclose); inf is close only to itself, nan only to nan with equal_nan=true.",
        fn(_, bound; a: Operand, b: Operand, rtol: f64 = 1e-05, atol: f64 = 1e-08, equal_nan: bool = false) {
            let close = ops::close::isclose(a, b, rtol, atol, equal_nan).map_err(|e| bound.tensor_err(e))?;
            Ok(match (a, b) {
                (Operand::Scalar(_), Operand::Scalar(_)) => scalar::item(&close),
                _ => Value::from(close),
            })
        }
    },
    builtin! {
        name: "allclose",
        doc: "Whether isclose(a, b, rtol, atol, equal_nan) holds for every element (a bool; true when empty).",
        fn(_, bound; a: Operand, b: Operand, rtol: f64 = 1e-05, atol: f64 = 1e-08, equal_nan: bool = false) {
            ops::close::allclose(a, b, rtol, atol, equal_nan)
                .map(Value::Bool)
                .map_err(|e| bound.tensor_err(e))
        }
    },
    builtin! {
        name: "round",
        doc: "Rounds half to even at `decimals` digits (negative: tens, hundreds, ...), as numpy.round; integer dtypes are kept.",
        fn(_, a; x: VarOperand, decimals: i64 = 0) {
            let decimals = i32::try_from(decimals).map_err(|_| {
                a.arg_err("decimals", format!("`decimals` is out of range: {decimals}"))
            })?;
            unary(&a, UnaryOp::Round(decimals), x)
        }
    },
    builtin! {
        name: "clip",
        doc: "x limited to [min, max] (either may be none; max wins where min > max); the bounds broadcast and promote like maximum.",
        fn(_, a; x: VarOperand, min|a_min: Option<VarOperand> = none, max|a_max: Option<VarOperand> = none) {
            match x {
                VarOperand::Var(x) => a.recorded(rules::clip(x, min, max)),
                VarOperand::Scalar(s) => {
                    let bounds = (min.map(VarOperand::operand), max.map(VarOperand::operand));
                    ops::binary::clip(&s.to_tensor(), bounds.0, bounds.1)
                        .map(|t| scalar::item(&t))
                        .map_err(|e| a.tensor_err(e))
                }
            }
        }
    },
    unary_builtin!(IsNan, "True where x is NaN (a bool tensor)."),
    unary_builtin!(IsInf, "True where x is +inf or -inf (a bool tensor)."),
    unary_builtin!(
        IsFinite,
        "True where x is neither NaN nor infinite (a bool tensor)."
    ),
    unary_builtin!(
        LogicalNot,
        "True where x is zero (a bool tensor; NaN counts as nonzero)."
    ),
    binary_builtin!(
        "logical_and",
        LogicalAnd,
        "True where both a and b are nonzero (NaN counts as nonzero), with broadcasting."
    ),
    binary_builtin!(
        "logical_or",
        LogicalOr,
        "True where a or b is nonzero (NaN counts as nonzero), with broadcasting."
    ),
    binary_builtin!(
        "logical_xor",
        LogicalXor,
        "True where exactly one of a and b is nonzero, with broadcasting."
    ),
    binary_builtin!(
        "maximum",
        Maximum,
        "Elementwise maximum with broadcasting; NaN wins."
    ),
    binary_builtin!(
        "minimum",
        Minimum,
        "Elementwise minimum with broadcasting; NaN wins."
    ),
    builtin! {
        name: "pow",
        doc: "x to the power y with broadcasting, as `x ** y` (integers to negative integer powers are an error).",
        fn(_, a; x: VarOperand, y: VarOperand) {
            match (x, y) {
                (VarOperand::Scalar(x), VarOperand::Scalar(y)) => {
                    arith::scalar_binary(BinOp::Pow, x, y).map_err(|m| a.err(m))
                }
                _ => binary(&a, BinaryOp::Pow, x, y),
            }
        }
    },
];

/// The unary op behind an in-place method: `exp_` → exp, for every unary elementwise
/// op (`round_` rounds to 0 decimals). The interpreter applies it with
/// `ops::unary::unary_inplace`.
pub(super) fn inplace_op(method: &str) -> Option<UnaryOp> {
    method.strip_suffix('_').and_then(UnaryOp::from_name)
}

/// `op(x)`: a tensor for a tensor, a scalar for a scalar.
fn unary(a: &Bound, op: UnaryOp, x: VarOperand) -> Result<Value, Diagnostic> {
    match x {
        VarOperand::Var(t) => a.recorded(rules::unary(op, t)),
        VarOperand::Scalar(s) => scalar::unary(op, s).map_err(|e| a.tensor_err(e)),
    }
}

/// `op(l, r)` with broadcasting: a scalar when both are scalars.
fn binary(a: &Bound, op: BinaryOp, l: VarOperand, r: VarOperand) -> Result<Value, Diagnostic> {
    match (l, r) {
        (VarOperand::Scalar(l), VarOperand::Scalar(r)) => {
            scalar::binary(op, l, r).map_err(|e| a.tensor_err(e))
        }
        _ => a.recorded(rules::binary(op, l, r)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_place_methods_name_unary_ops() {
        assert_eq!(inplace_op("exp_"), Some(UnaryOp::Exp));
        assert_eq!(inplace_op("round_"), Some(UnaryOp::Round(0)));
        assert_eq!(inplace_op("logical_not_"), Some(UnaryOp::LogicalNot));
        assert_eq!(inplace_op("exp"), None);
        assert_eq!(inplace_op("relu_"), None);
        assert_eq!(inplace_op("_"), None);
    }

    #[test]
    fn every_unary_op_but_bitwise_not_is_a_builtin_of_its_name() {
        for op in UnaryOp::ALL.into_iter().filter(|&op| op != UnaryOp::BitNot) {
            assert!(
                BUILTINS.iter().any(|b| b.name == op.name()),
                "{}",
                op.name()
            );
        }
    }
}

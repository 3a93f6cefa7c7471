//! Tensor creation builtins.

use super::{Bound, Builtin};
use crate::autograd::Var;
use crate::diag::Diagnostic;
use crate::ops;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Arg, FromArg, Shape, TensorLike};
use crate::tensor::{DType, Scalar, Tensor};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "tensor",
        doc: "A tensor from a literal, number or tensor, converted to dtype when given (a copy); with a dtype, a float number and the numbers of a `[...]` literal written here convert from their f64 value.",
        fn(_, a; data: TensorLike, dtype: Option<DType> = none, requires_grad: bool = false) {
            let t = match dtype {
                Some(d) => {
                    let data = data.exact();
                    if d == data.dtype() { data.contiguous() } else { data.to_dtype(d) }
                }
                None => data.default().contiguous(),
            };
            leaf_if(&a, Ok(Value::from(t)), requires_grad)
        }
    },
    builtin! {
        name: "zeros",
        doc: "A tensor of zeros: `zeros([2, 3])`.",
        fn(_, a; shape: Shape, dtype: DType = f32, requires_grad: bool = false) {
            leaf_if(&a, filled(&a, "zeros", &shape.0, Scalar::Int(0), dtype), requires_grad)
        }
    },
    builtin! {
        name: "ones",
        doc: "A tensor of ones: `ones([2, 3], dtype=i64)`.",
        fn(_, a; shape: Shape, dtype: DType = f32, requires_grad: bool = false) {
            leaf_if(&a, filled(&a, "ones", &shape.0, Scalar::Int(1), dtype), requires_grad)
        }
    },
    builtin! {
        name: "full",
        doc: "A tensor filled with value; the dtype defaults to the value's (i64, f32 or bool).",
        fn(_, a; shape: Shape, value: FillValue, dtype: Option<DType> = none, requires_grad: bool = false) {
            let default = match value.0 {
                Scalar::Bool(_) => DType::Bool,
                Scalar::Int(_) => DType::I64,
                Scalar::Float(_) => DType::F32,
            };
            leaf_if(&a, filled(&a, "full", &shape.0, value.0, dtype.unwrap_or(default)), requires_grad)
        }
    },
    builtin! {
        name: "zeros_like",
        doc: "Zeros with x's shape and (unless given) dtype.",
        grad: Constant,
        fn(_, a; x: Tensor, dtype: Option<DType> = none) {
            like(&a, "zeros_like", &x, Scalar::Int(0), dtype)
        }
    },
    builtin! {
        name: "ones_like",
        doc: "Ones with x's shape and (unless given) dtype.",
        grad: Constant,
        fn(_, a; x: Tensor, dtype: Option<DType> = none) {
            like(&a, "ones_like", &x, Scalar::Int(1), dtype)
        }
    },
    builtin! {
        name: "full_like",
        doc: "fill_value with x's shape and (unless given) dtype; the value is cast to that dtype (NumPy's full_like).",
        grad: Constant,
        fn(_, a; x: Tensor, fill_value: FillValue, dtype: Option<DType> = none) {
            like(&a, "full_like", &x, fill_value.0, dtype)
        }
    },
    builtin! {
        name: "arange",
        doc: "Evenly spaced values in [start, stop) (NumPy's arange); i64 for int arguments, else f32.",
        fn(_, a; start: Number, stop: Option<Number> = none, step: Number = 1, dtype: Option<DType> = none, requires_grad: bool = false) {
            let all_int = start.int && step.int && stop.as_ref().is_none_or(|s| s.int);
            let (start, stop) = match stop {
                Some(stop) => (start.value, stop.value),
                None => (0.0, start.value),
            };
            let default = if all_int { DType::I64 } else { DType::F32 };
            let t = ops::arange(start, stop, step.value, dtype.unwrap_or(default));
            leaf_if(&a, t.map(Value::from).map_err(|e| a.tensor_err(e)), requires_grad)
        }
    },
    builtin! {
        name: "linspace",
        doc: "num evenly spaced values from start to stop inclusive (NumPy's linspace).",
        fn(_, a; start: f64, stop: f64, num: usize = 50, dtype: DType = f32, requires_grad: bool = false) {
            let t = ops::linspace(start, stop, num, dtype);
            leaf_if(&a, t.map(Value::from).map_err(|e| a.tensor_err(e)), requires_grad)
        }
    },
    builtin! {
        name: "empty",
        doc: "A tensor of shape: zeros, unlike NumPy's uninitialized memory, so that results are deterministic.",
        fn(_, a; shape: Shape, dtype: DType = f32, requires_grad: bool = false) {
            leaf_if(&a, filled(&a, "empty", &shape.0, Scalar::Int(0), dtype), requires_grad)
        }
    },
    builtin! {
        name: "logspace",
        doc: "num values base ** e for e evenly spaced from start to stop inclusive, computed in f64 and converted to dtype (NumPy's logspace; f32 by default).",
        fn(_, a; start: f64, stop: f64, num: usize = 50, base: f64 = 10.0, dtype: DType = f32) {
            ops::logspace(start, stop, num, base, dtype)
                .map(Value::from)
                .map_err(|e| a.tensor_err(e))
        }
    },
    builtin! {
        name: "eye",
        doc: "An n×m matrix with ones on diagonal k and zeros elsewhere.",
        fn(_, a; n: usize, m: Option<usize> = none, k: i64 = 0, dtype: DType = f32, requires_grad: bool = false) {
            let t = ops::eye(n, m.unwrap_or(n), k, dtype);
            leaf_if(&a, t.map(Value::from).map_err(|e| a.tensor_err(e)), requires_grad)
        }
    },
];

/// `made`, a new tensor, as a leaf that requires grad when `requires_grad`
/// (torch's creation keyword; only float tensors can be leaves).
pub(super) fn leaf_if(
    a: &Bound,
    made: Result<Value, Diagnostic>,
    requires_grad: bool,
) -> Result<Value, Diagnostic> {
    match made? {
        Value::Tensor(t) if requires_grad => Var::leaf((*t).into_tensor())
            .map(Value::from)
            .map_err(|e| a.arg_err("requires_grad", e.to_string())),
        other => Ok(other),
    }
}

fn filled(
    a: &Bound,
    op: &str,
    shape: &[usize],
    value: Scalar,
    dtype: DType,
) -> Result<Value, Diagnostic> {
    ops::full(op, shape, value, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn like(
    a: &Bound,
    op: &str,
    x: &Tensor,
    value: Scalar,
    dtype: Option<DType>,
) -> Result<Value, Diagnostic> {
    filled(a, op, x.shape(), value, dtype.unwrap_or(x.dtype()))
}

/// The value of `full`/`full_like`: a number, or a tensor holding one.
pub(super) struct FillValue(pub(super) Scalar);

impl<'a> FromArg<'a> for FillValue {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let value = arg.value()?;
        let scalar = match (value, value.as_scalar()) {
            (_, Some(s)) => s,
            (Value::Tensor(t), None) if t.numel() == 1 => {
                if t.dtype().is_float() {
                    Scalar::Float(t.item_f64().unwrap_or(f64::NAN))
                } else {
                    Scalar::Int(t.item_i64().unwrap_or(0))
                }
            }
            (v, None) => {
                let msg = format!("{} needs a number, got {}", arg.callee(), v.describe());
                return Err(arg.err(msg));
            }
        };
        Ok(FillValue(scalar))
    }
}

/// A number, remembering whether it was written as an int (arange's dtype rule).
struct Number {
    value: f64,
    int: bool,
}

impl<'a> FromArg<'a> for Number {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let int = matches!(arg.get(), Some(Value::Int(_)));
        f64::from_arg(arg).map(|value| Number { value, int })
    }
}

//! Tensor creation builtins.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops;
use crate::runtime::value::Value;
use crate::tensor::{DType, Scalar};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "tensor",
        params: &["data", "dtype=none"],
        doc: "A tensor from a literal, number or tensor, converted to dtype when given (a copy).",
        func: tensor,
    },
    Builtin {
        name: "zeros",
        params: &["shape", "dtype=f32"],
        doc: "A tensor of zeros: `zeros([2, 3])`.",
        func: zeros,
    },
    Builtin {
        name: "ones",
        params: &["shape", "dtype=f32"],
        doc: "A tensor of ones: `ones([2, 3], dtype=i64)`.",
        func: ones,
    },
    Builtin {
        name: "full",
        params: &["shape", "value", "dtype=none"],
        doc: "A tensor filled with value; the dtype defaults to the value's (i64, f32 or bool).",
        func: full,
    },
    Builtin {
        name: "zeros_like",
        params: &["x", "dtype=none"],
        doc: "Zeros with x's shape and (unless given) dtype.",
        func: zeros_like,
    },
    Builtin {
        name: "ones_like",
        params: &["x", "dtype=none"],
        doc: "Ones with x's shape and (unless given) dtype.",
        func: ones_like,
    },
    Builtin {
        name: "arange",
        params: &["start", "stop=none", "step=1", "dtype=none"],
        doc: "Evenly spaced values in [start, stop) (NumPy's arange); i64 for int arguments, else f32.",
        func: arange,
    },
    Builtin {
        name: "linspace",
        params: &["start", "stop", "num=50", "dtype=f32"],
        doc: "num evenly spaced values from start to stop inclusive (NumPy's linspace).",
        func: linspace,
    },
    Builtin {
        name: "eye",
        params: &["n", "m=none", "k=0", "dtype=f32"],
        doc: "An n×m matrix with ones on diagonal k and zeros elsewhere.",
        func: eye,
    },
];

fn tensor(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let t = a.tensor(0)?;
    let t = match a.opt_dtype(1)? {
        Some(d) if d != t.dtype() => t.to_dtype(d),
        _ => t.contiguous(),
    };
    Ok(Value::from(t))
}

fn filled(op: &str, a: &Bound, value: Scalar) -> Result<Value, Diagnostic> {
    let shape = a.shape(0)?;
    let dtype = a.opt_dtype(1)?.unwrap_or(DType::F32);
    ops::full(op, &shape, value, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn zeros(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    filled("zeros", &a, Scalar::Int(0))
}

fn ones(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    filled("ones", &a, Scalar::Int(1))
}

fn full(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let shape = a.shape(0)?;
    let value = a.req(1)?;
    let scalar = match (&value.value, value.value.as_scalar()) {
        (_, Some(s)) => s,
        (Value::Tensor(t), None) if t.numel() == 1 => {
            if t.dtype().is_float() {
                Scalar::Float(t.item_f64().unwrap_or(f64::NAN))
            } else {
                Scalar::Int(t.item_i64().unwrap_or(0))
            }
        }
        (v, None) => return Err(a.arg_err(1, format!("full needs a number, got {}", v.describe()))),
    };
    let default = match scalar {
        Scalar::Bool(_) => DType::Bool,
        Scalar::Int(_) => DType::I64,
        Scalar::Float(_) => DType::F32,
    };
    let dtype = a.opt_dtype(2)?.unwrap_or(default);
    ops::full("full", &shape, scalar, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn like(op: &str, a: &Bound, value: Scalar) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let dtype = a.opt_dtype(1)?.unwrap_or(x.dtype());
    ops::full(op, x.shape(), value, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn zeros_like(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    like("zeros_like", &a, Scalar::Int(0))
}

fn ones_like(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    like("ones_like", &a, Scalar::Int(1))
}

fn arange(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let all_int = [0, 1, 2]
        .iter()
        .all(|&i| a.get(i).is_none_or(|v| matches!(v.value, Value::Int(_))));
    let (start, stop) = match a.opt_float(1)? {
        Some(stop) => (a.float(0)?, stop),
        None => (0.0, a.float(0)?),
    };
    let step = a.opt_float(2)?.unwrap_or(1.0);
    let default = if all_int { DType::I64 } else { DType::F32 };
    let dtype = a.opt_dtype(3)?.unwrap_or(default);
    ops::arange(start, stop, step, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn linspace(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let num = match a.get(2) {
        Some(_) => a.count(2)?,
        None => 50,
    };
    let dtype = a.opt_dtype(3)?.unwrap_or(DType::F32);
    ops::linspace(a.float(0)?, a.float(1)?, num, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

fn eye(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let n = a.count(0)?;
    let m = match a.get(1) {
        Some(_) => a.count(1)?,
        None => n,
    };
    let k = a.opt_int(2)?.unwrap_or(0);
    let dtype = a.opt_dtype(3)?.unwrap_or(DType::F32);
    ops::eye(n, m, k, dtype)
        .map(Value::from)
        .map_err(|e| a.tensor_err(e))
}

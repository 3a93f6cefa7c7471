//! nn builtins (torch.nn.functional names, argument order and defaults).

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::ops::nn::{self, Activation};
use crate::runtime::value::Value;
use crate::tensor::{Result as TensorResult, Tensor};

macro_rules! activation_builtin {
    ($name:literal, $act:expr, $doc:literal) => {
        Builtin {
            name: $name,
            params: &["x"],
            doc: $doc,
            func: |_, a| tensor_result(&a, nn::activation($act, &a.tensor(0)?)),
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "relu",
        params: &["x"],
        doc: "max(x, 0) elementwise, keeping the dtype (NaN stays NaN); bool is an error.",
        func: |_, a| tensor_result(&a, nn::relu(&a.tensor(0)?)),
    },
    activation_builtin!(
        "sigmoid",
        Activation::Sigmoid,
        "1 / (1 + exp(-x)) elementwise, without overflow for large x; ints give f32."
    ),
    activation_builtin!(
        "silu",
        Activation::Silu,
        "x * sigmoid(x) elementwise (PyTorch's x / (1 + exp(-x))); ints give f32."
    ),
    Builtin {
        name: "gelu",
        params: &["x", "approximate=\"none\""],
        doc: "x/2 * (1 + erf(x/sqrt(2))) elementwise; approximate=\"tanh\" uses the tanh formula; ints give f32.",
        func: gelu,
    },
    Builtin {
        name: "softmax",
        params: &["x", "axis|dim=-1"],
        doc: "exp(x) / sum(exp(x)) along axis, computed stably (the maximum is subtracted first); ints give f32.",
        func: |_, a| tensor_result(&a, nn::softmax(&a.tensor(0)?, axis(&a)?)),
    },
    Builtin {
        name: "log_softmax",
        params: &["x", "axis|dim=-1"],
        doc: "log(softmax(x)) along axis, computed stably as (x - max) - log(sum(exp(x - max))); ints give f32.",
        func: |_, a| tensor_result(&a, nn::log_softmax(&a.tensor(0)?, axis(&a)?)),
    },
    Builtin {
        name: "layer_norm",
        params: &["x", "weight=none", "bias=none", "eps=1e-5"],
        doc: "(x - mean) / sqrt(var + eps) * weight + bias over the last axis (biased variance); ints give f32.",
        func: layer_norm,
    },
    Builtin {
        name: "rms_norm",
        params: &["x", "weight=none", "eps=1e-6"],
        doc: "x / sqrt(mean(x**2) + eps) * weight over the last axis; ints give f32.",
        func: rms_norm,
    },
];

fn tensor_result(a: &Bound, r: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| a.tensor_err(e))
}

fn axis(a: &Bound) -> Result<i64, Diagnostic> {
    Ok(a.opt_int(1)?.unwrap_or(-1))
}

fn gelu(_: &mut super::Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    let act = match a.get(1).map(|_| a.string(1)).transpose()?.as_deref() {
        None | Some("none") => Activation::Gelu,
        Some("tanh") => Activation::GeluTanh,
        Some(other) => {
            return Err(a.arg_err(
                1,
                format!("`approximate` must be \"none\" or \"tanh\", got \"{other}\""),
            ))
        }
    };
    tensor_result(&a, nn::activation(act, &x))
}

fn eps(a: &Bound, i: usize, default: f64) -> Result<f64, Diagnostic> {
    let eps = a.opt_float(i)?.unwrap_or(default);
    if eps.is_nan() || eps < 0.0 {
        return Err(a.arg_err(i, format!("`eps` must be a non-negative number, got {eps}")));
    }
    Ok(eps)
}

fn layer_norm(_: &mut super::Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (x, w, b) = (a.tensor(0)?, a.opt_tensor(1)?, a.opt_tensor(2)?);
    let eps = eps(&a, 3, 1e-5)?;
    tensor_result(&a, nn::layer_norm(&x, w.as_ref(), b.as_ref(), eps))
}

fn rms_norm(_: &mut super::Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (x, w) = (a.tensor(0)?, a.opt_tensor(1)?);
    let eps = eps(&a, 2, 1e-6)?;
    tensor_result(&a, nn::rms_norm(&x, w.as_ref(), eps))
}

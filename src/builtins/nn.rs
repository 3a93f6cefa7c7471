//! nn builtins (torch.nn.functional names, argument order and defaults).

use super::{Bound, Builtin};
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::nn::{self, Activation};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Shape};
use crate::tensor::{Result as TensorResult, Tensor};

macro_rules! activation_builtin {
    ($name:literal, $act:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; x: Var) {
                recorded(&a, rules::activation($act, &x))
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "relu",
        doc: "max(x, 0) elementwise, keeping the dtype (NaN stays NaN); bool is an error.",
        fn(_, a; x: Var) {
            recorded(&a, rules::relu(&x))
        }
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
    builtin! {
        name: "gelu",
        doc: "x/2 * (1 + erf(x/sqrt(2))) elementwise; approximate=\"tanh\" uses the tanh formula; ints give f32.",
        fn(_, a; x: Var, approximate: String = "none") {
            let act = match approximate.as_str() {
                "none" => Activation::Gelu,
                "tanh" => Activation::GeluTanh,
                other => {
                    let msg = format!("`approximate` must be \"none\" or \"tanh\", got \"{other}\"");
                    return Err(a.arg_err("approximate", msg));
                }
            };
            recorded(&a, rules::activation(act, &x))
        }
    },
    builtin! {
        name: "softmax",
        doc: "exp(x) / sum(exp(x)) along axis, computed stably (the maximum is subtracted first); ints give f32.",
        fn(_, a; x: Var, axis|dim: i64 = -1) {
            recorded(&a, rules::softmax(&x, axis))
        }
    },
    builtin! {
        name: "log_softmax",
        doc: "log(softmax(x)) along axis, computed stably as (x - max) - log(sum(exp(x - max))); ints give f32.",
        fn(_, a; x: Var, axis|dim: i64 = -1) {
            recorded(&a, rules::log_softmax(&x, axis))
        }
    },
    builtin! {
        name: "layer_norm",
        doc: "(x - mean) / sqrt(var + eps) * weight + bias over the trailing dims normalized_shape (an int, tuple or 1-D int tensor; biased variance), as torch; ints give f32.",
        fn(_, a; x: Tensor, normalized_shape: Shape, weight: Option<Tensor> = none, bias: Option<Tensor> = none, eps: f64 = 1e-5) {
            let eps = check_eps(&a, eps)?;
            tensor_result(&a, nn::layer_norm(&x, &normalized_shape.0, weight.as_ref(), bias.as_ref(), eps))
        }
    },
    builtin! {
        name: "rms_norm",
        doc: "x / sqrt(mean(x**2) + eps) * weight over the trailing dims normalized_shape, as torch; eps none is the dtype's machine epsilon; ints give f32.",
        fn(_, a; x: Tensor, normalized_shape: Shape, weight: Option<Tensor> = none, eps: Option<f64> = none) {
            let eps = eps.map(|e| check_eps(&a, e)).transpose()?;
            tensor_result(&a, nn::rms_norm(&x, &normalized_shape.0, weight.as_ref(), eps))
        }
    },
];

fn recorded(a: &Bound, r: autograd::Result<Var>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| a.grad_err(e))
}

fn tensor_result(a: &Bound, r: TensorResult<Tensor>) -> Result<Value, Diagnostic> {
    r.map(Value::from).map_err(|e| a.tensor_err(e))
}

fn check_eps(a: &Bound, eps: f64) -> Result<f64, Diagnostic> {
    if eps.is_nan() || eps < 0.0 {
        return Err(a.arg_err(
            "eps",
            format!("`eps` must be a non-negative number, got {eps}"),
        ));
    }
    Ok(eps)
}

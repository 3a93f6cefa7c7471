//! nn builtins (torch.nn.functional names, argument order and defaults).

use super::random::with_rng;
use super::{Bound, Builtin};
use crate::autograd::{rules, Var};
use crate::diag::Diagnostic;
use crate::ops::nn::Activation;
use crate::ops::{self, random, BinaryOp, Operand};
use crate::runtime::value::Value;
use crate::runtime::{builtin, Ctx, Shape};
use crate::tensor::{DType, Scalar, Tensor};

macro_rules! activation_builtin {
    ($name:literal, $act:expr, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; x: Var) {
                a.recorded(rules::activation($act, &x))
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "relu",
        doc: "max(x, 0) elementwise, keeping the dtype (NaN stays NaN); bool is an error.",
        fn(_, a; x: Var) {
            a.recorded(rules::relu(&x))
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
            a.recorded(rules::activation(act, &x))
        }
    },
    builtin! {
        name: "softmax",
        doc: "exp(x) / sum(exp(x)) along axis, computed stably (the maximum is subtracted first); ints give f32.",
        fn(_, a; x: Var, axis|dim: i64 = -1) {
            a.recorded(rules::softmax(&x, axis))
        }
    },
    builtin! {
        name: "log_softmax",
        doc: "log(softmax(x)) along axis, computed stably as (x - max) - log(sum(exp(x - max))); ints give f32.",
        fn(_, a; x: Var, axis|dim: i64 = -1) {
            a.recorded(rules::log_softmax(&x, axis))
        }
    },
    builtin! {
        name: "layer_norm",
        doc: "(x - mean) / sqrt(var + eps) * weight + bias over the trailing dims normalized_shape (an int, tuple or 1-D int tensor; biased variance), as torch; ints give f32.",
        fn(_, a; x: Var, normalized_shape: Shape, weight: Option<Var> = none, bias: Option<Var> = none, eps: f64 = 1e-5) {
            let eps = check_eps(&a, eps)?;
            a.recorded(rules::layer_norm(&x, &normalized_shape.0, weight.as_ref(), bias.as_ref(), eps))
        }
    },
    builtin! {
        name: "rms_norm",
        doc: "x / sqrt(mean(x**2) + eps) * weight over the trailing dims normalized_shape, as torch; eps none is the dtype's machine epsilon; ints give f32.",
        fn(_, a; x: Var, normalized_shape: Shape, weight: Option<Var> = none, eps: Option<f64> = none) {
            let eps = eps.map(|e| check_eps(&a, e)).transpose()?;
            a.recorded(rules::rms_norm(&x, &normalized_shape.0, weight.as_ref(), eps))
        }
    },
];

/// A builtin `NAME(x)` for an activation with no options.
macro_rules! plain_activation {
    ($name:literal, $rule:path, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; x: Var) {
                a.recorded($rule(&x))
            }
        }
    };
}

/// The activations, layers and dropout of torch.nn.functional added in wave 2.
pub const LAYERS: &[Builtin] = &[
    builtin! {
        name: "leaky_relu",
        doc: "x where x > 0, else negative_slope * x (torch).",
        fn(_, a; x: Var, negative_slope: f64 = 0.01) {
            a.recorded(rules::leaky_relu(&x, negative_slope))
        }
    },
    builtin! {
        name: "elu",
        doc: "x where x > 0, else alpha * (exp(x) - 1) (torch).",
        fn(_, a; x: Var, alpha: f64 = 1.0) {
            a.recorded(rules::elu(&x, alpha))
        }
    },
    plain_activation!("selu", rules::selu, "scale * elu(x, alpha) with torch's constants (alpha 1.6732632423543772, scale 1.0507009873554805)."),
    builtin! {
        name: "softplus",
        doc: "log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold (torch).",
        fn(_, a; x: Var, beta: f64 = 1.0, threshold: f64 = 20.0) {
            if beta == 0.0 || beta.is_nan() {
                return Err(a.arg_err("beta", format!("`beta` must be a nonzero number, got {beta}")));
            }
            a.recorded(rules::softplus(&x, beta, threshold))
        }
    },
    plain_activation!("mish", rules::mish, "x * tanh(softplus(x)) (torch)."),
    plain_activation!("hardswish", rules::hardswish, "x * relu6(x + 3) / 6 (torch)."),
    plain_activation!("relu6", rules::relu6, "min(max(x, 0), 6); the gradient passes where 0 < x < 6 (torch)."),
    plain_activation!("logsigmoid", rules::logsigmoid, "log(sigmoid(x)), computed as -softplus(-x) without overflow (torch)."),
    builtin! {
        name: "glu",
        doc: "The first half of x along dim times sigmoid of the second half; the size along dim must be even (torch).",
        fn(_, a; x: Var, dim: i64 = -1) {
            a.recorded(rules::glu(&x, dim))
        }
    },
    builtin! {
        name: "linear",
        doc: "x @ weight.T + bias, weight [out_features, in_features] (torch).",
        fn(_, a; x: Var, weight: Var, bias: Option<Var> = none) {
            a.recorded(rules::linear(&x, &weight, bias.as_ref()))
        }
    },
    builtin! {
        name: "embedding",
        doc: "The rows of weight [num_embeddings, dim] picked by the integer idx, shaped idx.shape + [dim] (torch's embedding(input, weight)).",
        fn(_, a; idx: Tensor, weight: Var) {
            a.recorded(rules::embedding(&idx, &weight))
        }
    },
    builtin! {
        name: "dropout",
        doc: "Zeroes each element of x with probability p and scales the rest by 1/(1-p) when training (torch); the mask comes from the session's random stream, or from seed=.",
        fn(ctx, a; x: Var, p: f64 = 0.5, training: bool = true, seed: Option<usize> = none) {
            if !(0.0..=1.0).contains(&p) {
                return Err(a.arg_err("p", format!("dropout probability has to be between 0 and 1, got {p}")));
            }
            if !training || p == 0.0 {
                return Ok(Value::from(x));
            }
            let keep = keep_mask(ctx, &a, x.shape(), p, seed)?;
            a.recorded(rules::dropout(&x, &keep, p))
        }
    },
    builtin! {
        name: "scaled_dot_product_attention",
        doc: "softmax(q @ k.mT * scale + mask) @ v, q [..., L, E], k [..., S, E], v [..., S, Ev] (torch's math definition); attn_mask bool (true takes part) or float (added); is_causal masks later positions; scale none is 1/sqrt(E); a row masked out entirely gives zeros; dropout_p draws from the session's random stream, or seed=.",
        fn(ctx, a;
            q: Var,
            k: Var,
            v: Var,
            attn_mask: Option<Var> = none,
            dropout_p: f64 = 0.0,
            is_causal: bool = false,
            scale: Option<f64> = none,
            seed: Option<usize> = none,
        ) {
            if !(0.0..=1.0).contains(&dropout_p) {
                return Err(a.arg_err("dropout_p", format!("dropout probability has to be between 0 and 1, got {dropout_p}")));
            }
            let mask = match (&attn_mask, is_causal) {
                (Some(_), true) => {
                    return Err(a.arg_err("is_causal", "is_causal=true and an attn_mask cannot be given together (torch)"));
                }
                (None, true) => rules::Mask::Causal,
                (None, false) => rules::Mask::None,
                (Some(m), false) if m.dtype() == DType::Bool => rules::Mask::Bool(m.tensor()),
                (Some(m), false) if m.dtype().is_float() => rules::Mask::Add(m),
                (Some(m), false) => {
                    return Err(a.arg_err("attn_mask", format!("attn_mask must be bool (true takes part) or a float tensor to add, got {}", m.dtype())));
                }
            };
            let keep = if dropout_p > 0.0 {
                let shape = rules::scores_shape(&q, &k, &v).map_err(|e| a.grad_err(e))?;
                Some(keep_mask(ctx, &a, &shape, dropout_p, seed)?)
            } else {
                None
            };
            let dropped = keep.as_ref().map(|keep| rules::AttentionDropout { keep, p: dropout_p });
            a.recorded(rules::scaled_dot_product_attention(&q, &k, &v, mask, dropped, scale))
        }
    },
];

/// Dropout's mask of `shape`: true (kept) with probability 1 − p, drawn from the
/// session's random stream or from `seed`.
fn keep_mask(
    ctx: &mut dyn Ctx,
    a: &Bound,
    shape: &[usize],
    p: f64,
    seed: Option<usize>,
) -> Result<Tensor, Diagnostic> {
    let u = with_rng(ctx, a, seed, |rng| random::rand(rng, shape, DType::F32))?;
    let Value::Tensor(u) = u else {
        return Err(a.err("internal: dropout drew no tensor"));
    };
    ops::binary(
        BinaryOp::Lt,
        Operand::Tensor(u.tensor()),
        Operand::Scalar(Scalar::Float(1.0 - p)),
    )
    .map_err(|e| a.tensor_err(e))
}

pub(super) fn check_eps(a: &Bound, eps: f64) -> Result<f64, Diagnostic> {
    if eps.is_nan() || eps < 0.0 {
        return Err(a.arg_err(
            "eps",
            format!("`eps` must be a non-negative number, got {eps}"),
        ));
    }
    Ok(eps)
}

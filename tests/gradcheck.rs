//! Gradients against central finite differences, in f64: for each case, the
//! gradient `grad` gives of `sum(sin(OP))` (a scalar with a cotangent that differs
//! per element) is compared with (f(x + h) - f(x - h)) / 2h, element by element.
//! Cases cover broadcasting pairs, views as inputs, 0-d and size-1 dims; a subset
//! also checks the gradient of the gradient, and every case runs once more in f32
//! to check that the gradient keeps its input's dtype.

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;
use tsr::ops::UnaryOp;
use tsr::runtime::Value;
use tsr::tensor::{DType, Tensor};

/// How an input's values are drawn: away from kinks, poles and the edges of a
/// function's domain, where finite differences do not hold.
#[derive(Clone, Copy)]
enum Domain {
    /// [-2, 2], at least 0.2 from 0.
    Any,
    /// [0.5, 2].
    Pos,
    /// (-0.8, 0.8), at least 0.1 from 0.
    Unit,
    /// [1.2, 3].
    AboveOne,
    /// An integer plus [0.25, 0.75]: away from steps of floor, round, ...
    Frac,
}

struct Case {
    /// The expression, over inputs a, b, c.
    op: &'static str,
    inputs: &'static [(&'static [usize], Domain)],
    /// Also check the gradient of the gradient (single input).
    second: bool,
}

const fn case(op: &'static str, inputs: &'static [(&'static [usize], Domain)]) -> Case {
    Case {
        op,
        inputs,
        second: false,
    }
}

const fn twice(op: &'static str, inputs: &'static [(&'static [usize], Domain)]) -> Case {
    Case {
        op,
        inputs,
        second: true,
    }
}

use Domain::*;

const M: &[usize] = &[3, 4];

/// The differentiable unary ops checked to second order, by name, with the
/// domain their derivative is checked on (the coverage test holds this list, the
/// first-order cases and `NOT_DIFFERENTIABLE` to `UnaryOp::ALL`).
const UNARY: &[(&str, Domain)] = &[
    ("neg", Any),
    ("abs", Any),
    ("sign", Any),
    ("square", Any),
    ("floor", Frac),
    ("ceil", Frac),
    ("trunc", Frac),
    ("round", Frac),
    ("sqrt", Pos),
    ("reciprocal", Pos),
    ("exp", Any),
    ("exp2", Any),
    ("log", Pos),
    ("log2", Pos),
    ("log10", Pos),
    ("sin", Any),
    ("cos", Any),
    ("tan", Unit),
    ("asin", Unit),
    ("acos", Unit),
    ("atan", Any),
    ("sinh", Any),
    ("cosh", Any),
    ("tanh", Any),
    ("asinh", Any),
    ("acosh", AboveOne),
    ("atanh", Unit),
    ("erf", Any),
    ("erfc", Any),
    ("log1p", Pos),
    ("expm1", Any),
    ("sinc", Any),
    ("lgamma", Pos),
    ("trigamma", Pos),
    ("deg2rad", Any),
    ("rad2deg", Any),
];

/// Unary ops without a gradient, or whose result is not a float: never in `UNARY`.
const NOT_DIFFERENTIABLE: &[&str] = &["bitwise_not", "isnan", "isinf", "isfinite", "logical_not"];

const CASES: &[Case] = &[
    // Arithmetic operators with broadcasting and weak scalars.
    twice("a + b", &[(M, Any), (&[4], Any)]),
    twice("a - b", &[(&[3, 1], Any), (&[1, 4], Any)]),
    twice("a * b", &[(&[], Any), (&[2, 3], Any)]),
    twice("a / b", &[(M, Any), (&[3, 1], Pos)]),
    twice("a ** b", &[(M, Pos), (M, Any)]),
    twice("a ** 3", &[(M, Any)]),
    case("2.0 ** a", &[(M, Any)]),
    case("a ** 0.5", &[(M, Pos)]),
    case("-a + 1.5 * a - a / 2.0", &[(M, Any)]),
    case("a % b", &[(M, Pos), (M, AboveOne)]),
    case("a // b", &[(M, Pos), (M, AboveOne)]),
    // Binary builtins.
    case("maximum(a, b)", &[(M, Any), (M, Any)]),
    case("minimum(a, b)", &[(&[3, 1], Any), (M, Any)]),
    case("maximum(a, 0.3)", &[(M, Any)]),
    case("atan2(a, b)", &[(M, Any), (M, Any)]),
    case("hypot(a, b)", &[(M, Any), (M, Any)]),
    case("logaddexp(a, b)", &[(M, Any), (&[4], Any)]),
    case("copysign(a, b)", &[(M, Any), (M, Any)]),
    case("fmod(a, b)", &[(M, Pos), (M, AboveOne)]),
    case("pow(a, b)", &[(M, Pos), (&[], Any)]),
    case("where(a > 0, a, b)", &[(M, Any), (&[4], Any)]),
    case("where(a > 0, a * 2.0, 0.0)", &[(M, Any)]),
    // Matmul: 1-D, 2-D, batched with broadcast batch dims, views.
    twice("a @ b", &[(&[3, 4], Any), (&[4, 2], Any)]),
    case("a @ b", &[(&[4], Any), (&[4, 2], Any)]),
    case("a @ b", &[(&[3, 4], Any), (&[4], Any)]),
    case("a @ b", &[(&[4], Any), (&[4], Any)]),
    case("a @ b", &[(&[2, 3, 4], Any), (&[4, 2], Any)]),
    case("a @ b", &[(&[2, 1, 3, 4], Any), (&[3, 4, 2], Any)]),
    case("a.T @ b", &[(&[4, 3], Any), (&[4, 2], Any)]),
    case("a @ b.mT", &[(&[2, 3, 4], Any), (&[2, 5, 4], Any)]),
    case("matmul(a, b)", &[(&[3, 4], Any), (&[4, 2], Any)]),
    // Reductions.
    twice("sum(a)", &[(M, Any)]),
    case("sum(a, axis=0)", &[(M, Any)]),
    case("sum(a, axis=-1, keepdim=true)", &[(&[2, 3, 4], Any)]),
    case("sum(a, axis=(0, 2))", &[(&[2, 3, 4], Any)]),
    twice("mean(a, axis=1)", &[(M, Any)]),
    case("mean(a)", &[(&[], Any)]),
    case("max(a)", &[(M, Any)]),
    case("max(a, axis=1)", &[(M, Any)]),
    case("min(a, axis=0, keepdim=true)", &[(M, Any)]),
    twice("var(a, axis=1)", &[(M, Any)]),
    case("var(a, ddof=1)", &[(M, Any)]),
    case("std(a, axis=0)", &[(M, Any)]),
    case("std(a, axis=1, ddof=1)", &[(M, Any)]),
    twice("logsumexp(a, axis=1)", &[(M, Any)]),
    case("a.sum(axis=0) * a.mean()", &[(M, Any)]),
    // Views and shapes.
    case("reshape(a, 4, 3)", &[(M, Any)]),
    case("a.reshape([2, -1])", &[(M, Any)]),
    case("a.T", &[(M, Any)]),
    case("a.T.reshape(12)", &[(M, Any)]),
    case("transpose(a, 0, 2)", &[(&[2, 3, 4], Any)]),
    case("permute(a, [2, 0, 1])", &[(&[2, 3, 4], Any)]),
    case("a.mT", &[(&[2, 3, 4], Any)]),
    case("broadcast_to(a, [2, 3, 4])", &[(&[3, 1], Any)]),
    case("flatten(a, 1)", &[(&[2, 3, 4], Any)]),
    case("squeeze(a)", &[(&[3, 1, 4], Any)]),
    case("unsqueeze(a, 1)", &[(M, Any)]),
    case("expand_dims(a, (0, 2))", &[(M, Any)]),
    case("contiguous(a.T) * clone(a.T)", &[(M, Any)]),
    case("f64(a)", &[(M, Any)]),
    // Indexing: basic views, advanced with repeats, masks; literals.
    case("a[1]", &[(M, Any)]),
    case("a[:, 1:3] * a[0, ::2].sum()", &[(M, Any)]),
    case("a[..., -1]", &[(&[2, 3, 4], Any)]),
    case("a[none, 1:]", &[(M, Any)]),
    case("a[[0, 2, 0]]", &[(M, Any)]),
    case("a[[1, 1], [0, 3]]", &[(M, Any)]),
    case("a[a > 0]", &[(M, Any)]),
    case("[a[0], a[2] * 2.0, a[1]]", &[(M, Any)]),
    case("[sum(a), 1.0, mean(a)]", &[(M, Any)]),
    case("[x * 2.0 for x in [a[0], a[1]]]", &[(M, Any)]),
    // nn.
    twice("relu(a)", &[(M, Any)]),
    twice("sigmoid(a)", &[(M, Any)]),
    case("silu(a)", &[(M, Any)]),
    twice("gelu(a)", &[(M, Any)]),
    case("gelu(a, approximate=\"tanh\")", &[(M, Any)]),
    twice("softmax(a, axis=1)", &[(M, Any)]),
    case("softmax(a, axis=0)", &[(&[2, 3, 4], Any)]),
    twice("log_softmax(a)", &[(M, Any)]),
    case("log_softmax(a, dim=0)", &[(M, Any)]),
    // clip, scans, gathers.
    twice("clip(a, -0.5, 0.7)", &[(M, Any)]),
    case("clip(a, min=0.3)", &[(M, Any)]),
    case("clip(a, b, c)", &[(M, Any), (M, Any), (&[4], Any)]),
    case("clip(a, min=b)", &[(M, Any), (&[3, 1], Any)]),
    case(
        "clip(a, max=tensor([0.1, -0.2, 0.5, 0.0], dtype=f64))",
        &[(M, Any)],
    ),
    twice("cumsum(a, axis=1)", &[(M, Any)]),
    case("cumsum(a, axis=0)", &[(&[2, 3, 4], Any)]),
    case("cumsum(a)", &[(M, Any)]),
    twice(
        "gather(a, 1, tensor([[0, 0], [3, 1], [2, 2]]))",
        &[(M, Any)],
    ),
    case("gather(a, 0, tensor([[2, 0, 1, 1]]))", &[(M, Any)]),
    // Joins.
    case("concat((a, b), axis=1)", &[(&[3, 2], Any), (&[3, 4], Any)]),
    case("concat((a, a * 2.0, b))", &[(M, Any), (&[1, 4], Any)]),
    case("stack((a, b, a))", &[(M, Any), (M, Any)]),
    case("stack((a, b), axis=-1)", &[(M, Any), (M, Any)]),
    case("stack(a, axis=1)", &[(M, Any)]),
    // nn functions added in wave 2.
    case("leaky_relu(a, 0.1)", &[(M, Any)]),
    twice("elu(a)", &[(M, Any)]),
    case("selu(a)", &[(M, Any)]),
    twice("softplus(a)", &[(M, Any)]),
    case("softplus(a, beta=2.0)", &[(M, Any)]),
    case("mish(a)", &[(M, Any)]),
    case("hardswish(a * 2.0)", &[(M, Any)]),
    case("relu6(a * 4.0)", &[(M, Any)]),
    twice("logsigmoid(a)", &[(M, Any)]),
    case("glu(a)", &[(M, Any)]),
    case("glu(a, dim=0)", &[(&[4, 3], Any)]),
    twice(
        "linear(a, b, c)",
        &[(&[2, 3], Any), (&[4, 3], Any), (&[4], Any)],
    ),
    case("linear(a, b)", &[(&[2, 5, 3], Any), (&[4, 3], Any)]),
    case("embedding(tensor([[0, 2], [2, 1]]), a)", &[(M, Any)]),
    case("dropout(a, p=0.3, seed=5)", &[(M, Any)]),
    twice("layer_norm(a, 4)", &[(M, Any)]),
    case(
        "layer_norm(a, (3, 4), weight=b, bias=c)",
        &[(&[2, 3, 4], Any), (&[3, 4], Any), (&[3, 4], Any)],
    ),
    twice("rms_norm(a, 4, weight=b)", &[(M, Any), (&[4], Any)]),
    // Convolution and pooling.
    twice(
        "conv2d(a, b, c, padding=1)",
        &[(&[2, 2, 4, 4], Any), (&[3, 2, 3, 3], Any), (&[3], Any)],
    ),
    case(
        "conv2d(a, b, stride=2)",
        &[(&[1, 2, 5, 5], Any), (&[2, 2, 3, 3], Any)],
    ),
    case(
        "conv2d(a, b, stride=2, padding=1, dilation=2)",
        &[(&[1, 1, 6, 7], Any), (&[2, 1, 2, 3], Any)],
    ),
    case(
        "conv2d(a, b, padding=\"same\")",
        &[(&[1, 2, 4, 4], Any), (&[2, 2, 3, 3], Any)],
    ),
    // An even kernel: "same" pads one more zero after.
    case(
        "conv2d(a, b, c, padding=\"same\")",
        &[(&[2, 4, 5], Any), (&[3, 2, 2, 3], Any), (&[3], Any)],
    ),
    case(
        "conv1d(a, b, padding=\"same\", dilation=3)",
        &[(&[1, 2, 7], Any), (&[2, 2, 2], Any)],
    ),
    case(
        "conv2d(a, b, groups=2)",
        &[(&[1, 4, 4, 4], Any), (&[4, 2, 3, 3], Any)],
    ),
    case("conv2d(a, b)", &[(&[2, 4, 4], Any), (&[3, 2, 2, 2], Any)]),
    case(
        "conv1d(a, b, c, stride=2, padding=1)",
        &[(&[2, 2, 7], Any), (&[3, 2, 3], Any), (&[3], Any)],
    ),
    case(
        "conv3d(a, b)",
        &[(&[1, 1, 3, 4, 4], Any), (&[2, 1, 2, 2, 3], Any)],
    ),
    twice(
        "conv_transpose2d(a, b, c, stride=2, padding=1)",
        &[(&[1, 2, 3, 3], Any), (&[2, 3, 3, 3], Any), (&[3], Any)],
    ),
    case(
        "conv_transpose2d(a, b, stride=2, output_padding=1)",
        &[(&[1, 2, 3, 3], Any), (&[2, 1, 2, 2], Any)],
    ),
    twice("max_pool2d(a, 2)", &[(&[2, 2, 4, 4], Any)]),
    case(
        "max_pool2d(a, 3, stride=2, padding=1)",
        &[(&[1, 2, 5, 5], Any)],
    ),
    case("max_pool2d(a, 2, ceil_mode=true)", &[(&[2, 5, 5], Any)]),
    twice("avg_pool2d(a, 2)", &[(&[2, 2, 4, 4], Any)]),
    case(
        "avg_pool2d(a, 3, stride=2, padding=1, count_include_pad=false)",
        &[(&[1, 2, 5, 5], Any)],
    ),
    case(
        "global_avg_pool2d(a) * global_max_pool2d(a)",
        &[(&[2, 3, 3, 3], Any)],
    ),
    case(
        "max_pool2d(relu(conv2d(a, b, padding=1)), 2)",
        &[(&[1, 1, 4, 4], Any), (&[2, 1, 3, 3], Any)],
    ),
    // Losses.
    twice("cross_entropy(a, tensor([1, 0, 3]))", &[(M, Any)]),
    case(
        "cross_entropy(a, tensor([1, 0, 3]), weight=b, reduction=\"sum\")",
        &[(M, Any), (&[4], Pos)],
    ),
    case(
        "cross_entropy(a, tensor([1, -100, 3]), weight=b)",
        &[(M, Any), (&[4], Pos)],
    ),
    case(
        "cross_entropy(a, tensor([1, 0, 3]), label_smoothing=0.2, reduction=\"none\")",
        &[(M, Any)],
    ),
    case(
        "cross_entropy(a, tensor([1, 0, 3]), weight=b, label_smoothing=0.1)",
        &[(M, Any), (&[4], Pos)],
    ),
    case("cross_entropy(a, tensor(2))", &[(&[3], Any)]),
    case(
        "cross_entropy(a, tensor([1, 0, 3]), ignore_index=0)",
        &[(M, Any)],
    ),
    case(
        "cross_entropy(a, softmax(b, axis=1))",
        &[(M, Any), (M, Any)],
    ),
    case(
        "cross_entropy(a, softmax(b, axis=1), label_smoothing=0.3)",
        &[(M, Any), (M, Any)],
    ),
    case(
        "cross_entropy(a, tensor([[0, 1, 2, 0], [2, 2, 1, 0]]))",
        &[(&[2, 3, 4], Any)],
    ),
    case(
        "nll_loss(log_softmax(a, axis=1), tensor([1, 0, 3]), weight=b)",
        &[(M, Any), (&[4], Pos)],
    ),
    twice("mse_loss(a, b)", &[(M, Any), (M, Any)]),
    case(
        "mse_loss(a, b, reduction=\"none\")",
        &[(M, Any), (&[4], Any)],
    ),
    case("l1_loss(a, b, reduction=\"sum\")", &[(M, Any), (M, Any)]),
    case("smooth_l1_loss(a, b, beta=0.5)", &[(M, Any), (M, Any)]),
    case("huber_loss(a, b, delta=0.7)", &[(M, Any), (M, Any)]),
    case(
        "binary_cross_entropy(sigmoid(a), sigmoid(b), weight=c)",
        &[(M, Any), (M, Any), (&[4], Pos)],
    ),
    case(
        "binary_cross_entropy_with_logits(a, sigmoid(b), pos_weight=c)",
        &[(M, Any), (M, Any), (&[4], Pos)],
    ),
    case(
        "kl_div(log_softmax(a, axis=1), softmax(b, axis=1), reduction=\"batchmean\")",
        &[(M, Any), (M, Any)],
    ),
    case("kl_div(a, b, log_target=true)", &[(M, Any), (M, Any)]),
    // Batch-statistics norms, normalize, attention, resampling, more pools.
    twice(
        "batch_norm(a, none, none, training=true)",
        &[(&[4, 3, 2], Any)],
    ),
    case(
        "batch_norm(a, b, c, training=false)",
        &[(&[4, 3], Any), (&[3], Any), (&[3], Pos)],
    ),
    twice("group_norm(a, 2)", &[(&[2, 4, 3], Any)]),
    case(
        "instance_norm(a, weight=b)",
        &[(&[2, 3, 4], Any), (&[3], Any)],
    ),
    twice("normalize(a, p=3.0)", &[(M, Any)]),
    case("normalize(a, dim=0)", &[(M, Any)]),
    case(
        "scaled_dot_product_attention(a, b, c, is_causal=true)",
        &[(&[2, 3, 4], Any), (&[2, 3, 4], Any), (&[2, 3, 2], Any)],
    ),
    twice("scaled_dot_product_attention(a, a, a)", &[(&[3, 2], Any)]),
    twice(
        "interpolate(a, size=[3, 5], mode=\"bicubic\")",
        &[(&[1, 1, 2, 3], Any)],
    ),
    case(
        "interpolate(a, scale_factor=1.5, mode=\"bilinear\", align_corners=true)",
        &[(&[1, 2, 2, 3], Any)],
    ),
    case("interpolate(a, size=5)", &[(&[1, 2, 3], Any)]),
    case("max_pool1d(a, 2, stride=1)", &[(&[1, 2, 5], Any)]),
    case("avg_pool1d(a, 3, padding=1)", &[(&[2, 5], Any)]),
    case("max_pool3d(a, 2, stride=1)", &[(&[1, 1, 2, 3, 3], Any)]),
    twice("adaptive_avg_pool2d(a, [2, 3])", &[(&[1, 1, 3, 4], Any)]),
    twice("adaptive_max_pool2d(a, 2)", &[(&[1, 1, 3, 5], Any)]),
    case(
        "conv_transpose1d(a, b, stride=2)",
        &[(&[1, 2, 3], Any), (&[2, 1, 2], Any)],
    ),
    case(
        "conv_transpose3d(a, b)",
        &[(&[1, 1, 2, 2, 2], Any), (&[1, 2, 2, 1, 2], Any)],
    ),
    // Sorting and order statistics.
    twice("sort(a, axis=0)", &[(M, Any)]),
    case("sort(a, axis=none, descending=true)", &[(M, Any)]),
    case("topk(a, 2)[0]", &[(M, Any)]),
    case("topk(a, 2, axis=0, largest=false)[0]", &[(M, Any)]),
    case("kthvalue(a, 3)[0]", &[(M, Any)]),
    twice("median(a)", &[(M, Any)]),
    case("median(a, axis=1, keepdim=true)", &[(&[3, 5], Any)]),
    case("nanmedian(a, axis=(0, 1))", &[(&[2, 3, 2], Any)]),
    case("quantile(a, tensor([0.1, 0.5, 0.8]), axis=0)", &[(M, Any)]),
    case("percentile(a, 30, method=\"midpoint\")", &[(M, Any)]),
    case("quantile(a, 0.4, axis=1, method=\"nearest\")", &[(M, Any)]),
    // Builtins that move elements.
    twice("flip(a, axis=1)", &[(M, Any)]),
    case("roll(a, 2)", &[(M, Any)]),
    case("roll(a, [1, -1], axis=[0, 1])", &[(M, Any)]),
    case("tile(a, [2, 1])", &[(M, Any)]),
    case("repeat(a, [1, 0, 2], axis=0)", &[(M, Any)]),
    case("repeat(a, 2)", &[(M, Any)]),
    twice("pad(a, 1)", &[(M, Any)]),
    case("pad(a, ((0, 1), (2, 1)), constant_values=0.5)", &[(M, Any)]),
    case("pad(a, 2, mode=\"reflect\")", &[(M, Any)]),
    case("pad(a, ((1, 2), (0, 3)), mode=\"wrap\")", &[(M, Any)]),
    case("rot90(a)", &[(M, Any)]),
    case("moveaxis(a, 0, -1)", &[(&[2, 3, 4], Any)]),
    case("swapaxes(a, 0, 1)", &[(M, Any)]),
    twice("tril(a, 1)", &[(M, Any)]),
    case("triu(a)", &[(&[2, 3, 3], Any)]),
    case("diag(a, 1)", &[(&[3], Any)]),
    case("diag(a)", &[(M, Any)]),
    case("diagonal(a, 1)", &[(M, Any)]),
    twice("trace(a)", &[(M, Any)]),
    case("take(a, tensor([0, 5, 5, -1]))", &[(M, Any)]),
    case("take(a, tensor([[2, 0], [2, 1]]), axis=1)", &[(M, Any)]),
    case(
        "take_along_axis(a, tensor([[0, 0], [2, 1], [3, 3]]), axis=1)",
        &[(M, Any)],
    ),
    case("index_select(a, 0, tensor([2, 0, 2]))", &[(M, Any)]),
    // Linear algebra (square inputs shifted by a multiple of the identity to be
    // well conditioned; the factorizations read only the lower triangle).
    twice("inv(a + 3.0 * eye(3))", &[(&[3, 3], Any)]),
    case(
        "solve(a + 3.0 * eye(3), b)",
        &[(&[3, 3], Any), (&[3, 2], Any)],
    ),
    case(
        "solve(a + 3.0 * eye(3), b)",
        &[(&[2, 3, 3], Any), (&[3], Any)],
    ),
    twice("det(a)", &[(&[3, 3], Any)]),
    case("slogdet(a + 3.0 * eye(3))[1]", &[(&[2, 3, 3], Any)]),
    case(
        "solve_triangular(a + 3.0 * eye(3), b, lower=true)",
        &[(&[3, 3], Any), (&[3, 2], Any)],
    ),
    case(
        "solve_triangular(a + 3.0 * eye(3), b)",
        &[(&[3, 3], Any), (&[3], Any)],
    ),
    twice("cholesky(a @ a.T + eye(3))", &[(&[3, 3], Any)]),
    case("cholesky(a + 6.0 * eye(3))", &[(&[3, 3], Any)]),
    case(
        "cholesky(a @ a.mT + eye(3), upper=true)",
        &[(&[2, 3, 3], Any)],
    ),
    case("eigh(a)[0]", &[(&[3, 3], Any)]),
    case("eigh(a + a.T)[1]", &[(&[3, 3], Any)]),
    case("eigvalsh(a)", &[(&[2, 3, 3], Any)]),
    twice("svdvals(a)", &[(&[3, 2], Any)]),
    case("svd(a, compute_uv=false)", &[(&[2, 4], Any)]),
    case("svd(a, full_matrices=false)[0]", &[(&[4, 3], Any)]),
    case("svd(a, full_matrices=false)[1]", &[(&[2, 3, 4], Any)]),
    case("svd(a, full_matrices=false)[2]", &[(&[3, 5], Any)]),
    twice("svd(a)[0] * svd(a)[2]", &[(&[3, 3], Any)]),
    case("qr(a)[0]", &[(&[4, 3], Any)]),
    twice("qr(a)[1]", &[(&[3, 3], Any)]),
    case("qr(a)[0]", &[(&[2, 3, 5], Any)]),
    case("qr(a)[1]", &[(&[3, 5], Any)]),
    case("qr(a, mode=\"r\")", &[(&[5, 2], Any)]),
    case("qr(a, mode=\"complete\")[0]", &[(&[2, 4], Any)]),
    twice("pinv(a)", &[(&[3, 4], Any)]),
    case("pinv(a)", &[(&[2, 4, 3], Any)]),
    case("lstsq(a, b)[0]", &[(&[4, 3], Any), (&[4, 2], Any)]),
    case("lstsq(a, b)[0]", &[(&[2, 3], Any), (&[2], Any)]),
    case("lstsq(a, b)[1]", &[(&[5, 2], Any), (&[5], Any)]),
    case("lstsq(a, b)[3]", &[(&[4, 3], Any), (&[4], Any)]),
    case("norm(a)", &[(M, Any)]),
    case("norm(a, ord=\"fro\")", &[(M, Any)]),
    case("norm(a, ord=1)", &[(M, Any)]),
    case("norm(a, ord=-inf, axis=(1, 0), keepdim=true)", &[(M, Any)]),
    case("norm(a, ord=\"nuc\")", &[(M, Any)]),
    case("norm(a, 2)", &[(M, Any)]),
    case("norm(a, ord=3, axis=1)", &[(M, Any)]),
    twice("matrix_power(a, 3)", &[(&[3, 3], Any)]),
    case("matrix_power(a + 3.0 * eye(3), -2)", &[(&[3, 3], Any)]),
    // Products, nan-reductions, running extremes.
    twice("prod(a, axis=1)", &[(M, Any)]),
    case(
        "prod(a * tensor([1.0, 0.0, 1.0, 1.0]), axis=1)",
        &[(M, Any)],
    ),
    case("nansum(where(a > 1.0, nan, a))", &[(M, Any)]),
    case("nanmean(where(a > 1.0, nan, a), axis=0)", &[(M, Any)]),
    case("nanmax(a, axis=1)", &[(M, Any)]),
    case("nanvar(where(a > 1.5, nan, a), axis=1)", &[(M, Any)]),
    case("nanstd(a, ddof=1)", &[(M, Any)]),
    case("nanprod(where(a > 1.5, nan, a), axis=0)", &[(M, Any)]),
    case("ptp(a, axis=1)", &[(M, Any)]),
    twice("cumprod(a, axis=1)", &[(M, Any)]),
    case("cumprod(a)", &[(&[2, 3], Any)]),
    case(
        "cumprod(a * tensor([1.0, 0.0, 1.0, 0.0]), axis=1)",
        &[(M, Any)],
    ),
    case("cummax(a, axis=1)", &[(M, Any)]),
    case("cummin(a)", &[(M, Any)]),
    // Writes, differences, joins and splits.
    case("masked_fill(a, a > 0.5, 2.0)", &[(M, Any)]),
    case(
        "scatter(a, 1, tensor([[0, 2], [1, 1], [3, 0]]), b)",
        &[(M, Any), (&[3, 2], Any)],
    ),
    case("scatter(a, 0, tensor([[2, 0, 1, 0]]), 0.5)", &[(M, Any)]),
    case(
        "scatter_add(a, 1, tensor([[0, 0], [1, 3], [2, 2]]), b)",
        &[(M, Any), (&[3, 2], Any)],
    ),
    case(
        "scatter_add(a, 1, tensor([[0, 0], [1, 3]]), b)",
        &[(M, Any), (&[3, 3], Any)],
    ),
    case(
        "index_add(a, 0, tensor([0, 2, 0]), b, alpha=2.0)",
        &[(M, Any), (M, Any)],
    ),
    case(
        "put_along_axis(a, tensor([[1], [0], [3]]), b, 1)",
        &[(M, Any), (&[3, 1], Any)],
    ),
    twice("diff(a, n=2)", &[(M, Any)]),
    case("diff(a, axis=0)", &[(M, Any)]),
    case("outer(a, b)", &[(&[3], Any), (&[2, 2], Any)]),
    case("nan_to_num(a)", &[(M, Any)]),
    case("hstack((a, b))", &[(M, Any), (&[3, 2], Any)]),
    case("vstack((a, b))", &[(&[4], Any), (M, Any)]),
    case("dstack((a, a))", &[(M, Any)]),
    case("column_stack((a, b))", &[(&[3], Any), (&[3, 2], Any)]),
    case("split(a, 2, axis=1)[1]", &[(M, Any)]),
    case("array_split(a, 2)[0]", &[(M, Any)]),
    case("chunk(a, 3, dim=1)[1]", &[(M, Any)]),
    case("unbind(a)[1]", &[(M, Any)]),
    // Casts, and forms not covered above.
    case("astype(a, f64) * 2.0", &[(M, Any)]),
    case("to(a, f64)", &[(M, Any)]),
    case("nanmin(where(a > 1.0, nan, a), axis=1)", &[(M, Any)]),
    case(
        "nanpercentile(where(a > 1.5, nan, a), 40, axis=0)",
        &[(M, Any)],
    ),
    case("remainder(a, b)", &[(M, Pos), (M, AboveOne)]),
    twice("digamma(a)", &[(M, Pos)]),
    twice("polygamma(2, a)", &[(M, Pos)]),
    case("polygamma(0, a)", &[(&[3], Pos)]),
    // Statistics.
    case("average(a)", &[(M, Any)]),
    twice("average(a, axis=1, weights=b)", &[(M, Any), (&[4], Pos)]),
    case(
        "average(a, axis=0, weights=b, returned=true)[1]",
        &[(M, Any), (M, Pos)],
    ),
    twice("cov(a)", &[(M, Any)]),
    case(
        "cov(a, b, rowvar=false, ddof=0)",
        &[(M, Any), (&[3, 2], Any)],
    ),
    case("cov(a, bias=true)", &[(&[5], Any)]),
    case("corrcoef(a)", &[(M, Any)]),
    case("corrcoef(a, b)", &[(&[5], Any), (&[5], Any)]),
    case(
        "interp(a, tensor([-2.5, -1.1, 0.7, 2.5]), b)",
        &[(&[6], Any), (&[4], Any)],
    ),
    case(
        "interp(a, cumsum(b), c, left=0.5)",
        &[(&[6], Any), (&[4], Pos), (&[4], Any)],
    ),
    case("polyfit(a, b, 2)", &[(&[5], Any), (&[5], Any)]),
    case("polyfit(a, b, 1)", &[(&[4], Any), (&[4, 2], Any)]),
    // Compositions over ops::algebra, im2col/col2im, meshgrid.
    case("dot(a, b)", &[(&[2, 3], Any), (&[4, 3, 2], Any)]),
    case("dot(a, b)", &[(&[3], Any), (&[3], Any)]),
    case("vdot(a, b)", &[(M, Any), (&[2, 6], Any)]),
    case("inner(a, b)", &[(&[2, 3], Any), (&[4, 3], Any)]),
    twice(
        "tensordot(a, b, axes=((0, 2), (1, 0)))",
        &[(&[2, 3, 4], Any), (&[4, 2], Any)],
    ),
    case("tensordot(a, b, 1)", &[(M, Any), (&[4, 2], Any)]),
    case("kron(a, b)", &[(&[2, 2], Any), (&[3], Any)]),
    case("cross(a, b)", &[(&[2, 3], Any), (&[3], Any)]),
    case("cross(a, b, axis=0)", &[(&[2, 3], Any), (&[2, 3], Any)]),
    twice("polyval(a, b)", &[(&[3], Any), (&[4], Any)]),
    case(
        "im2col(a, 2, padding=1, stride=[1, 2])",
        &[(&[1, 2, 3, 4], Any)],
    ),
    case("col2im(a, [3, 3], 2)", &[(&[1, 8, 4], Any)]),
    twice(
        "einsum(\"ij,jk->ik\", a, b)",
        &[(&[2, 3], Any), (&[3, 2], Any)],
    ),
    case("einsum(\"ii->i\", a)", &[(&[3, 3], Any)]),
    case(
        "einsum(\"bij,bkj->bik\", a, b)",
        &[(&[2, 2, 3], Any), (&[2, 4, 3], Any)],
    ),
    case(
        "einsum(\"i,j,ij\", a, b, c)",
        &[(&[2], Any), (&[3], Any), (&[2, 3], Any)],
    ),
    case(
        "einsum(\"...i,...i->...\", a, b)",
        &[(&[2, 3], Any), (&[3], Any)],
    ),
    case(
        "meshgrid(a, b)[0] * meshgrid(a, b)[1]",
        &[(&[3], Any), (&[2], Any)],
    ),
    case(
        "meshgrid(a, b, indexing=\"ij\")[1]",
        &[(&[3], Any), (&[2], Any)],
    ),
    // A two-layer network.
    case(
        "log_softmax(relu(a @ b) @ c, axis=1)",
        &[(&[2, 3], Any), (&[3, 4], Any), (&[4, 2], Any)],
    ),
];

/// A deterministic stream of numbers in [-1, 1).
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }

    fn draw(&mut self, d: Domain) -> f64 {
        let u = self.next();
        match d {
            Any => u.signum() * (0.2 + 1.8 * u.abs()),
            Pos => 0.5 + 1.5 * u.abs(),
            Unit => u.signum() * (0.1 + 0.7 * u.abs()),
            AboveOne => 1.2 + 1.8 * u.abs(),
            Frac => (3.0 * u).floor() + 0.25 + 0.5 * u.abs(),
        }
    }
}

const NAMES: [&str; 3] = ["a", "b", "c"];

/// An interpreter with the inputs bound to a, b, c, and a fixed tensor of each
/// input's shape bound to v0, v1, v2 (the weights of the second-order check).
fn interp_with(inputs: &[Tensor]) -> Interp {
    let interp = Interp::new(Box::new(SharedOutput::default()));
    for (i, (name, t)) in NAMES.iter().zip(inputs).enumerate() {
        interp
            .globals
            .define(&(*name).into(), Value::from(t.clone()));
        let v: Vec<f64> = (0..t.numel())
            .map(|k| (1.3 * k as f64 + 0.3).cos())
            .collect();
        let v = Tensor::from_vec(v, t.shape()).unwrap().to_dtype(t.dtype());
        interp
            .globals
            .define(&format!("v{i}").as_str().into(), Value::from(v));
    }
    interp
}

fn eval(inputs: &[Tensor], expr: &str) -> Value {
    let mut interp = interp_with(inputs);
    match interp.run("<gradcheck>", expr, None) {
        Ok(v) => v,
        Err(d) => panic!("`{expr}` failed:\n{}", interp.render(&d, false)),
    }
}

fn number(v: &Value, expr: &str) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("`{expr}` gave {}, not a number", v.describe()))
}

/// The scalar function checked: `|a, b| sum(sin(OP))`.
fn scalar_fn(op: &str, n: usize) -> String {
    format!("(|{}| sum(sin({op})))", NAMES[..n].join(", "))
}

/// `(0,)`, `(0, 1)`, ...: every argument, as a tuple.
fn argnums(n: usize) -> String {
    match n {
        1 => "(0,)".into(),
        _ => format!(
            "({})",
            (0..n).map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// The gradient of `f` at `inputs` with respect to every input, as given by grad.
fn analytic(f: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let n = inputs.len();
    let expr = format!(
        "grad({f}, argnums={})({})",
        argnums(n),
        NAMES[..n].join(", ")
    );
    match eval(inputs, &expr) {
        Value::Tuple(items) => items
            .iter()
            .map(|g| g.to_tensor().expect("a gradient tensor"))
            .collect(),
        other => panic!("`{expr}` gave {}", other.describe()),
    }
}

/// Central differences of `f` at `inputs`, element by element.
fn numeric(f: &str, inputs: &[Tensor]) -> Vec<Vec<f64>> {
    let h = 1e-6;
    let call = format!("{f}({})", NAMES[..inputs.len()].join(", "));
    (0..inputs.len())
        .map(|i| {
            let base = inputs[i].to_vec::<f64>();
            (0..base.len())
                .map(|j| {
                    let at = |delta: f64| {
                        let mut moved = base.clone();
                        moved[j] += delta;
                        let mut xs = inputs.to_vec();
                        xs[i] = Tensor::from_vec(moved, inputs[i].shape()).unwrap();
                        number(&eval(&xs, &call), &call)
                    };
                    (at(h) - at(-h)) / (2.0 * h)
                })
                .collect()
        })
        .collect()
}

fn draw_inputs(c: &Case, seed: u64) -> Vec<Tensor> {
    let mut s = Stream(seed);
    c.inputs
        .iter()
        .map(|(shape, d)| {
            let n: usize = shape.iter().product();
            let v: Vec<f64> = (0..n).map(|_| s.draw(*d)).collect();
            Tensor::from_vec(v, shape).unwrap()
        })
        .collect()
}

fn compare(
    what: &str,
    got: &[Tensor],
    want: &[Vec<f64>],
    rtol: f64,
    atol: f64,
) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.to_vec::<f64>();
        if g.len() != w.len() {
            return Err(format!(
                "{what}: gradient {i} has {} elements, want {}",
                g.len(),
                w.len()
            ));
        }
        for (j, (x, y)) in g.iter().zip(w).enumerate() {
            if (x - y).abs() > atol + rtol * y.abs() {
                return Err(format!(
                    "{what}: gradient {i}, element {j}: grad gives {x}, differences {y}\n  grad: {g:?}\n  diff: {w:?}"
                ));
            }
        }
    }
    Ok(())
}

/// First order in f64, then the same in f32 (dtype kept, close to f64), then the
/// second order for the cases that ask.
fn check(c: &Case, seed: u64) -> Result<(), String> {
    let inputs = draw_inputs(c, seed);
    let f = scalar_fn(c.op, inputs.len());
    let got = analytic(&f, &inputs);
    let want = numeric(&f, &inputs);
    compare(c.op, &got, &want, 1e-6, 1e-7)?;

    let small: Vec<Tensor> = inputs.iter().map(|t| t.to_dtype(DType::F32)).collect();
    let got32 = analytic(&f, &small);
    for (g, g64) in got32.iter().zip(&got) {
        if g.dtype() != DType::F32 {
            return Err(format!(
                "{}: an f32 input got an {} gradient",
                c.op,
                g.dtype()
            ));
        }
        let expected: Vec<Vec<f64>> = vec![g64.to_vec::<f64>()];
        compare(
            &format!("{} (f32)", c.op),
            std::slice::from_ref(g),
            &expected,
            2e-3,
            2e-3,
        )?;
    }

    if c.second {
        // d/dx of sum(grad(f)(x) * v) for a fixed v: the gradient of the gradient.
        let n = inputs.len();
        let products: Vec<String> = (0..n).map(|i| format!("sum(g[{i}] * v{i})")).collect();
        let args = NAMES[..n].join(", ");
        let g2 = format!(
            "(|{args}| {{ let g = grad({f}, argnums={})({args}); {} }})",
            argnums(n),
            products.join(" + ")
        );
        let got = analytic(&g2, &inputs);
        let want = numeric(&g2, &inputs);
        compare(&format!("{} (second order)", c.op), &got, &want, 1e-5, 1e-6)?;
    }
    Ok(())
}

#[test]
fn gradients_match_finite_differences() {
    let mut failures = Vec::new();
    for (k, c) in CASES.iter().enumerate() {
        if let Err(e) = check(c, 0x9e37_79b9 + k as u64) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn unary_gradients_match_finite_differences() {
    let mut failures = Vec::new();
    for (k, (name, domain)) in UNARY.iter().enumerate() {
        let op: &'static str = Box::leak(format!("{name}(a)").into_boxed_str());
        let inputs: &'static [(&'static [usize], Domain)] =
            Box::leak(vec![(M, *domain)].into_boxed_slice());
        let c = Case {
            op,
            inputs,
            second: true,
        };
        if let Err(e) = check(&c, 0x51ed + k as u64) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_unary_op_is_checked_or_listed_as_not_differentiable() {
    for op in UnaryOp::ALL {
        let name = op.name();
        assert!(
            UNARY.iter().any(|(n, _)| *n == name)
                || NOT_DIFFERENTIABLE.contains(&name)
                || CASES.iter().any(|c| c.op.starts_with(&format!("{name}("))),
            "unary op `{name}` has no gradient check"
        );
    }
}

#[test]
fn a_view_input_gets_the_gradient_of_its_base() {
    // grad with respect to a base read through a strided, broadcast view.
    let inputs = draw_inputs(&case("", &[(M, Any)]), 7);
    let f = "(|a| sum(sin(broadcast_to(a[::2, 1:].T, [2, 3, 2]) * 2.0)))";
    let got = analytic(f, &inputs);
    let want = numeric(f, &inputs);
    compare(f, &got, &want, 1e-6, 1e-7).unwrap();
}

/// Builtins with no gradient to check, by reason. Every other builtin must appear
/// in a case above (as `NAME(`), in `UNARY`, or in the torch fixtures of
/// tests/fixtures/ops/grad_nn.
const NO_GRADIENT: &[(&str, &[&str])] = &[
    (
        "results that are not floats (indices, counts, flags, ranks)",
        &[
            "all",
            "allclose",
            "any",
            "argmax",
            "argmin",
            "argsort",
            "argwhere",
            "bincount",
            "count",
            "count_nonzero",
            "digitize",
            "histogram",
            "isclose",
            "isfinite",
            "isin",
            "isinf",
            "isnan",
            "logical_and",
            "logical_not",
            "logical_or",
            "logical_xor",
            "matrix_rank",
            "nanargmax",
            "nanargmin",
            "nonzero",
            "one_hot",
            "searchsorted",
            "unique",
            "unravel_index",
        ],
    ),
    (
        "creators and random draws: constants (`grad: Constant`)",
        &[
            "arange",
            "bernoulli",
            "choice",
            "empty",
            "eye",
            "full",
            "full_like",
            "linspace",
            "logspace",
            "multinomial",
            "normal",
            "ones",
            "ones_like",
            "permutation",
            "rand",
            "rand_like",
            "randint",
            "randn",
            "randn_like",
            "seed",
            "shuffle",
            "tensor",
            "uniform",
            "zeros",
            "zeros_like",
        ],
    ),
    (
        "the language, strings, files, plots and gradients themselves",
        &[
            "args",
            "assert",
            "assert_close",
            "backward",
            "bool",
            "chr",
            "dequantize",
            "detach",
            "endswith",
            "enumerate",
            "env",
            "eprint",
            "error",
            "exists",
            "exit",
            "fill_",
            "filter",
            "find",
            "float",
            "get",
            "grad",
            "hist",
            "imshow",
            "info",
            "int",
            "item",
            "items",
            "join",
            "keys",
            "len",
            "list_dir",
            "load",
            "load_csv",
            "load_gguf",
            "load_json",
            "load_npz",
            "load_safetensors",
            "loadtxt",
            "lower",
            "lstrip",
            "map",
            "ord",
            "perf_counter",
            "plot",
            "print",
            "quantize",
            "range",
            "read_text",
            "replace",
            "reversed",
            "rstrip",
            "save",
            "save_csv",
            "save_gguf",
            "save_json",
            "save_npz",
            "save_safetensors",
            "savefig",
            "savetxt",
            "set_printoptions",
            "sorted",
            "startswith",
            "str",
            "strip",
            "tolist",
            "upper",
            "value_and_grad",
            "values",
            "write_text",
            "zip",
        ],
    ),
];

#[test]
fn every_builtin_has_a_gradient_check_or_a_reason() {
    let fixtures = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/ops/grad_nn/cases.tsv"),
    )
    .expect("the grad_nn fixtures");
    let checked = |name: &str| {
        let call = format!("{name}(");
        let word = |text: &str| {
            text.match_indices(&call).any(|(i, _)| {
                !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
            })
        };
        CASES.iter().any(|c| word(c.op))
            || UNARY.iter().any(|(n, _)| *n == name)
            || fixtures
                .lines()
                .any(|l| l.split('\t').nth(1).is_some_and(word))
    };
    let listed = |name: &str| NO_GRADIENT.iter().any(|(_, names)| names.contains(&name));
    let mut missing = Vec::new();
    for b in tsr::builtins::all() {
        if !checked(b.name) && !listed(b.name) {
            missing.push(b.name);
        }
    }
    assert!(
        missing.is_empty(),
        "builtins with neither a gradient check nor a reason in NO_GRADIENT: {missing:?}"
    );
}

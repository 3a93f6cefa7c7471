//! The losses of torch.nn.functional: names, argument order and defaults as torch's.

use super::{Bound, Builtin};
use crate::autograd::rules::{self, Reduction};
use crate::autograd::Var;
use crate::diag::Diagnostic;
use crate::runtime::builtin;

/// A builtin `NAME(input, target, reduction="mean")` for an elementwise loss.
macro_rules! pair_loss {
    ($name:literal, $rule:path, $doc:literal) => {
        builtin! {
            name: $name,
            doc: $doc,
            fn(_, a; input: Var, target: Var, reduction: String = "mean") {
                let r = reduction_of(&a, &reduction, false)?;
                a.recorded($rule(&input, &target, r))
            }
        }
    };
}

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "cross_entropy",
        doc: "torch's cross_entropy: log_softmax over the class dim (1; 0 for a [C] input), then the negative log-likelihood of class-index targets (ints, shape without the class dim; ignore_index skipped) or of class probabilities (floats, the input's shape); label_smoothing mixes in the uniform distribution.",
        fn(_, a;
            logits|input: Var,
            target: Var,
            weight: Option<Var> = none,
            ignore_index: i64 = -100,
            reduction: String = "mean",
            label_smoothing: f64 = 0.0,
        ) {
            let r = reduction_of(&a, &reduction, false)?;
            a.recorded(rules::cross_entropy(&logits, &target, weight.as_ref(), ignore_index, r, label_smoothing))
        }
    },
    builtin! {
        name: "nll_loss",
        doc: "Negative log-likelihood of class-index targets given log-probabilities input [N, C, ...] (torch): -weight[t] * input[t]; the mean divides by the weights of the targets not ignored.",
        fn(_, a;
            input: Var,
            target: Var,
            weight: Option<Var> = none,
            ignore_index: i64 = -100,
            reduction: String = "mean",
        ) {
            let r = reduction_of(&a, &reduction, false)?;
            a.recorded(rules::nll_loss(&input, target.tensor(), weight.as_ref(), ignore_index, r))
        }
    },
    pair_loss!("mse_loss", rules::mse_loss, "(input - target)**2, broadcasting, reduced by reduction (\"mean\", \"sum\" or \"none\") as torch."),
    pair_loss!("l1_loss", rules::l1_loss, "abs(input - target), broadcasting, reduced by reduction as torch."),
    builtin! {
        name: "smooth_l1_loss",
        doc: "0.5 * d**2 / beta where abs(d) < beta, else abs(d) - beta / 2, for d = input - target (beta = 0 is l1_loss), as torch.",
        fn(_, a; input: Var, target: Var, reduction: String = "mean", beta: f64 = 1.0) {
            let r = reduction_of(&a, &reduction, false)?;
            if beta < 0.0 || beta.is_nan() {
                return Err(a.arg_err("beta", format!("`beta` must not be negative, got {beta}")));
            }
            a.recorded(rules::smooth_l1_loss(&input, &target, r, beta))
        }
    },
    builtin! {
        name: "huber_loss",
        doc: "0.5 * d**2 where abs(d) <= delta, else delta * (abs(d) - delta / 2), for d = input - target, as torch.",
        fn(_, a; input: Var, target: Var, reduction: String = "mean", delta: f64 = 1.0) {
            let r = reduction_of(&a, &reduction, false)?;
            if delta <= 0.0 || delta.is_nan() {
                return Err(a.arg_err("delta", format!("`delta` must be positive, got {delta}")));
            }
            a.recorded(rules::huber_loss(&input, &target, r, delta))
        }
    },
    builtin! {
        name: "binary_cross_entropy",
        doc: "-weight * (target * log(input) + (1 - target) * log(1 - input)) with each log clamped at -100; input must be in [0, 1] (torch).",
        fn(_, a; input: Var, target: Var, weight: Option<Var> = none, reduction: String = "mean") {
            let r = reduction_of(&a, &reduction, false)?;
            a.recorded(rules::binary_cross_entropy(&input, &target, weight.as_ref(), r))
        }
    },
    builtin! {
        name: "binary_cross_entropy_with_logits",
        doc: "binary_cross_entropy of sigmoid(input), computed stably; pos_weight weighs the positive term per class (torch).",
        fn(_, a; input: Var, target: Var, weight: Option<Var> = none, reduction: String = "mean", pos_weight: Option<Var> = none) {
            let r = reduction_of(&a, &reduction, false)?;
            a.recorded(rules::binary_cross_entropy_with_logits(&input, &target, weight.as_ref(), r, pos_weight.as_ref()))
        }
    },
    builtin! {
        name: "kl_div",
        doc: "target * (log(target) - input) (0 where target is 0), input being log-probabilities; log_target=true takes target as log-probabilities; reduction may also be \"batchmean\" (torch).",
        fn(_, a; input: Var, target: Var, reduction: String = "mean", log_target: bool = false) {
            let r = reduction_of(&a, &reduction, true)?;
            a.recorded(rules::kl_div(&input, &target, r, log_target))
        }
    },
];

fn reduction_of(a: &Bound, name: &str, batch_mean: bool) -> Result<Reduction, Diagnostic> {
    Reduction::from_name(name, batch_mean).ok_or_else(|| {
        let choices = if batch_mean {
            "\"none\", \"mean\", \"sum\" or \"batchmean\""
        } else {
            "\"none\", \"mean\" or \"sum\""
        };
        a.arg_err(
            "reduction",
            format!("`reduction` must be {choices}, got \"{name}\""),
        )
    })
}

//! batch_norm, group_norm and instance_norm builtins (torch.nn.functional names,
//! argument order and defaults). tsr's values are values, so batch_norm never
//! writes its running statistics: `nn.batch_norm_stats` gives their update.

use super::nn::check_eps;
use super::{Bound, Builtin};
use crate::autograd::rules::{self, Affine, Running};
use crate::autograd::Var;
use crate::diag::Diagnostic;
use crate::runtime::builtin;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "batch_norm",
        doc: "(x - mean) / sqrt(var + eps) * weight + bias per channel of x [N, C, *] (torch): batch statistics (biased variance) when training or without running statistics, else running_mean and running_var; the running statistics are not written (nn.batch_norm_stats updates them).",
        fn(_, a;
            x: Var,
            running_mean: Option<Var> = none,
            running_var: Option<Var> = none,
            weight: Option<Var> = none,
            bias: Option<Var> = none,
            training: bool = false,
            momentum: f64 = 0.1,
            eps: f64 = 1e-5,
        ) {
            let stats = running(&a, running_mean.as_ref(), running_var.as_ref(), momentum, eps)?;
            if stats.is_none() && !training {
                return Err(a.err("batch_norm in evaluation (training=false) needs running_mean and running_var"));
            }
            let affine = Affine { weight: weight.as_ref(), bias: bias.as_ref() };
            a.recorded(rules::batch_norm(&x, stats, affine, training, eps))
        }
    },
    builtin! {
        name: "instance_norm",
        doc: "Each sample's channel of x [N, C, *] standardized over its spatial dims (biased variance), then * weight + bias per channel (torch); use_input_stats=false uses running_mean and running_var instead, which are never written.",
        fn(_, a;
            x: Var,
            running_mean: Option<Var> = none,
            running_var: Option<Var> = none,
            weight: Option<Var> = none,
            bias: Option<Var> = none,
            use_input_stats: bool = true,
            momentum: f64 = 0.1,
            eps: f64 = 1e-5,
        ) {
            let stats = running(&a, running_mean.as_ref(), running_var.as_ref(), momentum, eps)?;
            let affine = Affine { weight: weight.as_ref(), bias: bias.as_ref() };
            a.recorded(rules::instance_norm(&x, stats, affine, use_input_stats, eps))
        }
    },
    builtin! {
        name: "group_norm",
        doc: "The C channels of x [N, C, *] split into num_groups groups; each sample's group standardized over its channels and spatial dims (biased variance), then * weight + bias per channel (torch).",
        fn(_, a;
            x: Var,
            num_groups: usize,
            weight: Option<Var> = none,
            bias: Option<Var> = none,
            eps: f64 = 1e-5,
        ) {
            check_eps(&a, eps)?;
            let affine = Affine { weight: weight.as_ref(), bias: bias.as_ref() };
            a.recorded(rules::group_norm(&x, num_groups, affine, eps))
        }
    },
];

/// The running statistics (both or neither), with momentum and eps checked.
fn running<'a>(
    a: &Bound,
    mean: Option<&'a Var>,
    var: Option<&'a Var>,
    momentum: f64,
    eps: f64,
) -> Result<Option<Running<'a>>, Diagnostic> {
    check_eps(a, eps)?;
    if !momentum.is_finite() {
        let msg = format!("`momentum` must be a number, got {momentum}");
        return Err(a.arg_err("momentum", msg));
    }
    match (mean, var) {
        (Some(mean), Some(var)) => Ok(Some(Running { mean, var })),
        (None, None) => Ok(None),
        (Some(_), None) => Err(a.arg_err("running_mean", "running_mean needs running_var too")),
        (None, Some(_)) => Err(a.arg_err("running_var", "running_var needs running_mean too")),
    }
}

//! Random builtins: `seed`, `rand`, `randn`, `randint`, `uniform`, `normal`, the
//! `_like` forms, and the sampling functions (`permutation`, `shuffle`, `choice`,
//! `bernoulli`, `multinomial`). Without `seed=` they draw from the session's stream
//! (which starts as `seed(0)`); with it, from a fresh stream of that seed, leaving the
//! session's untouched.

use super::create::leaf_if;
use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops::random as ops;
use crate::ops::sampling::{self, Population};
use crate::ops::Operand;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Shape};
use crate::tensor::random::RandomState;
use crate::tensor::{DType, Result as TensorResult, Scalar, Tensor, TensorError};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "seed",
        doc: "Restarts the session's random stream from seed n (an int >= 0); a session starts as seed(0).",
        fn(ctx, _a; n: usize) {
            *ctx.rng() = RandomState::from_seed(n as u64);
            Ok(Value::None)
        }
    },
    builtin! {
        name: "rand",
        doc: "Uniform random values in [0, 1) of a float dtype; seed= uses a fresh stream and leaves the session's alone.",
        fn(ctx, a; shape: Shape, dtype: DType = f32, seed: Option<usize> = none, requires_grad: bool = false) {
            float_dtype(&a, dtype)?;
            leaf_if(&a, with_rng(ctx, &a, seed, |rng| ops::rand(rng, &shape.0, dtype)), requires_grad)
        }
    },
    builtin! {
        name: "randn",
        doc: "Standard normal random values of a float dtype; seed= uses a fresh stream and leaves the session's alone.",
        fn(ctx, a; shape: Shape, dtype: DType = f32, seed: Option<usize> = none, requires_grad: bool = false) {
            float_dtype(&a, dtype)?;
            leaf_if(&a, with_rng(ctx, &a, seed, |rng| ops::randn(rng, &shape.0, dtype)), requires_grad)
        }
    },
    builtin! {
        name: "randint",
        doc: "Uniform random integers in [low, high), or [0, low) without high (NumPy); no shape gives a 0-d tensor.",
        fn(ctx, a;
            low: i64,
            high: Option<i64> = none,
            shape|size: Option<Shape> = none,
            dtype: DType = i64,
            seed: Option<usize> = none,
        ) {
            // NumPy: randint(n) draws from [0, n).
            let (low, high, high_arg) = match high {
                Some(high) => (low, high, "high"),
                None => (0, low, "low"),
            };
            let shape = shape.map(|s| s.0).unwrap_or_default();
            ops::int_range(low, high, dtype).map_err(|e| match e {
                TensorError::DType { .. } => a.arg_err("dtype", e.to_string()),
                _ => a.arg_err(high_arg, e.to_string()),
            })?;
            with_rng(ctx, &a, seed, |rng| ops::randint(rng, low, high, &shape, dtype))
        }
    },
    builtin! {
        name: "uniform",
        doc: "Uniform random values low + (high - low) * rand(shape) in [low, high) (numpy.random.uniform; rounding may reach high), of a float dtype.",
        fn(ctx, a; shape: Shape, low: f64 = 0, high: f64 = 1, dtype: DType = f32, seed: Option<usize> = none, requires_grad: bool = false) {
            float_dtype(&a, dtype)?;
            leaf_if(&a, with_rng(ctx, &a, seed, |rng| ops::uniform(rng, &shape.0, low, high, dtype)), requires_grad)
        }
    },
    builtin! {
        name: "normal",
        doc: "Normal random values mean + std * randn(shape) (numpy.random.normal; std >= 0), of a float dtype.",
        fn(ctx, a; shape: Shape, mean: f64 = 0, std: f64 = 1, dtype: DType = f32, seed: Option<usize> = none, requires_grad: bool = false) {
            float_dtype(&a, dtype)?;
            leaf_if(&a, with_rng(ctx, &a, seed, |rng| ops::normal(rng, &shape.0, mean, std, dtype)), requires_grad)
        }
    },
    builtin! {
        name: "rand_like",
        doc: "rand with x's shape and (unless given) dtype, which must be a float one (torch.rand_like).",
        grad: Constant,
        fn(ctx, a; x: Tensor, dtype: Option<DType> = none, seed: Option<usize> = none) {
            let dtype = dtype.unwrap_or(x.dtype());
            float_dtype(&a, dtype)?;
            with_rng(ctx, &a, seed, |rng| ops::rand(rng, x.shape(), dtype))
        }
    },
    builtin! {
        name: "randn_like",
        doc: "randn with x's shape and (unless given) dtype, which must be a float one (torch.randn_like).",
        grad: Constant,
        fn(ctx, a; x: Tensor, dtype: Option<DType> = none, seed: Option<usize> = none) {
            let dtype = dtype.unwrap_or(x.dtype());
            float_dtype(&a, dtype)?;
            with_rng(ctx, &a, seed, |rng| ops::randn(rng, x.shape(), dtype))
        }
    },
    builtin! {
        name: "permutation",
        doc: "The integers 0..n in a random order (i64), or a copy of x with its rows (axis 0) in a random order (numpy.random.permutation).",
        fn(ctx, a; x: Operand, seed: Option<usize> = none) {
            let population = population(&a, x)?;
            with_rng(ctx, &a, seed, |rng| sampling::permutation(rng, "permutation", population))
        }
    },
    builtin! {
        name: "shuffle",
        doc: "A copy of x with its rows (axis 0) in a random order; the same order as permutation(x) with the same stream.",
        fn(ctx, a; x: Tensor, seed: Option<usize> = none) {
            with_rng(ctx, &a, seed, |rng| sampling::permutation(rng, "shuffle", Population::Rows(&x)))
        }
    },
    builtin! {
        name: "choice",
        doc: "Random items of a 1-D x (or of 0..n, i64): one (0-d) or size of them, with or without replacement, uniformly or with probabilities p (numpy.random.choice).",
        fn(ctx, a; x: Operand, size: Option<Shape> = none, replace: bool = true, p: Option<Tensor> = none, seed: Option<usize> = none) {
            let population = population(&a, x)?;
            let size = size.map(|s| s.0);
            with_rng(ctx, &a, seed, |rng| {
                sampling::choice(rng, population, size.as_deref(), replace, p.as_ref())
            })
        }
    },
    builtin! {
        name: "bernoulli",
        doc: "1 with probability p and 0 otherwise, elementwise, in p's float dtype (torch.bernoulli); p must be in [0, 1].",
        fn(ctx, a; p: Tensor, seed: Option<usize> = none) {
            with_rng(ctx, &a, seed, |rng| sampling::bernoulli(rng, &p))
        }
    },
    builtin! {
        name: "multinomial",
        doc: "num_samples i64 category indices drawn from each row of the 1-D or 2-D float probs (weights, need not sum to 1), with or without replacement (torch.multinomial).",
        fn(ctx, a; probs: Tensor, num_samples: i64, replacement: bool = false, seed: Option<usize> = none) {
            with_rng(ctx, &a, seed, |rng| sampling::multinomial(rng, &probs, num_samples, replacement))
        }
    },
];

/// Runs `draw` on the session's generator, or on a fresh one of `seed`.
pub(super) fn with_rng(
    ctx: &mut dyn Ctx,
    a: &Bound,
    seed: Option<usize>,
    draw: impl FnOnce(&mut RandomState) -> TensorResult<Tensor>,
) -> Result<Value, Diagnostic> {
    let result = match seed {
        Some(seed) => draw(&mut RandomState::from_seed(seed as u64)),
        None => draw(ctx.rng()),
    };
    result.map(Value::from).map_err(|e| a.tensor_err(e))
}

/// Checks rand/randn's dtype is a float one, pointing at where it was written.
fn float_dtype(a: &Bound, dtype: DType) -> Result<(), Diagnostic> {
    ops::float_dtype(a.builtin.name, dtype)
        .map(|_| ())
        .map_err(|e| a.arg_err("dtype", e.to_string()))
}

/// `permutation` and `choice` take an int n (the integers 0..n) or a tensor.
fn population<'a>(a: &Bound, x: Operand<'a>) -> Result<Population<'a>, Diagnostic> {
    match x {
        Operand::Tensor(t) => Ok(Population::Rows(t)),
        Operand::Scalar(Scalar::Int(n)) => Ok(Population::Range(n)),
        Operand::Scalar(s) => Err(a.arg_err(
            "x",
            format!("`x` must be an int or a tensor, got {}", s.to_f64()),
        )),
    }
}

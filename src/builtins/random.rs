//! Random builtins: `seed`, `rand`, `randn`, `randint`. Without `seed=` they draw from
//! the session's stream (which starts as `seed(0)`); with it, from a fresh stream of
//! that seed, leaving the session's untouched.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops::random as ops;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Shape};
use crate::tensor::random::RandomState;
use crate::tensor::{DType, Result as TensorResult, Tensor, TensorError};

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
        fn(ctx, a; shape: Shape, dtype: DType = f32, seed: Option<usize> = none) {
            float_dtype(&a, dtype)?;
            with_rng(ctx, &a, seed, |rng| ops::rand(rng, &shape.0, dtype))
        }
    },
    builtin! {
        name: "randn",
        doc: "Standard normal random values of a float dtype; seed= uses a fresh stream and leaves the session's alone.",
        fn(ctx, a; shape: Shape, dtype: DType = f32, seed: Option<usize> = none) {
            float_dtype(&a, dtype)?;
            with_rng(ctx, &a, seed, |rng| ops::randn(rng, &shape.0, dtype))
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
];

/// Runs `draw` on the session's generator, or on a fresh one of `seed`.
fn with_rng(
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

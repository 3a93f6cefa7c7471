//! Random builtins: `seed`, `rand`, `randn`, `randint`. Without `seed=` they draw from
//! the session's stream (which starts as `seed(0)`); with it, from a fresh stream of
//! that seed, leaving the session's untouched.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops::random as ops;
use crate::runtime::value::Value;
use crate::tensor::random::RandomState;
use crate::tensor::{DType, Result as TensorResult, Tensor, TensorError};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "seed",
        params: &["n"],
        doc: "Restarts the session's random stream from seed n (an int >= 0); a session starts as seed(0).",
        func: seed,
    },
    Builtin {
        name: "rand",
        params: &["shape", "dtype=f32", "seed=none"],
        doc: "Uniform random values in [0, 1) of a float dtype; seed= uses a fresh stream and leaves the session's alone.",
        func: rand,
    },
    Builtin {
        name: "randn",
        params: &["shape", "dtype=f32", "seed=none"],
        doc: "Standard normal random values of a float dtype; seed= uses a fresh stream and leaves the session's alone.",
        func: randn,
    },
    Builtin {
        name: "randint",
        params: &["low", "high=none", "shape|size=none", "dtype=i64", "seed=none"],
        doc: "Uniform random integers in [low, high), or [0, low) without high (NumPy); no shape gives a 0-d tensor.",
        func: randint,
    },
];

fn seed(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    *ctx.rng = RandomState::from_seed(a.count(0)? as u64);
    Ok(Value::None)
}

/// Runs `draw` on the session's generator, or on a fresh one when argument `seed_arg`
/// (`seed=`) is given.
fn with_rng(
    ctx: &mut Ctx,
    a: &Bound,
    seed_arg: usize,
    draw: impl FnOnce(&mut RandomState) -> TensorResult<Tensor>,
) -> Result<Value, Diagnostic> {
    let result = match a.get(seed_arg) {
        Some(_) => draw(&mut RandomState::from_seed(a.count(seed_arg)? as u64)),
        None => draw(ctx.rng),
    };
    result.map(Value::from).map_err(|e| a.tensor_err(e))
}

/// The float dtype of rand/randn (argument 1), checked where it was written.
fn float_dtype(a: &Bound) -> Result<DType, Diagnostic> {
    let dtype = a.opt_dtype(1)?.unwrap_or(DType::F32);
    ops::float_dtype(a.builtin.name, dtype).map_err(|e| a.arg_err(1, e.to_string()))?;
    Ok(dtype)
}

fn rand(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (shape, dtype) = (a.shape(0)?, float_dtype(&a)?);
    with_rng(ctx, &a, 2, |rng| ops::rand(rng, &shape, dtype))
}

fn randn(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (shape, dtype) = (a.shape(0)?, float_dtype(&a)?);
    with_rng(ctx, &a, 2, |rng| ops::randn(rng, &shape, dtype))
}

fn randint(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    // NumPy: randint(n) draws from [0, n).
    let (low, high, high_arg) = match a.opt_int(1)? {
        Some(high) => (a.int(0)?, high, 1),
        None => (0, a.int(0)?, 0),
    };
    let shape = match a.get(2) {
        Some(_) => a.shape(2)?,
        None => Vec::new(),
    };
    let dtype = a.opt_dtype(3)?.unwrap_or(DType::I64);
    ops::int_range(low, high, dtype).map_err(|e| match e {
        TensorError::DType { .. } => a.arg_err(3, e.to_string()),
        _ => a.arg_err(high_arg, e.to_string()),
    })?;
    with_rng(ctx, &a, 4, |rng| {
        ops::randint(rng, low, high, &shape, dtype)
    })
}

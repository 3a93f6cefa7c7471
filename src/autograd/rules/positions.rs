//! Ops that only copy elements: each output element is the input element at a
//! flat position (or a constant). The gradient adds each output's gradient back
//! at its position; that scatter's own adjoint is the gather, so both record.
//! Max pooling, sorting and selection, and the builtins that move elements
//! (flip, roll, tile, pad, tril, take, ...) are all this.

use std::rc::Rc;

use crate::autograd::error::Result;
use crate::autograd::record::{record, recording};
use crate::autograd::var::Var;
use crate::ops::pool_grad::{gather_positions, scatter_positions};
use crate::tensor::{DType, Tensor};

/// For each output element in row-major order, the flat position in the input
/// it copies (`None`: a constant, which takes no gradient).
pub type Positions = Rc<Vec<Option<usize>>>;

/// `y`, the elements of `x` at `positions`, recorded.
pub fn taken(op: &'static str, x: &Var, y: Tensor, positions: &Positions) -> Var {
    let (shape, positions) = (x.shape().to_vec(), Rc::clone(positions));
    record(op, &[x], y, move |g, _| {
        Ok(vec![Some(scatter(op, g, &positions, &shape)?)])
    })
}

/// Zeros of `shape` with `g` added at `positions`.
pub(crate) fn scatter(
    op: &'static str,
    g: &Var,
    positions: &Positions,
    shape: &[usize],
) -> Result<Var> {
    let out = scatter_positions(g, positions, shape)?;
    let (positions, g_shape) = (Rc::clone(positions), g.shape().to_vec());
    Ok(record("scatter_positions", &[g], out, move |gg, _| {
        let picked = gather_positions(gg, &positions, &g_shape)?;
        Ok(vec![Some(taken(op, gg, picked, &positions))])
    }))
}

/// `f(x)` for an `f` that only moves elements of x (or writes zeros): recorded by
/// running `f` once more on the map of positions (1, 2, ... in x's shape; 0 a
/// constant), which it moves the same way.
pub fn moved(
    op: &'static str,
    x: &Var,
    f: impl Fn(&Tensor) -> crate::tensor::Result<Tensor>,
) -> Result<Var> {
    moved_many(op, std::slice::from_ref(x), |ts| f(&ts[0]))
}

/// [`moved`] for an op of several inputs (a join): the maps number the elements
/// of all inputs in turn, and each input gets back what came from it.
pub fn moved_many(
    op: &'static str,
    xs: &[Var],
    f: impl Fn(&[Tensor]) -> crate::tensor::Result<Tensor>,
) -> Result<Var> {
    let values: Vec<Tensor> = xs.iter().map(|x| x.tensor().clone()).collect();
    let y = f(&values)?;
    let inputs: Vec<&Var> = xs.iter().collect();
    if !recording(&inputs) || !y.dtype().is_float() {
        return Ok(Var::constant(y));
    }
    let (maps, starts) = position_maps(xs)?;
    let per_input = positions_per_input(op, &f(&maps)?, &y, &starts, xs)?;
    let shapes: Vec<Vec<usize>> = xs.iter().map(|x| x.shape().to_vec()).collect();
    Ok(record(op, &inputs, y, move |g, _| {
        per_input
            .iter()
            .zip(&shapes)
            .map(|(at, shape)| Ok(Some(scatter(op, g, at, shape)?)))
            .collect()
    }))
}

/// The pieces `f(x)` of an op that splits x, each recorded as moved from x.
pub fn moved_parts(
    op: &'static str,
    x: &Var,
    f: impl Fn(&Tensor) -> crate::tensor::Result<Vec<Tensor>>,
) -> Result<Vec<Var>> {
    let parts = f(x)?;
    if !recording(&[x]) || !x.dtype().is_float() {
        return Ok(parts.into_iter().map(Var::constant).collect());
    }
    let (maps, starts) = position_maps(std::slice::from_ref(x))?;
    let moved_maps = f(&maps[0])?;
    parts
        .into_iter()
        .zip(&moved_maps)
        .map(|(part, map)| {
            let at = positions_per_input(op, map, &part, &starts, std::slice::from_ref(x))?;
            let at = at.into_iter().next().unwrap_or_default();
            Ok(taken(op, x, part, &at))
        })
        .collect()
}

/// Maps of positions for `xs`: input i numbered from starts[i] + 1 on (0 is
/// left for a constant), in its shape, as i64.
fn position_maps(xs: &[Var]) -> Result<(Vec<Tensor>, Vec<i64>)> {
    // The maps (8 bytes an element) and the positions kept for backward (16),
    // checked against the memory limit first.
    let total: usize = xs.iter().map(|x| x.numel()).sum();
    crate::tensor::budget::check_bytes("gradient positions", &[total], 24)?;
    let mut next = 1i64;
    let mut maps = Vec::with_capacity(xs.len());
    let mut starts = Vec::with_capacity(xs.len());
    for x in xs {
        let n = x.numel() as i64;
        starts.push(next - 1);
        maps.push(Tensor::from_vec(
            (next..next + n).collect::<Vec<i64>>(),
            x.shape(),
        )?);
        next += n;
    }
    Ok((maps, starts))
}

/// For each input, the positions in it of the output's elements (None where an
/// element came from another input or is a constant).
fn positions_per_input(
    op: &str,
    moved_map: &Tensor,
    y: &Tensor,
    starts: &[i64],
    xs: &[Var],
) -> Result<Vec<Positions>> {
    if moved_map.dtype() != DType::I64 || moved_map.numel() != y.numel() {
        return Err(crate::tensor::TensorError::value(
            op,
            "internal: the op moved its map of positions differently from its input",
        )
        .into());
    }
    let global = moved_map.to_vec::<i64>();
    Ok(starts
        .iter()
        .zip(xs)
        .map(|(&start, x)| {
            let n = x.numel() as i64;
            Rc::new(
                global
                    .iter()
                    .map(|&p| (p > start && p <= start + n).then(|| (p - start - 1) as usize))
                    .collect(),
            )
        })
        .collect())
}

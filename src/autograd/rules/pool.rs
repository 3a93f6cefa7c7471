//! Pooling: max pooling passes its gradient to the element each window took,
//! average pooling spreads it over the window. Each backward is itself recorded
//! (with its own adjoint), so gradients of gradients pass through pooling too.
//! The 1-d and 3-d pools are the 2-d ones over reshaped views.

use std::rc::Rc;

use super::positions::{taken, Positions};
use super::reshape;
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{record, recording};
use crate::autograd::var::Var;
use crate::ops::pool::{self, PoolParams};
use crate::ops::pool_grad::{
    adaptive_avg_pool2d_backward, adaptive_max_pool2d_positions, avg_pool2d_backward,
    gather_positions, max_pool2d_positions,
};
use crate::tensor::{Tensor, TensorError};

pub fn max_pool2d(x: &Var, p: &PoolParams) -> Result<Var> {
    let y = pool::max_pool2d(x, p)?;
    if !recording(&[x]) {
        return Ok(Var::constant(y));
    }
    let positions: Positions = Rc::new(max_pool2d_positions(x, p)?);
    Ok(taken("max_pool2d", x, y, &positions))
}

/// torch's adaptive_max_pool2d: the largest element of each adaptive window.
pub fn adaptive_max_pool2d(x: &Var, output_size: [Option<usize>; 2]) -> Result<Var> {
    let (positions, shape) = adaptive_max_pool2d_positions(x, output_size)?;
    let y = gather_positions(x, &positions, &shape)?;
    Ok(taken("adaptive_max_pool2d", x, y, &Rc::new(positions)))
}

pub fn avg_pool2d(x: &Var, p: &PoolParams, count_include_pad: bool) -> Result<Var> {
    let y = pool::avg_pool2d(x, p, count_include_pad)?;
    let (shape, p) = (x.shape().to_vec(), p.clone());
    Ok(record("avg_pool2d", &[x], y, move |g, _| {
        Ok(vec![Some(spread(g, &shape, &p, count_include_pad)?)])
    }))
}

/// The adjoint of avg_pool2d on an input of `shape`: its adjoint is avg_pool2d.
fn spread(g: &Var, shape: &[usize], p: &PoolParams, count_include_pad: bool) -> Result<Var> {
    // Only the input's shape matters: a zero-size broadcast view carries it.
    let like = Tensor::scalar(0f32).broadcast_to(shape)?;
    let out = avg_pool2d_backward(&like, g, p, count_include_pad)?;
    let p = p.clone();
    Ok(record("avg_pool2d_backward", &[g], out, move |gg, _| {
        Ok(vec![Some(avg_pool2d(gg, &p, count_include_pad)?)])
    }))
}

/// torch's adaptive_avg_pool2d; its adjoint spreads each window's gradient over it.
pub fn adaptive_avg_pool2d(x: &Var, output_size: [Option<usize>; 2]) -> Result<Var> {
    let y = pool::adaptive_avg_pool2d(x, output_size)?;
    let shape = x.shape().to_vec();
    Ok(record("adaptive_avg_pool2d", &[x], y, move |g, _| {
        Ok(vec![Some(adaptive_spread(g, &shape, output_size)?)])
    }))
}

fn adaptive_spread(g: &Var, shape: &[usize], output_size: [Option<usize>; 2]) -> Result<Var> {
    let like = Tensor::scalar(0f32).broadcast_to(shape)?;
    let out = adaptive_avg_pool2d_backward(&like, g, output_size)?;
    Ok(record(
        "adaptive_avg_pool2d_backward",
        &[g],
        out,
        move |gg, _| Ok(vec![Some(adaptive_avg_pool2d(gg, output_size)?)]),
    ))
}

/// Which pool a 1-d or 3-d pool runs through the 2-d kernels.
#[derive(Clone, Copy)]
pub enum Pool {
    Max,
    Avg { count_include_pad: bool },
}

impl Pool {
    fn run(self, x: &Var, p: &PoolParams) -> Result<Var> {
        match self {
            Pool::Max => max_pool2d(x, p),
            Pool::Avg { count_include_pad } => avg_pool2d(x, p, count_include_pad),
        }
    }
}

/// `p` (one spatial dim) as the 2-d pool over [.., 1, L] that computes it.
fn as_rows(p: &PoolParams) -> PoolParams {
    let pair = |v: &[usize], one: usize| vec![one, v.first().copied().unwrap_or(one)];
    PoolParams {
        kernel_size: pair(&p.kernel_size, 1),
        stride: pair(&p.stride, 1),
        padding: pair(&p.padding, 0),
        dilation: pair(&p.dilation, 1),
        ceil_mode: p.ceil_mode,
    }
}

/// A 1-d pool of x [N, C, L] (or [C, L]): the 2-d pool of [N, C, 1, L].
pub fn pool1d(pool: Pool, x: &Var, p: &PoolParams) -> Result<Var> {
    check_rank(pool, 1, x)?;
    let mut rows: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
    rows.insert(rows.len() - 1, 1);
    let y = pool
        .run(&reshape(x, &rows)?, &as_rows(p))
        .map_err(|e| as_pool_of(pool, 1, e))?;
    let mut out: Vec<i64> = y.shape().iter().map(|&d| d as i64).collect();
    out.remove(out.len() - 2);
    reshape(&y, &out)
}

/// max_pool3d of x [N, C, D, H, W] (or [C, D, H, W]): a max over a box is the max
/// over depth of the max over each plane's window, and the first maximum in (d,
/// h, w) order is the one the two passes take; so a 2-d pool of every depth slice,
/// then one along depth.
pub fn max_pool3d(x: &Var, p: &PoolParams) -> Result<Var> {
    check_rank(Pool::Max, 3, x)?;
    let unbatched = x.ndim() == 4;
    let x = if unbatched {
        let mut dims: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
        dims.insert(0, 1);
        reshape(x, &dims)?
    } else {
        x.clone()
    };
    let [n, c, d, h, w] = [0, 1, 2, 3, 4].map(|i| x.shape()[i] as i64);
    let pick = |v: &[usize], from: usize| v[from..].to_vec();
    let planes = PoolParams {
        kernel_size: pick(&p.kernel_size, 1),
        stride: pick(&p.stride, 1),
        padding: pick(&p.padding, 1),
        dilation: pick(&p.dilation, 1),
        ceil_mode: p.ceil_mode,
    };
    let depth = PoolParams {
        kernel_size: vec![p.kernel_size[0], 1],
        stride: vec![p.stride[0], 1],
        padding: vec![p.padding[0], 0],
        dilation: vec![p.dilation[0], 1],
        ceil_mode: p.ceil_mode,
    };
    let flat = max_pool2d(&reshape(&x, &[n, c * d, h, w])?, &planes)
        .map_err(|e| as_pool_of(Pool::Max, 3, e))?;
    let (oh, ow) = (flat.shape()[2] as i64, flat.shape()[3] as i64);
    let y = max_pool2d(&reshape(&flat, &[n, c, d, oh * ow])?, &depth)
        .map_err(|e| as_pool_of(Pool::Max, 3, e))?;
    let od = y.shape()[2] as i64;
    let out = if unbatched {
        vec![c, od, oh, ow]
    } else {
        vec![n, c, od, oh, ow]
    };
    reshape(&y, &out)
}

fn pool_name(pool: Pool, spatial: usize) -> &'static str {
    match (pool, spatial) {
        (Pool::Max, 1) => "max_pool1d",
        (Pool::Max, _) => "max_pool3d",
        (Pool::Avg { .. }, _) => "avg_pool1d",
    }
}

/// An error of the 2-d pool that runs a 1-d or 3-d one, told as the latter's.
fn as_pool_of(pool: Pool, spatial: usize, e: GradError) -> GradError {
    match e {
        GradError::Tensor(TensorError::Shape { msg, .. } | TensorError::Value { msg, .. }) => {
            let msg = format!("{msg} (run as 2-d pools over reshaped views)");
            GradError::Tensor(TensorError::shape(pool_name(pool, spatial), msg))
        }
        other => other,
    }
}

fn check_rank(pool: Pool, spatial: usize, x: &Var) -> Result<()> {
    if x.ndim() == spatial + 1 || x.ndim() == spatial + 2 {
        return Ok(());
    }
    let name = pool_name(pool, spatial);
    let layout = ["[N, C, L] or [C, L]", "", "[N, C, D, H, W] or [C, D, H, W]"][spatial - 1];
    Err(GradError::Tensor(TensorError::shape(
        name,
        format!("x must be {layout}, got shape {:?}", x.shape()),
    )))
}

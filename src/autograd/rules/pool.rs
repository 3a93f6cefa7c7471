//! 2-d pooling: max pooling passes its gradient to the element each window took,
//! average pooling spreads it over the window. Each backward is itself recorded
//! (with its own adjoint), so gradients of gradients pass through pooling too.

use std::rc::Rc;

use crate::autograd::error::Result;
use crate::autograd::record::{record, recording};
use crate::autograd::var::Var;
use crate::ops::pool::{self, PoolParams};
use crate::ops::pool_grad::{
    avg_pool2d_backward, gather_positions, max_pool2d_positions, scatter_positions,
};
use crate::tensor::Tensor;

type Positions = Rc<Vec<Option<usize>>>;

pub fn max_pool2d(x: &Var, p: &PoolParams) -> Result<Var> {
    let y = pool::max_pool2d(x, p)?;
    if !recording(&[x]) {
        return Ok(Var::constant(y));
    }
    let positions: Positions = Rc::new(max_pool2d_positions(x, p)?);
    let shape = x.shape().to_vec();
    Ok(record("max_pool2d", &[x], y, move |g, _| {
        Ok(vec![Some(scatter(g, &positions, &shape)?)])
    }))
}

/// Zeros of `shape` with `g` added at `positions`.
fn scatter(g: &Var, positions: &Positions, shape: &[usize]) -> Result<Var> {
    let out = scatter_positions(g, positions, shape)?;
    let (positions, g_shape) = (Rc::clone(positions), g.shape().to_vec());
    Ok(record("max_pool2d_backward", &[g], out, move |gg, _| {
        Ok(vec![Some(gather(gg, &positions, &g_shape)?)])
    }))
}

/// The elements of `x` at `positions`, shaped `shape`.
fn gather(x: &Var, positions: &Positions, shape: &[usize]) -> Result<Var> {
    let out = gather_positions(x, positions, shape)?;
    let (positions, x_shape) = (Rc::clone(positions), x.shape().to_vec());
    Ok(record("max_pool2d", &[x], out, move |g, _| {
        Ok(vec![Some(scatter(g, &positions, &x_shape)?)])
    }))
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

//! Order statistics (median, quantile, percentile and their NaN-skipping forms):
//! each output is one element of its lane, or two sorted neighbours weighted
//! 1 − t and t; the gradient goes back to those elements with those weights.

use std::rc::Rc;

use super::positions::{scatter, Positions};
use super::{add, mul};
use crate::autograd::error::Result;
use crate::autograd::record::{record, recording};
use crate::autograd::var::Var;
use crate::ops::order_picks::quantile_picks;
use crate::ops::reduce::reduced_dims;
use crate::ops::sort::Method;
use crate::ops::stats::merge_reduced;
use crate::tensor::Tensor;

/// The order statistic `y` of x over `axes` (all when none) at `fractions`,
/// recorded.
pub fn order_stat(
    op: &'static str,
    x: &Var,
    y: Tensor,
    axes: Option<&[i64]>,
    fractions: &[f64],
    method: Method,
    skip_nan: bool,
) -> Result<Var> {
    if !recording(&[x]) || !y.dtype().is_float() {
        return Ok(Var::constant(y));
    }
    let n = x.numel() as i64;
    let map = Tensor::from_vec((0..n).collect::<Vec<i64>>(), x.shape())?;
    let (lanes, lane_map) = (fold(op, x, axes)?, fold(op, &map, axes)?);
    let picks = quantile_picks(&lanes, fractions, method, skip_nan)?;
    let map = lane_map.to_vec::<i64>();
    let to_x = |at: &Vec<Option<usize>>| -> Positions {
        Rc::new(
            at.iter()
                .map(|p| p.and_then(|p| map.get(p)).map(|&i| i as usize))
                .collect(),
        )
    };
    let (first, second) = (to_x(&picks.first), to_x(&picks.second));
    let weights =
        |w: Vec<f64>| -> Result<Tensor> { Ok(Tensor::from_vec(w, y.shape())?.to_dtype(y.dtype())) };
    let (w1, w2) = (weights(picks.first_weight)?, weights(picks.second_weight)?);
    let two = picks.second.iter().any(Option::is_some);
    let shape = x.shape().to_vec();
    Ok(record(op, &[x], y, move |g, _| {
        let part = |w: &Tensor, at: &Positions| {
            scatter(op, &mul(g, &Var::constant(w.clone()))?, at, &shape)
        };
        let dx = part(&w1, &first)?;
        Ok(vec![Some(if two {
            add(&dx, &part(&w2, &second)?)?
        } else {
            dx
        })])
    }))
}

/// x with the lanes of `axes` (all when none) along one last axis, in a copy.
fn fold(op: &str, x: &Tensor, axes: Option<&[i64]>) -> crate::tensor::Result<Tensor> {
    merge_reduced(x, &reduced_dims(op, x.ndim(), axes)?)
}

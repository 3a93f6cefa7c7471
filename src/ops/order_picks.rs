//! Which elements an order statistic reads, and with what weights: a quantile
//! of a lane is one element, or two neighbours in sorted order combined with
//! weights 1 − t and t; a running maximum copies one earlier element. Gradients
//! flow back along these picks.

use super::sort::Method;
use crate::tensor::{DType, Result, Tensor};

/// For each output element (q-major, then lanes), the flat positions in x of the
/// elements it combines and their weights (`None`: nothing, e.g. an empty lane).
pub struct Picks {
    pub first: Vec<Option<usize>>,
    pub second: Vec<Option<usize>>,
    pub first_weight: Vec<f64>,
    pub second_weight: Vec<f64>,
}

/// The picks of the quantiles `fractions` (in [0, 1]) of each lane of `x`, lanes
/// along its last axis, as `ops::sort::quantile` computes them: NumPy's virtual
/// index q·(n − 1) and `method`; a lane holding NaN reads its first NaN (or, with
/// `skip_nan`, leaves NaNs out).
pub fn quantile_picks(
    x: &Tensor,
    fractions: &[f64],
    method: Method,
    skip_nan: bool,
) -> Result<Picks> {
    let x = x.contiguous();
    let len = x.shape().last().copied().unwrap_or(1);
    let values = x.to_dtype(DType::F64).to_vec::<f64>();
    let lanes = values.len().checked_div(len).unwrap_or(0);
    let total = fractions.len() * lanes;
    let mut picks = Picks {
        first: vec![None; total],
        second: vec![None; total],
        first_weight: vec![0.0; total],
        second_weight: vec![0.0; total],
    };
    for lane in 0..lanes {
        let base = lane * len;
        let vals = &values[base..base + len];
        let first_nan = vals.iter().position(|v| v.is_nan());
        let mut order: Vec<usize> = (0..len).filter(|&i| !vals[i].is_nan()).collect();
        order.sort_by(|&a, &b| vals[a].total_cmp(&vals[b]));
        let n = order.len();
        for (k, &q) in fractions.iter().enumerate() {
            let out = k * lanes + lane;
            if let (Some(at), false) = (first_nan, skip_nan) {
                picks.first[out] = Some(base + at);
                picks.first_weight[out] = 1.0;
                continue;
            }
            if n == 0 {
                continue;
            }
            let v = q * (n - 1) as f64;
            let i = v.floor() as usize;
            let gamma = v - v.floor();
            let next = (i + 1).min(n - 1);
            let (a, b, t) = match method {
                Method::Lower => (i, i, 0.0),
                Method::Higher => (if gamma > 0.0 { next } else { i }, i, 0.0),
                Method::Nearest => {
                    let up = gamma > 0.5 || (gamma == 0.5 && i % 2 == 1);
                    (if up { next } else { i }, i, 0.0)
                }
                Method::Linear => (i, next, gamma),
                Method::Midpoint => (i, next, 0.5),
            };
            picks.first[out] = Some(base + order[a]);
            picks.first_weight[out] = 1.0 - t;
            if t != 0.0 {
                picks.second[out] = Some(base + order[b]);
                picks.second_weight[out] = t;
            }
        }
    }
    Ok(picks)
}

/// For a running maximum (or minimum) of each lane along the last axis of `x`,
/// the index in the lane of the element each output copies: the latest of equal
/// extremes (torch's cummax), the first NaN once one is seen (it propagates).
pub fn running_extreme_indices(x: &Tensor, max: bool) -> Result<Tensor> {
    let x = x.contiguous();
    let len = x.shape().last().copied().unwrap_or(1);
    let values = x.to_dtype(DType::F64).to_vec::<f64>();
    let mut out = Vec::with_capacity(values.len());
    for lane in values.chunks(len.max(1)) {
        let mut best: Option<(usize, f64)> = None;
        for (j, &v) in lane.iter().enumerate() {
            let take = match best {
                None => true,
                Some((_, b)) if b.is_nan() => false,
                Some((_, b)) => v.is_nan() || if max { v >= b } else { v <= b },
            };
            if take {
                best = Some((j, v));
            }
            out.push(best.map_or(0, |(i, _)| i as i64));
        }
    }
    Tensor::from_vec(out, x.shape())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_even_median_reads_both_middles() {
        let x = Tensor::from_vec(vec![4.0f64, 1.0, 3.0, 2.0], &[4]).unwrap();
        let p = quantile_picks(&x, &[0.5], Method::Linear, false).unwrap();
        assert_eq!((p.first[0], p.second[0]), (Some(3), Some(2)));
        assert_eq!((p.first_weight[0], p.second_weight[0]), (0.5, 0.5));
    }

    #[test]
    fn a_running_max_copies_the_latest_tie_and_then_nan() {
        let x = Tensor::from_vec(vec![1.0f64, 3.0, 3.0, 2.0, f64::NAN, 5.0], &[6]).unwrap();
        let i = running_extreme_indices(&x, true).unwrap();
        assert_eq!(i.to_vec::<i64>(), vec![0, 1, 2, 2, 4, 4]);
    }

    #[test]
    fn nan_is_read_unless_skipped() {
        let x = Tensor::from_vec(vec![1.0f64, f64::NAN, 3.0], &[3]).unwrap();
        let p = quantile_picks(&x, &[0.5], Method::Linear, false).unwrap();
        assert_eq!(p.first[0], Some(1));
        let p = quantile_picks(&x, &[0.5], Method::Linear, true).unwrap();
        assert_eq!((p.first[0], p.second[0]), (Some(0), Some(2)));
    }
}

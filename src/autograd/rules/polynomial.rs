//! polyfit and interp: their exact values (NumPy's algorithms), differentiated
//! as compositions of recorded ops — polyfit as pinv(V)·y of the Vandermonde
//! matrix V, interp as `fp[j] + slope · (x − xp[j])` on each point's segment.

use super::{cast, pinv, reshape};
use super::{div, index, matmul, mul, sub, where_, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{recording, with_value};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::linalg as la;
use crate::tensor::{DType, Tensor};

/// `v[idx]` for an integer tensor `idx` along `v`'s one axis.
fn at(v: &Var, idx: Vec<i64>, shape: &[usize]) -> Result<Var> {
    let idx = Tensor::from_vec(idx, shape)?;
    index(v, &[Index::Tensor(idx)]).map_err(|e| GradError::Tensor(e.error))
}

/// numpy.polyfit's coefficients, differentiated (in x and y) as D⁻¹·pinv(V·D⁻¹)·y
/// with the Vandermonde matrix V and its column norms D, the cutoff polyfit uses.
pub fn polyfit(x: &Var, y: &Var, deg: i64) -> Result<Var> {
    let c = la::polyfit(x, y, deg)?;
    if !recording(&[x, y]) {
        return Ok(Var::constant(c));
    }
    let dtype = c.dtype();
    let (n, cols) = (x.shape()[0], c.shape()[0]);
    let xs = cast(x, dtype)?;
    // Columns x^deg, ..., x, 1, by repeated products.
    let mut powers = vec![Var::constant(
        Tensor::scalar(1.0)
            .broadcast_to(&[n])?
            .contiguous()
            .to_dtype(dtype),
    )];
    for _ in 1..cols {
        let next = mul(&powers[powers.len() - 1], &xs)?;
        powers.push(next);
    }
    powers.reverse();
    let v = super::stack(&powers, 1)?;
    let values = v.tensor().to_vec::<f64>();
    let norms: Vec<f64> = (0..cols)
        .map(|j| {
            let s = (0..n)
                .map(|i| values[i * cols + j].powi(2))
                .sum::<f64>()
                .sqrt();
            if s == 0.0 {
                1.0
            } else {
                s
            }
        })
        .collect();
    let d = Var::constant(Tensor::from_vec(norms, &[cols])?.to_dtype(dtype));
    let eps = if dtype == DType::F64 {
        f64::EPSILON
    } else {
        f64::from(f32::EPSILON)
    };
    let p = pinv(&div(&v, &d)?, Some(n as f64 * eps))?;
    let ys = cast(y, dtype)?;
    let d = match ys.ndim() {
        1 => d,
        _ => reshape(&d, &[-1, 1])?,
    };
    let composed = div(&matmul(&p, &ys)?, &d)?;
    Ok(with_value("polyfit", &composed, c))
}

/// numpy.interp's values, differentiated (in x, xp and fp) on each point's
/// segment j as `fp[j] + (fp[j+1] − fp[j]) / (xp[j+1] − xp[j]) · (x − xp[j])`; a
/// point at or past an end takes that end's fp (none for a given left/right).
pub fn interp(x: &Var, xp: &Var, fp: &Var, left: Option<f64>, right: Option<f64>) -> Result<Var> {
    let y = la::interp(x, xp, fp, left, right)?;
    if !recording(&[x, xp, fp]) {
        return Ok(Var::constant(y));
    }
    let (xv, xpv) = (x.tensor().to_vec::<f64>(), xp.tensor().to_vec::<f64>());
    let last = xpv.len() - 1;
    let shape = x.shape().to_vec();
    // Per point: its segment's first node, whether it lies inside a segment, and
    // which end's fp it takes otherwise (none: a constant).
    let (mut lo, mut inside, mut end) = (Vec::new(), Vec::new(), Vec::new());
    for &v in &xv {
        let j = xpv.partition_point(|&p| p <= v).clamp(1, last.max(1)) - 1;
        let within = last > 0 && v >= xpv[0] && v < xpv[last];
        lo.push(j.min(last.saturating_sub(1)) as i64);
        inside.push(within);
        end.push(if within || v.is_nan() {
            None
        } else if v < xpv[0] {
            left.is_none().then_some(0)
        } else if v > xpv[last] {
            right.is_none().then_some(last)
        } else {
            Some(last)
        });
    }
    let f64s = |v: &Var| cast(v, DType::F64);
    let (xd, xpd, fpd) = (f64s(x)?, f64s(xp)?, f64s(fp)?);
    let hi: Vec<i64> = lo.iter().map(|&j| (j + 1).min(last as i64)).collect();
    let (xp0, xp1) = (at(&xpd, lo.clone(), &shape)?, at(&xpd, hi.clone(), &shape)?);
    let (fp0, fp1) = (at(&fpd, lo, &shape)?, at(&fpd, hi, &shape)?);
    let inside = Var::constant(Tensor::from_vec(inside, &shape)?);
    // A width of 1 outside the segments, so that no 0/0 reaches a masked gradient.
    let width = where_(
        &inside,
        VarOperand::Var(&sub(&xp1, &xp0)?),
        VarOperand::Scalar(crate::tensor::Scalar::Float(1.0)),
    )?;
    let slope = div(&sub(&fp1, &fp0)?, &width)?;
    let along = super::add(&mul(&slope, &sub(&xd, &xp0)?)?, &fp0)?;
    let ends: Vec<i64> = end.iter().map(|e| e.unwrap_or(0) as i64).collect();
    let at_end = Var::constant(Tensor::from_vec(
        end.iter().map(Option::is_some).collect::<Vec<bool>>(),
        &shape,
    )?);
    let end_value = at(&fpd, ends, &shape)?;
    let fixed = Var::constant(y.clone());
    let outside = where_(
        &at_end,
        VarOperand::Var(&end_value),
        VarOperand::Var(&fixed),
    )?;
    let composed = where_(&inside, VarOperand::Var(&along), VarOperand::Var(&outside))?;
    Ok(with_value("interp", &composed, y))
}

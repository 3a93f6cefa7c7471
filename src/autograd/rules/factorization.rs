//! QR and the singular value decomposition: adjoints written in recorded ops (so
//! they differentiate again), torch's formulas. Factors that are not unique (the
//! extra columns of complete/full factors) take no gradient.

use super::linalg::{as_column, as_row, diag_embed, lower_masks, mt};
use super::shape::ALL;
use super::{add, concat, div, index, matmul, mul, solve_triangular, sub, where_};
use super::{number, VarOperand};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{record, record_many, slot_of};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::linalg as la;
use crate::ops::matrix;
use crate::tensor::layout::SliceSpec;
use crate::tensor::Tensor;

/// `v` from `start` to `stop` along `axis` (counted from the end).
fn narrow(v: &Var, axis: i64, start: usize, stop: usize) -> Result<Var> {
    let at = (v.ndim() as i64 + axis) as usize;
    let mut items = vec![Index::Slice(ALL); at];
    items.push(Index::Slice(SliceSpec {
        start: Some(start as i64),
        stop: Some(stop as i64),
        step: 1,
    }));
    index(v, &items).map_err(|e| GradError::Tensor(e.error))
}

/// `a + b` where either may be absent (a zero).
fn plus(a: Option<Var>, b: Var) -> Result<Option<Var>> {
    Ok(Some(match a {
        Some(a) => add(&a, &b)?,
        None => b,
    }))
}

/// `x · R⁻ᵀ` for an upper-triangular R.
fn times_inverse_transpose(x: &Var, r: &Var) -> Result<Var> {
    mt(&solve_triangular(r, &mt(x)?, false)?)
}

/// (q, r) of each matrix, mode "reduced" or "complete". Differentiable where q is
/// unique: any reduced factorization, and a complete one with no more rows than
/// columns.
pub fn qr(a: &Var, mode: &str) -> Result<(Var, Var)> {
    let mut parts = la::qr(a, mode)?;
    let (q, r) = match (parts.len(), parts.pop(), parts.pop()) {
        (2, Some(r), Some(q)) => (q, r),
        _ => {
            return Err(GradError::NotDifferentiable {
                op: "qr (internal: two outputs expected)".into(),
            })
        }
    };
    let (m, n) = (q.shape()[q.ndim() - 2], r.shape()[r.ndim() - 1]);
    let complete_tall = mode == "complete" && m > n;
    let (sa, sq, sr) = (a.clone(), q.clone(), r.clone());
    let mut out = record_many("qr", &[a], vec![q, r], move |gs, node| {
        if complete_tall {
            return Err(GradError::NotDifferentiable {
                op: "qr with mode=\"complete\" and more rows than columns (the last columns of q are not unique)".into(),
            });
        }
        let (q, r) = (slot_of(node, &sq, 0), slot_of(node, &sr, 1));
        let (gq, gr) = (gs[0].clone(), gs[1].clone());
        if m >= n {
            return Ok(vec![Some(qr_adjoint(&q, &r, gq, gr)?)]);
        }
        // Wide: a = [x | y] and r = [u | v] with x = q·u and y = q·v.
        let u = narrow(&r, -1, 0, m)?;
        let y = narrow(&sa, -1, m, n)?;
        let (gu, gv) = match &gr {
            Some(g) => (Some(narrow(g, -1, 0, m)?), Some(narrow(g, -1, m, n)?)),
            None => (None, None),
        };
        let (gy, gq) = match &gv {
            Some(gv) => (matmul(&q, gv)?, plus(gq, matmul(&y, &mt(gv)?)?)?),
            None => (Var::constant(Tensor::zeros(y.dtype(), y.shape())?), gq),
        };
        let gx = qr_adjoint(&q, &u, gq, gu)?;
        Ok(vec![Some(concat(&[gx, gy], -1)?)])
    });
    let r = out.pop();
    let q = out.pop();
    q.zip(r).ok_or_else(|| GradError::NotDifferentiable {
        op: "qr (internal: two outputs expected)".into(),
    })
}

/// The gradient of a = q·r (q m×n with orthonormal columns, r n×n upper, m ≥ n):
/// q·(gr + tril(qᵀgq − gqᵀq + r·grᵀ − gr·rᵀ)·r⁻ᵀ) + (gq − q·qᵀgq)·r⁻ᵀ.
fn qr_adjoint(q: &Var, r: &Var, gq: Option<Var>, gr: Option<Var>) -> Result<Var> {
    let n = r.shape()[r.ndim() - 1];
    let ones = Tensor::scalar(true).broadcast_to(&[n, n])?.contiguous();
    let lower = Var::constant(matrix::tril(&ones, 0)?);
    let skew = |m: Var| -> Result<Var> { sub(&m, &mt(&m)?) };
    let mut inner: Option<Var> = None;
    let mut outside: Option<Var> = None;
    if let Some(gq) = &gq {
        let qgq = matmul(&mt(q)?, gq)?;
        outside = Some(sub(gq, &matmul(q, &qgq)?)?);
        inner = plus(inner, skew(qgq)?)?;
    }
    if let Some(gr) = &gr {
        inner = plus(inner, skew(matmul(r, &mt(gr)?)?)?)?;
    }
    let Some(inner) = inner else {
        return Err(GradError::NotDifferentiable {
            op: "qr (internal: no gradient)".into(),
        });
    };
    let tril = where_(&lower, VarOperand::Var(&inner), number(0.0))?;
    let mut within = times_inverse_transpose(&tril, r)?;
    if let Some(gr) = &gr {
        within = add(gr, &within)?;
    }
    let mut ga = matmul(q, &within)?;
    if let Some(outside) = outside {
        ga = add(&ga, &times_inverse_transpose(&outside, r)?)?;
    }
    Ok(ga)
}

/// (u, s, vh) of each matrix; with `full`, u and vh square, their columns past
/// min(m, n) taking no gradient (torch).
pub fn svd(a: &Var, full: bool) -> Result<(Var, Var, Var)> {
    let parts = la::svd(a, full, true)?;
    let internal = || GradError::NotDifferentiable {
        op: "svd (internal: three outputs expected)".into(),
    };
    let [u, s, vh]: [Tensor; 3] = parts.try_into().map_err(|_| internal())?;
    let (m, n) = (u.shape()[u.ndim() - 2], vh.shape()[vh.ndim() - 1]);
    let k = m.min(n);
    let (su, ss, svh) = (u.clone(), s.clone(), vh.clone());
    let out = record_many("svd", &[a], vec![u, s, vh], move |gs, node| {
        let (mut u, s, mut vh) = (
            slot_of(node, &su, 0),
            slot_of(node, &ss, 1),
            slot_of(node, &svh, 2),
        );
        let (mut gu, gs_, mut gvh) = (gs[0].clone(), gs[1].clone(), gs[2].clone());
        if full {
            u = narrow(&u, -1, 0, k)?;
            vh = narrow(&vh, -2, 0, k)?;
            gu = gu.map(|g| narrow(&g, -1, 0, k)).transpose()?;
            gvh = gvh.map(|g| narrow(&g, -2, 0, k)).transpose()?;
        }
        Ok(vec![Some(svd_adjoint(&u, &s, &vh, gu, gs_, gvh)?)])
    });
    let [u, s, vh]: [Var; 3] = out.try_into().map_err(|_| internal())?;
    Ok((u, s, vh))
}

/// The gradient of a = u·diag(s)·vh (thin factors) given those of the factors:
/// u·(skew(uᵀgu)/E·S + S·skew(vh·ghᵀ)/E + diag(gs))·vh, E_ij = s_j² − s_i², plus
/// the parts of gu and gvh outside the spans of u and vh when a is not square.
fn svd_adjoint(
    u: &Var,
    s: &Var,
    vh: &Var,
    gu: Option<Var>,
    gs: Option<Var>,
    gvh: Option<Var>,
) -> Result<Var> {
    let (m, n) = (u.shape()[u.ndim() - 2], vh.shape()[vh.ndim() - 1]);
    let k = s.shape()[s.ndim() - 1];
    let (s_row, s_col) = (as_row(s)?, as_column(s)?);
    if gu.is_none() && gvh.is_none() {
        let gs = gs.ok_or_else(|| GradError::NotDifferentiable {
            op: "svd (internal: no gradient)".into(),
        })?;
        return matmul(&mul(u, &as_row(&gs)?)?, vh);
    }
    let (_, diag) = lower_masks(k)?;
    let squares = mul(s, s)?;
    let gaps = sub(&as_row(&squares)?, &as_column(&squares)?)?;
    // 1 on the diagonal, where the skew parts are 0, so that no 0/0 appears.
    let gaps = where_(&diag, number(1.0), VarOperand::Var(&gaps))?;
    let skew = |m: Var| -> Result<Var> { sub(&m, &mt(&m)?) };
    let mut inner: Option<Var> = None;
    if let Some(gu) = &gu {
        let j = skew(matmul(&mt(u)?, gu)?)?;
        inner = plus(inner, mul(&div(&j, &gaps)?, &s_row)?)?;
    }
    if let Some(gvh) = &gvh {
        let j = skew(matmul(vh, &mt(gvh)?)?)?;
        inner = plus(inner, mul(&s_col, &div(&j, &gaps)?)?)?;
    }
    if let Some(gs) = &gs {
        inner = plus(inner, diag_embed(gs)?)?;
    }
    let inner = inner.ok_or_else(|| GradError::NotDifferentiable {
        op: "svd (internal: no gradient)".into(),
    })?;
    let mut ga = matmul(&matmul(u, &inner)?, vh)?;
    if let (Some(gu), true) = (&gu, m > k) {
        let outside = sub(gu, &matmul(u, &matmul(&mt(u)?, gu)?)?)?;
        ga = add(&ga, &matmul(&div(&outside, &s_row)?, vh)?)?;
    }
    if let (Some(gvh), true) = (&gvh, n > k) {
        let outside = sub(gvh, &matmul(&matmul(gvh, &mt(vh)?)?, vh)?)?;
        ga = add(&ga, &matmul(&div(u, &s_row)?, &outside)?)?;
    }
    Ok(ga)
}

/// The singular values; their gradient u·diag(g)·vh, from a recorded svd (so it
/// differentiates again).
pub fn svdvals(a: &Var) -> Result<Var> {
    let s = la::svd(a, false, false)?.remove(0);
    let sa = a.clone();
    Ok(record("svdvals", &[a], s, move |g, _| {
        let (u, _, vh) = svd(&sa, false)?;
        Ok(vec![Some(matmul(&mul(&u, &as_row(g)?)?, &vh)?)])
    }))
}

//! Linear algebra: solves, the inverse, determinants, Cholesky and symmetric
//! eigenvectors, whose adjoints are written in these same recorded ops (so they
//! differentiate again). The factorizations read only the lower triangle, so
//! their gradients live there: an upper element does not change the result.

use super::binary::ZERO;
use super::vector_norm::vector_norm;
use super::VarOperand;
use super::{add, matmul, mul, neg, reduce, reshape, scale, sub, sum_to, transpose, unary, where_};
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::{output_of, record, record_many, slot_of};
use crate::autograd::var::Var;
use crate::ops::linalg::{self as la, NormOrd};
use crate::ops::{matrix, ReduceOp, UnaryOp};
use crate::tensor::{Scalar, Tensor};

/// The last two axes swapped.
pub(super) fn mt(v: &Var) -> Result<Var> {
    transpose(v, -2, -1)
}

/// `v` with two size-1 axes appended (a per-matrix number over its matrix).
fn per_matrix(v: &Var) -> Result<Var> {
    let mut dims: Vec<i64> = v.shape().iter().map(|&d| d as i64).collect();
    dims.extend([1, 1]);
    reshape(v, &dims)
}

/// Bool masks of an n×n matrix: strictly below the diagonal, and the diagonal.
pub(super) fn lower_masks(n: usize) -> Result<(Var, Var)> {
    let ones = Tensor::scalar(true).broadcast_to(&[n, n])?.contiguous();
    let lower = matrix::tril(&ones, -1)?;
    let diag = matrix::diag(&Tensor::scalar(true).broadcast_to(&[n])?.contiguous(), 0)?;
    Ok((Var::constant(lower), Var::constant(diag)))
}

/// `v` where `mask`, else 0.
pub(super) fn keep(mask: &Var, v: &Var) -> Result<Var> {
    where_(mask, VarOperand::Var(v), ZERO)
}

/// The matrices with `v`'s last axis on their diagonals (torch's diag_embed).
pub(super) fn diag_embed(v: &Var) -> Result<Var> {
    let n = v.shape()[v.ndim() - 1];
    let (_, diag) = lower_masks(n)?;
    // v along each row, kept on the diagonal.
    keep(&diag, &as_row(v)?)
}

/// `v` with a size-1 axis inserted before its last (a row over each matrix).
pub(super) fn as_row(v: &Var) -> Result<Var> {
    let mut dims: Vec<i64> = v.shape().iter().map(|&d| d as i64).collect();
    dims.insert(dims.len() - 1, 1);
    reshape(v, &dims)
}

/// `v` with a size-1 axis appended (a column over each matrix).
pub(super) fn as_column(v: &Var) -> Result<Var> {
    let mut dims: Vec<i64> = v.shape().iter().map(|&d| d as i64).collect();
    dims.push(1);
    reshape(v, &dims)
}

/// The gradient of a function of a symmetric matrix built from its lower
/// triangle, given the gradient `g` with respect to a general matrix: below the
/// diagonal g + gᵀ, on it g, above it 0.
fn onto_lower(g: &Var) -> Result<Var> {
    let n = g.shape()[g.ndim() - 1];
    let (lower, diag) = lower_masks(n)?;
    add(&keep(&lower, &add(g, &mt(g)?)?)?, &keep(&diag, g)?)
}

/// A solve's `b`: a 1-D b is one column (NumPy 2's rule), given back as 1-D.
fn as_columns(b: &Var, solve: impl FnOnce(&Var) -> Result<Var>) -> Result<Var> {
    if b.ndim() != 1 {
        return solve(b);
    }
    let x = solve(&reshape(b, &[-1, 1])?)?;
    let dims: Vec<i64> = x.shape()[..x.ndim() - 1]
        .iter()
        .map(|&d| d as i64)
        .collect();
    reshape(&x, &dims)
}

/// The solution x of a·x = b.
pub fn solve(a: &Var, b: &Var) -> Result<Var> {
    as_columns(b, |b| {
        let x = la::solve(a, b)?;
        let (sa, sb, sx) = (a.clone(), b.clone(), x.clone());
        Ok(record("solve", &[a, b], x, move |g, node| {
            let x = output_of(node, &sx);
            let gb = solve(&mt(&sa)?, g)?;
            let ga = neg(&matmul(&gb, &mt(&x)?)?)?;
            Ok(vec![
                Some(sum_to(&ga, sa.shape())?),
                Some(sum_to(&gb, sb.shape())?),
            ])
        }))
    })
}

/// The solution x of a·x = b for the lower (or upper) triangle of a.
pub fn solve_triangular(a: &Var, b: &Var, lower: bool) -> Result<Var> {
    as_columns(b, |b| {
        let x = la::solve_triangular(a, b, lower)?;
        let (sa, sb, sx) = (a.clone(), b.clone(), x.clone());
        Ok(record("solve_triangular", &[a, b], x, move |g, node| {
            let x = output_of(node, &sx);
            let gb = solve_triangular(&mt(&sa)?, g, !lower)?;
            let ga = neg(&matmul(&gb, &mt(&x)?)?)?;
            // Only the triangle read has a gradient.
            let n = sa.shape()[sa.ndim() - 1];
            let ones = Tensor::scalar(true).broadcast_to(&[n, n])?.contiguous();
            let read = if lower {
                matrix::tril(&ones, 0)?
            } else {
                matrix::triu(&ones, 0)?
            };
            let ga = keep(&Var::constant(read), &ga)?;
            Ok(vec![
                Some(sum_to(&ga, sa.shape())?),
                Some(sum_to(&gb, sb.shape())?),
            ])
        }))
    })
}

pub fn inv(a: &Var) -> Result<Var> {
    let y = la::inv(a)?;
    let sy = y.clone();
    Ok(record("inv", &[a], y, move |g, node| {
        let yt = mt(&output_of(node, &sy))?;
        Ok(vec![Some(neg(&matmul(&matmul(&yt, g)?, &yt)?)?)])
    }))
}

/// det(a); its gradient is g·det(a)·inv(a)ᵀ (an error at a singular matrix).
pub fn det(a: &Var) -> Result<Var> {
    let d = la::det(a)?;
    let (sa, sd) = (a.clone(), d.clone());
    Ok(record("det", &[a], d, move |g, node| {
        let d = output_of(node, &sd);
        let ga = mul(&per_matrix(&mul(g, &d)?)?, &mt(&inv(&sa)?)?)?;
        Ok(vec![Some(ga)])
    }))
}

/// (sign, logabsdet); the sign has a zero derivative, logabsdet's is inv(a)ᵀ.
pub fn slogdet(a: &Var) -> Result<(Var, Var)> {
    let (s, l) = la::slogdet(a)?;
    let sa = a.clone();
    let mut out = record_many("slogdet", &[a], vec![s, l], move |gs, _| {
        Ok(vec![match &gs[1] {
            Some(gl) => Some(mul(&per_matrix(gl)?, &mt(&inv(&sa)?)?)?),
            None => None,
        }])
    });
    let l = out.pop();
    let s = out.pop();
    s.zip(l).ok_or_else(|| GradError::NotDifferentiable {
        op: "slogdet (internal: two outputs expected)".into(),
    })
}

/// The lower Cholesky factor L (a = L·Lᵀ, read from a's lower triangle), or Lᵀ.
pub fn cholesky(a: &Var, upper: bool) -> Result<Var> {
    let l = la::cholesky(a, false)?;
    let sl = l.clone();
    let l = record("cholesky", &[a], l, move |gl, node| {
        // S = L⁻ᵀ·Φ(Lᵀ·gL)·L⁻¹, Φ the lower triangle with the diagonal halved.
        let l = output_of(node, &sl);
        let lt = mt(&l)?;
        let n = l.shape()[l.ndim() - 1];
        let (below, diag) = lower_masks(n)?;
        let p = matmul(&lt, gl)?;
        let phi = add(&keep(&below, &p)?, &scale(&keep(&diag, &p)?, 0.5)?)?;
        let z = solve_triangular(&lt, &phi, false)?;
        let s = mt(&solve_triangular(&lt, &mt(&z)?, false)?)?;
        Ok(vec![Some(onto_lower(&s)?)])
    });
    if upper {
        mt(&l)
    } else {
        Ok(l)
    }
}

/// (w, v) of a symmetric matrix read from its lower triangle.
pub fn eigh(a: &Var) -> Result<(Var, Var)> {
    let mut parts = la::eigh(a, true)?;
    let (v, w) = match (parts.pop(), parts.pop()) {
        (Some(v), Some(w)) => (v, w),
        _ => {
            return Err(GradError::NotDifferentiable {
                op: "eigh (internal: two outputs expected)".into(),
            })
        }
    };
    let (sw, sv) = (w.clone(), v.clone());
    let mut out = record_many("eigh", &[a], vec![w, v], move |gs, node| {
        let (w, v) = (slot_of(node, &sw, 0), slot_of(node, &sv, 1));
        Ok(vec![Some(onto_lower(&eigen_adjoint(
            &w,
            &v,
            gs[0].as_ref(),
            gs[1].as_ref(),
        )?)?)])
    });
    let v = out.pop();
    let w = out.pop();
    w.zip(v).ok_or_else(|| GradError::NotDifferentiable {
        op: "eigh (internal: two outputs expected)".into(),
    })
}

/// The eigenvalues of a symmetric matrix read from its lower triangle.
pub fn eigvalsh(a: &Var) -> Result<Var> {
    let w = la::eigh(a, false)?.remove(0);
    let sa = a.clone();
    Ok(record("eigvalsh", &[a], w, move |gw, _| {
        let (w, v) = eigh(&sa)?;
        Ok(vec![Some(onto_lower(&eigen_adjoint(
            &w,
            &v,
            Some(gw),
            None,
        )?)?)])
    }))
}

/// V·(diag(gw) + F∘(Vᵀ·gV))·Vᵀ with F_ij = 1/(w_j − w_i) off the diagonal: the
/// gradient with respect to a general matrix.
fn eigen_adjoint(w: &Var, v: &Var, gw: Option<&Var>, gv: Option<&Var>) -> Result<Var> {
    let n = w.shape()[w.ndim() - 1];
    let (_, diag) = lower_masks(n)?;
    let mut inner: Option<Var> = None;
    if let Some(gw) = gw {
        inner = Some(diag_embed(gw)?);
    }
    if let Some(gv) = gv {
        let gaps = sub(&as_row(w)?, &as_column(w)?)?;
        // 1 on the diagonal first, so that no 1/0 reaches even a masked gradient.
        let safe = where_(
            &diag,
            VarOperand::Scalar(Scalar::Float(1.0)),
            VarOperand::Var(&gaps),
        )?;
        let off = unary(UnaryOp::Reciprocal, &safe)?;
        let off = where_(&diag, ZERO, VarOperand::Var(&off))?;
        let term = mul(&off, &matmul(&mt(v)?, gv)?)?;
        inner = Some(match inner {
            Some(d) => add(&d, &term)?,
            None => term,
        });
    }
    let inner = inner.ok_or_else(|| GradError::NotDifferentiable {
        op: "eigh (internal: no gradient)".into(),
    })?;
    matmul(&matmul(v, &inner)?, &mt(v)?)
}

/// a multiplied by itself n times, by the same repeated squaring as the
/// untracked op (the same bits), in recorded products.
pub fn matrix_power(a: &Var, n: i64) -> Result<Var> {
    let base = if n < 0 { inv(a)? } else { a.clone() };
    match la::by_squaring(base, n.unsigned_abs(), matmul)? {
        Some(r) => Ok(r),
        None => Ok(Var::constant(la::matrix_power(a, 0)?)),
    }
}

/// numpy.linalg.norm, recorded: the untracked op checks the arguments and gives
/// the value; the same ops, recorded, give the gradient (and the same bits).
pub fn norm(x: &Var, ord: NormOrd, axis: Option<&[i64]>, keepdim: bool) -> Result<Var> {
    let y = la::norm(x, ord, axis, keepdim)?;
    if !crate::autograd::record::recording(&[x]) {
        return Ok(Var::constant(y));
    }
    let axes: Vec<i64> = match axis {
        Some(a) => a.to_vec(),
        None if ord == NormOrd::Default => return vector_norm(x, 2.0, None, keepdim),
        None if x.ndim() == 1 => vec![0],
        None => vec![0, 1],
    };
    let p = match ord {
        NormOrd::Default | NormOrd::Fro => 2.0,
        NormOrd::P(p) => p,
        NormOrd::Nuc => 0.0,
    };
    if let [a] = axes[..] {
        return vector_norm(x, p, Some(&[a]), keepdim);
    }
    let ndim = x.ndim() as i64;
    let (r, c) = ((axes[0] + ndim) % ndim, (axes[1] + ndim) % ndim);
    let kept = |v: Var| -> Result<Var> {
        if keepdim {
            return Ok(v);
        }
        let dims: Vec<i64> = (0..ndim)
            .filter(|&d| d != r && d != c)
            .map(|d| v.shape()[d as usize] as i64)
            .collect();
        reshape(&v, &dims)
    };
    let sums_then = |sum_over: i64, other: i64, op: ReduceOp| -> Result<Var> {
        let sums = vector_norm(x, 1.0, Some(&[sum_over]), true)?;
        kept(reduce(op, &sums, Some(&[other]), true)?)
    };
    let singular = |op: ReduceOp| -> Result<Var> {
        let rest: Vec<i64> = (0..ndim).filter(|&d| d != r && d != c).collect();
        let order: Vec<i64> = rest.iter().copied().chain([r, c]).collect();
        let sv = super::svdvals(&super::permute(x, &order)?)?;
        let out = reduce(op, &sv, Some(&[-1]), false)?;
        if !keepdim {
            return Ok(out);
        }
        reshape(
            &out,
            &y.shape().iter().map(|&d| d as i64).collect::<Vec<_>>(),
        )
    };
    match ord {
        NormOrd::Default | NormOrd::Fro => vector_norm(x, 2.0, Some(&[r, c]), keepdim),
        NormOrd::Nuc => singular(ReduceOp::Sum),
        NormOrd::P(1.0) => sums_then(r, c, ReduceOp::Max),
        NormOrd::P(-1.0) => sums_then(r, c, ReduceOp::Min),
        NormOrd::P(p) if p == f64::INFINITY => sums_then(c, r, ReduceOp::Max),
        NormOrd::P(p) if p == f64::NEG_INFINITY => sums_then(c, r, ReduceOp::Min),
        NormOrd::P(2.0) => singular(ReduceOp::Max),
        _ => singular(ReduceOp::Min),
    }
}

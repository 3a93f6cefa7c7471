//! `norm` exactly as `numpy.linalg.norm`: vector norms along one axis (or of the
//! flattened tensor), matrix norms over two axes, the matrix of a 2-D input by
//! default when an order is given.

use super::factor::svd;
use crate::ops::rearrange::moveaxis;
use crate::ops::reduce::norm as vector_norm;
use crate::ops::{reduce, ReduceOp};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{Result, Tensor, TensorError};

/// A norm's order: a number, `"fro"` or `"nuc"`, or none (the default).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    Default,
    P(f64),
    Fro,
    Nuc,
}

impl NormOrd {
    /// The order named by a string (`"fro"`, `"nuc"`).
    pub fn from_name(name: &str) -> Result<NormOrd> {
        match name {
            "fro" => Ok(NormOrd::Fro),
            "nuc" => Ok(NormOrd::Nuc),
            _ => Err(TensorError::value(
                "norm",
                format!("unknown norm order \"{name}\" (expected a number, \"fro\" or \"nuc\")"),
            )),
        }
    }
}

/// `numpy.linalg.norm(x, ord, axis, keepdims)`: without axes, the 2-norm of the
/// flattened `x` when `ord` is none, else the vector norm of a 1-D `x` or the matrix
/// norm of a 2-D one; one axis gives vector norms, two axes matrix norms.
pub fn norm(x: &Tensor, ord: NormOrd, axis: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let axes: Vec<i64> = match axis {
        Some(a) => a.to_vec(),
        None if ord == NormOrd::Default => return vector_norm(x, 2.0, None, keepdim),
        None => match x.ndim() {
            1 => vec![0],
            2 => vec![0, 1],
            n => {
                return Err(TensorError::shape(
                    "norm",
                    format!("an order needs a 1-D or 2-D input or the axes, got {n}-D"),
                ))
            }
        },
    };
    match axes[..] {
        [a] => {
            let p = match ord {
                NormOrd::Default => 2.0,
                NormOrd::P(p) => p,
                NormOrd::Fro | NormOrd::Nuc => {
                    return Err(TensorError::value(
                        "norm",
                        "\"fro\" and \"nuc\" are matrix norms; a vector norm needs a number",
                    ))
                }
            };
            vector_norm(x, p, Some(&[a]), keepdim)
        }
        [a, b] => matrix_norm(x, ord, a, b, keepdim),
        _ => Err(TensorError::value(
            "norm",
            format!("axis must be one axis or two, got {}", axes.len()),
        )),
    }
}

/// The matrix norm over the planes of axes `r` (rows) and `c` (columns).
fn matrix_norm(x: &Tensor, ord: NormOrd, r: i64, c: i64, keepdim: bool) -> Result<Tensor> {
    let (r, c) = (
        normalize_axis("norm", r, x.ndim())?,
        normalize_axis("norm", c, x.ndim())?,
    );
    if r == c {
        return Err(TensorError::value("norm", "the two axes must differ"));
    }
    let axes = [r as i64, c as i64];
    // A sum of magnitudes over one axis, then the extreme over the other.
    let sums_then = |sum_over: i64, other: i64, op: ReduceOp| -> Result<Tensor> {
        let sums = vector_norm(x, 1.0, Some(&[sum_over]), true)?;
        let out = reduce(op, &sums, Some(&[other]), true)?;
        drop_axes(out, &axes, keepdim)
    };
    match ord {
        NormOrd::Default | NormOrd::Fro => vector_norm(x, 2.0, Some(&axes), keepdim),
        NormOrd::P(1.0) => sums_then(axes[0], axes[1], ReduceOp::Max),
        NormOrd::P(-1.0) => sums_then(axes[0], axes[1], ReduceOp::Min),
        NormOrd::P(p) if p == f64::INFINITY => sums_then(axes[1], axes[0], ReduceOp::Max),
        NormOrd::P(p) if p == f64::NEG_INFINITY => sums_then(axes[1], axes[0], ReduceOp::Min),
        NormOrd::P(p) if p == 2.0 || p == -2.0 => {
            let op = if p > 0.0 { ReduceOp::Max } else { ReduceOp::Min };
            singular_value_norm(x, &axes, op, keepdim)
        }
        NormOrd::Nuc => singular_value_norm(x, &axes, ReduceOp::Sum, keepdim),
        NormOrd::P(p) => Err(TensorError::value(
            "norm",
            format!("invalid norm order {p} for matrices (expected 1, -1, 2, -2, inf, -inf, \"fro\" or \"nuc\")"),
        )),
    }
}

/// The max, min or sum of the singular values of the planes of `axes`.
fn singular_value_norm(x: &Tensor, axes: &[i64; 2], op: ReduceOp, keepdim: bool) -> Result<Tensor> {
    let moved = moveaxis(x, axes, &[-2, -1])?;
    let sv = svd(&moved, false, false)?.remove(0);
    let out = reduce(op, &sv, Some(&[-1]), false)?;
    if !keepdim {
        return Ok(out);
    }
    let (lo, hi) = (axes[0].min(axes[1]), axes[0].max(axes[1]));
    out.unsqueeze(lo)?.unsqueeze(hi)
}

/// `x` (both `axes` kept as size 1) without them unless `keepdim`.
fn drop_axes(x: Tensor, axes: &[i64; 2], keepdim: bool) -> Result<Tensor> {
    if keepdim {
        Ok(x)
    } else {
        x.squeeze(Some(axes))
    }
}

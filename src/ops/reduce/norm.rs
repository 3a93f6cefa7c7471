//! The vector norm of any order over axes, and `normalize` built on it.

use super::{floats, non_empty, Plan};
use crate::kernels::math::{truth, Arith};
use crate::kernels::reduce::{pairwise_sum, reduce_lanes};
use crate::ops::binary::binary;
use crate::ops::{elems, BinaryOp, Operand};
use crate::tensor::{Elem, Result, Scalar, Tensor};

/// The vector norm of order `ord` over `axes` (all elements when `None`), as
/// `numpy.linalg.vector_norm`: 2 is the Euclidean norm (the Frobenius norm of a
/// matrix), 1 the sum of magnitudes, inf/-inf the largest/smallest magnitude, 0 the
/// count of nonzeros, any other p `sum(|x|^p)^(1/p)`. Computed in f64 (pairwise sums),
/// returned in the float result dtype. An empty lane gives 0, except for -inf (an error).
pub fn norm(a: &Tensor, ord: f64, axes: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    norm_named("norm", a, ord, axes, keepdim)
}

fn norm_named(
    name: &str,
    a: &Tensor,
    ord: f64,
    axes: Option<&[i64]>,
    keepdim: bool,
) -> Result<Tensor> {
    let plan = Plan::new(name, a, axes, keepdim)?;
    crate::dispatch!(a.dtype(), T => {
        let data = elems::<T>(name, a)?;
        let norms = reduce_lanes(data, a.layout(), &plan.reduced, |xs| vector_norm(xs, ord));
        floats::<T>(non_empty(name, norms)?, &plan.shape)
    })
}

/// One lane's norm (`None`: the -inf norm of an empty lane).
fn vector_norm<T: Elem>(xs: &[T], ord: f64) -> Option<f64> {
    let magnitude = |x: T| x.to_f64().abs();
    let magnitudes = xs.iter().map(|&x| magnitude(x));
    Some(if ord == 2.0 {
        pairwise_sum(xs, |x| x.to_f64() * x.to_f64()).sqrt()
    } else if ord == 1.0 {
        pairwise_sum(xs, magnitude)
    } else if ord == f64::INFINITY {
        magnitudes.fold(0.0, Arith::maximum)
    } else if ord == f64::NEG_INFINITY {
        magnitudes.reduce(Arith::minimum)?
    } else if ord == 0.0 {
        xs.iter().filter(|&&x| truth(x)).count() as f64
    } else {
        pairwise_sum(xs, |x| magnitude(x).powf(ord)).powf(ord.recip())
    })
}

/// `x / max(norm_p(x, axes), eps)` with the norm kept as size-1 dims, like
/// `torch.nn.functional.normalize`. The division promotes like `/`: float
/// dtypes stay, bool and integers give f32.
pub fn normalize(a: &Tensor, p: f64, axes: &[i64], eps: f64) -> Result<Tensor> {
    let norms = norm_named("normalize", a, p, Some(axes), true)?;
    let eps = Operand::Scalar(Scalar::Float(eps));
    let denom = binary(BinaryOp::Maximum, Operand::Tensor(&norms), eps)?;
    binary(BinaryOp::Div, Operand::Tensor(a), Operand::Tensor(&denom))
}

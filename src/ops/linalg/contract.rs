//! Contractions through the GEMM: the pairwise step `einsum` is built from, and
//! `tensordot`, `vdot` and `inner` (NumPy's).

use crate::ops::algebra::Algebra;
use crate::ops::BinaryOp;
use crate::tensor::shape::{normalize_axis, shape_str};
use crate::tensor::{Result, TensorError};

/// The axes of one operand in a pairwise contraction: those shared as a batch (in
/// the other operand's order), those summed over (likewise) and those kept.
pub struct Roles {
    pub batch: Vec<usize>,
    pub summed: Vec<usize>,
    pub kept: Vec<usize>,
}

impl Roles {
    /// `batch` and `summed` given; every other axis of an `ndim` operand is kept.
    pub fn new(ndim: usize, batch: Vec<usize>, summed: Vec<usize>) -> Roles {
        let kept = (0..ndim)
            .filter(|d| !batch.contains(d) && !summed.contains(d))
            .collect();
        Roles {
            batch,
            summed,
            kept,
        }
    }
}

fn sizes<T: Algebra>(x: &T, axes: &[usize]) -> Vec<usize> {
    axes.iter().map(|&d| x.dims()[d]).collect()
}

fn as_i64(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&d| d as i64).collect()
}

/// `x` with its axes in the order `order`, broadcast to `shape`, reshaped to `dims`.
fn arrange<T: Algebra>(
    x: &T,
    order: &[usize],
    shape: &[usize],
    dims: &[usize],
) -> std::result::Result<T, T::Error> {
    x.permute_to(&as_i64(order))?
        .broadcast_as(shape)?
        .reshape_to(&as_i64(dims))
}

/// The contraction of `a` and `b`: for each batch index, the sum over the `summed`
/// axes of products, as one batched matmul. Paired batch and summed axes have equal
/// sizes or size 1 (broadcast). The result's axes: the batch, `a`'s kept, `b`'s kept.
/// With nothing summed it is a broadcast product instead.
pub fn contract<T: Algebra>(
    a: &T,
    ra: &Roles,
    b: &T,
    rb: &Roles,
) -> std::result::Result<T, T::Error> {
    let pair = |x: &[usize], y: &[usize]| -> Vec<usize> {
        x.iter().zip(y).map(|(&p, &q)| p.max(q)).collect()
    };
    let batch = pair(&sizes(a, &ra.batch), &sizes(b, &rb.batch));
    let summed = pair(&sizes(a, &ra.summed), &sizes(b, &rb.summed));
    let (ka, kb) = (sizes(a, &ra.kept), sizes(b, &rb.kept));
    let out: Vec<usize> = [&batch[..], &ka, &kb].concat();
    let (nb, m, k, n) = (
        batch.iter().product::<usize>(),
        ka.iter().product::<usize>(),
        summed.iter().product::<usize>(),
        kb.iter().product::<usize>(),
    );
    if ra.summed.is_empty() {
        // A product of every pair: a as [batch, kept, 1..], b as [batch, 1.., kept].
        let order_a = [&ra.batch[..], &ra.kept].concat();
        let order_b = [&rb.batch[..], &rb.kept].concat();
        let x = a.permute_to(&as_i64(&order_a))?.reshape_to(&as_i64(
            &[&sizes(a, &ra.batch)[..], &ka, &vec![1; kb.len()]].concat(),
        ))?;
        let y = b.permute_to(&as_i64(&order_b))?.reshape_to(&as_i64(
            &[&sizes(b, &rb.batch)[..], &vec![1; ka.len()], &kb].concat(),
        ))?;
        return T::combine(BinaryOp::Mul, &x, &y);
    }
    let x = arrange(
        a,
        &[&ra.batch[..], &ra.kept, &ra.summed].concat(),
        &[&batch[..], &ka, &summed].concat(),
        &[nb, m, k],
    )?;
    let y = arrange(
        b,
        &[&rb.batch[..], &rb.summed, &rb.kept].concat(),
        &[&batch[..], &summed, &kb].concat(),
        &[nb, k, n],
    )?;
    T::matrix_product(&x, &y)?.reshape_to(&as_i64(&out))
}

/// The axes of a `tensordot` operand: `axes` normalized, each once.
fn axis_list<T: Algebra>(op: &str, x: &T, axes: &[i64]) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let d = normalize_axis(op, a, x.dims().len())?;
        if out.contains(&d) {
            return Err(TensorError::value(op, format!("axis {a} repeated")));
        }
        out.push(d);
    }
    Ok(out)
}

/// `numpy.tensordot(a, b, (axes_a, axes_b))`: the sum of products over `a`'s axes
/// `axes_a` paired with `b`'s `axes_b`; the result's axes are `a`'s others then `b`'s.
pub fn tensordot<T: Algebra>(
    a: &T,
    b: &T,
    axes_a: &[i64],
    axes_b: &[i64],
) -> std::result::Result<T, T::Error> {
    let op = "tensordot";
    let (ca, cb) = (axis_list(op, a, axes_a)?, axis_list(op, b, axes_b)?);
    if ca.len() != cb.len() || sizes(a, &ca) != sizes(b, &cb) {
        return Err(TensorError::shape(
            op,
            format!(
                "a has shape {} and b has shape {}: summed axes of a (sizes {}) and b (sizes {}) must pair up",
                shape_str(a.dims()),
                shape_str(b.dims()),
                shape_str(&sizes(a, &ca)),
                shape_str(&sizes(b, &cb))
            ),
        )
        .into());
    }
    contract(
        a,
        &Roles::new(a.dims().len(), Vec::new(), ca),
        b,
        &Roles::new(b.dims().len(), Vec::new(), cb),
    )
}

/// `numpy.tensordot(a, b, n)`: `a`'s last `n` axes with `b`'s first `n`.
pub fn tensordot_n<T: Algebra>(a: &T, b: &T, n: i64) -> std::result::Result<T, T::Error> {
    let (ra, rb) = (a.dims().len(), b.dims().len());
    let n_ok = usize::try_from(n).ok().filter(|&n| n <= ra && n <= rb);
    let Some(n) = n_ok else {
        return Err(TensorError::value(
            "tensordot",
            format!(
                "axes={n} needs 0 to {} (the smaller rank of a and b)",
                ra.min(rb)
            ),
        )
        .into());
    };
    let first_a = (ra - n) as i64;
    let axes_a: Vec<i64> = (first_a..ra as i64).collect();
    let axes_b: Vec<i64> = (0..n as i64).collect();
    tensordot(a, b, &axes_a, &axes_b)
}

/// `numpy.vdot`: the dot product of the flattened `a` and `b` (same size), 0-d.
pub fn vdot<T: Algebra>(a: &T, b: &T) -> std::result::Result<T, T::Error> {
    let count = |t: &T| t.dims().iter().product::<usize>();
    if count(a) != count(b) {
        return Err(TensorError::shape(
            "vdot",
            format!(
                "a has shape {} and b has shape {}: they need the same size",
                shape_str(a.dims()),
                shape_str(b.dims())
            ),
        )
        .into());
    }
    let (x, y) = (a.reshape_to(&[-1])?, b.reshape_to(&[-1])?);
    tensordot(&x, &y, &[0], &[0])
}

/// `numpy.inner`: the sum of products over the last axes of `a` and `b`; the result's
/// axes are `a`'s others then `b`'s. A 0-d operand multiplies.
pub fn inner<T: Algebra>(a: &T, b: &T) -> std::result::Result<T, T::Error> {
    if a.dims().is_empty() || b.dims().is_empty() {
        return T::combine(BinaryOp::Mul, a, b);
    }
    tensordot(a, b, &[-1], &[-1])
}

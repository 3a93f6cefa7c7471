//! Matrix-shaped functions built from views and elementwise ops: triangles
//! (tril, triu), diagonals (diag, trace), and the products outer, kron and cross.

use super::algebra::Algebra;
use super::rearrange::diagonal;
use super::{binary, output_buffer, reduce, BinaryOp, Operand, ReduceOp};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{Result, Tensor, TensorError};

/// `numpy.tril`: x with the elements above diagonal k set to zero (k > 0 keeps
/// that many diagonals above the main one), over the last two axes. A vector is
/// broadcast to a square matrix first, as NumPy does.
pub fn tril(x: &Tensor, k: i64) -> Result<Tensor> {
    triangle("tril", x, |row, col| col - row <= k)
}

/// `numpy.triu`: x with the elements below diagonal k set to zero.
pub fn triu(x: &Tensor, k: i64) -> Result<Tensor> {
    triangle("triu", x, |row, col| col - row >= k)
}

/// A copy of x keeping the elements at (row, col) of each matrix where `keep` holds.
fn triangle(op: &str, x: &Tensor, keep: impl Fn(i64, i64) -> bool) -> Result<Tensor> {
    let x = match x.ndim() {
        0 => {
            return Err(TensorError::shape(
                op,
                "needs at least 1 dimension, got a 0-d tensor",
            ))
        }
        1 => x.broadcast_to(&[x.numel(), x.numel()])?,
        _ => x.clone(),
    };
    let (rows, cols) = (x.shape()[x.ndim() - 2], x.shape()[x.ndim() - 1]);
    crate::dispatch!(x.dtype(), T => {
        let mut v = x.to_vec::<T>();
        if cols > 0 {
            for (m, row) in v.chunks_exact_mut(cols).enumerate() {
                // Rows and columns index memory, so they fit in i64.
                let r = (m % rows) as i64;
                for (c, e) in row.iter_mut().enumerate() {
                    if !keep(r, c as i64) {
                        *e = T::default();
                    }
                }
            }
        }
        Tensor::from_vec(v, x.shape())
    })
}

/// `numpy.diag`: of a vector, a square matrix with it on diagonal k and zeros
/// elsewhere; of a matrix, its diagonal k (a view).
pub fn diag(x: &Tensor, k: i64) -> Result<Tensor> {
    match x.ndim() {
        1 => {}
        2 => return diagonal(x, k, 0, 1),
        n => {
            return Err(TensorError::shape(
                "diag",
                format!("needs a 1-D or 2-D tensor, got a {n}-d tensor"),
            ))
        }
    }
    let n = x.numel();
    let shift = usize::try_from(k.unsigned_abs()).unwrap_or(usize::MAX);
    let size = n
        .checked_add(shift)
        .ok_or_else(|| TensorError::value("diag", format!("a diagonal {k} is too far out")))?;
    let (row0, col0) = if k >= 0 { (0, shift) } else { (shift, 0) };
    crate::dispatch!(x.dtype(), T => {
        let mut out = output_buffer("diag", &[size, size], T::default())?;
        for (i, v) in x.to_vec::<T>().into_iter().enumerate() {
            out[(row0 + i) * size + col0 + i] = v;
        }
        Tensor::from_vec(out, &[size, size])
    })
}

/// `numpy.trace`: the sum of diagonal `offset` of the planes of axis1 and axis2,
/// with the sum's dtypes (bool and ints give i64).
pub fn trace(x: &Tensor, offset: i64, axis1: i64, axis2: i64) -> Result<Tensor> {
    let d = diagonal(x, offset, axis1, axis2)?;
    reduce(ReduceOp::Sum, &d, Some(&[-1]), false)
}

/// `numpy.outer`: `a[i] * b[j]` of the flattened a and b, dtypes promoted.
pub fn outer(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let column = a.reshape(&[-1, 1])?;
    let row = b.reshape(&[1, -1])?;
    binary(
        BinaryOp::Mul,
        Operand::Tensor(&column),
        Operand::Tensor(&row),
    )
}

/// `numpy.kron`: the Kronecker product, block `(i, j, ...)` being `a[i, j, ...] * b`;
/// the lower-rank input gets leading size-1 axes.
pub fn kron<T: Algebra>(a: &T, b: &T) -> std::result::Result<T, T::Error> {
    let rank = a.dims().len().max(b.dims().len());
    let padded = |t: &T| -> Vec<i64> {
        let lead = rank - t.dims().len();
        std::iter::repeat_n(1, lead)
            .chain(t.dims().iter().map(|&d| d as i64))
            .collect()
    };
    let (sa, sb) = (padded(a), padded(b));
    // a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...] is [a0, b0, a1, b1, ...].
    let a2: Vec<i64> = sa.iter().flat_map(|&d| [d, 1]).collect();
    let b2: Vec<i64> = sb.iter().flat_map(|&d| [1, d]).collect();
    let product = T::combine(BinaryOp::Mul, &a.reshape_to(&a2)?, &b.reshape_to(&b2)?)?;
    // The product's size passed the memory check, so each merged dim fits unless
    // the result is empty and another dim is huge.
    let shape = sa
        .iter()
        .zip(&sb)
        .map(|(x, y)| x.checked_mul(*y))
        .collect::<Option<Vec<i64>>>()
        .ok_or_else(|| {
            TensorError::value("kron", "the result has more elements than can be counted")
        })?;
    product.reshape_to(&shape)
}

/// `numpy.cross(a, b, axis)`: the cross product of the vectors along axis (of
/// length 3, or 2 taken as having z = 0), the other axes broadcasting. Two 2-vectors
/// give the z component only (the axis is removed); otherwise the result has the
/// 3 components along axis. Computed as NumPy does, skipping the products with a
/// missing z rather than multiplying by 0 (so inf and NaN propagate the same way).
pub fn cross<T: Algebra>(a: &T, b: &T, axis: i64) -> std::result::Result<T, T::Error> {
    let components = |t: &T| -> std::result::Result<Vec<T>, T::Error> {
        let ax = normalize_axis("cross", axis, t.dims().len())?;
        match t.dims()[ax] {
            2 | 3 => (0..t.dims()[ax] as i64)
                .map(|i| t.pick(ax as i64, i))
                .collect(),
            n => Err(TensorError::shape(
                "cross",
                format!("vectors along axis {axis} must have 2 or 3 components, got {n}"),
            )
            .into()),
        }
    };
    let (ca, cb) = (components(a)?, components(b)?);
    let mul = |x: Option<&T>, y: Option<&T>| -> std::result::Result<Option<T>, T::Error> {
        match (x, y) {
            (Some(x), Some(y)) => T::combine(BinaryOp::Mul, x, y).map(Some),
            _ => Ok(None),
        }
    };
    // p - q where a missing term counts as zero; one of them is always present.
    let sub = |p: Option<T>, q: Option<T>| -> std::result::Result<T, T::Error> {
        match (p, q) {
            (Some(p), Some(q)) => T::combine(BinaryOp::Sub, &p, &q),
            (Some(p), None) => Ok(p),
            (None, Some(q)) => q.negate(),
            (None, None) => Err(TensorError::value("cross", "internal error: no terms").into()),
        }
    };
    let (a0, a1, a2) = (ca.first(), ca.get(1), ca.get(2));
    let (b0, b1, b2) = (cb.first(), cb.get(1), cb.get(2));
    let z = sub(mul(a0, b1)?, mul(a1, b0)?)?;
    if ca.len() == 2 && cb.len() == 2 {
        return Ok(z);
    }
    let x = sub(mul(a1, b2)?, mul(a2, b1)?)?;
    let y = sub(mul(a2, b0)?, mul(a0, b2)?)?;
    // The three components share one shape and dtype (each is a broadcast product).
    let out = T::stack_along(&[x, y, z], -1)?;
    // The new last axis moved to `axis`.
    let n = out.dims().len() as i64;
    let at = normalize_axis("cross", axis, n as usize)? as i64;
    let mut order: Vec<i64> = (0..n - 1).collect();
    order.insert(at as usize, n - 1);
    out.permute_to(&order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};
    use crate::tensor::DType;

    #[test]
    fn triangles_keep_their_side() {
        let m = tensor(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], DType::I64);
        for v in views(&m) {
            assert_eq!(
                values(&tril(&v, 0).unwrap()),
                [1.0, 0.0, 0.0, 4.0, 5.0, 0.0]
            );
            assert_eq!(
                values(&triu(&v, 1).unwrap()),
                [0.0, 2.0, 3.0, 0.0, 0.0, 6.0]
            );
            assert_eq!(values(&tril(&v, -5).unwrap()), [0.0; 6]);
            assert_eq!(values(&triu(&v, i64::MIN).unwrap()), values(&m));
        }
        let t = tril(&tensor(&[1.0, 2.0], &[2], DType::F32), 0).unwrap();
        assert_eq!(
            (t.shape().to_vec(), values(&t)),
            (vec![2, 2], vec![1.0, 0.0, 1.0, 2.0])
        );
        assert!(tril(&Tensor::scalar(1i64), 0).is_err());
    }

    #[test]
    fn diag_both_ways_and_trace() {
        let v = tensor(&[1.0, 2.0], &[2], DType::F64);
        let d = diag(&v, -1).unwrap();
        assert_eq!(d.shape(), &[3, 3]);
        assert_eq!(values(&d), [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
        assert_eq!(values(&diag(&d, -1).unwrap()), [1.0, 2.0]);
        assert!(diag(&Tensor::scalar(1.0f64), 0).is_err());
        assert!(diag(&v, i64::MAX).is_err());
        let m = tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2], DType::I32);
        let t = trace(&m, 0, 0, 1).unwrap();
        assert_eq!((t.dtype(), values(&t)), (DType::I64, vec![5.0]));
    }

    #[test]
    fn products() {
        let a = tensor(&[1.0, 2.0], &[2], DType::I32);
        let b = tensor(&[1.0, 10.0, 100.0], &[3], DType::F32);
        let o = outer(&a, &b).unwrap();
        assert_eq!((o.dtype(), o.shape().to_vec()), (DType::F32, vec![2, 3]));
        assert_eq!(values(&o), [1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
        let k = kron(&a, &tensor(&[1.0, 1.0, 1.0, 1.0], &[2, 2], DType::I32)).unwrap();
        assert_eq!(k.shape(), &[2, 4]);
        assert_eq!(values(&k), [1.0, 1.0, 2.0, 2.0, 1.0, 1.0, 2.0, 2.0]);
        let x = tensor(&[1.0, 0.0, 0.0], &[3], DType::F64);
        let y = tensor(&[0.0, 1.0, 0.0], &[3], DType::F64);
        assert_eq!(values(&cross(&x, &y, -1).unwrap()), [0.0, 0.0, 1.0]);
        let z = cross(
            &tensor(&[1.0, 2.0], &[2], DType::F64),
            &tensor(&[3.0, 4.0], &[2], DType::F64),
            0,
        )
        .unwrap();
        assert_eq!((z.shape().to_vec(), values(&z)), (vec![], vec![-2.0]));
        assert!(cross(&tensor(&[1.0; 4], &[4], DType::F64), &x, -1).is_err());
    }
}

//! Shape functions that build new tensors from pieces or pick elements by value:
//! concat, stack, split, where, unique, count_nonzero, and the in-place fill.
//! (The pure views — reshape, transpose, ... — are Layout functions on `Tensor`.)

use super::{output_buffer, reduce, scalar_as, Operand, ReduceOp};
use crate::kernels::math::is_nan;
use crate::tensor::shape::{broadcast_shapes, normalize_axis, shape_str};
use crate::tensor::{budget, DType, Result, Scalar, SliceSpec, Tensor, TensorError};

/// A tensor of `shape` whose buffer is allocated without aborting on a huge shape.
fn allocate(op: &str, dtype: DType, shape: &[usize]) -> Result<Tensor> {
    crate::dispatch!(dtype, T => Tensor::from_vec(output_buffer(op, shape, T::default())?, shape))
}

/// The parts' promoted dtype (PyTorch's `promote_types`, folded left to right).
fn promoted(parts: &[Tensor]) -> DType {
    let mut it = parts.iter().map(Tensor::dtype);
    let first = it.next().unwrap_or(DType::DEFAULT_FLOAT);
    it.fold(first, DType::promote)
}

/// Copies `parts` one after another along `axis` into a new tensor of `shape`.
fn join(op: &str, parts: &[Tensor], axis: usize, shape: &[usize]) -> Result<Tensor> {
    let mut out = allocate(op, promoted(parts), shape)?;
    let mut start = 0i64;
    for p in parts {
        let stop = start + p.shape()[axis] as i64;
        let spec = SliceSpec {
            start: Some(start),
            stop: Some(stop),
            step: 1,
        };
        let region = out.layout().slice(axis, spec)?;
        out.assign(&region, p)?;
        start = stop;
    }
    Ok(out)
}

/// The first part's shape; there must be one.
fn first_shape<'a>(op: &str, parts: &'a [Tensor]) -> Result<&'a [usize]> {
    parts
        .first()
        .map(Tensor::shape)
        .ok_or_else(|| TensorError::value(op, "needs at least one tensor"))
}

/// NumPy `concatenate`: joins tensors along an existing axis; every other dim must match.
/// The result has the parts' promoted dtype.
pub fn concat(parts: &[Tensor], axis: i64) -> Result<Tensor> {
    let first = first_shape("concat", parts)?;
    if first.is_empty() {
        return Err(TensorError::shape(
            "concat",
            "0-d tensors cannot be concatenated (use stack)",
        ));
    }
    let a = normalize_axis("concat", axis, first.len())?;
    let mut shape = first.to_vec();
    shape[a] = 0;
    for (i, p) in parts.iter().enumerate() {
        let s = p.shape();
        let matches = s.len() == first.len()
            && s.iter()
                .zip(first)
                .enumerate()
                .all(|(d, (x, y))| d == a || x == y);
        if !matches {
            return Err(TensorError::shape(
                "concat",
                format!(
                    "tensor {i} has shape {} but tensor 0 has shape {}; all dimensions except axis {a} must match",
                    shape_str(s),
                    shape_str(first)
                ),
            ));
        }
        shape[a] = shape[a].checked_add(s[a]).ok_or_else(|| {
            TensorError::shape(
                "concat",
                format!("the joined axis {a} is longer than can be counted"),
            )
        })?;
    }
    join("concat", parts, a, &shape)
}

/// NumPy `stack`: joins tensors of one shape along a new axis.
pub fn stack(parts: &[Tensor], axis: i64) -> Result<Tensor> {
    let first = first_shape("stack", parts)?;
    if let Some((i, p)) = parts.iter().enumerate().find(|(_, p)| p.shape() != first) {
        return Err(TensorError::shape(
            "stack",
            format!(
                "tensor {i} has shape {} but tensor 0 has shape {}; stacked tensors must have one shape",
                shape_str(p.shape()),
                shape_str(first)
            ),
        ));
    }
    let a = normalize_axis("stack", axis, first.len() + 1)?;
    let rows = parts
        .iter()
        .map(|p| p.unsqueeze(a as i64))
        .collect::<Result<Vec<_>>>()?;
    let mut shape = first.to_vec();
    shape.insert(a, parts.len());
    join("stack", &rows, a, &shape)
}

/// How `split` cuts an axis.
#[derive(Clone, Debug, PartialEq)]
pub enum Sections {
    /// This many equal parts (the axis must divide evenly).
    Count(i64),
    /// Cut before each of these indices (Python slice bounds: negative counts from the
    /// end, out-of-range clamps).
    At(Vec<i64>),
}

/// NumPy `split`: views of consecutive parts of `x` along `axis`.
pub fn split(x: &Tensor, how: &Sections, axis: i64) -> Result<Vec<Tensor>> {
    let a = normalize_axis("split", axis, x.ndim())?;
    let size = x.shape()[a] as i64;
    let bounds: Vec<(Option<i64>, Option<i64>)> = match how {
        Sections::Count(n) if *n <= 0 => {
            return Err(TensorError::value(
                "split",
                format!("the number of sections must be positive, got {n}"),
            ))
        }
        Sections::Count(n) if size % n != 0 => {
            return Err(TensorError::value(
                "split",
                format!("axis {a} of size {size} does not divide into {n} equal sections"),
            ))
        }
        Sections::Count(n) => {
            let len = size / n;
            let mut b = Vec::new();
            b.try_reserve_exact(*n as usize)
                .map_err(|_| TensorError::value("split", format!("cannot make {n} sections")))?;
            b.extend((0..*n).map(|k| (Some(k * len), Some((k + 1) * len))));
            b
        }
        Sections::At(cuts) => {
            let starts = std::iter::once(None).chain(cuts.iter().copied().map(Some));
            let stops = cuts.iter().copied().map(Some).chain(std::iter::once(None));
            starts.zip(stops).collect()
        }
    };
    bounds
        .into_iter()
        .map(|(start, stop)| {
            x.slice(
                a as i64,
                SliceSpec {
                    start,
                    stop,
                    step: 1,
                },
            )
        })
        .collect()
}

/// NumPy `where(cond, a, b)`: `a` where `cond` is nonzero, else `b`, all three broadcast.
pub fn where_(cond: &Tensor, a: Operand, b: Operand) -> Result<Tensor> {
    let shape = broadcast_shapes("where", a.shape(), b.shape())?;
    let shape = broadcast_shapes("where", cond.shape(), &shape)?;
    crate::dispatch!(Operand::promote(a, b), T => {
        let mut out = output_buffer("where", &shape, T::default())?;
        let values = |x: Operand| -> Result<Vec<T>> {
            Ok(match x {
                Operand::Tensor(t) => t.broadcast_to(&shape)?.to_vec::<T>(),
                Operand::Scalar(s) => vec![scalar_as::<T>(s); out.len()],
            })
        };
        let (xa, xb) = (values(a)?, values(b)?);
        let c = cond.broadcast_to(&shape)?.to_vec::<bool>();
        for (((o, c), x), y) in out.iter_mut().zip(c).zip(xa).zip(xb) {
            *o = if c { x } else { y };
        }
        Tensor::from_vec(out, &shape)
    })
}

/// NumPy `unique`: the sorted distinct values of the flattened tensor; NaNs collapse
/// into one, placed last (NumPy 2's `equal_nan=True`).
pub fn unique(x: &Tensor) -> Result<Tensor> {
    Ok(unique_all(x)?.values)
}

/// The distinct values of a tensor with where each element went and how many there are.
pub struct Unique {
    /// The sorted distinct values (NaNs collapsed into one, last).
    pub values: Tensor,
    /// For each element of `x`, the i64 index of its value in `values`, shaped like `x`.
    pub inverse: Tensor,
    /// How often each value occurs (i64).
    pub counts: Tensor,
}

/// NumPy `unique(x, return_inverse=True, return_counts=True)` of the flattened tensor,
/// the inverse shaped like `x` (NumPy 2).
pub fn unique_all(x: &Tensor) -> Result<Unique> {
    let op = "unique";
    let n = x.numel();
    budget::check_items(op, "the sorting index", n, std::mem::size_of::<usize>())?;
    let mut inverse = output_buffer(op, &[n], 0i64)?;
    crate::dispatch!(x.dtype(), T => {
        let v = x.to_vec::<T>();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&p, &q| {
            v[p].partial_cmp(&v[q])
                .unwrap_or_else(|| is_nan(v[p]).cmp(&is_nan(v[q])))
        });
        let (mut values, mut counts): (Vec<T>, Vec<i64>) = (Vec::new(), Vec::new());
        for &i in &order {
            let x = v[i];
            let same = values.last().is_some_and(|&p: &T| p == x || (is_nan(p) && is_nan(x)));
            if !same {
                values.push(x);
                counts.push(0);
            }
            if let Some(c) = counts.last_mut() {
                *c += 1;
            }
            // A count of distinct values fits in i64: they index memory.
            inverse[i] = values.len() as i64 - 1;
        }
        let len = values.len();
        Ok(Unique {
            values: Tensor::from_vec(values, &[len])?,
            inverse: Tensor::from_vec(inverse, x.shape())?,
            counts: Tensor::from_vec(counts, &[len])?,
        })
    })
}

/// NumPy `count_nonzero` (i64): over all elements or the given axes.
pub fn count_nonzero(x: &Tensor, axes: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    for &a in axes.unwrap_or_default() {
        normalize_axis("count_nonzero", a, x.ndim())?;
    }
    // A bool sum is an i64 count.
    reduce(ReduceOp::Sum, &x.to_dtype(DType::Bool), axes, keepdim)
}

/// Sets every element of `t` to `value` (cast like `astype`), in place when `t`'s
/// storage is not shared.
pub fn fill_inplace(t: &mut Tensor, value: Scalar) -> Result<()> {
    t.make_writable();
    let v = crate::dispatch!(t.dtype(), T => Tensor::scalar(scalar_as::<T>(value)));
    let region = t.layout().clone();
    t.assign(&region, &v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};

    fn t(v: &[f64], shape: &[usize], dtype: DType) -> Tensor {
        tensor(v, shape, dtype)
    }

    #[test]
    fn concat_promotes_and_reads_every_view() {
        let a = t(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3], DType::I32);
        let b = t(&[6.5, 7.5], &[2, 1], DType::F32);
        for va in views(&a) {
            let c = concat(&[va, b.clone()], -1).unwrap();
            assert_eq!(c.dtype(), DType::F32);
            assert_eq!(c.shape(), &[2, 4]);
            assert_eq!(values(&c), vec![0.0, 1.0, 2.0, 6.5, 3.0, 4.0, 5.0, 7.5]);
        }
        let e = concat(&[a.clone(), b.transpose(0, 1).unwrap()], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "concat: tensor 1 has shape [1, 2] but tensor 0 has shape [2, 3]; all dimensions except axis 0 must match"
        );
        assert!(concat(&[], 0).is_err());
        assert!(concat(&[Tensor::scalar(1i64)], 0).is_err());
        assert!(concat(&[a], 2).is_err());
        let long = Tensor::zeros(DType::U8, &[0, usize::MAX]).unwrap();
        let e = concat(&[long.clone(), long], 1).unwrap_err();
        assert_eq!(
            e.to_string(),
            "concat: the joined axis 1 is longer than can be counted"
        );
    }

    #[test]
    fn stack_adds_an_axis() {
        let a = t(&[1.0, 2.0], &[2], DType::I64);
        let b = t(&[3.0, 4.0], &[2], DType::I64);
        let s = stack(&[a.clone(), b.clone()], -1).unwrap();
        assert_eq!(s.shape(), &[2, 2]);
        assert_eq!(values(&s), vec![1.0, 3.0, 2.0, 4.0]);
        let z = stack(&[Tensor::scalar(1i64), Tensor::scalar(2.5f64)], 0).unwrap();
        assert_eq!((z.dtype(), values(&z)), (DType::F64, vec![1.0, 2.5]));
        assert!(stack(&[a, t(&[1.0], &[1], DType::I64)], 0).is_err());
        assert!(stack(&[b], 2).is_err());
    }

    #[test]
    fn split_equal_and_at_indices() {
        let x = t(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[6], DType::F32);
        let parts = split(&x, &Sections::Count(3), 0).unwrap();
        assert_eq!(
            parts.iter().map(values).collect::<Vec<_>>(),
            vec![vec![0.0, 1.0], vec![2.0, 3.0], vec![4.0, 5.0]]
        );
        assert!(!parts[1].owns_data());
        assert!(split(&x, &Sections::Count(4), 0).is_err());
        assert!(split(&x, &Sections::Count(0), 0).is_err());
        let parts = split(&x, &Sections::At(vec![1, -2, 10]), 0).unwrap();
        let lens: Vec<usize> = parts.iter().map(|p| p.numel()).collect();
        assert_eq!(lens, vec![1, 3, 2, 0]);
        assert!(split(&Tensor::scalar(1i64), &Sections::Count(1), 0).is_err());
    }

    #[test]
    fn where_broadcasts_with_weak_scalars() {
        let c = Tensor::from_vec(vec![true, false, true], &[3]).unwrap();
        let a = t(&[1.0, 2.0], &[2, 1], DType::F16);
        let w = where_(
            &c,
            Operand::Tensor(&a),
            Operand::Scalar(Scalar::Float(-1.0)),
        )
        .unwrap();
        assert_eq!(w.dtype(), DType::F16);
        assert_eq!(w.shape(), &[2, 3]);
        assert_eq!(values(&w), vec![1.0, -1.0, 1.0, 2.0, -1.0, 2.0]);
        let i = t(&[5.0], &[1], DType::I32);
        let w = where_(&c, Operand::Tensor(&i), Operand::Scalar(Scalar::Float(0.5))).unwrap();
        assert_eq!(w.dtype(), DType::F32);
        assert!(where_(
            &c,
            Operand::Tensor(&t(&[1.0, 2.0], &[2], DType::F32)),
            Operand::Scalar(Scalar::Int(0))
        )
        .is_err());
    }

    #[test]
    fn unique_sorts_and_collapses_nan() {
        let x = t(
            &[3.0, f64::NAN, 1.0, 3.0, f64::NAN, -2.0],
            &[2, 3],
            DType::F32,
        );
        let u = unique(&x.transpose(0, 1).unwrap()).unwrap();
        let v = values(&u);
        assert_eq!(v[..3], [-2.0, 1.0, 3.0]);
        assert!(v.len() == 4 && v[3].is_nan());
        assert_eq!(unique(&Tensor::scalar(true)).unwrap().shape(), &[1]);
    }

    #[test]
    fn count_nonzero_counts_nan_as_nonzero() {
        let x = t(&[0.0, f64::NAN, -0.0, 2.0], &[2, 2], DType::F64);
        let c = count_nonzero(&x, None, false).unwrap();
        assert_eq!((c.dtype(), values(&c)), (DType::I64, vec![2.0]));
        let c = count_nonzero(&x, Some(&[-1]), true).unwrap();
        assert_eq!(
            (c.shape().to_vec(), values(&c)),
            (vec![2, 1], vec![1.0, 1.0])
        );
        let e = count_nonzero(&x, Some(&[2]), false).unwrap_err();
        assert_eq!(e.op(), "count_nonzero");
    }

    #[test]
    fn fill_writes_a_private_copy() {
        let a = t(&[1.0, 2.0, 3.0, 4.0], &[2, 2], DType::I16);
        let mut b = a.transpose(0, 1).unwrap();
        fill_inplace(&mut b, Scalar::Float(7.9)).unwrap();
        assert_eq!(values(&b), vec![7.0; 4]);
        assert_eq!(values(&a), vec![1.0, 2.0, 3.0, 4.0]);
    }
}

//! Matrix products with `numpy.matmul` and `numpy.dot` semantics.

use crate::kernels::linalg::{matmul_batch_new, matmul_new, Mat, MatMul};
use crate::ops::algebra::Algebra;
use crate::ops::{cannot_allocate, elems, BinaryOp};
use crate::tensor::iter::StridedIter;
use crate::tensor::shape::{broadcast_shapes, shape_str};
use crate::tensor::{budget, DType, Layout, Result, Tensor, TensorError};

const OP: &str = "matmul";

/// `a @ b` as `numpy.matmul`: a 1-D left operand is a row vector and a 1-D right
/// operand a column vector, and that axis is removed from the result; N-D operands are
/// stacks of matrices whose batch dims broadcast. Dtypes promote; bool is logical (an
/// or of ands); f16/bf16 accumulate in f32; an inner size of 0 gives zeros.
pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let plan = Plan::new(a.shape(), b.shape())?;
    let mut shape = plan.batch.clone();
    if a.ndim() > 1 {
        shape.push(plan.m);
    }
    if b.ndim() > 1 {
        shape.push(plan.n);
    }
    let dtype = DType::promote(a.dtype(), b.dtype());
    crate::dispatch!(dtype, T => batched::<T>(a, b, &plan, &shape))
}

/// `numpy.dot(a, b)`: with a 0-d operand, a product (`a * b`); otherwise the sum over
/// the last axis of `a` and the second-to-last of `b` (its only axis when 1-D), so
/// the result has shape `a.shape[:-1] + b.shape[:-2] + b.shape[-1:]`. For 1-D and
/// 2-D operands this is the inner product and the matrix product. Dtypes as `matmul`.
pub fn dot<T: Algebra>(a: &T, b: &T) -> std::result::Result<T, T::Error> {
    let (sa, sb) = (a.dims(), b.dims());
    if sa.is_empty() || sb.is_empty() {
        return T::combine(BinaryOp::Mul, a, b);
    }
    let (a_axis, b_axis) = (sa.len() - 1, sb.len().saturating_sub(2));
    let (k, kb) = (sa[a_axis], sb[b_axis]);
    if k != kb {
        let msg = format!(
            "shapes {} and {} not aligned: {k} (dim {a_axis}) != {kb} (dim {b_axis})",
            shape_str(sa),
            shape_str(sb)
        );
        return Err(TensorError::shape("dot", msg).into());
    }
    if sb.len() == 1 {
        // numpy.matmul sums over the same axes here.
        return T::matrix_product(a, b);
    }
    // One matrix product: a as [rows, k] times b's summed axis moved first, [k, cols].
    let rows: usize = sa[..a_axis].iter().product();
    let b_rest: Vec<i64> = (0..sb.len())
        .filter(|&d| d != b_axis)
        .map(|d| d as i64)
        .collect();
    let cols: usize = b_rest.iter().map(|&d| sb[d as usize]).product();
    let order: Vec<i64> = std::iter::once(b_axis as i64).chain(b_rest).collect();
    let shape: Vec<i64> = sa[..a_axis]
        .iter()
        .chain(&sb[..b_axis])
        .chain(&sb[b_axis + 1..])
        .map(|&d| d as i64)
        .collect();
    let a2 = a.reshape_to(&[rows as i64, k as i64])?;
    let b2 = b.permute_to(&order)?.reshape_to(&[k as i64, cols as i64])?;
    T::matrix_product(&a2, &b2)?.reshape_to(&shape)
}

/// The sizes of one product: `batch` stacks of (m × k) @ (k × n), where each operand
/// has its own batch dims that broadcast to `batch`.
struct Plan {
    b_batch: Vec<usize>,
    batch: Vec<usize>,
    m: usize,
    k: usize,
    n: usize,
}

impl Plan {
    fn new(a: &[usize], b: &[usize]) -> Result<Plan> {
        let zero_d = || TensorError::shape(OP, "0-d operands are not allowed (use *)");
        // 1-D operands: a row vector on the left, a column vector on the right.
        let (a_batch, m, k) = match a {
            [] => return Err(zero_d()),
            [k] => (&[][..], 1, *k),
            [batch @ .., m, k] => (batch, *m, *k),
        };
        let (b_batch, k2, n) = match b {
            [] => return Err(zero_d()),
            [k] => (&[][..], *k, 1),
            [batch @ .., k, n] => (batch, *k, *n),
        };
        if k != k2 {
            let msg = format!(
                "inner dimensions do not match: {} @ {} ({k} != {k2})",
                shape_str(a),
                shape_str(b)
            );
            return Err(TensorError::shape(OP, msg));
        }
        let batch = broadcast_shapes(OP, a_batch, b_batch).map_err(|_| TensorError::Broadcast {
            op: OP.to_string(),
            lhs: a.to_vec(),
            rhs: b.to_vec(),
        })?;
        Ok(Plan {
            b_batch: b_batch.to_vec(),
            batch,
            m,
            k,
            n,
        })
    }
}

/// One product, or one per batch index, on the operands' own buffers: the matrices are
/// strided views (transposes, slices, reversed and broadcast dims pass straight to the
/// kernel), so only a dtype conversion copies. When the right operand has no batch dims
/// and the left one's batch dims are evenly spaced rows (a contiguous [..., m, k], or
/// any view whose batch dims merge with its rows), the whole stack is one product.
fn batched<T: MatMul>(a: &Tensor, b: &Tensor, plan: &Plan, shape: &[usize]) -> Result<Tensor> {
    let (a, b) = (a.to_dtype(T::DTYPE), b.to_dtype(T::DTYPE));
    let (a_data, b_data) = (elems::<T>(OP, &a)?, elems::<T>(OP, &b)?);
    let len = budget::check(OP, shape, T::DTYPE)?;
    if len == 0 {
        return Tensor::from_vec(Vec::<T>::new(), shape);
    }
    // The result, written once by the kernel (`None`: the system refused the memory).
    let result = |data: Option<Vec<T>>| {
        Tensor::from_vec(data.ok_or_else(|| cannot_allocate(OP, len))?, shape)
    };
    let (ga, gb) = (Stack::left(&a, plan), Stack::right(&b, plan));
    if let (true, Some(row_stride)) = (plan.b_batch.is_empty(), merged_rows(&a)) {
        let rows = len / plan.n;
        let am = view(
            a_data,
            a.layout().offset,
            (rows, plan.k),
            (row_stride, ga.strides.1),
        )?;
        let bm = view(b_data, b.layout().offset, gb.dims, gb.strides)?;
        return result(matmul_new(am, bm));
    }
    let a_starts = StridedIter::new(&ga.batch.broadcast_to(&plan.batch)?);
    let b_starts = StridedIter::new(&gb.batch.broadcast_to(&plan.batch)?);
    let pairs = a_starts
        .zip(b_starts)
        .map(|(oa, ob)| {
            Ok((
                view(a_data, oa, ga.dims, ga.strides)?,
                view(b_data, ob, gb.dims, gb.strides)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    result(matmul_batch_new(&pairs))
}

/// One operand as a stack of matrices: the batch dims' layout (offsets of each
/// matrix's first element) and one matrix's sizes and strides.
struct Stack {
    batch: Layout,
    dims: (usize, usize),
    strides: (isize, isize),
}

impl Stack {
    /// The left operand; a 1-D one is a single row.
    fn left(t: &Tensor, plan: &Plan) -> Stack {
        Stack::split(t, (plan.m, plan.k), |s| (0, s))
    }

    /// The right operand; a 1-D one is a single column.
    fn right(t: &Tensor, plan: &Plan) -> Stack {
        Stack::split(t, (plan.k, plan.n), |s| (s, 0))
    }

    fn split(t: &Tensor, dims: (usize, usize), vector: fn(isize) -> (isize, isize)) -> Stack {
        let (shape, strides) = (t.shape(), t.strides());
        let (nb, strides_2d) = match strides {
            [s] => (0, vector(*s)),
            [.., r, c] => (strides.len() - 2, (*r, *c)),
            [] => (0, (0, 0)),
        };
        Stack {
            batch: Layout {
                shape: shape[..nb].to_vec(),
                strides: strides[..nb].to_vec(),
                offset: t.layout().offset,
            },
            dims,
            strides: strides_2d,
        }
    }
}

/// The stride between consecutive rows of an N-D (N ≥ 2) operand read as one matrix
/// of all its rows (batch dims and rows merged), when they are evenly spaced.
fn merged_rows(t: &Tensor) -> Option<isize> {
    let n = t.ndim().checked_sub(1).filter(|&n| n > 0)?;
    let dims = t.shape()[..n].iter().zip(&t.strides()[..n]).rev();
    let mut row: Option<(isize, isize)> = None; // (row stride, stride the next dim needs)
    for (&size, &stride) in dims.filter(|(&size, _)| size != 1) {
        row = match row {
            None => Some((stride, stride * size as isize)),
            Some((r, next)) if stride == next => Some((r, stride * size as isize)),
            Some(_) => return None,
        };
    }
    Some(row.map_or(0, |(r, _)| r))
}

/// A matrix view of an operand's buffer. Layouts of tensors are always inside their
/// storage, so the error is unreachable from scripts.
fn view<T: Copy>(
    data: &[T],
    offset: usize,
    dims: (usize, usize),
    strides: (isize, isize),
) -> Result<Mat<'_, T>> {
    Mat::new(data, offset, dims, strides)
        .ok_or_else(|| TensorError::shape(OP, "internal error: a view outside its storage"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_tensor, tensor, values, views};
    use DType::*;

    /// numpy.matmul written out: promote 1-D operands, broadcast the batch dims by
    /// index arithmetic, triple loop, then drop the added axes.
    fn reference(a: &Tensor, b: &Tensor) -> (Vec<usize>, Vec<f64>) {
        let mut sa = a.shape().to_vec();
        let mut sb = b.shape().to_vec();
        if sa.len() == 1 {
            sa.insert(0, 1);
        }
        if sb.len() == 1 {
            sb.push(1);
        }
        let rank = sa.len().max(sb.len());
        while sa.len() < rank {
            sa.insert(0, 1);
        }
        while sb.len() < rank {
            sb.insert(0, 1);
        }
        let (m, k, n) = (sa[rank - 2], sa[rank - 1], sb[rank - 1]);
        let batch: Vec<usize> = (0..rank - 2)
            .map(|i| if sa[i] == 1 { sb[i] } else { sa[i] })
            .collect();
        let nb: usize = batch.iter().product();
        let (av, bv) = (values(a), values(b));
        let mut out = vec![];
        for lin in 0..nb {
            let mut idx = vec![0; batch.len()];
            let mut rest = lin;
            for d in (0..batch.len()).rev() {
                idx[d] = rest % batch[d];
                rest /= batch[d];
            }
            let start = |s: &[usize]| {
                let i = (0..batch.len())
                    .fold(0, |acc, d| acc * s[d] + if s[d] == 1 { 0 } else { idx[d] });
                i * s[rank - 2] * s[rank - 1]
            };
            let (oa, ob) = (start(&sa), start(&sb));
            for i in 0..m {
                for j in 0..n {
                    let dot = (0..k)
                        .map(|p| av[oa + i * k + p] * bv[ob + p * n + j])
                        .sum::<f64>();
                    out.push(dot);
                }
            }
        }
        let mut shape = batch;
        if a.ndim() > 1 {
            shape.push(m);
        }
        if b.ndim() > 1 {
            shape.push(n);
        }
        (shape, out)
    }

    fn ramp(shape: &[usize], dtype: DType, seed: usize) -> Tensor {
        let n: usize = shape.iter().product();
        let vals: Vec<f64> = (0..n).map(|i| ((i * 7 + seed) % 9) as f64 - 4.0).collect();
        tensor(&vals, shape, dtype)
    }

    fn check(a: &Tensor, b: &Tensor) {
        let what = format!(
            "{} {:?} @ {} {:?}",
            a.dtype(),
            a.shape(),
            b.dtype(),
            b.shape()
        );
        let (shape, want) = reference(a, b);
        let dtype = DType::promote(a.dtype(), b.dtype());
        assert_tensor(&matmul(a, b).unwrap(), dtype, &shape, &want, &what);
    }

    const FORMS: [(&[usize], &[usize], &[usize]); 13] = [
        (&[4], &[4], &[]),
        (&[3], &[3, 5], &[5]),
        (&[2, 3], &[3], &[2]),
        (&[2, 3], &[3, 4], &[2, 4]),
        (&[1, 1], &[1, 1], &[1, 1]),
        (&[2, 3, 4], &[4, 5], &[2, 3, 5]),
        (&[3, 4], &[2, 4, 5], &[2, 3, 5]),
        (&[2, 1, 3, 4], &[5, 4, 6], &[2, 5, 3, 6]),
        (&[4], &[2, 4, 3], &[2, 3]),
        (&[2, 3, 4], &[4], &[2, 3]),
        (&[2, 0], &[0, 3], &[2, 3]),
        (&[0, 3], &[3, 2], &[0, 2]),
        (&[0, 2, 3], &[3, 1], &[0, 2, 1]),
    ];

    #[test]
    fn every_numpy_form_matches_the_triple_loop() {
        for (sa, sb, want) in FORMS {
            let (a, b) = (ramp(sa, F64, 1), ramp(sb, F64, 4));
            assert_eq!(matmul(&a, &b).unwrap().shape(), want, "{sa:?} @ {sb:?}");
            check(&a, &b);
        }
    }

    #[test]
    fn every_dtype_and_promotion() {
        for da in DType::ALL {
            for db in [Bool, U8, I32, F16, BF16, F32] {
                check(&ramp(&[2, 3, 4], da, 0), &ramp(&[4, 2], db, 5));
            }
        }
        assert_eq!(
            matmul(&ramp(&[2], I32, 0), &ramp(&[2], F16, 0))
                .unwrap()
                .dtype(),
            F16
        );
        assert_eq!(
            matmul(&ramp(&[2], F16, 0), &ramp(&[2], BF16, 0))
                .unwrap()
                .dtype(),
            F32
        );
    }

    #[test]
    fn bool_is_logical_and_halves_accumulate_in_f32() {
        let a = tensor(&[1.0, 0.0, 0.0, 0.0], &[2, 2], Bool);
        let b = tensor(&[1.0, 1.0, 1.0, 0.0], &[2, 2], Bool);
        assert_tensor(
            &matmul(&a, &b).unwrap(),
            Bool,
            &[2, 2],
            &[1.0, 1.0, 0.0, 0.0],
            "bool",
        );
        for dtype in [F16, BF16] {
            let mut v = vec![1.0; 16];
            v[0] = 256.0;
            let x = tensor(&v, &[16], dtype);
            let ones = tensor(&[1.0; 16], &[16], dtype);
            // An f16/bf16 running sum would lose the ones; f32 keeps them, then rounds once.
            assert_tensor(&matmul(&x, &ones).unwrap(), dtype, &[], &[271.0], "halves");
        }
        let w = tensor(&[100.0, 100.0], &[2], I8);
        assert_eq!(
            matmul(&w, &w).unwrap().to_vec::<i8>(),
            vec![(20000i32 as i8)]
        );
    }

    #[test]
    fn views_multiply_like_their_contiguous_copies() {
        let a = ramp(&[2, 3, 4], F32, 2);
        let b = ramp(&[4, 5], F32, 3);
        let want = values(&matmul(&a, &b).unwrap());
        for va in views(&a) {
            for vb in views(&b) {
                assert_eq!(values(&matmul(&va, &vb).unwrap()), want);
            }
        }
        let row = ramp(&[4], F32, 1).broadcast_to(&[3, 4]).unwrap();
        check(&row, &b);
        check(&a, &ramp(&[5], F32, 0).broadcast_to(&[4, 5]).unwrap());
    }

    #[test]
    fn errors_name_both_shapes() {
        let s = tensor(&[2.0], &[], F32);
        let m = ramp(&[2, 2], F32, 0);
        for (x, y) in [(&s, &m), (&m, &s)] {
            let err = matmul(x, y).unwrap_err();
            assert_eq!(
                err.to_string(),
                "matmul: 0-d operands are not allowed (use *)"
            );
        }
        let err = matmul(&ramp(&[2, 3], F32, 0), &ramp(&[4, 5], F32, 0)).unwrap_err();
        let msg = "inner dimensions do not match: [2, 3] @ [4, 5] (3 != 4)";
        assert_eq!(err, TensorError::shape("matmul", msg));
        assert!(matmul(&ramp(&[3], F32, 0), &ramp(&[2], F32, 0)).is_err());
        let err = matmul(&ramp(&[2, 2, 3], F32, 0), &ramp(&[3, 3, 1], F32, 0)).unwrap_err();
        let want = TensorError::Broadcast {
            op: "matmul".into(),
            lhs: vec![2, 2, 3],
            rhs: vec![3, 3, 1],
        };
        assert_eq!(err, want);
    }

    /// numpy.dot written out: the sum over a's last axis and b's second-to-last.
    fn reference_dot(a: &Tensor, b: &Tensor) -> (Vec<usize>, Vec<f64>) {
        let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
        let k = sa[sa.len() - 1];
        let b_axis = sb.len().saturating_sub(2);
        let a_rows: usize = sa[..sa.len() - 1].iter().product();
        let b_outer: usize = sb[..b_axis].iter().product();
        let n = if sb.len() == 1 { 1 } else { sb[sb.len() - 1] };
        let (av, bv) = (values(a), values(b));
        let mut out = vec![];
        for i in 0..a_rows {
            for o in 0..b_outer {
                for j in 0..n {
                    let sum = (0..k)
                        .map(|p| av[i * k + p] * bv[(o * k + p) * n + j])
                        .sum::<f64>();
                    out.push(sum);
                }
            }
        }
        let mut shape = sa[..sa.len() - 1].to_vec();
        shape.extend_from_slice(&sb[..b_axis]);
        if sb.len() > 1 {
            shape.push(n);
        }
        (shape, out)
    }

    #[test]
    fn dot_follows_numpy() {
        let forms: [(&[usize], &[usize]); 9] = [
            (&[4], &[4]),
            (&[2, 3], &[3, 4]),
            (&[2, 3, 4], &[4]),
            (&[4], &[2, 4, 3]),
            (&[2, 3, 4], &[5, 4, 2]),
            (&[3], &[2, 3, 3, 2]),
            (&[2, 1, 3], &[3, 0]),
            (&[0, 3], &[2, 3, 4]),
            (&[2, 0], &[3, 0, 2]),
        ];
        for (sa, sb) in forms {
            let (a, b) = (ramp(sa, F64, 1), ramp(sb, F64, 4));
            let (shape, want) = reference_dot(&a, &b);
            let inputs = if a.numel() > 0 { views(&a) } else { vec![a] };
            for va in inputs {
                let got = dot(&va, &b).unwrap();
                assert_tensor(&got, F64, &shape, &want, &format!("{sa:?} . {sb:?}"));
            }
        }
        let (a, b) = (ramp(&[2, 3, 4], I32, 0), ramp(&[3, 4, 2], F16, 2));
        let (shape, want) = reference_dot(&a, &b);
        assert_tensor(&dot(&a, &b).unwrap(), F16, &shape, &want, "promotion");
        // A 0-d operand multiplies.
        let s = tensor(&[2.0], &[], I64);
        let m = ramp(&[2, 2], F32, 0);
        assert_tensor(
            &dot(&s, &m).unwrap(),
            F32,
            &[2, 2],
            &values(&m).iter().map(|v| v * 2.0).collect::<Vec<_>>(),
            "0-d",
        );
        let err = dot(&ramp(&[2, 3], F32, 0), &ramp(&[4, 2], F32, 0)).unwrap_err();
        let msg = "shapes [2, 3] and [4, 2] not aligned: 3 (dim 1) != 4 (dim 0)";
        assert_eq!(err, TensorError::shape("dot", msg));
    }
}

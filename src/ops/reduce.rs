//! Reductions over all elements or the given axes.

use super::elems;
use crate::kernels::arith::Arith;
use crate::kernels::reduce::{argmax, pairwise_sum, reduce_lanes};
use crate::tensor::shape::normalize_axis;
use crate::tensor::{Elem, Result, Tensor, TensorError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    Sum,
    Mean,
    Max,
    Min,
    /// Index (i64) of the first maximum; one axis or the flattened tensor.
    ArgMax,
}

impl ReduceOp {
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Mean => "mean",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
        }
    }
}

/// `axes = None` reduces everything (a 0-d result unless `keepdim`); `Some(&[])`
/// reduces nothing (NumPy's `axis=()`). Axes may be negative but not repeat.
///
/// Dtypes: `sum` of bool/ints is i64 and of floats keeps the dtype (f16/bf16 accumulate
/// in f32); `mean` is the float result dtype (NaN when empty); `max`/`min` keep the
/// dtype and propagate NaN; `argmax` is i64. `max`, `min` and `argmax` of an empty lane
/// are errors.
pub fn reduce(op: ReduceOp, a: &Tensor, axes: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let name = op.name();
    if op == ReduceOp::ArgMax && axes.is_some_and(|axes| axes.len() != 1) {
        return Err(TensorError::value(
            name,
            "takes a single axis, or none to index the flattened tensor",
        ));
    }
    let reduced = reduced_axes(name, a.ndim(), axes)?;
    let shape: Vec<usize> = a
        .shape()
        .iter()
        .zip(&reduced)
        .filter_map(|(&d, &r)| match (r, keepdim) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    crate::dispatch!(a.dtype(), T => reduce_as::<T>(op, a, &reduced, &shape))
}

/// One flag per dim of the input: true for the dims to reduce.
fn reduced_axes(op: &str, ndim: usize, axes: Option<&[i64]>) -> Result<Vec<bool>> {
    let Some(axes) = axes else {
        return Ok(vec![true; ndim]);
    };
    let mut reduced = vec![false; ndim];
    for &axis in axes {
        let i = normalize_axis(op, axis, ndim)?;
        if std::mem::replace(&mut reduced[i], true) {
            return Err(TensorError::value(op, format!("axis {axis} is repeated")));
        }
    }
    Ok(reduced)
}

fn reduce_as<T: Arith>(
    op: ReduceOp,
    a: &Tensor,
    reduced: &[bool],
    shape: &[usize],
) -> Result<Tensor> {
    let name = op.name();
    let data = elems::<T>(name, a)?;
    let layout = a.layout();
    match op {
        ReduceOp::Sum => {
            let sums = reduce_lanes(data, layout, reduced, |xs| pairwise_sum(xs, T::to_acc));
            if T::DTYPE.is_float() {
                let rounded: Vec<T> = sums.into_iter().map(T::from_acc).collect();
                Tensor::from_vec(rounded, shape)
            } else {
                // Bool and integer sums are i64, the accumulator type.
                Tensor::from_vec(sums, shape)
            }
        }
        ReduceOp::Mean => {
            let mean = |xs: &[T]| pairwise_sum(xs, T::to_acc).to_f64() / xs.len() as f64;
            let means = reduce_lanes(data, layout, reduced, mean);
            Ok(Tensor::from_vec(means, shape)?.to_dtype(T::DTYPE.float_result()))
        }
        ReduceOp::Max => {
            let max = reduce_lanes(data, layout, reduced, |xs| {
                xs.iter().copied().reduce(T::maximum)
            });
            non_empty(name, max, shape)
        }
        ReduceOp::Min => {
            let min = reduce_lanes(data, layout, reduced, |xs| {
                xs.iter().copied().reduce(T::minimum)
            });
            non_empty(name, min, shape)
        }
        ReduceOp::ArgMax => {
            // A lane index fits in i64: lanes index memory.
            let index = reduce_lanes(data, layout, reduced, |xs| argmax(xs).map(|i| i as i64));
            non_empty(name, index, shape)
        }
    }
}

/// A tensor of per-lane results, or an error if a lane was empty (no identity).
fn non_empty<O: Elem>(op: &str, lanes: Vec<Option<O>>, shape: &[usize]) -> Result<Tensor> {
    let values: Option<Vec<O>> = lanes.into_iter().collect();
    let values = values.ok_or_else(|| {
        TensorError::value(op, format!("{op} of an empty tensor has no identity"))
    })?;
    Tensor::from_vec(values, shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_tensor, tensor, values, views};
    use crate::tensor::DType::{self, *};
    use ReduceOp::*;

    const ALL_OPS: [ReduceOp; 5] = [Sum, Mean, Max, Min, ArgMax];

    /// The lanes of `a` for the flagged axes, by index arithmetic on the logical order.
    fn reference_lanes(a: &Tensor, reduced: &[bool]) -> Vec<Vec<f64>> {
        let shape = a.shape();
        let kept = |i: usize| !reduced[i];
        let out_len: usize = (0..shape.len())
            .filter(|&i| kept(i))
            .map(|i| shape[i])
            .product();
        let mut lanes = vec![vec![]; out_len];
        for (lin, v) in values(a).into_iter().enumerate() {
            let mut idx = vec![0; shape.len()];
            let mut rest = lin;
            for k in (0..shape.len()).rev() {
                idx[k] = rest % shape[k];
                rest /= shape[k];
            }
            let out = (0..shape.len())
                .filter(|&i| kept(i))
                .fold(0, |acc, i| acc * shape[i] + idx[i]);
            lanes[out].push(v);
        }
        lanes
    }

    fn reference(op: ReduceOp, lane: &[f64]) -> f64 {
        let nan_first = lane.iter().position(|x| x.is_nan());
        match op {
            Sum => lane.iter().sum(),
            Mean => lane.iter().sum::<f64>() / lane.len() as f64,
            Max | Min if nan_first.is_some() => f64::NAN,
            Max => lane.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            Min => lane.iter().copied().fold(f64::INFINITY, f64::min),
            ArgMax => {
                let best = lane.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                nan_first.unwrap_or_else(|| lane.iter().position(|&x| x == best).unwrap()) as f64
            }
        }
    }

    fn result_dtype(op: ReduceOp, dtype: DType) -> DType {
        match op {
            Sum if !dtype.is_float() => I64,
            Mean => dtype.float_result(),
            ArgMax => I64,
            _ => dtype,
        }
    }

    /// Checks `reduce(op, a, axes, keepdim)` against the reference for the flagged axes.
    fn check(op: ReduceOp, a: &Tensor, axes: Option<&[i64]>, reduced: &[bool], keepdim: bool) {
        let what = format!(
            "{op:?} {} {:?} axes {axes:?} keepdim {keepdim}",
            a.dtype(),
            a.shape()
        );
        let got = reduce(op, a, axes, keepdim).unwrap();
        let want: Vec<f64> = reference_lanes(a, reduced)
            .iter()
            .map(|l| reference(op, l))
            .collect();
        let shape: Vec<usize> = a
            .shape()
            .iter()
            .zip(reduced)
            .filter(|(_, &r)| keepdim || !r)
            .map(|(&d, &r)| if r { 1 } else { d })
            .collect();
        assert_tensor(&got, result_dtype(op, a.dtype()), &shape, &want, &what);
    }

    /// Every subset of axes of a 3-D tensor, as a list with positive and negative axes.
    fn axis_sets() -> Vec<(Vec<i64>, Vec<bool>)> {
        (0..8u32)
            .flat_map(|mask| {
                let reduced: Vec<bool> = (0..3).map(|i| mask >> i & 1 == 1).collect();
                let pos: Vec<i64> = (0..3).filter(|&i| reduced[i as usize]).collect();
                let neg: Vec<i64> = pos.iter().rev().map(|a| a - 3).collect();
                [(pos, reduced.clone()), (neg, reduced)]
            })
            .collect()
    }

    #[test]
    fn every_op_dtype_and_axis_set_matches_the_reference() {
        let vals: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 4.5).collect();
        for dtype in DType::ALL {
            let a = tensor(&vals, &[2, 3, 4], dtype);
            for op in ALL_OPS {
                for keepdim in [false, true] {
                    check(op, &a, None, &[true; 3], keepdim);
                    for (axes, reduced) in axis_sets() {
                        if op != ArgMax || axes.len() == 1 {
                            check(op, &a, Some(&axes), &reduced, keepdim);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn views_reduce_like_their_contiguous_copies() {
        let vals: Vec<f64> = (0..24).map(|i| ((i * 5) % 13) as f64 * 0.5).collect();
        let a = tensor(&vals, &[2, 3, 4], F32);
        let mut inputs = views(&a);
        inputs.push(a.select(0, 1).unwrap().broadcast_to(&[2, 3, 4]).unwrap());
        inputs.push(
            tensor(&vals[..4], &[4], F32)
                .broadcast_to(&[2, 3, 4])
                .unwrap(),
        );
        for v in &inputs {
            for op in ALL_OPS {
                check(op, v, None, &[true; 3], false);
                for (axes, reduced) in axis_sets() {
                    if op != ArgMax || axes.len() == 1 {
                        check(op, v, Some(&axes), &reduced, true);
                    }
                }
            }
        }
    }

    #[test]
    fn zero_d_and_size_one_dims() {
        let s = tensor(&[2.5], &[], F64);
        for op in ALL_OPS {
            check(op, &s, None, &[], false);
            check(op, &s, None, &[], true);
        }
        assert!(matches!(
            reduce(Sum, &s, Some(&[0]), false),
            Err(TensorError::Axis { .. })
        ));
        let ones = tensor(&[7.0], &[1, 1, 1], I32);
        check(Sum, &ones, Some(&[1]), &[false, true, false], false);
        check(ArgMax, &ones, Some(&[-1]), &[false, false, true], true);
    }

    #[test]
    fn empty_axes_reduce_nothing() {
        let a = tensor(&[1.0, -2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3], I32);
        for op in [Sum, Mean, Max, Min] {
            check(op, &a, Some(&[]), &[false, false], false);
        }
        assert_eq!(reduce(Sum, &a, Some(&[]), false).unwrap().dtype(), I64);
        assert!(reduce(ArgMax, &a, Some(&[]), false).is_err());
    }

    #[test]
    fn empty_tensors() {
        let e = tensor(&[], &[0, 3], F32);
        assert_tensor(
            &reduce(Sum, &e, None, false).unwrap(),
            F32,
            &[],
            &[0.0],
            "sum",
        );
        assert_tensor(
            &reduce(Sum, &e, Some(&[0]), false).unwrap(),
            F32,
            &[3],
            &[0.0; 3],
            "sum0",
        );
        assert_tensor(
            &reduce(Mean, &e, None, false).unwrap(),
            F32,
            &[],
            &[f64::NAN],
            "mean",
        );
        let ei = tensor(&[], &[0], I64);
        assert_tensor(
            &reduce(Sum, &ei, None, false).unwrap(),
            I64,
            &[],
            &[0.0],
            "int sum",
        );
        for op in [Max, Min, ArgMax] {
            let err = reduce(op, &e, None, false).unwrap_err();
            let msg = format!("{} of an empty tensor has no identity", op.name());
            assert_eq!(err, TensorError::value(op.name(), msg));
            assert!(reduce(op, &e, Some(&[0]), false).is_err());
            // No lane to reduce: an empty result, not an error.
            let r = reduce(op, &e, Some(&[1]), true).unwrap();
            assert_eq!(r.shape(), &[0, 1]);
        }
    }

    #[test]
    fn nan_propagates_and_argmax_takes_the_first() {
        let nan = f64::NAN;
        for dtype in [F16, BF16, F32, F64] {
            let a = tensor(&[1.0, nan, 3.0, nan, 5.0, 5.0], &[2, 3], dtype);
            let max = reduce(Max, &a, Some(&[1]), false).unwrap();
            assert_tensor(&max, dtype, &[2], &[nan, nan], "max");
            assert_tensor(
                &reduce(Min, &a, Some(&[0]), false).unwrap(),
                dtype,
                &[3],
                &[nan, nan, 3.0],
                "min",
            );
            let am = reduce(ArgMax, &a, None, false).unwrap();
            assert_tensor(&am, I64, &[], &[1.0], "argmax flat");
            let am = reduce(ArgMax, &a, Some(&[0]), false).unwrap();
            assert_tensor(&am, I64, &[3], &[1.0, 0.0, 1.0], "argmax axis 0");
        }
        let ties = tensor(&[2.0, 7.0, 7.0, -1.0], &[4], I8);
        assert_tensor(
            &reduce(ArgMax, &ties, Some(&[-1]), false).unwrap(),
            I64,
            &[],
            &[1.0],
            "tie",
        );
    }

    #[test]
    fn sum_dtypes_and_accumulation() {
        let b = tensor(&[1.0, 0.0, 1.0, 1.0], &[4], Bool);
        assert_tensor(
            &reduce(Sum, &b, None, false).unwrap(),
            I64,
            &[],
            &[3.0],
            "bool sum",
        );
        let u = tensor(&[255.0; 100], &[100], U8);
        assert_tensor(
            &reduce(Sum, &u, None, false).unwrap(),
            I64,
            &[],
            &[25500.0],
            "u8 sum",
        );
        let big = Tensor::from_vec(vec![i64::MAX, 1], &[2]).unwrap();
        assert_eq!(
            reduce(Sum, &big, None, false).unwrap().to_vec::<i64>(),
            vec![i64::MIN]
        );
        // 4096 ones: an f16 running sum would stop at 2048.
        for dtype in [F16, BF16] {
            let ones = tensor(&[1.0; 4096], &[4096], dtype);
            assert_tensor(
                &reduce(Sum, &ones, None, false).unwrap(),
                dtype,
                &[],
                &[4096.0],
                "halves",
            );
            assert_tensor(
                &reduce(Mean, &ones, None, false).unwrap(),
                dtype,
                &[],
                &[1.0],
                "mean",
            );
        }
        // The pairwise tree, whatever the layout of the lane.
        let vals: Vec<f32> = (0..1000).map(|i| (i as f32 * 0.37).sin()).collect();
        let want = pairwise_sum(&vals, |x| x);
        let t = Tensor::from_vec(vals.clone(), &[1000]).unwrap();
        assert_eq!(
            reduce(Sum, &t, None, false).unwrap().to_vec::<f32>(),
            vec![want]
        );
        let col = t.reshape(&[1000, 1]).unwrap().transpose(0, 1).unwrap();
        assert_eq!(
            reduce(Sum, &col, Some(&[1]), false)
                .unwrap()
                .to_vec::<f32>(),
            vec![want]
        );
        let mean = reduce(Mean, &tensor(&[1.0, 2.0], &[2], I32), None, false).unwrap();
        assert_tensor(&mean, F32, &[], &[1.5], "int mean");
    }

    #[test]
    fn axis_errors() {
        let a = tensor(&[0.0; 6], &[2, 3], F32);
        assert!(matches!(
            reduce(Sum, &a, Some(&[2]), false),
            Err(TensorError::Axis { axis: 2, .. })
        ));
        assert!(matches!(
            reduce(Sum, &a, Some(&[-3]), false),
            Err(TensorError::Axis { .. })
        ));
        let dup = reduce(Sum, &a, Some(&[1, -1]), false).unwrap_err();
        assert_eq!(dup, TensorError::value("sum", "axis -1 is repeated"));
        assert!(reduce(ArgMax, &a, Some(&[0, 1]), false).is_err());
    }
}

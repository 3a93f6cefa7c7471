use super::*;
use crate::ops::testutil::{assert_close, assert_tensor, tensor, values, views};
use crate::tensor::DType::{self, *};
use ReduceOp::*;

/// Every op, `std` with `ddof = 1`, a second `var` with `ddof = 5` and a `nanvar` with
/// `ddof = 2`.
fn all_ops() -> Vec<ReduceOp> {
    let ops = ReduceOp::ALL.into_iter().map(|op| match op {
        Std { .. } => Std { ddof: 1 },
        op => op,
    });
    ops.chain([Var { ddof: 5 }, NanVar { ddof: 2 }]).collect()
}

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

/// The op on one lane of f64 values, written plainly (NaN handling included).
fn reference(op: ReduceOp, lane: &[f64]) -> f64 {
    let flag = |c: bool| if c { 1.0 } else { 0.0 };
    let nan_first = lane.iter().position(|x| x.is_nan());
    let kept: Vec<f64> = lane.iter().copied().filter(|x| !x.is_nan()).collect();
    let first_of = |xs: &[f64], best: f64| xs.iter().position(|&x| x == best).unwrap();
    let max = |xs: &[f64]| xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = |xs: &[f64]| xs.iter().copied().fold(f64::INFINITY, f64::min);
    let var = |ddof: i64| {
        let n = lane.len() as f64;
        let mean = lane.iter().sum::<f64>() / n;
        let ss: f64 = lane.iter().map(|x| (x - mean) * (x - mean)).sum();
        ss / (n - ddof as f64).max(0.0)
    };
    // Position in `lane` of the `k`-th element that is not NaN.
    let in_lane = |k: usize| {
        (0..lane.len())
            .filter(|&i| !lane[i].is_nan())
            .nth(k)
            .unwrap()
    };
    match op {
        Sum => lane.iter().sum(),
        Prod => lane.iter().product(),
        Mean => lane.iter().sum::<f64>() / lane.len() as f64,
        Var { ddof } => var(ddof),
        Std { ddof } => var(ddof).sqrt(),
        Max | Min if nan_first.is_some() => f64::NAN,
        Max => max(lane),
        Ptp if nan_first.is_some() => f64::NAN,
        Ptp => max(lane) - min(lane),
        Min => min(lane),
        ArgMax | ArgMin if nan_first.is_some() => nan_first.unwrap() as f64,
        ArgMax => first_of(lane, max(lane)) as f64,
        ArgMin => first_of(lane, min(lane)) as f64,
        NanSum => kept.iter().sum(),
        NanProd => kept.iter().product(),
        NanMean => kept.iter().sum::<f64>() / kept.len() as f64,
        NanMax | NanMin if kept.is_empty() => f64::NAN,
        NanMax => max(&kept),
        NanMin => min(&kept),
        NanArgMax => in_lane(first_of(&kept, max(&kept))) as f64,
        NanArgMin => in_lane(first_of(&kept, min(&kept))) as f64,
        NanVar { ddof } | NanStd { ddof } => {
            let n = kept.len() as f64;
            let mean = kept.iter().sum::<f64>() / n;
            let ss: f64 = kept.iter().map(|x| (x - mean) * (x - mean)).sum();
            let v = if n - (ddof as f64) > 0.0 {
                ss / (n - ddof as f64)
            } else {
                f64::NAN
            };
            if matches!(op, NanStd { .. }) {
                v.sqrt()
            } else {
                v
            }
        }
        LogSumExp if nan_first.is_some() => f64::NAN,
        LogSumExp if max(lane).is_infinite() => max(lane),
        LogSumExp => max(lane) + lane.iter().map(|x| (x - max(lane)).exp()).sum::<f64>().ln(),
        Any => flag(lane.iter().any(|&x| x != 0.0)),
        All => flag(lane.iter().all(|&x| x != 0.0)),
    }
}

fn result_dtype(op: ReduceOp, dtype: DType) -> DType {
    match op {
        Sum | Prod | NanSum | NanProd if dtype == U64 => U64,
        Sum | Prod | NanSum | NanProd if !dtype.is_float() => I64,
        Mean | NanMean | Var { .. } | Std { .. } | NanVar { .. } | NanStd { .. } | LogSumExp => {
            dtype.float_result()
        }
        ArgMax | ArgMin | NanArgMax | NanArgMin => I64,
        Any | All => Bool,
        _ => dtype,
    }
}

/// Products and the f64 statistics may differ from the plain reference in the
/// last bit of the result dtype; everything else is exact.
fn tolerance(op: ReduceOp, dtype: DType) -> f64 {
    let inexact = matches!(
        op,
        Prod | NanProd | Var { .. } | Std { .. } | NanVar { .. } | NanStd { .. } | LogSumExp
    );
    match result_dtype(op, dtype) {
        F16 if inexact => 1e-3,
        BF16 if inexact => 8e-3,
        F32 if inexact => 1e-6,
        F64 if inexact => 1e-14,
        _ => 0.0,
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
    let (dtype, rtol) = (result_dtype(op, a.dtype()), tolerance(op, a.dtype()));
    let shape: Vec<usize> = a
        .shape()
        .iter()
        .zip(reduced)
        .filter(|(_, &r)| keepdim || !r)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    assert_close(&got, dtype, &shape, &want, rtol, &what);
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
        // ptp of bool is an error (no subtraction), checked below.
        let ops = all_ops()
            .into_iter()
            .filter(|&op| op != Ptp || dtype != Bool);
        for op in ops {
            for keepdim in [false, true] {
                check(op, &a, None, &[true; 3], keepdim);
                for (axes, reduced) in axis_sets() {
                    if !op.is_arg() || axes.len() == 1 {
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
        for op in all_ops() {
            check(op, v, None, &[true; 3], false);
            for (axes, reduced) in axis_sets() {
                if !op.is_arg() || axes.len() == 1 {
                    check(op, v, Some(&axes), &reduced, true);
                }
            }
        }
    }
}

#[test]
fn zero_d_and_size_one_dims() {
    let s = tensor(&[2.5], &[], F64);
    for op in all_ops() {
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
    for op in all_ops().into_iter().filter(|op| !op.is_arg()) {
        check(op, &a, Some(&[]), &[false, false], false);
    }
    assert_eq!(reduce(Sum, &a, Some(&[]), false).unwrap().dtype(), I64);
    assert!(reduce(ArgMax, &a, Some(&[]), false).is_err());
}

#[test]
fn empty_tensors() {
    let e = tensor(&[], &[0, 3], F32);
    let nan = f64::NAN;
    let identities = [
        (Sum, 0.0),
        (Prod, 1.0),
        (Mean, nan),
        (Var { ddof: 0 }, nan),
        (Std { ddof: 0 }, nan),
        (NanSum, 0.0),
        (NanProd, 1.0),
        (NanMean, nan),
        (NanVar { ddof: 0 }, nan),
        (NanStd { ddof: 0 }, nan),
        (LogSumExp, f64::NEG_INFINITY),
        (Any, 0.0),
        (All, 1.0),
    ];
    for (op, value) in identities {
        let dtype = result_dtype(op, F32);
        let all = reduce(op, &e, None, false).unwrap();
        assert_tensor(&all, dtype, &[], &[value], op.name());
        let cols = reduce(op, &e, Some(&[0]), false).unwrap();
        assert_tensor(&cols, dtype, &[3], &[value; 3], op.name());
    }
    let ei = tensor(&[], &[0], I64);
    assert_tensor(
        &reduce(Sum, &ei, None, false).unwrap(),
        I64,
        &[],
        &[0.0],
        "int sum",
    );
    for op in [
        Max, Min, Ptp, ArgMax, ArgMin, NanMax, NanMin, NanArgMax, NanArgMin,
    ] {
        let err = reduce(op, &e, None, false).unwrap_err();
        let msg = "zero-size reduction has no identity";
        assert_eq!(err, TensorError::value(op.name(), msg));
        assert!(err
            .to_string()
            .starts_with(&format!("{}: zero-size", op.name())));
        assert!(reduce(op, &e, Some(&[0]), false).is_err());
        // No lane to reduce: an empty result, not an error.
        let r = reduce(op, &e, Some(&[1]), true).unwrap();
        assert_eq!(r.shape(), &[0, 1]);
    }
}

#[test]
fn ptp_of_bool_is_an_error() {
    let b = tensor(&[1.0, 0.0], &[2], Bool);
    let err = reduce(Ptp, &b, None, false).unwrap_err();
    assert!(
        err.to_string().starts_with("ptp: bool has no subtraction"),
        "{err}"
    );
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
    assert!(reduce(NanArgMin, &a, Some(&[]), false).is_err());
}

#[test]
fn the_documented_examples() {
    let nan = f64::NAN;
    let x = tensor(&[1.0, 5.0, 3.0, 4.0, nan, 6.0], &[2, 3], F32);
    let r = |op, axis: Option<&[i64]>| reduce(op, &x, axis, false).unwrap();
    assert_tensor(&r(NanSum, None), F32, &[], &[19.0], "nansum");
    assert_tensor(&r(NanMean, Some(&[1])), F32, &[2], &[3.0, 5.0], "nanmean");
    assert_tensor(
        &r(NanMax, Some(&[0])),
        F32,
        &[3],
        &[4.0, 5.0, 6.0],
        "nanmax",
    );
    assert_tensor(
        &r(NanArgMax, Some(&[1])),
        I64,
        &[2],
        &[1.0, 2.0],
        "nanargmax",
    );
    let y = tensor(&[1.0, 5.0, 3.0, 4.0, 2.0, 6.0], &[2, 3], I64);
    let r = |op, axis: Option<&[i64]>| reduce(op, &y, axis, false).unwrap();
    assert_tensor(
        &r(ArgMin, Some(&[0])),
        I64,
        &[3],
        &[0.0, 1.0, 0.0],
        "argmin",
    );
    assert_tensor(&r(ArgMax, None), I64, &[], &[5.0], "argmax");
    assert_tensor(&r(Prod, None), I64, &[], &[720.0], "prod");
}

#[test]
fn nan_forms_skip_nan() {
    let nan = f64::NAN;
    for dtype in [F16, BF16, F32, F64] {
        let a = tensor(
            &[nan, 2.0, nan, 3.0, -1.0, 4.0, nan, nan, nan],
            &[3, 3],
            dtype,
        );
        for op in [NanSum, NanProd, NanMean, NanMax, NanMin] {
            for axis in [0, 1] {
                let mut reduced = [false; 2];
                reduced[axis as usize] = true;
                check(op, &a, Some(&[axis]), &reduced, false);
            }
        }
        check(NanArgMax, &a, Some(&[0]), &[true, false], false);
        check(NanArgMin, &a, Some(&[0]), &[true, false], true);
        // The last row is all NaN: no index to give (NumPy raises too).
        let err = reduce(NanArgMax, &a, Some(&[1]), false).unwrap_err();
        assert_eq!(
            err,
            TensorError::value("nanargmax", "all-NaN slice encountered")
        );
        assert!(reduce(NanArgMin, &a, None, false).is_ok());
        let min = reduce(NanMin, &a, Some(&[1]), false).unwrap();
        assert_tensor(&min, dtype, &[3], &[2.0, -1.0, nan], "all-NaN row");
    }
    // Without NaN the nan forms are the plain ones; ints have none.
    let i = tensor(&[3.0, -2.0, 7.0], &[3], I16);
    for (nan_op, op) in [
        (NanSum, Sum),
        (NanProd, Prod),
        (NanMean, Mean),
        (NanArgMin, ArgMin),
    ] {
        let (x, y) = (reduce(nan_op, &i, None, false), reduce(op, &i, None, false));
        assert_tensor(
            &x.unwrap(),
            y.as_ref().unwrap().dtype(),
            &[],
            &values(&y.unwrap()),
            "ints",
        );
    }
}

#[test]
fn var_std_ddof_and_any_all() {
    let a = tensor(&[1.0, 2.0, 3.0, 4.0], &[4], I32);
    let v = |ddof| reduce(Var { ddof }, &a, None, false).unwrap();
    assert_tensor(&v(0), F32, &[], &[1.25], "var");
    assert_tensor(&v(1), F32, &[], &[5.0 / 3.0], "var ddof 1");
    assert_tensor(&v(4), F32, &[], &[f64::INFINITY], "ddof = n");
    assert_tensor(&v(9), F32, &[], &[f64::INFINITY], "ddof > n");
    let s = reduce(Std { ddof: 0 }, &a, None, false).unwrap();
    assert_tensor(&s, F32, &[], &[1.25f64.sqrt()], "std");
    // f16 values far from 0: the deviations are taken in f64, so nothing cancels.
    let h = tensor(&[1000.0, 1001.0, 1002.0], &[3], F16);
    let hv = reduce(Var { ddof: 0 }, &h, None, false).unwrap();
    assert_tensor(&hv, F16, &[], &[2.0 / 3.0], "f16 var");
    let m = tensor(&[0.0, f64::NAN, 0.0, 0.0], &[2, 2], F64);
    let any = reduce(Any, &m, Some(&[1]), false).unwrap();
    assert_tensor(&any, Bool, &[2], &[1.0, 0.0], "any: NaN is true");
    let all = reduce(All, &m, Some(&[0]), true).unwrap();
    assert_tensor(&all, Bool, &[1, 2], &[0.0, 0.0], "all");
}

#[test]
fn products_wrap_and_accumulate() {
    let b = tensor(&[1.0, 1.0, 0.0], &[3], Bool);
    assert_tensor(
        &reduce(Prod, &b, None, false).unwrap(),
        I64,
        &[],
        &[0.0],
        "bool",
    );
    let big = tensor(&[1e10, 1e10], &[2], I64);
    let p = reduce(Prod, &big, None, false).unwrap().to_vec::<i64>();
    assert_eq!(p, vec![10_000_000_000i64.wrapping_mul(10_000_000_000)]);
    // f16: the running product lives in f32, so an intermediate overflow of f16
    // does not stick.
    let h = tensor(&[300.0, 300.0, 1.0 / 300.0], &[3], F16);
    let hp = reduce(Prod, &h, None, false).unwrap();
    assert_close(&hp, F16, &[], &[300.0], 1e-3, "f16 prod");
}

/// The norm of one lane written out plainly.
fn reference_norm(lane: &[f64], ord: f64) -> f64 {
    let abs: Vec<f64> = lane.iter().map(|x| x.abs()).collect();
    match ord {
        f64::INFINITY => abs.iter().copied().fold(0.0, f64::max),
        f64::NEG_INFINITY => abs.iter().copied().fold(f64::INFINITY, f64::min),
        0.0 => abs.iter().filter(|&&x| x != 0.0).count() as f64,
        p => abs.iter().map(|x| x.powf(p)).sum::<f64>().powf(1.0 / p),
    }
}

#[test]
fn norms_of_every_order_and_axis_set() {
    let vals: Vec<f64> = (0..24).map(|i| ((i * 5) % 9) as f64 - 4.0).collect();
    for dtype in [I32, F16, F32, F64] {
        let a = tensor(&vals, &[2, 3, 4], dtype);
        let out = dtype.float_result();
        let rtol = if out == F16 { 1e-3 } else { 1e-6 };
        for ord in [
            2.0,
            1.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            3.0,
            0.5,
            -1.5,
        ] {
            for (axes, reduced) in axis_sets().into_iter().filter(|(ax, _)| !ax.is_empty()) {
                let got = norm(&a, ord, Some(&axes), false).unwrap();
                let lanes = reference_lanes(&a, &reduced);
                let want: Vec<f64> = lanes.iter().map(|l| reference_norm(l, ord)).collect();
                let what = format!("norm {ord} {axes:?} {dtype}");
                assert_close(&got, out, got.shape(), &want, rtol, &what);
            }
        }
    }
    // Frobenius: the 2-norm of all elements, from any layout.
    let m = tensor(&[3.0, 0.0, 0.0, 4.0], &[2, 2], F32);
    let t = m.transpose(0, 1).unwrap();
    assert_tensor(
        &norm(&t, 2.0, None, true).unwrap(),
        F32,
        &[1, 1],
        &[5.0],
        "fro",
    );
    let e = tensor(&[], &[2, 0], F64);
    for ord in [2.0, 1.0, f64::INFINITY, 0.0, 3.0] {
        let n = norm(&e, ord, Some(&[1]), false).unwrap();
        assert_tensor(&n, F64, &[2], &[0.0, 0.0], "empty");
    }
    assert!(norm(&e, f64::NEG_INFINITY, Some(&[1]), false).is_err());
    let nan = tensor(&[1.0, f64::NAN], &[2], F32);
    assert!(values(&norm(&nan, 2.0, None, false).unwrap())[0].is_nan());
    assert!(values(&norm(&nan, f64::INFINITY, None, false).unwrap())[0].is_nan());
}

#[test]
fn normalize_divides_by_the_clamped_norm() {
    let a = tensor(&[3.0, 4.0, 0.0, 0.0], &[2, 2], F32);
    let got = normalize(&a, 2.0, &[-1], 1e-12).unwrap();
    assert_tensor(&got, F32, &[2, 2], &[0.6, 0.8, 0.0, 0.0], "rows");
    let got = normalize(&a, 2.0, &[0], 1e-12).unwrap();
    assert_tensor(&got, F32, &[2, 2], &[1.0, 1.0, 0.0, 0.0], "cols");
    let i = tensor(&[3.0, 4.0], &[2], I64);
    let got = normalize(&i, 2.0, &[0], 10.0).unwrap();
    assert_tensor(&got, F32, &[2], &[0.3, 0.4], "eps wins");
    let err = normalize(&i, 2.0, &[1], 1e-12).unwrap_err();
    assert!(matches!(err, TensorError::Axis { ref op, .. } if op == "normalize"));
}

#[test]
fn cumsum_along_axes_and_flattened() {
    let vals: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 4.5).collect();
    for dtype in DType::ALL {
        let a = tensor(&vals, &[2, 3, 4], dtype);
        let input = values(&a);
        // Integers sum in i64 (torch), u64 in u64 (NumPy).
        let out = if dtype.is_float() || dtype == U64 {
            dtype
        } else {
            I64
        };
        let flat = cumsum(&a, None).unwrap();
        let mut running = 0.0;
        let want: Vec<f64> = input
            .iter()
            .map(|x| {
                running += x;
                running
            })
            .collect();
        assert_tensor(&flat, out, &[24], &want, &format!("flat {dtype}"));
        for v in views(&a) {
            for axis in [0i64, 1, -1] {
                let got = cumsum(&v, Some(axis)).unwrap();
                let step = [12, 4, 1][axis.rem_euclid(3) as usize];
                let len = [2, 3, 4][axis.rem_euclid(3) as usize];
                let want: Vec<f64> = (0..24)
                    .map(|lin| {
                        let k = lin / step % len;
                        (0..=k).map(|j| input[lin - (k - j) * step]).sum()
                    })
                    .collect();
                assert_tensor(
                    &got,
                    out,
                    &[2, 3, 4],
                    &want,
                    &format!("{dtype} axis {axis}"),
                );
            }
        }
    }
    let z = tensor(&[2.5], &[], F32);
    assert_tensor(&cumsum(&z, None).unwrap(), F32, &[1], &[2.5], "0-d");
    assert!(cumsum(&z, Some(0)).is_err());
    let e = tensor(&[], &[0, 2], Bool);
    assert_eq!(cumsum(&e, Some(1)).unwrap().shape(), &[0, 2]);
}

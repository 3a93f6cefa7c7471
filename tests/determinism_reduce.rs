//! Reductions and pooling give the same bits on 1, 2 and 3 threads, on inputs big enough
//! to be split (the pairwise tree's top levels, column tiles and blocks of lanes all run
//! in parallel), for contiguous tensors and views; and every layout of a sum uses the
//! tree of its lane, so an axis-0 sum equals the axis-1 sum of the transpose bitwise.

use tsr::ops::pool::{adaptive_avg_pool2d, avg_pool2d, global_pool2d, max_pool2d, PoolParams};
use tsr::ops::{reduce, ReduceOp};
mod common;

use common::with_threads;
use tsr::tensor::{DType, SliceSpec, Tensor};

/// Deterministic values of mixed magnitude, so that any change of summation order
/// changes the rounding; every 97th is NaN when `holes`.
fn values(n: usize, holes: bool) -> Vec<f32> {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 40) as f32 / (1u64 << 24) as f32;
            if holes && i % 97 == 5 {
                f32::NAN
            } else {
                (u - 0.5) * 10f32.powi((i % 7) as i32 - 3)
            }
        })
        .collect()
}

/// The result's bits (NaN payloads included), whatever its dtype.
fn bits(t: &Tensor) -> Vec<u64> {
    match t.dtype() {
        DType::F32 => t
            .to_vec::<f32>()
            .iter()
            .map(|x| u64::from(x.to_bits()))
            .collect(),
        DType::F64 => t.to_vec::<f64>().iter().map(|x| x.to_bits()).collect(),
        DType::I64 => t.to_vec::<i64>().iter().map(|&x| x as u64).collect(),
        other => panic!("unexpected dtype {other}"),
    }
}

fn step(step: i64) -> SliceSpec {
    SliceSpec {
        start: None,
        stop: None,
        step,
    }
}

/// A [rows, cols] f32 matrix and f64 copy, with views: transposed, every other row
/// reversed, and a 3-d reshape.
fn inputs(rows: usize, cols: usize, holes: bool) -> Vec<(String, Tensor)> {
    let m = Tensor::from_vec(values(rows * cols, holes), &[rows, cols]).unwrap();
    let r = rows as i64;
    vec![
        ("f32".into(), m.clone()),
        ("f64".into(), m.to_dtype(DType::F64)),
        ("transposed".into(), m.transpose(0, 1).unwrap()),
        ("strided".into(), m.slice(0, step(-2)).unwrap()),
        ("3-d".into(), m.reshape(&[2, r / 2, cols as i64]).unwrap()),
    ]
}

#[test]
fn reductions_are_thread_count_independent() {
    use ReduceOp::*;
    let ops = [
        Sum,
        Mean,
        Var { ddof: 0 },
        Std { ddof: 1 },
        Max,
        ArgMax,
        NanSum,
        NanMean,
        NanMax,
        Min,
    ];
    for holes in [false, true] {
        for (name, t) in inputs(600, 700, holes) {
            let last = t.ndim() as i64 - 1;
            for op in ops {
                let axis_sets: [Option<&[i64]>; 3] = [None, Some(&[0]), Some(&[last])];
                for axes in axis_sets {
                    let run = || bits(&reduce(op, &t, axes, false).unwrap());
                    let one = with_threads(1, run);
                    for n in [2, 3] {
                        let what = format!("{} {axes:?} of {name}, holes {holes}", op.name());
                        assert!(with_threads(n, run) == one, "{what}: {n} threads differ");
                    }
                }
            }
        }
    }
}

#[test]
fn every_layout_of_a_sum_uses_the_lane_tree() {
    for (rows, cols) in [(1000, 37), (300, 700), (129, 1)] {
        let m = Tensor::from_vec(values(rows * cols, false), &[rows, cols]).unwrap();
        let t = m.transpose(0, 1).unwrap().contiguous();
        for op in [ReduceOp::Sum, ReduceOp::Mean, ReduceOp::NanSum] {
            let down = reduce(op, &m, Some(&[0]), false).unwrap();
            let along = reduce(op, &t, Some(&[1]), false).unwrap();
            assert_eq!(
                bits(&down),
                bits(&along),
                "{} of [{rows}, {cols}]",
                op.name()
            );
            // A transposed view summed along its rows reads the same columns.
            let view = reduce(op, &t.transpose(0, 1).unwrap(), Some(&[0]), false).unwrap();
            assert_eq!(bits(&view), bits(&along));
        }
    }
    // Leading axes of a 3-d tensor: the lane of (i, j) runs over axes 0 and 1.
    let x = Tensor::from_vec(values(6 * 50 * 40, false), &[6, 50, 40]).unwrap();
    let lanes = x
        .reshape(&[300, 40])
        .unwrap()
        .transpose(0, 1)
        .unwrap()
        .contiguous();
    let down = reduce(ReduceOp::Sum, &x, Some(&[0, 1]), false).unwrap();
    let along = reduce(ReduceOp::Sum, &lanes, Some(&[1]), false).unwrap();
    assert_eq!(bits(&down), bits(&along));
}

/// One pooling call on the fixed input.
type Pool<'a> = Box<dyn Fn() -> Tensor + Sync + 'a>;

#[test]
fn pooling_is_thread_count_independent() {
    let x = Tensor::from_vec(values(4 * 16 * 30 * 30, true), &[4, 16, 30, 30]).unwrap();
    let p = PoolParams {
        kernel_size: vec![3, 3],
        stride: vec![2, 2],
        padding: vec![1, 1],
        dilation: vec![1, 1],
        ceil_mode: false,
    };
    let pools: [(&str, Pool); 5] = [
        ("max", Box::new(|| max_pool2d(&x, &p).unwrap())),
        ("avg", Box::new(|| avg_pool2d(&x, &p, true).unwrap())),
        (
            "adaptive",
            Box::new(|| adaptive_avg_pool2d(&x, [Some(7), Some(5)]).unwrap()),
        ),
        (
            "global avg",
            Box::new(|| global_pool2d(&x, ReduceOp::Mean).unwrap()),
        ),
        (
            "global max",
            Box::new(|| global_pool2d(&x, ReduceOp::Max).unwrap()),
        ),
    ];
    for (name, pool) in &pools {
        let one = with_threads(1, || bits(&pool()));
        for n in [2, 3] {
            assert!(
                with_threads(n, || bits(&pool())) == one,
                "{name} on {n} threads"
            );
        }
    }
}

/// Sorting, selection and order statistics give the same bits on 1 and 2 threads, on
/// inputs split across parallel tasks, contiguous and transposed.
#[test]
fn sort_and_selection_are_thread_count_independent() {
    use tsr::ops::sort;
    let m = Tensor::from_vec(values(300 * 700, true), &[300, 700]).unwrap();
    let t = m.transpose(0, 1).unwrap();
    let run = || {
        let mut out = Vec::new();
        for x in [&m, &t] {
            out.push(sort::sort(x, Some(-1), false, false).unwrap());
            out.push(sort::sort(x, Some(0), true, true).unwrap());
            out.push(sort::argsort(x, Some(-1), false).unwrap());
            out.push(sort::argsort(x, None, true).unwrap());
            let (v, i) = sort::topk(x, 7, -1, true, true).unwrap();
            out.extend([v, i]);
            let (v, i) = sort::kthvalue(x, 9, 0).unwrap();
            out.extend([v, i]);
            out.push(sort::median(x, Some(1), true).unwrap());
            let q = Tensor::from_vec(vec![0.1f64, 0.5, 0.99], &[3]).unwrap();
            let linear = sort::Method::Linear;
            out.push(sort::quantile("quantile", x, &q, Some(0), linear, 1.0, true).unwrap());
        }
        out.iter().map(bits).collect::<Vec<_>>()
    };
    assert_eq!(with_threads(1, run), with_threads(2, run));
}

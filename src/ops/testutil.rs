//! Test helpers shared by the ops tests: tensors from f64 values, the same tensor in
//! several memory layouts, and value comparison after rounding to the result dtype.
//! (A test-only module: declared under #[cfg(test)] in ops/mod.rs.)

use crate::tensor::{DType, SliceSpec, Tensor};

/// A contiguous tensor of `dtype` holding `vals` cast like `astype`. The wider
/// unsigned dtypes take the magnitudes: a negative value would wrap to a number the
/// f64 references cannot follow (u8 keeps the wrap-around cases).
pub fn tensor(vals: &[f64], shape: &[usize], dtype: DType) -> Tensor {
    if dtype.is_unsigned() && dtype != DType::U8 {
        let magnitudes: Vec<f64> = vals.iter().map(|v| v.abs()).collect();
        return cast(&magnitudes, shape, dtype);
    }
    cast(vals, shape, dtype)
}

/// `vals` rounded to `dtype` as `astype` does.
fn cast(vals: &[f64], shape: &[usize], dtype: DType) -> Tensor {
    Tensor::from_vec(vals.to_vec(), shape)
        .unwrap()
        .to_dtype(dtype)
}

/// Values in logical order as f64.
pub fn values(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>()
}

/// `t` as non-contiguous views with the same shape and values: every axis reversed
/// (negative strides), column-major (transposed strides), and every other element of
/// a buffer twice as long (gaps).
pub fn views(t: &Tensor) -> Vec<Tensor> {
    let mut out = vec![t.contiguous()];
    if t.ndim() == 0 {
        return out;
    }
    let dtype = t.dtype();
    let vals = values(t);
    let rev = SliceSpec {
        start: None,
        stop: None,
        step: -1,
    };
    let reversed: Vec<f64> = vals.iter().rev().copied().collect();
    let mut flipped = tensor(&reversed, t.shape(), dtype);
    for axis in 0..t.ndim() as i64 {
        flipped = flipped.slice(axis, rev).unwrap();
    }
    out.push(flipped);
    let order: Vec<i64> = (0..t.ndim() as i64).rev().collect();
    out.push(
        t.permute(&order)
            .unwrap()
            .contiguous()
            .permute(&order)
            .unwrap(),
    );
    let mut wide_shape = t.shape().to_vec();
    *wide_shape.last_mut().unwrap() *= 2;
    let mut wide = vec![99.0; vals.len() * 2];
    for (i, &v) in vals.iter().enumerate() {
        wide[2 * i] = v;
    }
    let every_other = SliceSpec {
        start: None,
        stop: None,
        step: 2,
    };
    out.push(
        tensor(&wide, &wide_shape, dtype)
            .slice(-1, every_other)
            .unwrap(),
    );
    for v in &out {
        assert_eq!(values(v), vals);
        assert_eq!(v.shape(), t.shape());
    }
    out
}

/// Asserts `got` has `dtype`, `shape` and the values `want` rounded to `dtype`
/// (NaN equals NaN; the sign of zero is not compared).
pub fn assert_tensor(got: &Tensor, dtype: DType, shape: &[usize], want: &[f64], what: &str) {
    assert_eq!(got.dtype(), dtype, "dtype of {what}");
    assert_eq!(got.shape(), shape, "shape of {what}");
    let want = values(&cast(want, shape, dtype));
    let got = values(got);
    let same = got.len() == want.len()
        && got
            .iter()
            .zip(&want)
            .all(|(g, w)| g == w || (g.is_nan() && w.is_nan()));
    assert!(same, "{what}: got {got:?}, want {want:?}");
}

/// Like `assert_tensor`, with a relative tolerance `rtol` after rounding to `dtype`.
pub fn assert_close(
    got: &Tensor,
    dtype: DType,
    shape: &[usize],
    want: &[f64],
    rtol: f64,
    what: &str,
) {
    assert_eq!(got.dtype(), dtype, "dtype of {what}");
    assert_eq!(got.shape(), shape, "shape of {what}");
    let want = values(&cast(want, shape, dtype));
    let got = values(got);
    let close =
        |g: f64, w: f64| g == w || (g.is_nan() && w.is_nan()) || (g - w).abs() <= rtol * w.abs();
    let same = got.len() == want.len() && got.iter().zip(&want).all(|(&g, &w)| close(g, w));
    assert!(same, "{what}: got {got:?}, want {want:?}");
}

//! Tensor creation: filled, ranges, identity.

use super::{output_buffer, scalar_as};
use crate::kernels::math::Arith;
use crate::tensor::{DType, Elem, Result, Scalar, Tensor, TensorError};

/// A tensor of `shape` filled with `value` cast to `dtype` (as `astype` casts).
pub fn full(op: &str, shape: &[usize], value: Scalar, dtype: DType) -> Result<Tensor> {
    crate::dispatch!(dtype, T => {
        Tensor::from_vec(output_buffer(op, shape, scalar_as::<T>(value))?, shape)
    })
}

/// `numpy.arange(start, stop, step)` in `dtype`: `ceil((stop - start) / step)` values
/// (none when that is not positive); the step may be negative but not zero.
pub fn arange(start: f64, stop: f64, step: f64, dtype: DType) -> Result<Tensor> {
    if step == 0.0 {
        return Err(TensorError::value("arange", "step must not be zero"));
    }
    let len = ((stop - start) / step).ceil();
    if !len.is_finite() {
        return Err(TensorError::value(
            "arange",
            format!("cannot make a range from {start} to {stop} with step {step}"),
        ));
    }
    // 2^64 and more cannot be a length: say how many values were asked for instead
    // of a saturated count.
    if len >= usize::MAX as f64 {
        return Err(TensorError::value(
            "arange",
            format!("a range from {start} to {stop} with step {step} would have {len:e} values"),
        ));
    }
    let len = len.max(0.0) as usize;
    crate::dispatch!(dtype, T => arange_as::<T>(start, step, len))
}

/// NumPy's fill rule: the first two values are `start` and `start + step` cast to `T`;
/// value `i` is `first + i * (second - first)`, computed in `T`'s accumulator type
/// (so an integer range steps by the cast step, and f16 computes in f32).
fn arange_as<T: Arith>(start: f64, step: f64, len: usize) -> Result<Tensor> {
    let first = T::from_f64(start);
    let second = T::from_f64(start + step);
    let delta = second.to_acc().sub(first.to_acc());
    let mut out = output_buffer("arange", &[len], first)?;
    for (i, v) in out.iter_mut().enumerate().skip(1) {
        *v = match i {
            1 => second,
            // A position fits in i64: it indexes memory.
            _ => T::from_acc(first.to_acc().add(T::Acc::from_i64(i as i64).mul(delta))),
        };
    }
    Tensor::from_vec(out, &[len])
}

/// `numpy.linspace(start, stop, num)` (endpoint included) in `dtype`: computed in f64
/// as `start + i * step` with the last value exactly `stop`, floored for integer
/// dtypes, then cast. `num = 1` gives `[start]`.
pub fn linspace(start: f64, stop: f64, num: usize, dtype: DType) -> Result<Tensor> {
    let delta = stop - start;
    let div = num.saturating_sub(1) as f64;
    let step = delta / div;
    let mut y = output_buffer("linspace", &[num], 0.0f64)?;
    for (i, v) in y.iter_mut().enumerate() {
        let i = i as f64;
        *v = start
            + if num <= 1 {
                i * delta
            } else if step == 0.0 {
                // The step underflowed: scale the fraction instead (NumPy does the same).
                i / div * delta
            } else {
                i * step
            };
    }
    if num > 1 {
        // `y` has `num` elements.
        y[num - 1] = stop;
    }
    if dtype.is_int() {
        y.iter_mut().for_each(|v| *v = v.floor());
    }
    Ok(Tensor::from_vec(y, &[num])?.to_dtype(dtype))
}

/// `numpy.logspace(start, stop, num, base)`: `base ** linspace(start, stop, num)`,
/// computed in f64, then converted to `dtype` (an integer dtype truncates, as
/// NumPy's astype does).
pub fn logspace(start: f64, stop: f64, num: usize, base: f64, dtype: DType) -> Result<Tensor> {
    let exponents = linspace(start, stop, num, DType::F64)?;
    let powers: Vec<f64> = exponents
        .to_vec::<f64>()
        .into_iter()
        .map(|e| base.powf(e))
        .collect();
    Ok(Tensor::from_vec(powers, &[num])?.to_dtype(dtype))
}

/// An `n × m` identity-like matrix with ones on diagonal `k` (above the main diagonal
/// for `k > 0`, below for `k < 0`).
pub fn eye(n: usize, m: usize, k: i64, dtype: DType) -> Result<Tensor> {
    crate::dispatch!(dtype, T => eye_as::<T>(n, m, k))
}

fn eye_as<T: Elem>(n: usize, m: usize, k: i64) -> Result<Tensor> {
    let mut out = output_buffer("eye", &[n, m], T::default())?;
    if m > 0 {
        for (i, row) in out.chunks_exact_mut(m).enumerate() {
            // Row i has its one at column i + k, if that column exists.
            let col = i64::try_from(i).ok().and_then(|i| i.checked_add(k));
            if let Some(c) = col.and_then(|c| usize::try_from(c).ok()).filter(|&c| c < m) {
                row[c] = T::from_i64(1);
            }
        }
    }
    Tensor::from_vec(out, &[n, m])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_tensor, values};
    use DType::*;

    #[test]
    fn full_casts_like_astype() {
        for dtype in DType::ALL {
            let t = full("full", &[2, 3], Scalar::Float(2.75), dtype).unwrap();
            let want = if dtype.is_float() {
                2.75
            } else if dtype == Bool {
                1.0
            } else {
                2.0
            };
            assert_tensor(&t, dtype, &[2, 3], &[want; 6], "full 2.75");
        }
        assert_eq!(
            full("full", &[2], Scalar::Int(-1), U8)
                .unwrap()
                .to_vec::<u8>(),
            vec![255, 255]
        );
        assert_eq!(
            full("full", &[1], Scalar::Int(300), I8)
                .unwrap()
                .to_vec::<i8>(),
            vec![44]
        );
        assert_tensor(
            &full("full", &[], Scalar::Bool(true), F32).unwrap(),
            F32,
            &[],
            &[1.0],
            "0-d",
        );
        assert_eq!(
            full("full", &[0, 3], Scalar::Int(1), I64).unwrap().shape(),
            &[0, 3]
        );
        assert!(full("full", &[usize::MAX, 2], Scalar::Int(0), U8).is_err());
        // Counts that fit usize but not memory are an error, not an abort.
        assert!(full("full", &[1 << 61], Scalar::Int(0), F64).is_err());
    }

    #[test]
    fn arange_follows_numpy() {
        assert_tensor(
            &arange(0.0, 5.0, 1.0, I64).unwrap(),
            I64,
            &[5],
            &[0.0, 1.0, 2.0, 3.0, 4.0],
            "0..5",
        );
        assert_tensor(
            &arange(5.0, 0.0, -2.0, I32).unwrap(),
            I32,
            &[3],
            &[5.0, 3.0, 1.0],
            "down",
        );
        assert_tensor(
            &arange(0.0, 1.0, 0.3, F64).unwrap(),
            F64,
            &[4],
            &[0.0, 0.3, 0.6, 0.8999999999999999],
            "0.3",
        );
        assert_eq!(arange(1.0, 0.0, 1.0, F32).unwrap().shape(), &[0]);
        assert_eq!(arange(2.0, 2.0, -1.0, F32).unwrap().shape(), &[0]);
        // An integer range steps by the cast step: [int(0.5), int(2.0), ...].
        assert_tensor(
            &arange(0.5, 5.0, 1.5, I64).unwrap(),
            I64,
            &[3],
            &[0.0, 2.0, 4.0],
            "int",
        );
        // Values are first + i * delta in the dtype's own arithmetic.
        let r = arange(0.0, 1.0, 0.1, F64).unwrap().to_vec::<f64>();
        assert_eq!(r.len(), 10);
        assert_eq!(r[3], 3.0 * 0.1);
        let r = arange(0.0, 1.0, 0.1, F32).unwrap().to_vec::<f32>();
        assert_eq!(r[7], 7.0 * 0.1f32);
        let h = arange(0.0, 3.0, 0.5, F16).unwrap();
        assert_tensor(&h, F16, &[6], &[0.0, 0.5, 1.0, 1.5, 2.0, 2.5], "f16");
    }

    #[test]
    fn arange_rejects_bad_arguments() {
        assert_eq!(
            arange(0.0, 1.0, 0.0, F32).unwrap_err(),
            TensorError::value("arange", "step must not be zero")
        );
        assert!(arange(f64::NAN, 1.0, 1.0, F32).is_err());
        assert!(arange(0.0, f64::INFINITY, 1.0, F32).is_err());
        assert!(arange(0.0, 1e300, 1.0, F32).is_err());
    }

    #[test]
    fn linspace_follows_numpy() {
        let t = linspace(0.0, 1.0, 5, F64).unwrap();
        assert_tensor(&t, F64, &[5], &[0.0, 0.25, 0.5, 0.75, 1.0], "0..1");
        let t = linspace(0.1, 0.7, 7, F64).unwrap().to_vec::<f64>();
        let step = (0.7 - 0.1) / 6.0;
        for (i, &v) in t.iter().enumerate().take(6) {
            assert_eq!(v, 0.1 + i as f64 * step);
        }
        assert_eq!(t[6], 0.7);
        assert_tensor(
            &linspace(3.0, 9.0, 1, F32).unwrap(),
            F32,
            &[1],
            &[3.0],
            "num 1",
        );
        assert_eq!(linspace(3.0, 9.0, 0, F32).unwrap().shape(), &[0]);
        assert_tensor(
            &linspace(2.0, 2.0, 3, F32).unwrap(),
            F32,
            &[3],
            &[2.0; 3],
            "flat",
        );
        let floored = linspace(-1.0, 1.0, 5, I64).unwrap();
        assert_tensor(
            &floored,
            I64,
            &[5],
            &[-1.0, -1.0, 0.0, 0.0, 1.0],
            "int floors",
        );
        assert_tensor(
            &linspace(1.0, -1.0, 3, F16).unwrap(),
            F16,
            &[3],
            &[1.0, 0.0, -1.0],
            "down",
        );
        let tiny = linspace(0.0, 1e-320, 3, F64).unwrap();
        assert_eq!(values(&tiny)[2], 1e-320);
    }

    #[test]
    fn eye_places_the_diagonal() {
        let e = eye(3, 3, 0, F32).unwrap();
        assert_tensor(
            &e,
            F32,
            &[3, 3],
            &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            "eye",
        );
        let e = eye(2, 4, 1, I32).unwrap();
        assert_tensor(
            &e,
            I32,
            &[2, 4],
            &[0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
            "k=1",
        );
        let e = eye(3, 2, -1, Bool).unwrap();
        assert_tensor(&e, Bool, &[3, 2], &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], "k=-1");
        for k in [5, -5, i64::MAX, i64::MIN] {
            assert_tensor(
                &eye(3, 3, k, U8).unwrap(),
                U8,
                &[3, 3],
                &[0.0; 9],
                "off the matrix",
            );
        }
        assert_eq!(eye(0, 3, 0, F64).unwrap().shape(), &[0, 3]);
        assert_eq!(eye(3, 0, 0, F64).unwrap().shape(), &[3, 0]);
    }
}

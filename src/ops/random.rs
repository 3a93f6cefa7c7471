//! Random tensors: check the arguments, allocate, and fill from a generator state.
//! The stream itself (what each value is made of) is defined in `tensor::random`.

use super::output_buffer;
use crate::kernels::elementwise::random::fill as random_fill;
use crate::tensor::random::{self, RandomState};
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// Checks that `dtype` can hold the values of `op` (rand, randn).
pub fn float_dtype(op: &str, dtype: DType) -> Result<()> {
    if dtype.is_float() {
        Ok(())
    } else {
        Err(not_float(op, dtype))
    }
}

fn not_float(op: &str, dtype: DType) -> TensorError {
    TensorError::dtype(
        op,
        dtype,
        "`dtype` must be a float dtype: f16, bf16, f32 or f64",
    )
}

/// Checks randint's arguments and returns the width `high - low` of the range.
pub fn int_range(low: i64, high: i64, dtype: DType) -> Result<u64> {
    if !dtype.is_int() {
        return Err(TensorError::dtype(
            "randint",
            dtype,
            "`dtype` must be an integer dtype: u8, i8, i16, i32 or i64",
        ));
    }
    if low >= high {
        return Err(TensorError::value(
            "randint",
            format!("`low` must be less than `high`, got low={low}, high={high}"),
        ));
    }
    let fits = |v: i64| crate::dispatch!(dtype, T => T::from_i64(v).to_i64() == v);
    // high > low >= i64::MIN, so high - 1 does not overflow.
    if !fits(low) || !fits(high - 1) {
        return Err(TensorError::value(
            "randint",
            format!("the range [{low}, {high}) of `low` and `high` does not fit in {dtype}"),
        ));
    }
    // The true width is in 1..2^64, which the wrapped difference holds exactly.
    Ok(high.wrapping_sub(low) as u64)
}

/// Uniform values in [0, 1) of a float `dtype`.
pub fn rand(rng: &mut RandomState, shape: &[usize], dtype: DType) -> Result<Tensor> {
    match dtype {
        DType::F64 => generate(rng, "rand", shape, |w| {
            [
                random::uniform_f64(w[0], w[1]),
                random::uniform_f64(w[2], w[3]),
            ]
        }),
        DType::F32 => generate(rng, "rand", shape, |w| w.map(random::uniform_f32)),
        DType::F16 => generate(rng, "rand", shape, |w| w.map(random::uniform_f16)),
        DType::BF16 => generate(rng, "rand", shape, |w| w.map(random::uniform_bf16)),
        _ => Err(not_float("rand", dtype)),
    }
}

/// Standard normal values of a float `dtype`, computed in f64 and rounded once.
pub fn randn(rng: &mut RandomState, shape: &[usize], dtype: DType) -> Result<Tensor> {
    float_dtype("randn", dtype)?;
    crate::dispatch!(dtype, T => generate(rng, "randn", shape, |w| {
        random::normal_pair(w).map(T::from_f64)
    }))
}

/// NumPy's `uniform`: `low + (high - low) · u` in f64, rounded once to the float
/// `dtype`, where `u` is `rand`'s value in [0, 1) (24 bits for f32, f16 and bf16, 53
/// for f64; the same blocks `rand` reads). The result may round to `high`, as NumPy's
/// may; `low > high` draws from (high, low]. Both must be finite.
pub fn uniform(
    rng: &mut RandomState,
    shape: &[usize],
    low: f64,
    high: f64,
    dtype: DType,
) -> Result<Tensor> {
    float_dtype("uniform", dtype)?;
    finite("uniform", &[("low", low), ("high", high)])?;
    let scale = |u: f64| low + (high - low) * u;
    match dtype {
        DType::F64 => generate(rng, "uniform", shape, |w| {
            [
                scale(random::uniform_f64(w[0], w[1])),
                scale(random::uniform_f64(w[2], w[3])),
            ]
        }),
        _ => crate::dispatch!(dtype, T => generate(rng, "uniform", shape, |w| {
            w.map(|w| T::from_f64(scale(f64::from(random::uniform_f32(w)))))
        })),
    }
}

/// NumPy's `normal`: `mean + std · z` in f64, rounded once to the float `dtype`, where
/// `z` is `randn`'s value (the same blocks). `std` must be finite and >= 0, `mean`
/// finite.
pub fn normal(
    rng: &mut RandomState,
    shape: &[usize],
    mean: f64,
    std: f64,
    dtype: DType,
) -> Result<Tensor> {
    float_dtype("normal", dtype)?;
    finite("normal", &[("mean", mean), ("std", std)])?;
    if std < 0.0 {
        let msg = format!("`std` must not be negative, got {std}");
        return Err(TensorError::value("normal", msg));
    }
    crate::dispatch!(dtype, T => generate(rng, "normal", shape, |w| {
        random::normal_pair(w).map(|z| T::from_f64(mean + std * z))
    }))
}

/// An error naming the first of `args` that is not a finite number.
fn finite(op: &str, args: &[(&str, f64)]) -> Result<()> {
    match args.iter().find(|(_, v)| !v.is_finite()) {
        Some((name, v)) => Err(TensorError::value(
            op,
            format!("`{name}` must be a finite number, got {v}"),
        )),
        None => Ok(()),
    }
}

/// Uniform integers in [low, high) of an integer `dtype` that holds that range.
pub fn randint(
    rng: &mut RandomState,
    low: i64,
    high: i64,
    shape: &[usize],
    dtype: DType,
) -> Result<Tensor> {
    let range = int_range(low, high, dtype)?;
    // The offset is below the range, so the wrapping add lands in [low, high).
    let pick = |hi, lo| low.wrapping_add(random::below(random::word64(hi, lo), range) as i64);
    crate::dispatch!(dtype, T => generate(rng, "randint", shape, |w| {
        [T::from_i64(pick(w[0], w[1])), T::from_i64(pick(w[2], w[3]))]
    }))
}

/// A tensor of `shape` filled from the stream, `K` values per block. The state only
/// advances once the buffer is allocated, so a failed call draws nothing.
fn generate<T: Elem, const K: usize>(
    rng: &mut RandomState,
    op: &str,
    shape: &[usize],
    each: impl Fn([u32; 4]) -> [T; K] + Sync,
) -> Result<Tensor> {
    let mut out = output_buffer(op, shape, T::default())?;
    random_fill(rng, &mut out, each);
    Tensor::from_vec(out, shape)
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn int_range_checks_dtype_order_and_fit() {
        assert_eq!(int_range(-3, 7, I64), Ok(10));
        assert_eq!(int_range(i64::MIN, i64::MAX, I64), Ok(u64::MAX));
        assert_eq!(int_range(0, 256, U8), Ok(256));
        assert_eq!(int_range(-128, 128, I8), Ok(256));
        assert!(int_range(0, 257, U8).is_err());
        assert!(int_range(-1, 5, U8).is_err());
        assert!(int_range(5, 5, I64).is_err());
        for dtype in [Bool, F16, F32] {
            assert!(matches!(
                int_range(0, 1, dtype),
                Err(TensorError::DType { .. })
            ));
        }
    }

    #[test]
    fn full_i64_range_stays_in_bounds() {
        let t = randint(
            &mut RandomState::from_seed(1),
            i64::MIN,
            i64::MAX,
            &[4096],
            I64,
        )
        .unwrap();
        let v = t.to_vec::<i64>();
        assert!(v.iter().all(|&x| x < i64::MAX));
        assert!(v.iter().any(|&x| x < 0) && v.iter().any(|&x| x > 0));
        let t = randint(&mut RandomState::from_seed(1), 7, 8, &[3], U8).unwrap();
        assert_eq!(t.to_vec::<u8>(), [7, 7, 7]);
    }

    #[test]
    fn wrong_dtypes_and_failed_allocations_draw_nothing() {
        let mut rng = RandomState::from_seed(1);
        for dtype in [Bool, U8, I64] {
            assert!(rand(&mut rng, &[2], dtype).is_err());
            assert!(randn(&mut rng, &[2], dtype).is_err());
        }
        assert!(rand(&mut rng, &[1 << 61], F64).is_err());
        assert!(randint(&mut rng, 3, 1, &[2], I64).is_err());
        assert_eq!(rng, RandomState::from_seed(1));
    }

    #[test]
    fn uniform_and_normal_scale_rand_and_randn() {
        let draw =
            |f: &dyn Fn(&mut RandomState) -> Result<Tensor>| f(&mut RandomState::from_seed(4));
        let u = draw(&|r| uniform(r, &[9], 0.0, 1.0, F32)).unwrap();
        assert_eq!(
            u.to_vec::<f32>(),
            draw(&|r| rand(r, &[9], F32)).unwrap().to_vec::<f32>()
        );
        let u = draw(&|r| uniform(r, &[9], -2.0, 6.0, F64))
            .unwrap()
            .to_vec::<f64>();
        let r = draw(&|r| rand(r, &[9], F64)).unwrap().to_vec::<f64>();
        assert!(u.iter().zip(&r).all(|(u, r)| *u == -2.0 + 8.0 * r));
        let n = draw(&|r| normal(r, &[9], 3.0, 0.5, F64))
            .unwrap()
            .to_vec::<f64>();
        let z = draw(&|r| randn(r, &[9], F64)).unwrap().to_vec::<f64>();
        assert!(n.iter().zip(&z).all(|(n, z)| *n == 3.0 + 0.5 * z));
        let mut rng = RandomState::from_seed(1);
        assert!(uniform(&mut rng, &[2], 0.0, f64::INFINITY, F32).is_err());
        assert!(normal(&mut rng, &[2], 0.0, -1.0, F32).is_err());
        assert!(normal(&mut rng, &[2], f64::NAN, 1.0, F32).is_err());
        assert!(uniform(&mut rng, &[2], 0.0, 1.0, I64).is_err());
        assert_eq!(rng, RandomState::from_seed(1));
    }

    #[test]
    fn counter_advances_by_blocks_per_kind() {
        let mut rng = RandomState::default();
        rand(&mut rng, &[5], F32).unwrap();
        assert_eq!(rng.counter, 2);
        rand(&mut rng, &[5], F64).unwrap();
        randn(&mut rng, &[5], F16).unwrap();
        randint(&mut rng, 0, 2, &[5], I8).unwrap();
        assert_eq!(rng.counter, 2 + 3 * 3);
        rand(&mut rng, &[], BF16).unwrap();
        rand(&mut rng, &[0, 4], F32).unwrap();
        assert_eq!(rng.counter, 12);
    }
}

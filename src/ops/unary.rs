//! Elementwise unary ops.

use super::{elems, output_buffer};
use crate::kernels::arith::{Arith, Float};
use crate::kernels::map::unary_map;
use crate::tensor::{Category, DType, Elem, Result, Tensor, TensorError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    /// Bitwise not on ints, logical not on bool.
    BitNot,
    Abs,
    Sqrt,
    Exp,
    Log,
}

impl UnaryOp {
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::BitNot => "bitwise_not",
            UnaryOp::Abs => "abs",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
        }
    }
}

/// `op(a)` elementwise. Integers wrap (`-i8::MIN == i8::MIN`); float functions of bool
/// and integer tensors give f32; f16/bf16 compute in f32 and round once.
pub fn unary(op: UnaryOp, a: &Tensor) -> Result<Tensor> {
    check_dtype(op, a.dtype())?;
    crate::dispatch!(a.dtype(), T => unary_as::<T>(op, a))
}

/// Rejects the dtypes PyTorch rejects for an op.
fn check_dtype(op: UnaryOp, dtype: DType) -> Result<()> {
    let msg = match (op, dtype.category()) {
        (UnaryOp::Neg, Category::Bool) => {
            "negation of a bool tensor is not supported; use ~ to invert a mask"
        }
        (UnaryOp::BitNot, Category::Float) => "only defined for bool and integer tensors",
        _ => return Ok(()),
    };
    Err(TensorError::dtype(op.name(), dtype, msg))
}

fn unary_as<T: Arith>(op: UnaryOp, a: &Tensor) -> Result<Tensor> {
    let name = op.name();
    match op {
        UnaryOp::Neg => map(name, a, T::neg),
        UnaryOp::BitNot => map(name, a, T::bitnot),
        UnaryOp::Abs => map(name, a, T::abs),
        UnaryOp::Sqrt => map(name, a, |x: T| x.to_real().sqrt()),
        UnaryOp::Exp => map(name, a, |x: T| x.to_real().exp()),
        UnaryOp::Log => map(name, a, |x: T| x.to_real().ln()),
    }
}

/// Applies `f` to every element of `a` into a new contiguous tensor.
fn map<T: Elem, O: Elem>(op: &str, a: &Tensor, f: impl Fn(T) -> O) -> Result<Tensor> {
    let mut out = output_buffer(op, a.shape(), O::default())?;
    unary_map(&mut out, elems(op, a)?, a.layout(), f);
    Tensor::from_vec(out, a.shape())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_close, assert_tensor, tensor, values, views};
    use DType::*;
    use UnaryOp::*;

    const ALL_OPS: [UnaryOp; 6] = [Neg, BitNot, Abs, Sqrt, Exp, Log];

    fn reference(op: UnaryOp, x: f64, dtype: DType) -> f64 {
        match op {
            Neg => -x,
            BitNot if dtype == Bool => 1.0 - x,
            BitNot => !(x as i64) as f64,
            Abs => x.abs(),
            Sqrt => x.sqrt(),
            Exp => x.exp(),
            Log => x.ln(),
        }
    }

    /// Relative tolerance of one rounding step in `dtype` (exp and log are computed in
    /// f32 for f16/bf16/f32 inputs, so the last bit may differ from an f64 reference).
    fn ulp(dtype: DType) -> f64 {
        match dtype {
            F16 => 1e-3,
            BF16 => 8e-3,
            F64 => 1e-15,
            _ => 1e-6,
        }
    }

    #[test]
    fn every_op_and_dtype_matches_the_reference() {
        let vals = [-130.0, -2.5, -1.0, 0.0, 0.5, 1.0, 4.0, 9.0, 100.0, 127.0];
        for dtype in DType::ALL {
            let a = tensor(&vals, &[2, 5], dtype);
            let input = values(&a);
            for op in ALL_OPS {
                let what = format!("{op:?} {dtype}");
                let got = unary(op, &a);
                if check_dtype(op, dtype).is_err() {
                    assert!(matches!(got, Err(TensorError::DType { .. })), "{what}");
                    continue;
                }
                let got = got.unwrap();
                let want: Vec<f64> = input.iter().map(|&x| reference(op, x, dtype)).collect();
                match op {
                    Neg | BitNot | Abs => assert_tensor(&got, dtype, &[2, 5], &want, &what),
                    Sqrt => assert_tensor(&got, dtype.float_result(), &[2, 5], &want, &what),
                    Exp | Log => {
                        let out = dtype.float_result();
                        assert_close(&got, out, &[2, 5], &want, ulp(out), &what);
                    }
                }
            }
        }
    }

    #[test]
    fn integers_wrap_and_bool_rules() {
        let min = tensor(&[-128.0, 5.0], &[2], I8);
        assert_eq!(unary(Neg, &min).unwrap().to_vec::<i8>(), vec![-128, -5]);
        assert_eq!(unary(Abs, &min).unwrap().to_vec::<i8>(), vec![-128, 5]);
        let u = tensor(&[1.0, 0.0], &[2], U8);
        assert_eq!(unary(Neg, &u).unwrap().to_vec::<u8>(), vec![255, 0]);
        assert_eq!(unary(BitNot, &u).unwrap().to_vec::<u8>(), vec![254, 255]);
        let b = tensor(&[1.0, 0.0], &[2], Bool);
        assert_eq!(
            unary(BitNot, &b).unwrap().to_vec::<bool>(),
            vec![false, true]
        );
        assert_eq!(unary(Abs, &b).unwrap().to_vec::<bool>(), vec![true, false]);
        let err = unary(Neg, &b).unwrap_err();
        assert!(err
            .to_string()
            .contains("negation of a bool tensor is not supported"));
        assert!(matches!(
            unary(BitNot, &tensor(&[1.0], &[1], F16)),
            Err(TensorError::DType { .. })
        ));
        assert_tensor(
            &unary(Sqrt, &b).unwrap(),
            F32,
            &[2],
            &[1.0, 0.0],
            "sqrt(bool)",
        );
    }

    #[test]
    fn domain_edges() {
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        for dtype in [F16, BF16, F32, F64] {
            let a = tensor(&[-1.0, 0.0, inf, -inf, nan], &[5], dtype);
            assert_tensor(
                &unary(Sqrt, &a).unwrap(),
                dtype,
                &[5],
                &[nan, 0.0, inf, nan, nan],
                "sqrt",
            );
            assert_tensor(
                &unary(Log, &a).unwrap(),
                dtype,
                &[5],
                &[nan, -inf, inf, nan, nan],
                "log",
            );
            assert_tensor(
                &unary(Exp, &a).unwrap(),
                dtype,
                &[5],
                &[(-1f64).exp(), 1.0, inf, 0.0, nan],
                "exp",
            );
            assert_tensor(
                &unary(Abs, &a).unwrap(),
                dtype,
                &[5],
                &[1.0, 0.0, inf, inf, nan],
                "abs",
            );
        }
        // exp overflows to inf in the result dtype.
        let big = tensor(&[100.0], &[1], F32);
        assert_tensor(
            &unary(Exp, &big).unwrap(),
            F32,
            &[1],
            &[inf],
            "exp(100) in f32",
        );
        let neg_zero = unary(Neg, &tensor(&[0.0], &[1], F32)).unwrap();
        assert!(neg_zero.to_vec::<f32>()[0].is_sign_negative());
    }

    #[test]
    fn shapes_and_views() {
        for shape in [&[][..], &[0][..], &[3, 0, 2][..], &[1, 1][..]] {
            let n: usize = shape.iter().product();
            let a = tensor(&vec![4.0; n], shape, I64);
            assert_tensor(&unary(Sqrt, &a).unwrap(), F32, shape, &vec![2.0; n], "sqrt");
            assert_tensor(&unary(Neg, &a).unwrap(), I64, shape, &vec![-4.0; n], "neg");
        }
        let a = tensor(
            &(0..24).map(|i| i as f64 * 0.25).collect::<Vec<_>>(),
            &[2, 3, 4],
            F32,
        );
        for op in [Neg, Abs, Sqrt, Exp, Log] {
            let want = values(&unary(op, &a).unwrap());
            for v in views(&a) {
                assert_eq!(values(&unary(op, &v).unwrap()), want, "{op:?}");
            }
            let b = a.select(0, 1).unwrap().broadcast_to(&[5, 3, 4]).unwrap();
            let got = values(&unary(op, &b).unwrap());
            assert_eq!(
                got,
                values(&unary(op, &b.contiguous()).unwrap()),
                "{op:?} broadcast"
            );
        }
    }
}

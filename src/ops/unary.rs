//! Elementwise unary ops, into a new tensor or in place.

use super::{elems, new_tensor};
use crate::kernels::elementwise::map::{
    math_map_new, unary_map_in_place, unary_map_new, unary_map_then_new,
};
use crate::kernels::isa::Isa;
use crate::kernels::math::MathFn;
use crate::kernels::math::{is_nan, truth, Arith, Float};
use crate::tensor::{Category, DType, Elem, Result, Tensor, TensorError};

/// The unary ops, one row each: variant (with its parameter and the value `ALL` gives
/// it), builtin name (NumPy's, except `neg` and `bitwise_not`), and the per-element
/// function with its kind (see `Apply`). The macro generates the enum, `name`, `ALL`
/// and `apply`, the one table shared by the new-tensor and in-place forms.
macro_rules! unary_ops {
    ($($(#[$doc:meta])* $op:ident $(($field:ident: $ty:ty = $default:expr))?
        ($name:literal) => $kind:ident($f:expr);)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum UnaryOp {
            $($(#[$doc])* $op $(($ty))?,)*
        }

        impl UnaryOp {
            /// Every op (`Round` with 0 decimals).
            pub const ALL: [UnaryOp; [$(stringify!($op)),*].len()] =
                [$(UnaryOp::$op $(($default))?),*];

            /// The builtin's name.
            pub const fn name(self) -> &'static str {
                match self {
                    $(UnaryOp::$op { .. } => $name,)*
                }
            }
        }

        fn apply<T: Arith, A: Apply<T>>(op: UnaryOp, a: A) -> A::Out {
            match op {
                $(UnaryOp::$op $(($field))? => a.$kind($f),)*
            }
        }
    };
}

unary_ops! {
    Neg("neg") => same(T::neg);
    /// Bitwise not on ints, logical not on bool.
    BitNot("bitwise_not") => same(T::bitnot);
    Abs("abs") => same(T::abs);
    Sign("sign") => same(T::sign);
    Square("square") => same(|x: T| x.mul(x));
    Floor("floor") => same(T::floor);
    Ceil("ceil") => same(T::ceil);
    /// Toward zero.
    Trunc("trunc") => same(T::trunc);
    /// Half to even at this many decimals (negative: to tens, hundreds, ...).
    Round(decimals: i32 = 0)("round") => same(move |x: T| x.round_to(decimals));
    Sqrt("sqrt") => real(Float::sqrt);
    Reciprocal("reciprocal") => real(Float::recip);
    Exp("exp") => math(MathFn::Exp);
    Exp2("exp2") => math(MathFn::Exp2);
    Log("log") => math(MathFn::Ln);
    Log2("log2") => math(MathFn::Log2);
    Log10("log10") => math(MathFn::Log10);
    Sin("sin") => math(MathFn::Sin);
    Cos("cos") => math(MathFn::Cos);
    Tan("tan") => math(MathFn::Tan);
    Asin("asin") => real(Float::asin);
    Acos("acos") => real(Float::acos);
    Atan("atan") => real(Float::atan);
    Sinh("sinh") => real(Float::sinh);
    Cosh("cosh") => real(Float::cosh);
    Tanh("tanh") => math(MathFn::Tanh);
    Asinh("asinh") => real(Float::asinh);
    Acosh("acosh") => real(Float::acosh);
    Atanh("atanh") => real(Float::atanh);
    Erf("erf") => real(Float::erf);
    Erfc("erfc") => real(Float::erfc);
    Log1p("log1p") => real(Float::log1p);
    Expm1("expm1") => real(Float::expm1);
    /// ln|Γ(x)| (torch's name; NumPy has none).
    Lgamma("lgamma") => real(Float::lgamma);
    /// ψ(x), lgamma's derivative (torch's name).
    Digamma("digamma") => real(Float::digamma);
    /// ψ′(x), digamma's derivative (torch's polygamma(1, x)).
    Trigamma("trigamma") => real(Float::trigamma);
    /// sin(πx)/(πx), 1 at 0.
    Sinc("sinc") => real(Float::sinc);
    Deg2rad("deg2rad") => real(Float::deg2rad);
    Rad2deg("rad2deg") => real(Float::rad2deg);
    IsNan("isnan") => test(is_nan);
    IsInf("isinf") => test(|x: T| x.to_f64().is_infinite());
    IsFinite("isfinite") => test(|x: T| x.to_f64().is_finite());
    /// True where the element is zero (NaN counts as true, so gives false).
    LogicalNot("logical_not") => test(|x: T| !truth(x));
}

impl UnaryOp {
    /// The op a name denotes (`round` with 0 decimals).
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().find(|op| op.name() == name)
    }
}

/// `op(a)` elementwise into a new tensor. Dtypes: neg, abs, sign, square, floor, ceil,
/// trunc and round keep the input's (integers wrap: `-i8::MIN == i8::MIN`); the float
/// functions give f32 for bool and integers and keep float dtypes (f16/bf16 compute in
/// f32 and round once); isnan, isinf, isfinite and logical_not give bool.
pub fn unary(op: UnaryOp, a: &Tensor) -> Result<Tensor> {
    check_dtype(op, a.dtype())?;
    crate::dispatch!(a.dtype(), T => apply::<T, _>(op, NewTensor { op: op.name(), a }))
}

/// `op` applied to `t` in place: the result goes into `t`'s own storage (copied first
/// only when it is shared or `t` is a broadcast view), so nothing is allocated for a
/// tensor that owns its data. An op whose result dtype differs from `t`'s (`exp_` of an
/// integer tensor, `isnan_` of a float one) is an error naming the op.
pub fn unary_inplace(op: UnaryOp, t: &mut Tensor) -> Result<()> {
    check_dtype(op, t.dtype())?;
    crate::dispatch!(t.dtype(), T => apply::<T, _>(op, InPlace { op: op.name(), t }))
}

/// NumPy's `nan_to_num`: NaN becomes `nan`, +inf `posinf` and -inf `neginf` (by
/// default the dtype's largest and smallest finite values), each converted to x's
/// dtype as `astype` converts. Bool and integer tensors have neither: x itself.
pub fn nan_to_num(
    a: &Tensor,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
) -> Result<Tensor> {
    let largest = match a.dtype() {
        DType::F16 => half::f16::MAX.to_f64(),
        DType::BF16 => half::bf16::MAX.to_f64(),
        DType::F32 => f64::from(f32::MAX),
        DType::F64 => f64::MAX,
        _ => return Ok(a.clone()),
    };
    let posinf = posinf.unwrap_or(largest);
    let neginf = neginf.unwrap_or(-largest);
    crate::dispatch!(a.dtype(), T => {
        let (nan, posinf, neginf) = (T::from_f64(nan), T::from_f64(posinf), T::from_f64(neginf));
        map("nan_to_num", a, move |x: T| match x.to_f64() {
            v if v.is_nan() => nan,
            f64::INFINITY => posinf,
            f64::NEG_INFINITY => neginf,
            _ => x,
        })
    })
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

/// What to do with an op's per-element function, by the kind of result it gives.
trait Apply<T: Arith> {
    type Out;
    /// A result of the input's dtype.
    fn same(self, f: impl Fn(T) -> T + Sync + Send) -> Self::Out;
    /// A float function, computed on `T::Real` (f32 for bool and integers).
    fn real(self, f: impl Fn(T::Real) -> T::Real + Sync + Send) -> Self::Out;
    /// A float function with a vectorized slice form, computed on `T::Real`.
    fn math(self, f: MathFn) -> Self::Out;
    /// A bool result.
    fn test(self, f: impl Fn(T) -> bool + Sync + Send) -> Self::Out;
}

/// Maps every element of `a` into a new contiguous tensor.
struct NewTensor<'a> {
    op: &'static str,
    a: &'a Tensor,
}

impl<T: Arith> Apply<T> for NewTensor<'_> {
    type Out = Result<Tensor>;
    fn same(self, f: impl Fn(T) -> T + Sync + Send) -> Result<Tensor> {
        map(self.op, self.a, f)
    }
    fn real(self, f: impl Fn(T::Real) -> T::Real + Sync + Send) -> Result<Tensor> {
        map(self.op, self.a, |x: T| f(x.to_real()))
    }
    fn math(self, f: MathFn) -> Result<Tensor> {
        math_map::<T>(self.op, self.a, f)
    }
    fn test(self, f: impl Fn(T) -> bool + Sync + Send) -> Result<Tensor> {
        map(self.op, self.a, f)
    }
}

/// `f` of every element of `a` (of type `T`) with the vector math of `T::Real`
/// (f16/bf16 through f32 blocks, rounding once), into a new tensor.
pub(super) fn math_map<T: Arith>(op: &str, a: &Tensor, f: MathFn) -> Result<Tensor> {
    let isa = Isa::detect();
    let layout = a.layout();
    // A dense float tensor maps straight from its storage into the result.
    if T::DTYPE == <T::Real as Elem>::DTYPE && layout.is_contiguous() {
        let x = elems::<T::Real>(op, a)?;
        let x = &x[layout.offset..layout.offset + layout.numel()];
        return new_tensor(op, a.shape(), || math_map_new(isa, f, x));
    }
    let x = elems(op, a)?;
    new_tensor(op, a.shape(), || {
        unary_map_then_new(isa, x, layout, T::to_real, |chunk| {
            T::Real::math_in_place(isa, f, chunk)
        })
    })
}

fn map<T: Elem, O: Elem>(op: &str, a: &Tensor, f: impl Fn(T) -> O + Sync + Send) -> Result<Tensor> {
    let x = elems(op, a)?;
    new_tensor(op, a.shape(), || {
        unary_map_new(Isa::detect(), x, a.layout(), f)
    })
}

/// Writes the results over the elements of `t`.
struct InPlace<'a> {
    op: &'static str,
    t: &'a mut Tensor,
}

impl<T: Arith> Apply<T> for InPlace<'_> {
    type Out = Result<()>;
    fn same(self, f: impl Fn(T) -> T + Sync + Send) -> Result<()> {
        map_in_place(self.op, self.t, f, |_| {})
    }
    // The element types below equal `T` whenever the dtype check in `map_in_place`
    // passes (a float `T` is its own `Real`; a bool result needs a bool tensor).
    fn real(self, f: impl Fn(T::Real) -> T::Real + Sync + Send) -> Result<()> {
        map_in_place(self.op, self.t, f, |_| {})
    }
    fn math(self, f: MathFn) -> Result<()> {
        let isa = Isa::detect();
        let post = move |xs: &mut [T::Real]| T::Real::math_in_place(isa, f, xs);
        map_in_place(self.op, self.t, |x: T::Real| x, post)
    }
    fn test(self, f: impl Fn(T) -> bool + Sync + Send) -> Result<()> {
        map_in_place(self.op, self.t, |x: bool| f(x.cast()), |_| {})
    }
}

/// Applies `f`, then the slice pass `post`, to the elements of `t` in its own storage;
/// `E`, the function's element type, must be `t`'s.
fn map_in_place<E: Elem>(
    op: &str,
    t: &mut Tensor,
    f: impl Fn(E) -> E + Sync + Send,
    post: impl Fn(&mut [E]) + Sync + Send,
) -> Result<()> {
    if E::DTYPE != t.dtype() {
        let msg = format!(
            "the result would be {}, which does not fit in place; use {op}(x) for a new tensor",
            E::DTYPE
        );
        return Err(TensorError::dtype(&format!("{op}_"), t.dtype(), msg));
    }
    t.make_writable();
    let layout = t.layout().clone();
    let data = E::vec_mut(t.storage_mut()).ok_or_else(|| {
        TensorError::dtype(op, E::DTYPE, "internal error: storage of another dtype")
    })?;
    unary_map_in_place(Isa::detect(), data, &layout, f, post);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_close, assert_tensor, tensor, values, views};
    use DType::*;
    use UnaryOp::*;

    /// The op on an f64 value (already of the input dtype), before rounding to the result.
    fn reference(op: UnaryOp, x: f64, dtype: DType) -> f64 {
        let flag = |c: bool| if c { 1.0 } else { 0.0 };
        match op {
            Neg => -x,
            BitNot if dtype == Bool => 1.0 - x,
            BitNot => !(x as i64) as f64,
            Abs => x.abs(),
            Sign if x == 0.0 || x.is_nan() || dtype == Bool => x,
            Sign => x.signum(),
            Square if dtype == Bool => x,
            Square => x * x,
            Floor => x.floor(),
            Ceil => x.ceil(),
            Trunc => x.trunc(),
            Round(_) => x.round_ties_even(),
            Sqrt => x.sqrt(),
            Reciprocal => 1.0 / x,
            Exp => x.exp(),
            Exp2 => x.exp2(),
            Log => x.ln(),
            Log2 => x.log2(),
            Log10 => x.log10(),
            Sin => x.sin(),
            Cos => x.cos(),
            Tan => x.tan(),
            Asin => x.asin(),
            Acos => x.acos(),
            Atan => x.atan(),
            Sinh => x.sinh(),
            Cosh => x.cosh(),
            Tanh => x.tanh(),
            Asinh => x.asinh(),
            Acosh => x.acosh(),
            Atanh => x.atanh(),
            Erf => crate::kernels::math::erf::erf(x),
            Erfc => crate::kernels::math::erf::erfc(x),
            Log1p => x.ln_1p(),
            Expm1 => x.exp_m1(),
            Lgamma => crate::kernels::math::special::lgamma(x),
            Digamma => crate::kernels::math::special::digamma(x),
            Trigamma => crate::kernels::math::special::trigamma(x),
            Sinc => crate::kernels::math::special::sinc(x),
            Deg2rad => x * std::f64::consts::PI / 180.0,
            Rad2deg => x * 180.0 / std::f64::consts::PI,
            IsNan => flag(x.is_nan()),
            IsInf => flag(x.is_infinite()),
            IsFinite => flag(x.is_finite()),
            LogicalNot => flag(x == 0.0),
        }
    }

    enum Kind {
        Same,
        Real,
        Test,
    }

    fn kind(op: UnaryOp) -> Kind {
        match op {
            Neg | BitNot | Abs | Sign | Square | Floor | Ceil | Trunc | Round(_) => Kind::Same,
            IsNan | IsInf | IsFinite | LogicalNot => Kind::Test,
            _ => Kind::Real,
        }
    }

    /// Relative tolerance of one rounding step in `dtype` (float functions of f16, bf16
    /// and f32 are computed in f32, so the last bit may differ from an f64 reference).
    fn ulp(dtype: DType) -> f64 {
        match dtype {
            F16 => 1e-3,
            BF16 => 8e-3,
            F64 => 1e-15,
            _ => 1e-6,
        }
    }

    /// Same dtype, shape and values (NaN equal to NaN).
    fn same(got: &Tensor, want: &Tensor, what: &str) {
        assert_tensor(got, want.dtype(), want.shape(), &values(want), what);
    }

    const VALS: [f64; 14] = [
        -130.0, -2.5, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 4.0, 9.0, 100.0, 127.0, 2.5,
    ];

    /// Checks `got = op(input)` for an input of `dtype`.
    fn check(op: UnaryOp, dtype: DType, input: &[f64], shape: &[usize], got: &Tensor) {
        let what = format!("{op:?} {dtype}");
        let want: Vec<f64> = input.iter().map(|&x| reference(op, x, dtype)).collect();
        match kind(op) {
            Kind::Same => assert_tensor(got, dtype, shape, &want, &what),
            Kind::Test => assert_tensor(got, Bool, shape, &want, &what),
            Kind::Real => {
                let out = dtype.float_result();
                assert_close(got, out, shape, &want, ulp(out), &what);
            }
        }
    }

    #[test]
    fn every_op_and_dtype_matches_the_reference() {
        for dtype in DType::ALL {
            let a = tensor(&VALS, &[2, 7], dtype);
            let input = values(&a);
            for op in UnaryOp::ALL {
                let got = unary(op, &a);
                if check_dtype(op, dtype).is_err() {
                    assert!(
                        matches!(got, Err(TensorError::DType { .. })),
                        "{op:?} {dtype}"
                    );
                    continue;
                }
                check(op, dtype, &input, &[2, 7], &got.unwrap());
            }
        }
    }

    #[test]
    fn nan_to_num_replaces_with_the_dtype_limits_or_given_values() {
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let x = tensor(&[nan, inf, -inf, -0.0, 2.5], &[5], F32);
        let max = f64::from(f32::MAX);
        let got = nan_to_num(&x, 0.0, None, None).unwrap();
        assert_tensor(&got, F32, &[5], &[0.0, max, -max, -0.0, 2.5], "defaults");
        assert!(got.to_vec::<f32>()[3].is_sign_negative());
        let got = nan_to_num(&x, -1.0, Some(9.0), Some(1e300)).unwrap();
        assert_tensor(&got, F32, &[5], &[-1.0, 9.0, inf, -0.0, 2.5], "given");
        let h = nan_to_num(&tensor(&[inf, -inf], &[2], F16), 0.0, None, None).unwrap();
        assert_tensor(&h, F16, &[2], &[65504.0, -65504.0], "f16");
        let i = tensor(&[3.0, -1.0], &[2], I32);
        assert_eq!(
            values(&nan_to_num(&i, 7.0, None, None).unwrap()),
            values(&i)
        );
    }

    #[test]
    fn names_round_trip() {
        for op in UnaryOp::ALL {
            assert_eq!(UnaryOp::from_name(op.name()), Some(op));
        }
        assert_eq!(UnaryOp::from_name("round"), Some(Round(0)));
        assert_eq!(UnaryOp::from_name("relu"), None);
    }

    #[test]
    fn integers_wrap_and_bool_rules() {
        let min = tensor(&[-128.0, 5.0], &[2], I8);
        assert_eq!(unary(Neg, &min).unwrap().to_vec::<i8>(), vec![-128, -5]);
        assert_eq!(unary(Abs, &min).unwrap().to_vec::<i8>(), vec![-128, 5]);
        assert_eq!(unary(Square, &min).unwrap().to_vec::<i8>(), vec![0, 25]);
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
    fn rounding_half_to_even_with_decimals() {
        let x = tensor(&[0.5, 1.5, 2.5, -0.5, -2.5, 0.125, 1234.5], &[7], F64);
        let r = |d| unary(Round(d), &x).unwrap();
        let want = [0.0, 2.0, 2.0, -0.0, -2.0, 0.0, 1234.0];
        assert_tensor(&r(0), F64, &[7], &want, "round");
        assert!(r(0).to_vec::<f64>()[3].is_sign_negative());
        let want = [0.5, 1.5, 2.5, -0.5, -2.5, 0.12, 1234.5];
        assert_tensor(&r(2), F64, &[7], &want, "round 2");
        let want = [0.0, 0.0, 0.0, -0.0, -0.0, 0.0, 1200.0];
        assert_tensor(&r(-2), F64, &[7], &want, "round -2");
        // Beyond the range of the scale: unchanged, or a signed zero.
        assert_eq!(values(&r(400)), values(&x));
        assert_tensor(&r(-400), F64, &[7], &[0.0; 7], "round -400");
        let ints = tensor(&[15.0, 25.0, -15.0, -25.0, 149.0], &[5], I64);
        let got = unary(Round(-1), &ints).unwrap();
        assert_tensor(&got, I64, &[5], &[20.0, 20.0, -20.0, -20.0, 150.0], "ints");
        assert_eq!(values(&unary(Round(3), &ints).unwrap()), values(&ints));
        let halves = tensor(&[0.125, 2.5], &[2], F16);
        assert_tensor(
            &unary(Round(1), &halves).unwrap(),
            F16,
            &[2],
            &[0.1, 2.5],
            "f16",
        );
    }

    #[test]
    fn domain_edges() {
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let edges = [-1.0, 0.0, -0.0, inf, -inf, nan, 2.0];
        for dtype in [F16, BF16, F32, F64] {
            let a = tensor(&edges, &[7], dtype);
            for op in UnaryOp::ALL {
                if op != BitNot {
                    check(op, dtype, &edges, &[7], &unary(op, &a).unwrap());
                }
            }
        }
        // exp overflows to inf in the result dtype; -0.0 keeps its sign through neg.
        let big = tensor(&[100.0], &[1], F32);
        assert_tensor(&unary(Exp, &big).unwrap(), F32, &[1], &[inf], "exp(100)");
        let neg_zero = unary(Neg, &tensor(&[0.0], &[1], F32)).unwrap();
        assert!(neg_zero.to_vec::<f32>()[0].is_sign_negative());
        let sign = unary(Sign, &tensor(&[-0.0], &[1], F32)).unwrap();
        assert!(sign.to_vec::<f32>()[0].is_sign_positive());
        let ints = tensor(&[-3.0, 0.0, 7.0], &[3], I32);
        for op in [IsNan, IsInf, IsFinite, LogicalNot] {
            check(op, I32, &[-3.0, 0.0, 7.0], &[3], &unary(op, &ints).unwrap());
        }
    }

    #[test]
    fn shapes_and_views() {
        for shape in [&[][..], &[0][..], &[3, 0, 2][..], &[1, 1][..]] {
            let n: usize = shape.iter().product();
            let a = tensor(&vec![4.0; n], shape, I64);
            assert_tensor(&unary(Sqrt, &a).unwrap(), F32, shape, &vec![2.0; n], "sqrt");
            assert_tensor(&unary(Neg, &a).unwrap(), I64, shape, &vec![-4.0; n], "neg");
            assert_tensor(
                &unary(IsNan, &a).unwrap(),
                Bool,
                shape,
                &vec![0.0; n],
                "isnan",
            );
        }
        let a = tensor(
            &(0..24).map(|i| i as f64 * 0.25 - 2.0).collect::<Vec<_>>(),
            &[2, 3, 4],
            F32,
        );
        for op in UnaryOp::ALL.into_iter().filter(|&op| op != BitNot) {
            let want = unary(op, &a).unwrap();
            for v in views(&a) {
                same(&unary(op, &v).unwrap(), &want, &format!("{op:?}"));
            }
            let b = a.select(0, 1).unwrap().broadcast_to(&[5, 3, 4]).unwrap();
            let want = unary(op, &b.contiguous()).unwrap();
            same(&unary(op, &b).unwrap(), &want, &format!("{op:?} broadcast"));
        }
    }

    #[test]
    fn in_place_matches_the_new_tensor_or_names_the_dtype_error() {
        for dtype in DType::ALL {
            let a = tensor(&VALS, &[2, 7], dtype);
            for op in UnaryOp::ALL {
                let what = format!("{op:?}_ {dtype}");
                let mut t = a.clone();
                let done = unary_inplace(op, &mut t);
                match unary(op, &a) {
                    Ok(want) if want.dtype() == dtype => {
                        assert!(done.is_ok(), "{what}");
                        same(&t, &want, &what);
                    }
                    _ => {
                        let Err(TensorError::DType { op: name, .. }) = done else {
                            panic!("{what}: expected a dtype error, got {done:?}");
                        };
                        assert!(name == format!("{}_", op.name()) || name == op.name());
                        assert_eq!(values(&t), values(&a), "{what} left unchanged");
                    }
                }
            }
        }
        let err = unary_inplace(Exp, &mut tensor(&[1.0], &[1], I64)).unwrap_err();
        assert!(
            err.to_string().starts_with("exp_: the result would be f32"),
            "{err}"
        );
    }

    #[test]
    fn in_place_reuses_an_unshared_buffer_and_respects_sharing() {
        let mut a = tensor(&[1.0, 4.0, 9.0], &[3], F32);
        let before = a.storage_slice::<f32>().unwrap().as_ptr();
        unary_inplace(Sqrt, &mut a).unwrap();
        assert_eq!(a.storage_slice::<f32>().unwrap().as_ptr(), before);
        assert_eq!(a.to_vec::<f32>(), vec![1.0, 2.0, 3.0]);
        // A shared buffer is copied first: the other value is unchanged.
        let b = a.clone();
        unary_inplace(Neg, &mut a).unwrap();
        assert_eq!(b.to_vec::<f32>(), vec![1.0, 2.0, 3.0]);
        assert_eq!(a.to_vec::<f32>(), vec![-1.0, -2.0, -3.0]);
        // Views over a buffer of their own write just their elements; a broadcast view
        // gets a buffer of its own first, so each element is mapped once.
        let base = tensor(&(0..24).map(f64::from).collect::<Vec<_>>(), &[2, 3, 4], F64);
        let want = unary(Square, &base).unwrap();
        for mut v in views(&base) {
            unary_inplace(Square, &mut v).unwrap();
            same(&v, &want, "square_ of a view");
        }
        let mut bc = tensor(&[3.0], &[], I32).broadcast_to(&[2, 2]).unwrap();
        unary_inplace(Square, &mut bc).unwrap();
        assert_eq!(bc.to_vec::<i32>(), vec![9; 4]);
        // Bool results fit a bool tensor.
        let mut m = tensor(&[1.0, 0.0], &[2], Bool);
        unary_inplace(LogicalNot, &mut m).unwrap();
        assert_eq!(m.to_vec::<bool>(), vec![false, true]);
        assert!(unary_inplace(Neg, &mut m).is_err());
    }
}

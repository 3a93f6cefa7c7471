//! Elementwise binary ops with NumPy broadcasting and PyTorch promotion.

use std::borrow::Cow;

use super::{cannot_allocate, elems, new_tensor, scalar_as, Operand};
use crate::kernels::elementwise::map::binary_map_new;
use crate::kernels::isa::Isa;
use crate::kernels::math::{truth, Arith, Float};
use crate::kernels::reduce::any;
use crate::tensor::shape::{broadcast_shapes, shape_str};
use crate::tensor::{Category, DType, Elem, Result, Tensor, TensorError};

/// The binary ops, one row each: variant, builtin name, the source operator where the
/// language has one, and the per-element function computed in the promoted type `T`.
/// The macro generates the enum, `name`, `symbol`, `from_symbol`, `ALL` and `apply`.
macro_rules! binary_ops {
    ($($(#[$doc:meta])* $op:ident($name:literal $(, $sym:literal)?) => $f:expr;)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum BinaryOp {
            $($(#[$doc])* $op,)*
        }

        impl BinaryOp {
            /// Every op, in table order.
            pub const ALL: [BinaryOp; [$(stringify!($op)),*].len()] = [$(BinaryOp::$op),*];

            /// The builtin's name (NumPy's).
            pub const fn name(self) -> &'static str {
                match self {
                    $(BinaryOp::$op => $name,)*
                }
            }

            /// The operator as written in source, for the ops the language spells.
            pub const fn symbol(self) -> Option<&'static str> {
                match self {
                    $(BinaryOp::$op => binary_ops!(@opt $($sym)?),)*
                }
            }

            /// The op a source operator denotes (`+`, `//`, `==`, ...).
            pub fn from_symbol(symbol: &str) -> Option<BinaryOp> {
                match symbol {
                    $($($sym => Some(BinaryOp::$op),)?)*
                    _ => None,
                }
            }
        }

        /// Hands the op's per-element function on `T` to `k`.
        pub(super) fn apply<T: Arith, K: Kernel<T>>(op: BinaryOp, k: K) -> K::Out {
            match op {
                $(BinaryOp::$op => k.map($f),)*
            }
        }
    };
    (@opt $sym:literal) => { Some($sym) };
    (@opt) => { None };
}

binary_ops! {
    Add("add", "+") => T::add;
    Sub("sub", "-") => T::sub;
    Mul("mul", "*") => T::mul;
    /// True division: integer inputs give the default float dtype.
    Div("div", "/") => |x: T, y: T| x.to_real().div(y.to_real());
    /// Floors (NumPy `//`); integer division by zero is an error.
    FloorDiv("floor_divide", "//") => T::floor_div;
    /// Result takes the divisor's sign (NumPy `%`).
    Rem("remainder", "%") => T::rem;
    /// Result takes the dividend's sign (C's fmod); integer division by zero is an error.
    Fmod("fmod") => T::fmod;
    Pow("pow", "**") => T::pow;
    Maximum("maximum") => T::maximum;
    Minimum("minimum") => T::minimum;
    Eq("eq", "==") => |x: T, y: T| x == y;
    Ne("ne", "!=") => |x: T, y: T| x != y;
    Lt("lt", "<") => |x: T, y: T| x < y;
    Le("le", "<=") => |x: T, y: T| x <= y;
    Gt("gt", ">") => |x: T, y: T| x > y;
    Ge("ge", ">=") => |x: T, y: T| x >= y;
    /// Bitwise on ints, logical on bool.
    BitAnd("bitwise_and", "&") => T::bitand;
    BitOr("bitwise_or", "|") => T::bitor;
    BitXor("bitwise_xor", "^") => T::bitxor;
    /// Truth values (nonzero, NaN included) combined into a bool result, any dtype.
    LogicalAnd("logical_and") => |x: T, y: T| truth(x) && truth(y);
    LogicalOr("logical_or") => |x: T, y: T| truth(x) || truth(y);
    LogicalXor("logical_xor") => |x: T, y: T| truth(x) != truth(y);
    /// The angle of the point (x = b, y = a) in radians, as C's atan2(a, b).
    Atan2("atan2") => |x: T, y: T| x.to_real().atan2(y.to_real());
    /// sqrt(a² + b²) without overflow or underflow in between.
    Hypot("hypot") => |x: T, y: T| x.to_real().hypot(y.to_real());
    /// ln(e^a + e^b), computed without overflow.
    LogAddExp("logaddexp") => |x: T, y: T| x.to_real().logaddexp(y.to_real());
    /// The magnitude of a with the sign of b.
    CopySign("copysign") => |x: T, y: T| x.to_real().copysign(y.to_real());
}

/// What to do with an op's per-element function (a new tensor, or in place).
pub(super) trait Kernel<T: Arith> {
    type Out;
    fn map<O: Elem>(self, f: impl Fn(T, T) -> O + Sync + Send) -> Self::Out;
}

/// `a op b`, broadcasting. At least one operand should be a tensor; two scalars
/// give a 0-d tensor of the scalars' default dtype.
pub fn binary(op: BinaryOp, a: Operand, b: Operand) -> Result<Tensor> {
    let shape = broadcast_shapes(op.name(), a.shape(), b.shape())?;
    let dtype = Operand::promote(a, b);
    check_dtype(op, dtype)?;
    crate::dispatch!(dtype, T => binary_as::<T>(op, a, b, &shape))
}

/// Rejects the dtypes PyTorch rejects for an op.
pub(super) fn check_dtype(op: BinaryOp, dtype: DType) -> Result<()> {
    use BinaryOp::*;
    let msg = match (op, dtype.category()) {
        (Sub, Category::Bool) => {
            "subtraction with two bool tensors is not supported; use ^ or logical ops"
        }
        (FloorDiv | Rem | Fmod | Pow, Category::Bool) => "not supported for two bool operands",
        (BitAnd | BitOr | BitXor, Category::Float) => "only defined for bool and integer tensors",
        _ => return Ok(()),
    };
    Err(TensorError::dtype(op.name(), dtype, msg))
}

/// The op computed in `T`, the promoted element type.
fn binary_as<T: Arith>(op: BinaryOp, a: Operand, b: Operand, shape: &[usize]) -> Result<Tensor> {
    let (a, b) = (converted::<T>(a), converted::<T>(b));
    if shape.iter().all(|&d| d > 0) {
        check_divisor::<T>(op, &b)?;
    }
    if shape.is_empty() {
        let (a, b) = (one_element::<T>(op, &a)?, one_element::<T>(op, &b)?);
        return apply::<T, _>(op, OneElement { a, b });
    }
    let (a, b) = (&broadcast(a, shape)?, &broadcast(b, shape)?);
    apply::<T, _>(
        op,
        NewTensor {
            op: op.name(),
            a,
            b,
        },
    )
}

/// The element of a 0-d tensor.
pub(super) fn one_element<T: Elem>(op: BinaryOp, t: &Tensor) -> Result<T> {
    elems::<T>(op.name(), t)?
        .get(t.layout().offset)
        .copied()
        .ok_or_else(|| TensorError::value(op.name(), "internal error: no element"))
}

/// Two 0-d operands, the loop case (`acc + s[i]`): the op's element function on the
/// two values, without the walk over layouts that a bigger shape needs.
struct OneElement<T> {
    a: T,
    b: T,
}

impl<T: Arith> Kernel<T> for OneElement<T> {
    type Out = Result<Tensor>;
    fn map<O: Elem>(self, f: impl Fn(T, T) -> O + Sync + Send) -> Result<Tensor> {
        Ok(Tensor::scalar(f(self.a, self.b)))
    }
}

/// `f` of the elements of `a` and `b`, converted to `T` and broadcast to `shape`, into
/// a new tensor: for elementwise functions outside the op table (`isclose`).
pub(super) fn map_as<T: Arith, O: Elem>(
    op: &'static str,
    a: Operand,
    b: Operand,
    shape: &[usize],
    f: impl Fn(T, T) -> O + Sync + Send,
) -> Result<Tensor> {
    let (a, b) = (converted::<T>(a), converted::<T>(b));
    let (a, b) = (&broadcast(a, shape)?, &broadcast(b, shape)?);
    NewTensor { op, a, b }.map(f)
}

/// Maps two tensors of one (broadcast) shape into a new contiguous tensor.
struct NewTensor<'a> {
    op: &'static str,
    a: &'a Tensor,
    b: &'a Tensor,
}

impl<T: Arith> Kernel<T> for NewTensor<'_> {
    type Out = Result<Tensor>;
    fn map<O: Elem>(self, f: impl Fn(T, T) -> O + Sync + Send) -> Result<Tensor> {
        let (a, b) = (self.a, self.b);
        let (x, y) = (elems(self.op, a)?, elems(self.op, b)?);
        new_tensor(self.op, a.shape(), || {
            binary_map_new(Isa::detect(), x, a.layout(), y, b.layout(), f)
        })
    }
}

/// NumPy's `clip`: `minimum(maximum(x, min), max)`, so `max` wins where `min > max` and
/// NaN propagates; the bounds broadcast with `x` and promote like `maximum` (weak
/// scalars keep x's dtype). Without bounds, `x` is returned as it is.
pub fn clip(x: &Tensor, min: Option<Operand>, max: Option<Operand>) -> Result<Tensor> {
    let mut shape = x.shape().to_vec();
    for (name, bound) in [("min", min), ("max", max)] {
        let Some(bound) = bound else { continue };
        let dims = bound.shape();
        shape = broadcast_shapes("clip", &shape, dims).map_err(|_| {
            let msg = format!(
                "`{name}` of shape {} does not broadcast with x of shape {}",
                shape_str(dims),
                shape_str(x.shape())
            );
            TensorError::shape("clip", msg)
        })?;
    }
    let lower = match min {
        Some(m) => binary(BinaryOp::Maximum, Operand::Tensor(x), m)?,
        None => x.clone(),
    };
    match max {
        Some(m) => binary(BinaryOp::Minimum, Operand::Tensor(&lower), m),
        None => Ok(lower),
    }
}

/// An operand as a tensor of `T` (a weak scalar becomes a 0-d tensor), borrowed when
/// it already is one: small ops should not pay for copies of the layout.
pub(super) fn converted<T: Elem>(x: Operand<'_>) -> Cow<'_, Tensor> {
    match x {
        Operand::Tensor(t) if t.dtype() == T::DTYPE => Cow::Borrowed(t),
        Operand::Tensor(t) => Cow::Owned(t.to_dtype(T::DTYPE)),
        Operand::Scalar(s) => Cow::Owned(Tensor::scalar(scalar_as::<T>(s))),
    }
}

/// `t` viewed with `shape` (unchanged, and not copied, when it already has it).
fn broadcast<'a>(t: Cow<'a, Tensor>, shape: &[usize]) -> Result<Cow<'a, Tensor>> {
    if t.shape() == shape {
        Ok(t)
    } else {
        Ok(Cow::Owned(t.broadcast_to(shape)?))
    }
}

/// Integer `//` and `%` by zero (the language's rule; NumPy only warns and gives 0)
/// and integer powers with a negative exponent (NumPy raises) are errors. Checked on
/// the divisor before computing, and only when the result is not empty.
pub(super) fn check_divisor<T: Arith>(op: BinaryOp, b: &Tensor) -> Result<()> {
    if !T::DTYPE.is_int() {
        return Ok(());
    }
    let zero = T::default();
    let data = elems::<T>(op.name(), b)?;
    let msg = match op {
        BinaryOp::FloorDiv | BinaryOp::Rem | BinaryOp::Fmod
            if any(data, b.layout(), |y| y == zero) =>
        {
            "integer division by zero"
        }
        BinaryOp::Pow if any(data, b.layout(), |y| y < zero) => {
            "integers to negative integer powers are not allowed"
        }
        _ => return Ok(()),
    };
    Err(TensorError::value(op.name(), msg))
}

/// A zero-filled result buffer for `shape` (see `kernels::alloc`). A shape over the
/// memory limit, or an allocation the system refuses, is an error rather than an abort.
pub(super) fn zeroed_output<T: Elem>(op: &str, shape: &[usize]) -> Result<Vec<T>> {
    let n = crate::tensor::budget::check(op, shape, T::DTYPE)?;
    crate::kernels::alloc::zeroed(n).ok_or_else(|| cannot_allocate(op, n))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{assert_tensor, tensor, values, views};
    use crate::tensor::Scalar;
    use BinaryOp::*;
    use DType::*;

    /// The op on f64 values with NumPy semantics (operands already in the compute dtype;
    /// wrapping comes from rounding the exact result to the result dtype afterwards).
    fn reference(op: BinaryOp, x: f64, y: f64) -> f64 {
        let flag = |c: bool| if c { 1.0 } else { 0.0 };
        let (i, j) = (x as i64, y as i64);
        match op {
            Add => x + y,
            Sub => x - y,
            Mul => x * y,
            Div => x / y,
            FloorDiv => (x / y).floor(),
            Rem if y == 0.0 => f64::NAN,
            Rem => x - y * (x / y).floor(),
            Fmod if y == 0.0 => f64::NAN,
            Fmod => x % y,
            Pow => x.powf(y),
            Maximum | Minimum if x.is_nan() || y.is_nan() => f64::NAN,
            Maximum => x.max(y),
            Minimum => x.min(y),
            Eq => flag(x == y),
            Ne => flag(x != y),
            Lt => flag(x < y),
            Le => flag(x <= y),
            Gt => flag(x > y),
            Ge => flag(x >= y),
            BitAnd => (i & j) as f64,
            BitOr => (i | j) as f64,
            BitXor => (i ^ j) as f64,
            LogicalAnd => flag(x != 0.0 && y != 0.0),
            LogicalOr => flag(x != 0.0 || y != 0.0),
            LogicalXor => flag((x != 0.0) != (y != 0.0)),
            Atan2 => x.atan2(y),
            Hypot => x.hypot(y),
            LogAddExp => crate::kernels::math::special::logaddexp(x, y),
            CopySign => x.copysign(y),
        }
    }

    fn result_dtype(op: BinaryOp, compute: DType) -> DType {
        match op {
            Eq | Ne | Lt | Le | Gt | Ge | LogicalAnd | LogicalOr | LogicalXor => Bool,
            Div | Atan2 | Hypot | LogAddExp | CopySign => compute.float_result(),
            _ => compute,
        }
    }

    /// Row-major position in `t` of the element that broadcasts to `idx` of `shape`.
    fn source_index(t: &Tensor, shape: &[usize], idx: &[usize]) -> usize {
        let lead = shape.len() - t.ndim();
        let dims = t.shape().iter().enumerate();
        dims.fold(0, |acc, (i, &d)| {
            acc * d + if d == 1 { 0 } else { idx[lead + i] }
        })
    }

    /// Shape and values of `a op b` by the broadcast rule written out plainly.
    fn broadcast_reference(
        op: BinaryOp,
        a: &Tensor,
        b: &Tensor,
        compute: DType,
    ) -> (Vec<usize>, Vec<f64>) {
        let shape = broadcast_shapes("test", a.shape(), b.shape()).unwrap();
        let (av, bv) = (values(&a.to_dtype(compute)), values(&b.to_dtype(compute)));
        let n: usize = shape.iter().product();
        let out = (0..n)
            .map(|lin| {
                let mut idx = vec![0; shape.len()];
                let mut rest = lin;
                for (k, &d) in shape.iter().enumerate().rev() {
                    idx[k] = rest % d;
                    rest /= d;
                }
                let x = av[source_index(a, &shape, &idx)];
                reference(op, x, bv[source_index(b, &shape, &idx)])
            })
            .collect();
        (shape, out)
    }

    fn tt(op: BinaryOp, a: &Tensor, b: &Tensor) -> Result<Tensor> {
        binary(op, Operand::Tensor(a), Operand::Tensor(b))
    }

    fn ts(op: BinaryOp, a: &Tensor, s: Scalar) -> Result<Tensor> {
        binary(op, Operand::Tensor(a), Operand::Scalar(s))
    }

    #[test]
    fn every_op_and_dtype_pair_matches_the_reference() {
        let a_vals = [-7.0, -2.5, -1.0, 0.0, 2.5, 7.0];
        let b_vals = [2.0, -2.0, 3.0, -1.5, 1.0, 4.0];
        let exponents = [0.0, 1.0, 2.0, 3.0, 2.0, 1.0];
        for da in DType::ALL {
            let a = tensor(&a_vals, &[2, 1, 3], da);
            for db in DType::ALL {
                for op in BinaryOp::ALL {
                    let b = tensor(if op == Pow { &exponents } else { &b_vals }, &[2, 3], db);
                    let what = format!("{da} {op:?} {db}");
                    let compute = DType::promote(da, db);
                    let got = tt(op, &a, &b);
                    if check_dtype(op, compute).is_err() {
                        assert!(matches!(got, Err(TensorError::DType { .. })), "{what}");
                        continue;
                    }
                    let (shape, want) = broadcast_reference(op, &a, &b, compute);
                    assert_tensor(
                        &got.unwrap(),
                        result_dtype(op, compute),
                        &shape,
                        &want,
                        &what,
                    );
                }
            }
        }
    }

    #[test]
    fn weak_scalars_on_either_side_match_the_reference() {
        let a_vals = [-3.0, -1.0, 0.0, 1.0, 2.5, 6.0];
        for dtype in DType::ALL {
            let a = tensor(&a_vals, &[3, 2], dtype);
            for s in [Scalar::Int(2), Scalar::Float(1.5), Scalar::Bool(true)] {
                let compute = DType::promote_weak(dtype, s.category());
                let st = tensor(&[s.to_f64()], &[], compute);
                for op in BinaryOp::ALL {
                    let what = format!("{dtype} {op:?} {s:?}");
                    if check_dtype(op, compute).is_err() {
                        assert!(ts(op, &a, s).is_err(), "{what}");
                        continue;
                    }
                    let (shape, want) = broadcast_reference(op, &a, &st, compute);
                    let got = ts(op, &a, s).unwrap();
                    assert_tensor(&got, result_dtype(op, compute), &shape, &want, &what);
                    let flipped = binary(op, Operand::Scalar(s), Operand::Tensor(&a));
                    if compute.is_int() && matches!(op, FloorDiv | Rem | Fmod | Pow) {
                        // `a` holds a zero divisor, and exponents too big for f64 to wrap.
                        assert!(op == Pow || flipped.is_err(), "{what}");
                        continue;
                    }
                    let (_, want) = broadcast_reference(op, &st, &a, compute);
                    assert_tensor(
                        &flipped.unwrap(),
                        result_dtype(op, compute),
                        &shape,
                        &want,
                        &what,
                    );
                }
            }
        }
    }

    #[test]
    fn source_operators_map_through_the_table() {
        let spelled = "+ - * / // % ** == != < <= > >= & | ^".split(' ');
        let ops: Vec<BinaryOp> = spelled.map(|s| BinaryOp::from_symbol(s).unwrap()).collect();
        let want = [
            Add, Sub, Mul, Div, FloorDiv, Rem, Pow, Eq, Ne, Lt, Le, Gt, Ge,
        ];
        assert_eq!(ops, [&want[..], &[BitAnd, BitOr, BitXor]].concat());
        for op in BinaryOp::ALL {
            assert_eq!(
                op.symbol().and_then(BinaryOp::from_symbol),
                op.symbol().map(|_| op)
            );
        }
        assert!(["@", "and", "or", "add"].map(BinaryOp::from_symbol) == [None; 4]);
    }

    #[test]
    fn promotion_follows_pytorch() {
        let t = |d| tensor(&[1.0, 2.0], &[2], d);
        let dtype = |r: Result<Tensor>| r.unwrap().dtype();
        assert_eq!(dtype(ts(Mul, &t(I64), Scalar::Float(2.5))), F32);
        assert_eq!(dtype(ts(Mul, &t(I32), Scalar::Int(3))), I32);
        assert_eq!(dtype(ts(Mul, &t(F16), Scalar::Float(0.5))), F16);
        assert_eq!(dtype(ts(Add, &t(Bool), Scalar::Int(1))), I64);
        assert_eq!(dtype(ts(Add, &t(U8), Scalar::Bool(true))), U8);
        assert_eq!(dtype(tt(Add, &t(U8), &t(I8))), I16);
        assert_eq!(dtype(tt(Add, &t(F16), &t(BF16))), F32);
        assert_eq!(dtype(tt(Div, &t(I32), &t(I32))), F32);
        assert_eq!(dtype(tt(Div, &t(F64), &t(I32))), F64);
        assert_eq!(dtype(tt(Div, &t(Bool), &t(Bool))), F32);
        assert_eq!(dtype(tt(Lt, &t(F16), &t(I64))), Bool);
        let two = |x, y| binary(Add, Operand::Scalar(x), Operand::Scalar(y)).unwrap();
        let r = two(Scalar::Int(2), Scalar::Float(0.5));
        assert_tensor(&r, F32, &[], &[2.5], "int + float scalars");
        assert_tensor(
            &two(Scalar::Int(2), Scalar::Int(3)),
            I64,
            &[],
            &[5.0],
            "ints",
        );
        assert_tensor(
            &two(Scalar::Bool(true), Scalar::Bool(false)),
            Bool,
            &[],
            &[1.0],
            "bools",
        );
        let q = binary(
            Div,
            Operand::Scalar(Scalar::Int(1)),
            Operand::Scalar(Scalar::Int(4)),
        );
        assert_tensor(&q.unwrap(), F32, &[], &[0.25], "int / int scalars");
    }

    #[test]
    fn floor_division_and_remainder_of_negative_operands() {
        for dtype in [I8, I16, I32, I64, F16, BF16, F32, F64] {
            let a = tensor(&[-7.0, 7.0, -7.0, 7.0], &[4], dtype);
            let b = tensor(&[2.0, -2.0, -2.0, 2.0], &[4], dtype);
            assert_tensor(
                &tt(FloorDiv, &a, &b).unwrap(),
                dtype,
                &[4],
                &[-4.0, -4.0, 3.0, 3.0],
                "//",
            );
            assert_tensor(
                &tt(Rem, &a, &b).unwrap(),
                dtype,
                &[4],
                &[1.0, -1.0, -1.0, 1.0],
                "%",
            );
            let q = ts(FloorDiv, &a, Scalar::Int(2)).unwrap();
            assert_tensor(&q, dtype, &[4], &[-4.0, 3.0, -4.0, 3.0], "// 2");
        }
        let f = tensor(&[-7.5, 7.5], &[2], F64);
        assert_tensor(
            &ts(Rem, &f, Scalar::Int(2)).unwrap(),
            F64,
            &[2],
            &[0.5, 1.5],
            "float %",
        );
        assert_tensor(
            &ts(FloorDiv, &f, Scalar::Float(-2.0)).unwrap(),
            F64,
            &[2],
            &[3.0, -4.0],
            "//",
        );
    }

    #[test]
    fn division_by_zero() {
        for dtype in [U8, I32, I64] {
            let a = tensor(&[1.0, 2.0], &[2], dtype);
            let zero = tensor(&[3.0, 0.0], &[2], dtype);
            for op in [FloorDiv, Rem, Fmod] {
                let err = tt(op, &a, &zero).unwrap_err();
                assert_eq!(
                    err,
                    TensorError::value(op.name(), "integer division by zero")
                );
                assert!(ts(op, &a, Scalar::Int(0)).is_err());
            }
            // True division goes through floats: no error.
            assert_tensor(
                &tt(Div, &a, &zero).unwrap(),
                F32,
                &[2],
                &[1.0 / 3.0, f64::INFINITY],
                "/",
            );
            // Nothing is divided when the result is empty.
            let empty = tensor(&[], &[0], dtype);
            assert_eq!(ts(FloorDiv, &empty, Scalar::Int(0)).unwrap().shape(), &[0]);
        }
        for dtype in [F16, BF16, F32, F64] {
            let a = tensor(&[1.0, -1.0, 0.0], &[3], dtype);
            let (inf, nan) = (f64::INFINITY, f64::NAN);
            let div = ts(Div, &a, Scalar::Float(0.0)).unwrap();
            assert_tensor(&div, dtype, &[3], &[inf, -inf, nan], "x / 0");
            let fdiv = ts(FloorDiv, &a, Scalar::Int(0)).unwrap();
            assert_tensor(&fdiv, dtype, &[3], &[inf, -inf, nan], "x // 0");
            let rem = ts(Rem, &a, Scalar::Float(0.0)).unwrap();
            assert_tensor(&rem, dtype, &[3], &[nan, nan, nan], "x % 0");
        }
    }

    #[test]
    fn integer_powers() {
        let a = tensor(&[2.0, 3.0], &[2], I64);
        let err = ts(Pow, &a, Scalar::Int(-1)).unwrap_err();
        let msg = "integers to negative integer powers are not allowed";
        assert_eq!(err, TensorError::value("pow", msg));
        assert_tensor(
            &ts(Pow, &a, Scalar::Int(3)).unwrap(),
            I64,
            &[2],
            &[8.0, 27.0],
            "**",
        );
        let f = ts(Pow, &a, Scalar::Float(-1.0)).unwrap();
        assert_tensor(&f, F32, &[2], &[0.5, 1.0 / 3.0], "** -1.0");
        let big = ts(Pow, &tensor(&[3.0], &[1], I32), Scalar::Int(21)).unwrap();
        assert_eq!(big.to_vec::<i32>(), vec![3i32.wrapping_pow(21)]);
    }

    #[test]
    fn integer_overflow_wraps() {
        let i8max = tensor(&[127.0], &[1], I8);
        assert_eq!(
            ts(Add, &i8max, Scalar::Int(1)).unwrap().to_vec::<i8>(),
            vec![-128]
        );
        let zero = tensor(&[0.0], &[1], U8);
        assert_eq!(
            ts(Sub, &zero, Scalar::Int(1)).unwrap().to_vec::<u8>(),
            vec![255]
        );
        let big = Tensor::from_vec(vec![i64::MAX], &[1]).unwrap();
        assert_eq!(
            ts(Mul, &big, Scalar::Int(2)).unwrap().to_vec::<i64>(),
            vec![-2]
        );
        let min = Tensor::from_vec(vec![i64::MIN], &[1]).unwrap();
        assert_eq!(
            ts(FloorDiv, &min, Scalar::Int(-1)).unwrap().to_vec::<i64>(),
            vec![i64::MIN]
        );
    }

    #[test]
    fn nan_and_infinity() {
        let nan = f64::NAN;
        for dtype in [F16, BF16, F32, F64] {
            let a = tensor(&[nan, 1.0, nan, 2.0], &[4], dtype);
            let b = tensor(&[0.0, nan, nan, 1.0], &[4], dtype);
            assert_tensor(
                &tt(Maximum, &a, &b).unwrap(),
                dtype,
                &[4],
                &[nan, nan, nan, 2.0],
                "max",
            );
            assert_tensor(
                &tt(Minimum, &a, &b).unwrap(),
                dtype,
                &[4],
                &[nan, nan, nan, 1.0],
                "min",
            );
            assert_tensor(
                &tt(Eq, &a, &a).unwrap(),
                Bool,
                &[4],
                &[0.0, 1.0, 0.0, 1.0],
                "==",
            );
            assert_tensor(
                &tt(Ne, &a, &a).unwrap(),
                Bool,
                &[4],
                &[1.0, 0.0, 1.0, 0.0],
                "!=",
            );
            assert_tensor(&tt(Lt, &a, &b).unwrap(), Bool, &[4], &[0.0; 4], "<");
            let inf = tensor(&[f64::INFINITY], &[1], dtype);
            assert_tensor(
                &tt(Sub, &inf, &inf).unwrap(),
                dtype,
                &[1],
                &[nan],
                "inf - inf",
            );
            assert_tensor(
                &ts(Mul, &inf, Scalar::Int(0)).unwrap(),
                dtype,
                &[1],
                &[nan],
                "inf * 0",
            );
        }
        // Comparison happens in the promoted dtype.
        let i = tensor(&[3.0, 4.0], &[2], I64);
        assert_tensor(
            &ts(Lt, &i, Scalar::Float(3.5)).unwrap(),
            Bool,
            &[2],
            &[1.0, 0.0],
            "< 3.5",
        );
    }

    #[test]
    fn bool_and_bitwise_rules() {
        let t = tensor(&[1.0, 1.0, 0.0, 0.0], &[4], Bool);
        let u = tensor(&[1.0, 0.0, 1.0, 0.0], &[4], Bool);
        assert_tensor(
            &tt(Add, &t, &u).unwrap(),
            Bool,
            &[4],
            &[1.0, 1.0, 1.0, 0.0],
            "bool +",
        );
        assert_tensor(
            &tt(Mul, &t, &u).unwrap(),
            Bool,
            &[4],
            &[1.0, 0.0, 0.0, 0.0],
            "bool *",
        );
        assert_tensor(
            &tt(BitXor, &t, &u).unwrap(),
            Bool,
            &[4],
            &[0.0, 1.0, 1.0, 0.0],
            "bool ^",
        );
        let err = tt(Sub, &t, &u).unwrap_err();
        assert!(err
            .to_string()
            .contains("subtraction with two bool tensors is not supported"));
        assert!(ts(Sub, &t, Scalar::Bool(true)).is_err());
        let minus_one = ts(Sub, &t, Scalar::Int(1)).unwrap();
        assert_tensor(&minus_one, I64, &[4], &[0.0, 0.0, -1.0, -1.0], "bool - 1");
        let f = tensor(&[1.0], &[1], F32);
        for op in [BitAnd, BitOr, BitXor] {
            let err = tt(op, &f, &f).unwrap_err();
            assert!(
                matches!(&err, TensorError::DType { op: name, dtype: F32, .. } if name == op.name())
            );
        }
        assert!(ts(BitAnd, &tensor(&[1.0], &[1], I32), Scalar::Float(1.0)).is_err());
        let i = tensor(&[12.0, -1.0], &[2], I32);
        let j = tensor(&[10.0, 5.0], &[2], I32);
        assert_tensor(&tt(BitAnd, &i, &j).unwrap(), I32, &[2], &[8.0, 5.0], "&");
        assert_tensor(&tt(BitOr, &i, &j).unwrap(), I32, &[2], &[14.0, -1.0], "|");
        assert_tensor(&tt(BitXor, &i, &j).unwrap(), I32, &[2], &[6.0, -6.0], "^");
    }

    #[test]
    fn shapes_broadcast_or_fail_with_both_shapes() {
        let a = tensor(&[0.0; 6], &[2, 3], F32);
        let b = tensor(&[0.0; 4], &[4], F32);
        let err = tt(Add, &a, &b).unwrap_err();
        let want = TensorError::Broadcast {
            op: "add".into(),
            lhs: vec![2, 3],
            rhs: vec![4],
        };
        assert_eq!(err, want);
        let cases: [(&[usize], &[usize], &[usize]); 6] = [
            (&[0, 3], &[3], &[0, 3]),
            (&[0], &[1], &[0]),
            (&[], &[], &[]),
            (&[1, 1], &[1], &[1, 1]),
            (&[3, 1], &[1, 4], &[3, 4]),
            (&[2, 1, 1], &[], &[2, 1, 1]),
        ];
        for (sa, sb, want) in cases {
            let (na, nb) = (sa.iter().product::<usize>(), sb.iter().product::<usize>());
            let a = tensor(&vec![1.5; na], sa, F32);
            let b = tensor(&vec![2.0; nb], sb, F32);
            let n: usize = want.iter().product();
            assert_tensor(
                &tt(Mul, &a, &b).unwrap(),
                F32,
                want,
                &vec![3.0; n],
                "shapes",
            );
        }
    }

    #[test]
    fn non_contiguous_views_give_the_same_result() {
        let a = tensor(
            &(0..12).map(|i| i as f64 - 5.5).collect::<Vec<_>>(),
            &[3, 4],
            F32,
        );
        let b = tensor(&[1.0, -2.0, 3.0, 0.5], &[4], F32);
        let col = tensor(&[2.0, -1.0, 4.0], &[3, 1], I32);
        for op in [Add, Mul, Div, FloorDiv, Maximum, Lt] {
            let want = values(&tt(op, &a, &b).unwrap());
            let want_col = values(&tt(op, &a, &col).unwrap());
            for va in views(&a) {
                for vb in views(&b) {
                    assert_eq!(values(&tt(op, &va, &vb).unwrap()), want, "{op:?}");
                }
                for vc in views(&col) {
                    assert_eq!(values(&tt(op, &va, &vc).unwrap()), want_col, "{op:?}");
                }
                // A stride-0 broadcast view as an operand.
                let row = b.broadcast_to(&[3, 4]).unwrap();
                assert_eq!(values(&tt(op, &va, &row).unwrap()), want, "{op:?}");
            }
        }
    }

    #[test]
    fn logical_ops_use_truth_values() {
        let nan = f64::NAN;
        let a = tensor(&[nan, 0.0, -2.0, 0.0], &[4], F32);
        let b = tensor(&[1.0, 0.0, 0.0, 3.0], &[4], I64);
        let and = tt(LogicalAnd, &a, &b).unwrap();
        assert_tensor(&and, Bool, &[4], &[1.0, 0.0, 0.0, 0.0], "and");
        let or = tt(LogicalOr, &a, &b).unwrap();
        assert_tensor(&or, Bool, &[4], &[1.0, 0.0, 1.0, 1.0], "or");
        let xor = ts(LogicalXor, &a, Scalar::Bool(true)).unwrap();
        assert_tensor(&xor, Bool, &[4], &[0.0, 1.0, 0.0, 1.0], "xor");
        let e = tensor(&[], &[0, 2], U8);
        assert_eq!(
            tt(LogicalAnd, &e, &b.select(0, 1).unwrap())
                .unwrap()
                .shape(),
            &[0, 2]
        );
    }

    #[test]
    fn clip_follows_numpy() {
        let s = |v: f64| Some(Operand::Scalar(Scalar::Float(v)));
        let i = |v: i64| Some(Operand::Scalar(Scalar::Int(v)));
        let x = tensor(&[-3.0, 0.0, 2.0, 7.0], &[4], I32);
        let got = clip(&x, i(0), i(5)).unwrap();
        assert_tensor(&got, I32, &[4], &[0.0, 0.0, 2.0, 5.0], "ints");
        // min > max: everything becomes max.
        assert_tensor(
            &clip(&x, i(5), i(1)).unwrap(),
            I32,
            &[4],
            &[1.0; 4],
            "swapped",
        );
        assert_tensor(
            &clip(&x, None, i(1)).unwrap(),
            I32,
            &[4],
            &[-3.0, 0.0, 1.0, 1.0],
            "max",
        );
        assert_tensor(
            &clip(&x, s(0.5), None).unwrap(),
            F32,
            &[4],
            &[0.5, 0.5, 2.0, 7.0],
            "f",
        );
        assert_eq!(values(&clip(&x, None, None).unwrap()), values(&x));
        let nan = f64::NAN;
        let f = tensor(&[nan, -1.0, 1.0], &[3], F16);
        assert_tensor(
            &clip(&f, s(0.0), s(0.5)).unwrap(),
            F16,
            &[3],
            &[nan, 0.0, 0.5],
            "nan",
        );
        // Tensor bounds broadcast with x, and their shape errors name clip.
        let lo = tensor(&[0.0, 1.0], &[2, 1], I64);
        let got = clip(&x, Some(Operand::Tensor(&lo)), i(4)).unwrap();
        let want = [0.0, 0.0, 2.0, 4.0, 1.0, 1.0, 2.0, 4.0];
        assert_tensor(&got, I64, &[2, 4], &want, "broadcast");
        let bad = tensor(&[0.0; 3], &[3], F32);
        let err = clip(&x, None, Some(Operand::Tensor(&bad))).unwrap_err();
        let msg = "`max` of shape [3] does not broadcast with x of shape [4]";
        assert_eq!(err, TensorError::shape("clip", msg));
    }
}

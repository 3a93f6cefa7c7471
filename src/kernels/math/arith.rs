//! Per-element arithmetic with NumPy semantics, one trait implemented by every element
//! type: integers wrap, `//` floors and `%` takes the divisor's sign, max/min propagate
//! NaN, and f16/bf16 compute in f32 and round once. Ops pick these functions and the
//! kernels apply them, so each elementwise op is one line in `ops`.

use std::mem::MaybeUninit;

use half::{bf16, f16};

use super::apply::{self, MathFn};
use super::{erf, special};
use crate::kernels::alloc::assume_written;
use crate::kernels::isa::Isa;
use crate::tensor::Elem;

pub trait Arith: Elem {
    /// The type of float-valued functions (`/`, sqrt, exp, mean): itself for floats, f32 otherwise.
    type Real: Float;
    /// The type sums and dot products accumulate in: i64 for bool and integers (wrapping),
    /// f32 for f16/bf16/f32, f64 for f64.
    type Acc: Arith;

    fn to_real(self) -> Self::Real;
    fn to_acc(self) -> Self::Acc;
    /// Rounds (floats) or wraps (integers) an accumulator back to this type.
    fn from_acc(acc: Self::Acc) -> Self;

    fn add(self, rhs: Self) -> Self;
    fn sub(self, rhs: Self) -> Self;
    fn mul(self, rhs: Self) -> Self;
    /// Floor division. An integer zero divisor gives 0: ops rejects it before computing.
    fn floor_div(self, rhs: Self) -> Self;
    /// Remainder with the divisor's sign (an integer zero divisor gives 0, as above).
    fn rem(self, rhs: Self) -> Self;
    /// Remainder with the dividend's sign, C's `fmod` (an integer zero divisor gives 0).
    fn fmod(self, rhs: Self) -> Self;
    /// Power. Integer negative exponents truncate 1/x^n (ops rejects them before computing).
    fn pow(self, rhs: Self) -> Self;
    /// Maximum that propagates NaN.
    fn maximum(self, rhs: Self) -> Self;
    /// Minimum that propagates NaN.
    fn minimum(self, rhs: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    /// -1, 0 or 1 (NumPy: NaN stays NaN and both zeros give +0; bool is unchanged).
    fn sign(self) -> Self;
    /// Rounds half to even at `decimals` digits after the point (NumPy's `round`:
    /// scale by 10^|decimals|, round, scale back). Integers are unchanged unless
    /// `decimals` is negative; bool is unchanged.
    fn round_to(self, decimals: i32) -> Self;
    // Integers and bool are already whole: floats override these.
    fn floor(self) -> Self {
        self
    }
    fn ceil(self) -> Self {
        self
    }
    fn trunc(self) -> Self {
        self
    }

    // Bitwise ops act on the integer value; ops only calls them for bool and integers,
    // where going through i64 is exact (sign extension, then truncation back).
    fn bitand(self, rhs: Self) -> Self {
        Self::from_i64(self.to_i64() & rhs.to_i64())
    }
    fn bitor(self, rhs: Self) -> Self {
        Self::from_i64(self.to_i64() | rhs.to_i64())
    }
    fn bitxor(self, rhs: Self) -> Self {
        Self::from_i64(self.to_i64() ^ rhs.to_i64())
    }
    fn bitnot(self) -> Self {
        Self::from_i64(!self.to_i64())
    }
}

/// Calls `$m!` with the float functions of one argument, named as Rust's std names them.
/// The `Float` trait declares them and every float type implements them from this list.
macro_rules! float_functions {
    ($m:ident $($args:tt)*) => {
        $m!($($args)* sqrt, exp, exp2, ln, log2, log10, recip, sin, cos, tan, asin, acos,
            atan, sinh, cosh, tanh, asinh, acosh, atanh, round_ties_even);
    };
}

macro_rules! declare_unary {
    ($($f:ident),*) => {$(
        fn $f(self) -> Self;
    )*};
}

/// Float-only functions; reached through `Arith::Real`. Domain errors give NaN or ±inf
/// as IEEE says (`sqrt(-1)`, `log(0)`, `asin(2)`).
pub trait Float: Arith<Real = Self> {
    /// True division (IEEE: x/0 is ±inf or NaN).
    fn div(self, rhs: Self) -> Self;
    float_functions!(declare_unary);
    /// `xs[i] = f(xs[i])` over a slice: vectorized for f32 (and f16/bf16 through f32
    /// blocks), std's functions element by element for f64.
    fn math_in_place(isa: Isa, f: MathFn, xs: &mut [Self]);
    /// `dst[i] = f(src[i])`, the same values as a copy and `math_in_place`, writing the
    /// first `min(src.len(), dst.len())` elements of `dst`. f32 maps in one pass; the
    /// others copy, then map in place.
    fn math_into(isa: Isa, f: MathFn, src: &[Self], dst: &mut [MaybeUninit<Self>]) {
        let n = src.len().min(dst.len());
        for (d, &x) in dst[..n].iter_mut().zip(src) {
            d.write(x);
        }
        // SAFETY: the loop above wrote each of the first `n` elements.
        Self::math_in_place(isa, f, unsafe { assume_written(&mut dst[..n]) })
    }

    // The functions below compute in f64 and round once to the type (f32, f16 and
    // bf16 too), so an f32 result is within a hair of correctly rounded.
    /// `f` of the value taken exactly to f64, rounded once to `Self`.
    #[inline]
    fn via_f64(self, f: impl Fn(f64) -> f64) -> Self {
        Self::from_f64(f(self.to_f64()))
    }
    /// `f` of two values taken exactly to f64, rounded once to `Self`.
    #[inline]
    fn via_f64_2(self, rhs: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        Self::from_f64(f(self.to_f64(), rhs.to_f64()))
    }
    fn erf(self) -> Self {
        self.via_f64(erf::erf)
    }
    fn erfc(self) -> Self {
        self.via_f64(erf::erfc)
    }
    fn log1p(self) -> Self {
        self.via_f64(f64::ln_1p)
    }
    fn expm1(self) -> Self {
        self.via_f64(f64::exp_m1)
    }
    fn lgamma(self) -> Self {
        self.via_f64(special::lgamma)
    }
    fn digamma(self) -> Self {
        self.via_f64(special::digamma)
    }
    fn trigamma(self) -> Self {
        self.via_f64(special::trigamma)
    }
    fn sinc(self) -> Self {
        self.via_f64(special::sinc)
    }
    fn deg2rad(self) -> Self {
        self.via_f64(f64::to_radians)
    }
    fn rad2deg(self) -> Self {
        self.via_f64(f64::to_degrees)
    }
    fn atan2(self, rhs: Self) -> Self {
        self.via_f64_2(rhs, f64::atan2)
    }
    fn hypot(self, rhs: Self) -> Self {
        self.via_f64_2(rhs, f64::hypot)
    }
    fn logaddexp(self, rhs: Self) -> Self {
        self.via_f64_2(rhs, special::logaddexp)
    }
    fn copysign(self, rhs: Self) -> Self {
        self.via_f64_2(rhs, f64::copysign)
    }
}

/// NaN test for any element type (only floats are ever unordered with themselves).
#[inline]
pub fn is_nan<T: PartialOrd>(x: T) -> bool {
    x.partial_cmp(&x).is_none()
}

/// NumPy's truth value of an element: nonzero (NaN counts as true).
#[inline]
pub fn truth<T: Elem>(x: T) -> bool {
    x != T::default()
}

/// NumPy integer floor division on i64; a zero divisor gives 0 and `MIN // -1` wraps.
fn floor_div_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let q = a.wrapping_div(b);
    if a.wrapping_rem(b) != 0 && ((a < 0) != (b < 0)) {
        q.wrapping_sub(1)
    } else {
        q
    }
}

/// NumPy integer remainder on i64 (sign of the divisor); a zero divisor gives 0.
fn rem_i64(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    let r = a.wrapping_rem(b);
    if r != 0 && ((r < 0) != (b < 0)) {
        r + b
    } else {
        r
    }
}

/// Wrapping integer power by squaring; a negative exponent truncates `1 / base^-exp`.
fn pow_i64(base: i64, exp: i64) -> i64 {
    if exp < 0 {
        return match base {
            1 => 1,
            -1 if exp % 2 == 0 => 1,
            -1 => -1,
            _ => 0,
        };
    }
    pow_u64(base as u64, exp as u64) as i64
}

/// Wrapping power by squaring (the bits are those of the signed power too).
fn pow_u64(base: u64, exp: u64) -> u64 {
    let (mut result, mut base, mut exp) = (1u64, base, exp);
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    result
}

/// u64 does not fit i64: it divides natively (a zero divisor gives 0).
fn floor_div_u64(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(0)
}

fn rem_u64(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(0)
}

fn abs_i64(a: i64) -> i64 {
    a.wrapping_abs()
}

fn abs_u64(a: u64) -> u64 {
    a
}

fn sign_i64(a: i64) -> i64 {
    a.signum()
}

fn sign_u64(a: u64) -> u64 {
    u64::from(a != 0)
}

/// `10^n` the way NumPy's `round` computes its scale: exact table entries up to 1e8,
/// then repeated multiplication (inf beyond f64's range).
fn power_of_ten(n: u32) -> f64 {
    const P10: [f64; 9] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8];
    match P10.get(n as usize) {
        Some(&p) => p,
        // 10^309 is already inf: stop multiplying there.
        None => (9..n.min(400)).fold(1e9, |p, _| p * 10.0),
    }
}

/// NumPy's `round(x, decimals)` in the float type `F`, with the scale rounded to `F`.
/// Where NumPy's scaling overflows (giving inf or NaN), the answer is what rounding
/// means: `x` itself when it has no digits that far right, ±0 when it is far below
/// the rounding unit.
fn round_decimals<F: Float>(x: F, decimals: i32) -> F {
    let factor = F::from_f64(power_of_ten(decimals.unsigned_abs()));
    if decimals >= 0 {
        let scaled = x.mul(factor);
        if scaled.to_f64().is_finite() {
            scaled.round_ties_even().div(factor)
        } else {
            x
        }
    } else if !x.to_f64().is_finite() {
        x
    } else if !factor.to_f64().is_finite() {
        x.mul(F::default())
    } else {
        x.div(factor).round_ties_even().mul(factor)
    }
}

// Integers compute in their own width where Rust has a wrapping op, and through a wide
// type `$w` otherwise (i64, or u64 for u64, which i64 cannot hold): the results agree
// because truncating to the width commutes with wrapping. Sums accumulate in i64
// (torch), u64 in u64 (NumPy).
macro_rules! impl_int {
    ($w:ty: $floor_div:ident, $rem:ident, $pow:ident, $abs:ident, $sign:ident => $($t:ty),*) => {$(
        impl Arith for $t {
            type Real = f32;
            type Acc = $w;
            #[inline]
            fn to_real(self) -> f32 {
                self as f32
            }
            #[inline]
            fn to_acc(self) -> $w {
                self as $w
            }
            #[inline]
            fn from_acc(acc: $w) -> Self {
                acc as $t
            }
            #[inline]
            fn add(self, rhs: Self) -> Self {
                self.wrapping_add(rhs)
            }
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                self.wrapping_sub(rhs)
            }
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                self.wrapping_mul(rhs)
            }
            #[inline]
            fn floor_div(self, rhs: Self) -> Self {
                $floor_div(self as $w, rhs as $w) as $t
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                $rem(self as $w, rhs as $w) as $t
            }
            #[inline]
            fn fmod(self, rhs: Self) -> Self {
                // Truncated remainder; MIN % -1 wraps to 0.
                self.checked_rem(rhs).unwrap_or(0)
            }
            #[inline]
            fn pow(self, rhs: Self) -> Self {
                $pow(self as $w, rhs as $w) as $t
            }
            #[inline]
            fn maximum(self, rhs: Self) -> Self {
                Ord::max(self, rhs)
            }
            #[inline]
            fn minimum(self, rhs: Self) -> Self {
                Ord::min(self, rhs)
            }
            #[inline]
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            #[inline]
            fn abs(self) -> Self {
                $abs(self as $w) as $t
            }
            #[inline]
            fn sign(self) -> Self {
                $sign(self as $w) as $t
            }
            /// Negative `decimals` round through f64 and convert back (NumPy).
            fn round_to(self, decimals: i32) -> Self {
                if decimals >= 0 {
                    self
                } else {
                    Self::from_f64(round_decimals(self as f64, decimals))
                }
            }
        }
    )*};
}

impl_int!(i64: floor_div_i64, rem_i64, pow_i64, abs_i64, sign_i64 => u8, u16, u32, i8, i16, i32, i64);
impl_int!(u64: floor_div_u64, rem_u64, pow_u64, abs_u64, sign_u64 => u64);

/// NumPy's `npy_divmod`: floor quotient and divisor-signed remainder, with the same
/// signed zeros and the same answers for infinities; a zero divisor gives `a / b` and NaN.
macro_rules! divmod {
    ($t:ty, $a:expr, $b:expr) => {{
        let (a, b): ($t, $t) = ($a, $b);
        let fmod = a % b;
        if b == 0.0 {
            (a / b, fmod)
        } else {
            let mut div = (a - fmod) / b;
            let mut rem = fmod;
            if rem != 0.0 {
                if (b < 0.0) != (rem < 0.0) {
                    rem += b;
                    div -= 1.0;
                }
            } else {
                rem = (0.0 as $t).copysign(b);
            }
            let quot = if div != 0.0 {
                let floor = div.floor();
                // `div` is a rounded quotient: round the floor to the nearest integer.
                if div - floor > 0.5 {
                    floor + 1.0
                } else {
                    floor
                }
            } else {
                (0.0 as $t).copysign(a / b)
            };
            (quot, rem)
        }
    }};
}

macro_rules! impl_float {
    ($($t:ty: $apply:path $(=> $into:path)?),*) => {$(
        impl Arith for $t {
            type Real = $t;
            type Acc = $t;
            #[inline]
            fn to_real(self) -> $t {
                self
            }
            #[inline]
            fn to_acc(self) -> $t {
                self
            }
            #[inline]
            fn from_acc(acc: $t) -> Self {
                acc
            }
            #[inline]
            fn add(self, rhs: Self) -> Self {
                self + rhs
            }
            #[inline]
            fn sub(self, rhs: Self) -> Self {
                self - rhs
            }
            #[inline]
            fn mul(self, rhs: Self) -> Self {
                self * rhs
            }
            #[inline]
            fn floor_div(self, rhs: Self) -> Self {
                divmod!($t, self, rhs).0
            }
            #[inline]
            fn rem(self, rhs: Self) -> Self {
                divmod!($t, self, rhs).1
            }
            #[inline]
            fn fmod(self, rhs: Self) -> Self {
                self % rhs
            }
            #[inline]
            fn pow(self, rhs: Self) -> Self {
                self.powf(rhs)
            }
            #[inline]
            fn maximum(self, rhs: Self) -> Self {
                if self.is_nan() || self >= rhs { self } else { rhs }
            }
            #[inline]
            fn minimum(self, rhs: Self) -> Self {
                if self.is_nan() || self <= rhs { self } else { rhs }
            }
            #[inline]
            fn neg(self) -> Self {
                -self
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn sign(self) -> Self {
                if self > 0.0 {
                    1.0
                } else if self < 0.0 {
                    -1.0
                } else if self == 0.0 {
                    0.0
                } else {
                    self
                }
            }
            fn round_to(self, decimals: i32) -> Self {
                round_decimals(self, decimals)
            }
            #[inline]
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            #[inline]
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            #[inline]
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
        }

        impl Float for $t {
            #[inline]
            fn div(self, rhs: Self) -> Self {
                self / rhs
            }
            float_functions!(impl_float @std $t,);
            fn math_in_place(isa: Isa, f: MathFn, xs: &mut [Self]) {
                $apply(isa, f, xs)
            }
            $(fn math_into(isa: Isa, f: MathFn, src: &[Self], dst: &mut [MaybeUninit<Self>]) {
                $into(isa, f, src, dst)
            })?
        }
    )*};
    (@std $t:ty, $($f:ident),*) => {$(
        #[inline]
        fn $f(self) -> Self {
            <$t>::$f(self)
        }
    )*};
}

impl_float!(f32: apply::apply_f32 => apply::apply_f32_into, f64: apply::apply_f64);

/// Half-precision types: widen to f32 (exact), compute, round once.
macro_rules! impl_half {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            type Real = $t;
            type Acc = f32;
            #[inline]
            fn to_real(self) -> $t {
                self
            }
            #[inline]
            fn to_acc(self) -> f32 {
                self.to_f32()
            }
            #[inline]
            fn from_acc(acc: f32) -> Self {
                <$t>::from_f32(acc)
            }
            impl_half!(@binary Arith: add, sub, mul, floor_div, rem, fmod, pow, maximum, minimum);
            impl_half!(@unary Arith: neg, abs, sign, floor, ceil, trunc);
            fn round_to(self, decimals: i32) -> Self {
                Self::from_f32(round_decimals(self.to_f32(), decimals))
            }
        }

        impl Float for $t {
            impl_half!(@binary Float: div);
            float_functions!(impl_half @unary Float:);
            fn math_in_place(isa: Isa, f: MathFn, xs: &mut [Self]) {
                apply::apply_half(isa, f, xs)
            }
        }
    )*};
    (@binary $tr:ident: $($f:ident),*) => {$(
        #[inline]
        fn $f(self, rhs: Self) -> Self {
            Self::from_f32(<f32 as $tr>::$f(self.to_f32(), rhs.to_f32()))
        }
    )*};
    (@unary $tr:ident: $($f:ident),*) => {$(
        #[inline]
        fn $f(self) -> Self {
            Self::from_f32(<f32 as $tr>::$f(self.to_f32()))
        }
    )*};
}

impl_half!(f16, bf16);

/// Bool arithmetic is 0/1 integer arithmetic with a nonzero test on the way back, which
/// makes `+` a logical or and `*` a logical and (PyTorch). Ops rejects the rest
/// (`-`, `//`, `%`, `**`, unary `-`) for bool like PyTorch; they are defined the same way.
impl Arith for bool {
    type Real = f32;
    type Acc = i64;
    #[inline]
    fn to_real(self) -> f32 {
        f32::from(u8::from(self))
    }
    #[inline]
    fn to_acc(self) -> i64 {
        i64::from(self)
    }
    #[inline]
    fn from_acc(acc: i64) -> Self {
        acc != 0
    }
    #[inline]
    fn add(self, rhs: Self) -> Self {
        self | rhs
    }
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        self ^ rhs
    }
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        self & rhs
    }
    #[inline]
    fn floor_div(self, rhs: Self) -> Self {
        self & rhs
    }
    #[inline]
    fn rem(self, _rhs: Self) -> Self {
        false
    }
    #[inline]
    fn fmod(self, _rhs: Self) -> Self {
        false
    }
    #[inline]
    fn pow(self, rhs: Self) -> Self {
        self | !rhs
    }
    #[inline]
    fn maximum(self, rhs: Self) -> Self {
        self | rhs
    }
    #[inline]
    fn minimum(self, rhs: Self) -> Self {
        self & rhs
    }
    #[inline]
    fn neg(self) -> Self {
        self
    }
    #[inline]
    fn abs(self) -> Self {
        self
    }
    #[inline]
    fn sign(self) -> Self {
        self
    }
    #[inline]
    fn round_to(self, _decimals: i32) -> Self {
        self
    }
    #[inline]
    fn bitnot(self) -> Self {
        !self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_floor_div_and_rem_follow_numpy() {
        let cases = [
            (-7i64, 2i64, -4, 1),
            (7, -2, -4, -1),
            (-7, -2, 3, -1),
            (7, 2, 3, 1),
        ];
        for (a, b, q, r) in cases {
            assert_eq!(Arith::floor_div(a, b), q, "{a} // {b}");
            assert_eq!(Arith::rem(a, b), r, "{a} % {b}");
            assert_eq!(Arith::floor_div(a as i8, b as i8), q as i8);
            assert_eq!(Arith::rem(a as i32, b as i32), r as i32);
        }
        assert_eq!(Arith::floor_div(i64::MIN, -1), i64::MIN);
        assert_eq!(Arith::rem(i64::MIN, -1), 0);
        assert_eq!(Arith::floor_div(-128i8, -1), -128);
        assert_eq!(Arith::floor_div(250u8, 7), 35);
        assert_eq!(Arith::rem(250u8, 7), 5);
        assert_eq!(Arith::floor_div(5i32, 0), 0);
    }

    #[test]
    fn float_floor_div_and_rem_follow_numpy() {
        let cases = [
            (-7.0f64, 2.0, -4.0, 1.0),
            (7.0, -2.0, -4.0, -1.0),
            (7.5, 2.0, 3.0, 1.5),
            (-5.0, f64::INFINITY, -1.0, f64::INFINITY),
            (5.0, f64::INFINITY, 0.0, 5.0),
        ];
        for (a, b, q, r) in cases {
            assert_eq!(Arith::floor_div(a, b), q, "{a} // {b}");
            assert_eq!(Arith::rem(a, b), r, "{a} % {b}");
            assert_eq!(Arith::floor_div(a as f32, b as f32), q as f32);
            assert_eq!(Arith::rem(f16::from_f64(a), f16::from_f64(b)).to_f64(), r);
        }
        assert_eq!(Arith::floor_div(1.0f64, 0.0), f64::INFINITY);
        assert!(Arith::floor_div(0.0f64, 0.0).is_nan());
        assert!(Arith::rem(1.0f32, 0.0).is_nan());
        // Signed zeros: the remainder takes the divisor's sign.
        assert!(Arith::rem(4.0f64, -2.0).is_sign_negative());
        assert!(Arith::floor_div(-0.0f64, 3.0).is_sign_negative());
    }

    #[test]
    fn wrapping_and_powers() {
        assert_eq!(Arith::add(250u8, 10), 4);
        assert_eq!(Arith::neg(i8::MIN), i8::MIN);
        assert_eq!(Arith::abs(i8::MIN), i8::MIN);
        assert_eq!(Arith::abs(-5i16), 5);
        assert_eq!(Arith::pow(3i64, 4), 81);
        assert_eq!(Arith::pow(2i32, 31), i32::MIN);
        assert_eq!(Arith::pow(2u8, 9), 0);
        assert_eq!(Arith::pow(7i64, 0), 1);
        assert_eq!(Arith::pow(-1i64, -3), -1);
        assert_eq!(Arith::pow(2i64, -1), 0);
    }

    #[test]
    fn nan_propagates_through_max_min() {
        assert!(Arith::maximum(f32::NAN, 1.0).is_nan());
        assert!(Arith::maximum(1.0f64, f64::NAN).is_nan());
        assert!(Arith::minimum(bf16::from_f32(1.0), bf16::NAN).is_nan());
        assert_eq!(Arith::maximum(2.0f32, -1.0), 2.0);
        assert!(is_nan(f16::NAN) && !is_nan(3i32) && !is_nan(1.0f64));
    }

    #[test]
    fn bool_and_bitwise() {
        assert!(Arith::add(true, true));
        assert!(!Arith::mul(true, false));
        assert!(!Arith::bitnot(true));
        assert!(Arith::bitxor(true, false));
        assert_eq!(Arith::bitnot(0u8), 255);
        assert_eq!(Arith::bitnot(5i32), -6);
        assert_eq!(Arith::bitand(-4i8, 0x7f), 0x7c);
        assert_eq!(Arith::bitor(0x0fu8, 0xf0), 0xff);
    }

    #[test]
    fn halves_round_once_from_f32() {
        let a = f16::from_f32(1.0);
        let b = f16::from_f32(3.0);
        assert_eq!(Float::div(a, b), f16::from_f32(1.0 / 3.0));
        assert_eq!(
            Float::sqrt(bf16::from_f32(2.0)),
            bf16::from_f32(2f32.sqrt())
        );
        assert_eq!(<f16 as Arith>::from_acc(65520.0), f16::INFINITY);
        assert_eq!(Arith::to_real(3i64), 3.0f32);
        assert_eq!(Arith::to_real(true), 1.0f32);
    }

    #[test]
    fn sign_floor_ceil() {
        assert_eq!(Arith::sign(-7i8), -1);
        assert_eq!(Arith::sign(0u8), 0);
        assert_eq!(Arith::sign(200u8), 1);
        assert_eq!(Arith::sign(-2.5f64), -1.0);
        assert!(Arith::sign(-0.0f32).is_sign_positive());
        assert!(Arith::sign(f16::NAN).is_nan());
        assert!(Arith::sign(true));
        assert_eq!(Arith::floor(-2.5f32), -3.0);
        assert_eq!(Arith::ceil(bf16::from_f32(-2.5)), bf16::from_f32(-2.0));
        assert_eq!(Arith::floor(-7i32), -7);
        assert!(Arith::ceil(-0.5f64).is_sign_negative());
    }

    #[test]
    fn numpy_round_with_decimals() {
        assert_eq!(power_of_ten(0), 1.0);
        assert_eq!(power_of_ten(12), 1e12);
        assert_eq!(power_of_ten(400), f64::INFINITY);
        assert_eq!(power_of_ten(u32::MAX), f64::INFINITY);
        let cases = [
            (2.5f64, 0, 2.0),
            (3.5, 0, 4.0),
            (-2.5, 0, -2.0),
            (0.125, 2, 0.12),
            (0.135, 2, 0.14),
            (1250.0, -2, 1200.0),
            (1350.0, -2, 1400.0),
            (-5.0, -1, -0.0),
            (1.5, 400, 1.5),
            (123.0, -400, 0.0),
        ];
        for (x, d, want) in cases {
            assert_eq!(Arith::round_to(x, d), want, "round({x}, {d})");
            assert_eq!(
                Arith::round_to(x as f32, d),
                want as f32,
                "f32 round({x}, {d})"
            );
        }
        assert!(Arith::round_to(-123.0f64, -400).is_sign_negative());
        assert_eq!(Arith::round_to(f64::INFINITY, -3), f64::INFINITY);
        assert!(Arith::round_to(f32::NAN, 2).is_nan());
        // Integers: unchanged for decimals >= 0, through f64 below (half to even).
        assert_eq!(Arith::round_to(25i64, 5), 25);
        assert_eq!(Arith::round_to(25i64, -1), 20);
        assert_eq!(Arith::round_to(35i16, -1), 40);
        assert_eq!(Arith::round_to(-25i8, -1), -20);
        assert_eq!(Arith::round_to(251u8, -1), 250);
        assert_eq!(Arith::round_to(f16::from_f32(2.25), 1), f16::from_f32(2.2));
    }

    #[test]
    fn float_functions_of_halves_round_once_from_f32() {
        let x = f16::from_f32(0.7);
        assert_eq!(Float::sin(x), f16::from_f32(x.to_f32().sin()));
        assert_eq!(Float::atanh(x), f16::from_f32(x.to_f32().atanh()));
        let y = bf16::from_f32(3.0);
        assert_eq!(Float::log10(y), bf16::from_f32(3f32.log10()));
        assert_eq!(Float::recip(y), bf16::from_f32(1.0 / 3.0));
        assert_eq!(
            Float::round_ties_even(f16::from_f32(2.5)),
            f16::from_f32(2.0)
        );
        assert!(Float::acosh(0.5f64).is_nan());
        assert_eq!(Float::exp2(10.0f32), 1024.0);
    }

    #[test]
    fn truth_values() {
        assert!(truth(f32::NAN) && truth(-1i8) && truth(true));
        assert!(!truth(0.0f64) && !truth(-0.0f32) && !truth(0u8) && !truth(false));
    }
}

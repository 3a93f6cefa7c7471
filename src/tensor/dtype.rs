//! Element types, PyTorch-style type promotion, and the single dtype-dispatch macro.

use half::{bf16, f16};
use std::fmt;

use super::storage::Storage;

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

/// Coarse kind used by promotion: bool < integer < float.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Int,
    Float,
}

impl DType {
    pub const ALL: [DType; 13] = [
        DType::Bool,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// The default dtype for float literals and float results of integer inputs.
    pub const DEFAULT_FLOAT: DType = DType::F32;

    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::U16 | DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::U64 | DType::I64 | DType::F64 => 8,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
            | DType::I8
            | DType::I16
            | DType::I32
            | DType::I64 => Category::Int,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Float,
        }
    }

    pub fn is_float(self) -> bool {
        self.category() == Category::Float
    }

    pub fn is_int(self) -> bool {
        self.category() == Category::Int
    }

    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// The dtype a float-valued function (sqrt, exp, mean, ...) returns for this input.
    pub fn float_result(self) -> DType {
        if self.is_float() {
            self
        } else {
            DType::DEFAULT_FLOAT
        }
    }

    /// The gap between 1 and the next representable value (`finfo(dtype).eps`); for
    /// bool and integers, that of the default float dtype they compute in.
    pub fn machine_epsilon(self) -> f64 {
        match self.float_result() {
            DType::F16 => f64::from(f16::EPSILON),
            DType::BF16 => f64::from(bf16::EPSILON),
            DType::F64 => f64::EPSILON,
            _ => f64::from(f32::EPSILON),
        }
    }

    /// `torch.promote_types` (NumPy's table for unsigned with signed integers): the
    /// smallest dtype both operands convert to safely.
    pub fn promote(a: DType, b: DType) -> DType {
        use DType::*;
        if a == b {
            return a;
        }
        match (a.category(), b.category()) {
            (Category::Bool, _) => b,
            (_, Category::Bool) => a,
            (Category::Int, Category::Float) => b,
            (Category::Float, Category::Int) => a,
            (Category::Int, Category::Int) => {
                let (u, s) = match (a.is_unsigned(), b.is_unsigned()) {
                    (true, false) => (a, b),
                    (false, true) => (b, a),
                    _ => return if a.size() >= b.size() { a } else { b },
                };
                // NumPy's table: the smallest signed type holding both; none holds u64
                // and a signed type, so that pair goes to f64.
                if s.size() > u.size() {
                    s
                } else {
                    match u {
                        U8 => I16,
                        U16 => I32,
                        U32 => I64,
                        _ => F64,
                    }
                }
            }
            (Category::Float, Category::Float) => match (a, b) {
                (F16, BF16) | (BF16, F16) => F32,
                _ if a.size() >= b.size() => a,
                _ => b,
            },
        }
    }

    /// Promotion of a tensor with a weak (Python-style) scalar of `scalar` category:
    /// the tensor keeps its dtype unless the scalar is of a higher category (NEP 50).
    pub fn promote_weak(tensor: DType, scalar: Category) -> DType {
        if scalar <= tensor.category() {
            tensor
        } else {
            match scalar {
                Category::Bool => DType::Bool,
                Category::Int => DType::I64,
                Category::Float => DType::DEFAULT_FLOAT,
            }
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type that can live in a tensor. Conversions follow NumPy's `astype`:
/// integers wrap, floats truncate toward zero when cast to integers.
pub trait Elem: Copy + Default + Send + Sync + PartialOrd + fmt::Debug + 'static {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn from_f64(v: f64) -> Self;
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
    fn slice(storage: &Storage) -> Option<&[Self]>;
    fn vec_mut(storage: &mut Storage) -> Option<&mut Vec<Self>>;
    fn into_storage(v: Vec<Self>) -> Storage;

    /// Converts between element types the way `astype` does.
    #[inline]
    fn cast<D: Elem>(self) -> D {
        // i64 carries a u64's bits, not its value: a float target takes the value.
        if Self::DTYPE.is_float() || (Self::DTYPE == DType::U64 && D::DTYPE.is_float()) {
            D::from_f64(self.to_f64())
        } else {
            D::from_i64(self.to_i64())
        }
    }
}

macro_rules! impl_elem {
    ($t:ty, $variant:ident, |$a:ident| $to_f64:expr, |$b:ident| $from_f64:expr, |$c:ident| $to_i64:expr, |$d:ident| $from_i64:expr) => {
        impl Elem for $t {
            const DTYPE: DType = DType::$variant;
            #[inline]
            fn to_f64(self) -> f64 {
                let $a = self;
                $to_f64
            }
            #[inline]
            fn from_f64($b: f64) -> Self {
                $from_f64
            }
            #[inline]
            fn to_i64(self) -> i64 {
                let $c = self;
                $to_i64
            }
            #[inline]
            fn from_i64($d: i64) -> Self {
                $from_i64
            }
            fn slice(storage: &Storage) -> Option<&[Self]> {
                match storage {
                    Storage::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn vec_mut(storage: &mut Storage) -> Option<&mut Vec<Self>> {
                match storage {
                    Storage::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn into_storage(v: Vec<Self>) -> Storage {
                Storage::$variant(v)
            }
        }
    };
}

impl_elem!(
    bool,
    Bool,
    |x| x as u8 as f64,
    |v| v != 0.0,
    |x| x as i64,
    |v| v != 0
);
impl_elem!(
    u8,
    U8,
    |x| x as f64,
    |v| v as i64 as u8,
    |x| x as i64,
    |v| v as u8
);
impl_elem!(
    u16,
    U16,
    |x| x as f64,
    |v| v as i64 as u16,
    |x| x as i64,
    |v| v as u16
);
impl_elem!(
    u32,
    U32,
    |x| x as f64,
    |v| v as i64 as u32,
    |x| x as i64,
    |v| v as u32
);
// i64 carries u64's bits (to_i64 then from_i64 is the identity); floats at or above
// 2^63 convert directly, since going through i64 would saturate them.
impl_elem!(
    u64,
    U64,
    |x| x as f64,
    |v| if v >= (1u64 << 63) as f64 {
        v as u64
    } else {
        v as i64 as u64
    },
    |x| x as i64,
    |v| v as u64
);
impl_elem!(
    i8,
    I8,
    |x| x as f64,
    |v| v as i64 as i8,
    |x| x as i64,
    |v| v as i8
);
impl_elem!(
    i16,
    I16,
    |x| x as f64,
    |v| v as i64 as i16,
    |x| x as i64,
    |v| v as i16
);
impl_elem!(
    i32,
    I32,
    |x| x as f64,
    |v| v as i64 as i32,
    |x| x as i64,
    |v| v as i32
);
impl_elem!(i64, I64, |x| x as f64, |v| v as i64, |x| x, |v| v);
impl_elem!(
    f16,
    F16,
    |x| x.to_f64(),
    |v| f16::from_f64(v),
    |x| x.to_f64() as i64,
    |v| f16::from_f64(v as f64)
);
impl_elem!(
    bf16,
    BF16,
    |x| x.to_f64(),
    |v| bf16::from_f64(v),
    |x| x.to_f64() as i64,
    |v| bf16::from_f64(v as f64)
);
impl_elem!(f32, F32, |x| x as f64, |v| v as f32, |x| x as i64, |v| v
    as f32);
impl_elem!(f64, F64, |x| x, |v| v, |x| x as i64, |v| v as f64);

/// Runs `$body` with the type alias `$T` bound to the Rust element type of `$dtype`.
/// This is the one place that turns a runtime dtype into a static type.
#[macro_export]
macro_rules! dispatch {
    ($dtype:expr, $T:ident => $body:expr) => {{
        use $crate::tensor::dtype::DType as __D;
        match $dtype {
            __D::Bool => {
                type $T = bool;
                $body
            }
            __D::U8 => {
                type $T = u8;
                $body
            }
            __D::U16 => {
                type $T = u16;
                $body
            }
            __D::U32 => {
                type $T = u32;
                $body
            }
            __D::U64 => {
                type $T = u64;
                $body
            }
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            __D::F16 => {
                type $T = half::f16;
                $body
            }
            __D::BF16 => {
                type $T = half::bf16;
                $body
            }
            __D::F32 => {
                type $T = f32;
                $body
            }
            __D::F64 => {
                type $T = f64;
                $body
            }
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn promotion_matches_torch() {
        assert_eq!(DType::promote(U8, I8), I16);
        assert_eq!(DType::promote(U8, I32), I32);
        assert_eq!(DType::promote(Bool, U8), U8);
        assert_eq!(DType::promote(I64, F16), F16);
        assert_eq!(DType::promote(F16, BF16), F32);
        assert_eq!(DType::promote(BF16, F64), F64);
        assert_eq!(DType::promote(I32, I16), I32);
    }

    /// Every pair of integer dtypes against `numpy.promote_types`.
    #[test]
    fn unsigned_with_signed_matches_numpy() {
        let table = [
            (U8, U16, U16),
            (U16, U64, U64),
            (U8, I16, I16),
            (U16, I8, I32),
            (U16, I16, I32),
            (U16, I64, I64),
            (U32, I8, I64),
            (U32, I32, I64),
            (U32, I64, I64),
            (U64, I8, F64),
            (U64, I64, F64),
            (U64, U8, U64),
            (U32, F16, F16),
            (Bool, U64, U64),
        ];
        for (a, b, want) in table {
            assert_eq!(DType::promote(a, b), want, "{a} with {b}");
            assert_eq!(DType::promote(b, a), want, "{b} with {a}");
        }
    }

    #[test]
    fn weak_scalars_keep_tensor_dtype() {
        assert_eq!(DType::promote_weak(I32, Category::Int), I32);
        assert_eq!(DType::promote_weak(I64, Category::Float), F32);
        assert_eq!(DType::promote_weak(F16, Category::Float), F16);
        assert_eq!(DType::promote_weak(Bool, Category::Int), I64);
    }

    #[test]
    fn casts_wrap_and_truncate_like_numpy() {
        assert_eq!(300i64.cast::<u8>(), 44);
        assert_eq!((-1.7f64).cast::<i32>(), -1);
        assert!(f64::NAN.cast::<bool>());
        assert_eq!(2.5f32.cast::<f16>(), f16::from_f32(2.5));
        assert_eq!(u64::MAX.cast::<i32>(), -1);
        assert_eq!((-1i64).cast::<u64>(), u64::MAX);
        assert_eq!(1.8446744073709552e19f64.cast::<u64>(), u64::MAX);
        assert_eq!(9.3e18f64.cast::<u64>(), 9_300_000_000_000_000_000);
        assert_eq!(u64::MAX.cast::<f64>(), 1.8446744073709552e19);
        assert_eq!(70000i64.cast::<u16>(), 4464);
    }
}

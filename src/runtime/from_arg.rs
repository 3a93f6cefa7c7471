//! Converting an argument to the Rust type a builtin declares for it, with the
//! type errors (and spans) every builtin shares.

use crate::autograd::rules::VarOperand;
use crate::autograd::Var;
use crate::diag::Diagnostic;
use crate::ops::Operand;
use crate::tensor::{DType, Tensor};

use super::args::ArgVal;
use super::bound::Arg;
use super::value::{Dict, Value};

/// A parameter type of a builtin declaration.
pub trait FromArg<'a>: Sized {
    /// `*name`: the parameter collects the remaining positional arguments.
    const VARIADIC: bool = false;
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic>;
}

/// Absent (or `none`) gives `None`; anything else converts as `T`.
impl<'a, T: FromArg<'a>> FromArg<'a> for Option<T> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.get() {
            None => Ok(None),
            Some(_) => T::from_arg(arg).map(Some),
        }
    }
}

/// An option that, when not passed, keeps its current value: the declared
/// default documents the initial value and is not applied
/// (`set_printoptions(precision=8)`).
pub struct Keep<T>(pub Option<T>);

impl<'a, T: FromArg<'a>> FromArg<'a> for Keep<T> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.get() {
            Some(_) if !arg.defaulted => T::from_arg(arg).map(|v| Keep(Some(v))),
            _ => Ok(Keep(None)),
        }
    }
}

/// The remaining positional arguments (`*values`).
pub struct Rest<'a>(pub &'a [ArgVal]);

impl Rest<'_> {
    /// The arguments as tensors (numbers as 0-d ones); an error names `op` and the
    /// first argument that is neither.
    pub fn tensors(&self, op: &str) -> Result<Vec<Tensor>, Diagnostic> {
        Ok(self.vars(op)?.into_iter().map(Var::into_tensor).collect())
    }

    /// The arguments as tensors keeping their tracks for gradients (numbers as 0-d
    /// constants).
    pub fn vars(&self, op: &str) -> Result<Vec<Var>, Diagnostic> {
        self.0
            .iter()
            .map(|arg| match &arg.value {
                Value::Tensor(t) => Ok((**t).clone()),
                other => other.to_tensor().map(Var::constant).ok_or_else(|| {
                    Diagnostic::new(
                        arg.span,
                        format!("{op} needs tensors or numbers, got {}", other.describe()),
                    )
                }),
            })
            .collect()
    }
}

impl<'a> FromArg<'a> for Rest<'a> {
    const VARIADIC: bool = true;
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        Ok(Rest(arg.rest()))
    }
}

/// Any value, as passed.
impl<'a> FromArg<'a> for &'a Value {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        arg.value()
    }
}

impl<'a> FromArg<'a> for Tensor {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        v.to_tensor()
            .ok_or_else(|| arg.type_err("a tensor or number", v))
    }
}

/// A tensor or a number: [`exact`](TensorLike::exact) keeps a float scalar's 53
/// bits (for a value converted next to a dtype the caller names),
/// [`default`](TensorLike::default) makes it f32 as a literal would.
pub struct TensorLike {
    exact: Tensor,
    float_scalar: bool,
}

impl TensorLike {
    pub fn exact(self) -> Tensor {
        self.exact
    }

    pub fn default(self) -> Tensor {
        if self.float_scalar {
            self.exact.to_dtype(DType::DEFAULT_FLOAT)
        } else {
            self.exact
        }
    }
}

impl<'a> FromArg<'a> for TensorLike {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        let exact = v
            .to_tensor_exact()
            .ok_or_else(|| arg.type_err("a tensor or number", v))?;
        Ok(TensorLike {
            exact,
            float_scalar: matches!(v, Value::Float(_)),
        })
    }
}

/// A tensor, or a number kept weak (`maximum(x, 0)` keeps x's dtype).
impl<'a> FromArg<'a> for Operand<'a> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        v.as_operand()
            .ok_or_else(|| arg.type_err("a tensor or number", v))
    }
}

/// A tensor keeping its track for gradients, or a number kept weak.
impl<'a> FromArg<'a> for VarOperand<'a> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        v.as_var_operand()
            .ok_or_else(|| arg.type_err("a tensor or number", v))
    }
}

/// A tensor keeping its track for gradients (a number as a 0-d tensor).
impl<'a> FromArg<'a> for Var {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.value()? {
            Value::Tensor(t) => Ok((**t).clone()),
            v => v
                .to_tensor()
                .map(Var::constant)
                .ok_or_else(|| arg.type_err("a tensor or number", v)),
        }
    }
}

impl<'a> FromArg<'a> for i64 {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        v.as_int().ok_or_else(|| arg.type_err("an integer", v))
    }
}

/// A non-negative integer that fits a dimension or count.
impl<'a> FromArg<'a> for usize {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        let n = v.as_int().ok_or_else(|| arg.type_err("an integer", v))?;
        usize::try_from(n)
            .map_err(|_| arg.err(format!("`{}` must not be negative, got {n}", arg.name())))
    }
}

impl<'a> FromArg<'a> for f64 {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        v.as_f64().ok_or_else(|| arg.type_err("a number", v))
    }
}

impl<'a> FromArg<'a> for bool {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.value()? {
            Value::Bool(b) => Ok(*b),
            v => Err(arg.type_err("true or false", v)),
        }
    }
}

/// A string, borrowed (a long text is not copied to be searched).
impl<'a> FromArg<'a> for &'a str {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.value()? {
            Value::Str(s) => Ok(s),
            v => Err(arg.type_err("a string", v)),
        }
    }
}

impl<'a> FromArg<'a> for String {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        <&str>::from_arg(arg).map(str::to_owned)
    }
}

impl<'a> FromArg<'a> for &'a Dict {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.value()? {
            Value::Dict(d) => Ok(d),
            v => Err(arg.type_err("a dict", v)),
        }
    }
}

/// A dtype, or its name as a string.
impl<'a> FromArg<'a> for DType {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        match arg.value()? {
            Value::DType(d) => Ok(*d),
            Value::Str(s) => DType::from_name(s).ok_or_else(|| {
                arg.err(format!("unknown dtype \"{s}\""))
                    .with_note("dtypes: bool u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64")
            }),
            v => Err(arg.type_err("a dtype such as f32", v)),
        }
    }
}

/// An axis list: an int, or a list/tuple of ints.
pub struct Axes(pub Vec<i64>);

impl<'a> FromArg<'a> for Axes {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        v.as_int_list()
            .map(Axes)
            .ok_or_else(|| arg.type_err("an int or a list of ints", v))
    }
}

/// A shape: an int, or a list/tuple of non-negative ints.
pub struct Shape(pub Vec<usize>);

impl<'a> FromArg<'a> for Shape {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        let dims = v
            .as_int_list()
            .ok_or_else(|| arg.type_err("a shape (an int or a list of ints)", v))?;
        dims.iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| arg.err(format!("negative dimension {d} in shape")))
            })
            .collect::<Result<_, _>>()
            .map(Shape)
    }
}

/// A size per spatial dim (stride, padding, ...): an int, repeated for each of
/// the `N` dims, or a list of `N` non-negative ints.
pub struct Sizes<const N: usize>(pub Vec<usize>);

impl<'a, const N: usize> FromArg<'a> for Sizes<N> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        let v = arg.value()?;
        let name = arg.name();
        let want = || format!("`{name}` must be an int or a list of {N} ints");
        let values = match v.as_int() {
            Some(n) => vec![n; N],
            None => v
                .as_int_list()
                .ok_or_else(|| arg.err(format!("{}, got {}", want(), v.describe())))?,
        };
        if values.len() != N {
            return Err(arg.err(format!("{}, got {} values", want(), values.len())));
        }
        values
            .iter()
            .map(|&n| {
                usize::try_from(n)
                    .map_err(|_| arg.err(format!("`{name}` must not be negative, got {n}")))
            })
            .collect::<Result<_, _>>()
            .map(Sizes)
    }
}

/// Any value with where it was written (the call, for a default).
pub struct Spanned<'a> {
    pub value: &'a Value,
    pub span: crate::span::Span,
}

impl<'a> FromArg<'a> for Spanned<'a> {
    fn from_arg(arg: Arg<'a>) -> Result<Self, Diagnostic> {
        Ok(Spanned {
            value: arg.value()?,
            span: arg.span,
        })
    }
}

//! Binding call arguments to a builtin's parameters, and converting them to the
//! types the ops want, with errors that point at the offending argument.

use crate::diag::Diagnostic;
use crate::ops::Operand;
use crate::syntax::Span;
use crate::tensor::{DType, Tensor, TensorError};

use super::value::Value;

use super::native::Builtin;
use super::tensor_diag::tensor_diag;

/// An evaluated argument and where it was written.
#[derive(Clone, Debug)]
pub struct ArgVal {
    pub value: Value,
    pub span: Span,
}

/// The arguments of one call, before binding.
#[derive(Debug)]
pub struct CallArgs {
    pub span: Span,
    pub positional: Vec<ArgVal>,
    pub keyword: Vec<(String, Span, ArgVal)>,
}

/// One entry of a builtin's parameter list, parsed from `name|alias=default` / `*name`.
pub struct ParamSpec<'a> {
    pub names: Vec<&'a str>,
    pub default: Option<&'a str>,
    pub variadic: bool,
}

impl<'a> ParamSpec<'a> {
    pub fn parse(spec: &'a str) -> ParamSpec<'a> {
        let variadic = spec.starts_with('*');
        let spec = spec.trim_start_matches('*');
        let (names, default) = match spec.split_once('=') {
            Some((n, d)) => (n, Some(d)),
            None => (spec, None),
        };
        ParamSpec {
            names: names.split('|').collect(),
            default,
            variadic,
        }
    }

    pub fn name(&self) -> &'a str {
        self.names.first().copied().unwrap_or("")
    }

    pub fn display(&self) -> String {
        match (self.variadic, self.default) {
            (true, _) => format!("*{}", self.name()),
            (false, Some(d)) => format!("{}={d}", self.name()),
            (false, None) => self.name().to_string(),
        }
    }
}

impl CallArgs {
    /// Matches positional and keyword arguments to `b`'s parameters.
    pub fn bind(self, b: &'static Builtin) -> Result<Bound, Diagnostic> {
        let specs: Vec<ParamSpec> = b.params.iter().map(|p| ParamSpec::parse(p)).collect();
        let mut slots: Vec<Option<ArgVal>> = vec![None; specs.len()];
        let mut rest = Vec::new();
        let fixed = specs.iter().take_while(|s| !s.variadic).count();
        let has_varargs = fixed < specs.len();
        let given = self.positional.len();
        for (i, arg) in self.positional.into_iter().enumerate() {
            if i < fixed {
                slots[i] = Some(arg);
            } else if has_varargs {
                rest.push(arg);
            } else {
                let takes = match fixed {
                    0 => "no arguments".to_string(),
                    1 => "at most 1 argument".to_string(),
                    n => format!("at most {n} arguments"),
                };
                return Err(Diagnostic::new(
                    arg.span,
                    format!("{} takes {takes}, got {given}", b.name),
                )
                .with_note(format!("signature: {}", b.signature())));
            }
        }
        for (name, name_span, arg) in self.keyword {
            let Some(i) = specs
                .iter()
                .position(|s| !s.variadic && s.names.contains(&name.as_str()))
            else {
                return Err(Diagnostic::new(
                    name_span,
                    format!("{} has no parameter named `{name}`", b.name),
                )
                .with_note(format!("signature: {}", b.signature())));
            };
            if slots[i].is_some() {
                return Err(Diagnostic::new(
                    name_span,
                    format!("{} got two values for `{}`", b.name, specs[i].name()),
                ));
            }
            slots[i] = Some(arg);
        }
        for (spec, slot) in specs.iter().zip(&slots) {
            if slot.is_none() && spec.default.is_none() && !spec.variadic {
                return Err(Diagnostic::new(
                    self.span,
                    format!("{} is missing the argument `{}`", b.name, spec.name()),
                )
                .with_note(format!("signature: {}", b.signature())));
            }
        }
        Ok(Bound {
            builtin: b,
            span: self.span,
            slots,
            rest,
        })
    }
}

/// Arguments bound to parameter slots (by index in the builtin's `params`).
pub struct Bound {
    pub builtin: &'static Builtin,
    pub span: Span,
    slots: Vec<Option<ArgVal>>,
    /// Extra positional arguments collected by a `*name` parameter.
    pub rest: Vec<ArgVal>,
}

impl Bound {
    fn param_name(&self, i: usize) -> &'static str {
        self.builtin
            .params
            .get(i)
            .map_or("?", |p| ParamSpec::parse(p).name())
    }

    /// The argument in slot `i`, treating an explicit `none` as absent.
    pub fn get(&self, i: usize) -> Option<&ArgVal> {
        self.slots
            .get(i)
            .and_then(|s| s.as_ref())
            .filter(|a| !matches!(a.value, Value::None))
    }

    /// The argument in slot `i` (a required one, so a missing value is an error).
    pub fn req(&self, i: usize) -> Result<&ArgVal, Diagnostic> {
        self.get(i).ok_or_else(|| {
            self.err(format!(
                "{} needs a value for `{}`, got none",
                self.builtin.name,
                self.param_name(i)
            ))
        })
    }

    /// A diagnostic at the call.
    pub fn err(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.span, msg)
    }

    /// A diagnostic pointing at argument `i`.
    pub fn arg_err(&self, i: usize, msg: impl Into<String>) -> Diagnostic {
        let span = self.get(i).map_or(self.span, |a| a.span);
        Diagnostic::new(span, msg).with_note(format!("signature: {}", self.builtin.signature()))
    }

    fn type_err(&self, i: usize, want: &str, got: &Value) -> Diagnostic {
        self.arg_err(
            i,
            format!(
                "argument `{}` of {} must be {want}, got {}",
                self.param_name(i),
                self.builtin.name,
                got.describe()
            ),
        )
    }

    /// A tensor error at the call, labelling the first two arguments for broadcast errors.
    pub fn tensor_err(&self, e: TensorError) -> Diagnostic {
        let spans: Vec<Span> = self.slots.iter().flatten().map(|a| a.span).collect();
        tensor_diag(e, self.span, &spans)
    }

    pub fn tensor(&self, i: usize) -> Result<Tensor, Diagnostic> {
        let a = self.req(i)?;
        a.value
            .to_tensor()
            .ok_or_else(|| self.type_err(i, "a tensor or number", &a.value))
    }

    /// A tensor, or a number kept weak (`maximum(x, 0)` keeps x's dtype).
    pub fn operand(&self, i: usize) -> Result<Operand<'_>, Diagnostic> {
        let a = self.req(i)?;
        a.value
            .as_operand()
            .ok_or_else(|| self.type_err(i, "a tensor or number", &a.value))
    }

    pub fn opt_tensor(&self, i: usize) -> Result<Option<Tensor>, Diagnostic> {
        self.get(i).map(|_| self.tensor(i)).transpose()
    }

    pub fn int(&self, i: usize) -> Result<i64, Diagnostic> {
        let a = self.req(i)?;
        a.value
            .as_int()
            .ok_or_else(|| self.type_err(i, "an integer", &a.value))
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, Diagnostic> {
        self.get(i).map(|_| self.int(i)).transpose()
    }

    /// A non-negative integer that fits a dimension or count.
    pub fn count(&self, i: usize) -> Result<usize, Diagnostic> {
        let v = self.int(i)?;
        usize::try_from(v).map_err(|_| {
            self.arg_err(
                i,
                format!("`{}` must not be negative, got {v}", self.param_name(i)),
            )
        })
    }

    pub fn float(&self, i: usize) -> Result<f64, Diagnostic> {
        let a = self.req(i)?;
        a.value
            .as_f64()
            .ok_or_else(|| self.type_err(i, "a number", &a.value))
    }

    pub fn opt_float(&self, i: usize) -> Result<Option<f64>, Diagnostic> {
        self.get(i).map(|_| self.float(i)).transpose()
    }

    pub fn bool_or(&self, i: usize, default: bool) -> Result<bool, Diagnostic> {
        match self.get(i) {
            None => Ok(default),
            Some(a) => match a.value {
                Value::Bool(b) => Ok(b),
                ref v => Err(self.type_err(i, "true or false", v)),
            },
        }
    }

    pub fn string(&self, i: usize) -> Result<String, Diagnostic> {
        let a = self.req(i)?;
        match &a.value {
            Value::Str(s) => Ok(s.to_string()),
            v => Err(self.type_err(i, "a string", v)),
        }
    }

    pub fn opt_dtype(&self, i: usize) -> Result<Option<DType>, Diagnostic> {
        let Some(a) = self.get(i) else {
            return Ok(None);
        };
        match &a.value {
            Value::DType(d) => Ok(Some(*d)),
            Value::Str(s) => DType::from_name(s).map(Some).ok_or_else(|| {
                self.arg_err(i, format!("unknown dtype \"{s}\""))
                    .with_note("dtypes: bool u8 i8 i16 i32 i64 f16 bf16 f32 f64")
            }),
            v => Err(self.type_err(i, "a dtype such as f32", v)),
        }
    }

    /// An axis list: an int, or a list/tuple of ints; `None` when absent.
    pub fn axes(&self, i: usize) -> Result<Option<Vec<i64>>, Diagnostic> {
        let Some(a) = self.get(i) else {
            return Ok(None);
        };
        a.value
            .as_int_list()
            .map(Some)
            .ok_or_else(|| self.type_err(i, "an int or a list of ints", &a.value))
    }

    /// A shape: an int, or a list/tuple of non-negative ints.
    pub fn shape(&self, i: usize) -> Result<Vec<usize>, Diagnostic> {
        let a = self.req(i)?;
        let dims = a
            .value
            .as_int_list()
            .ok_or_else(|| self.type_err(i, "a shape (an int or a list of ints)", &a.value))?;
        dims.iter()
            .map(|&d| {
                usize::try_from(d)
                    .map_err(|_| self.arg_err(i, format!("negative dimension {d} in shape")))
            })
            .collect()
    }
}

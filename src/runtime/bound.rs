//! A builtin's arguments after binding: what was passed for each declared
//! parameter, the declared defaults for the rest, and errors that point at the
//! offending argument.

use std::cell::Cell;

use crate::autograd::{GradError, Var};
use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;
use crate::tensor::TensorError;

use super::args::{ArgVal, Slots};
use super::default_literal::parse_default;
use super::from_arg::FromArg;
use super::grad_diag::grad_diag;
use super::native::Builtin;
use super::tensor_diag::tensor_diag;
use super::value::Value;

/// Arguments bound to a builtin's parameters, taken in declaration order by
/// the code `builtin!` generates.
pub struct Bound {
    pub builtin: &'static Builtin,
    pub span: Span,
    given: Vec<Option<ArgVal>>,
    /// The declared default of each parameter nothing (or `none`) was passed for.
    defaults: Vec<Option<Value>>,
    rest: Vec<ArgVal>,
    next: Cell<usize>,
}

impl Bound {
    /// Binds `slots` to `builtin`, converting the defaults the call relies on.
    pub fn new(builtin: &'static Builtin, slots: Slots) -> Result<Bound, Diagnostic> {
        let mut defaults = Vec::with_capacity(builtin.params.len());
        for (p, given) in builtin.params.iter().zip(&slots.slots) {
            let passed = given
                .as_ref()
                .is_some_and(|a| !matches!(a.value, Value::None));
            let default = match p.default {
                Some(text) if !passed => parse_default(text).map(Some).ok_or_else(|| {
                    Diagnostic::new(
                        slots.span,
                        format!("{}: bad default `{text}` for `{}`", builtin.name, p.name()),
                    )
                })?,
                _ => None,
            };
            defaults.push(default.filter(|v| !matches!(v, Value::None)));
        }
        Ok(Bound {
            builtin,
            span: slots.span,
            given: slots.slots,
            defaults,
            rest: slots.rest,
            next: Cell::new(0),
        })
    }

    /// The next declared parameter, converted to `T`.
    pub fn next_arg<'a, T: FromArg<'a>>(&'a self) -> Result<T, Diagnostic> {
        let i = self.next.get();
        self.next.set(i + 1);
        T::from_arg(self.arg(i))
    }

    /// Parameter `name` converted to `T` again (after the body looked at it as
    /// another type, e.g. a raw `&Value`).
    pub fn convert<'a, T: FromArg<'a>>(&'a self, name: &str) -> Result<T, Diagnostic> {
        let i = self.builtin.params.iter().position(|p| p.name() == name);
        match i {
            Some(i) => T::from_arg(self.arg(i)),
            None => Err(self.err(format!("{} has no parameter `{name}`", self.builtin.name))),
        }
    }

    fn arg(&self, index: usize) -> Arg<'_> {
        let (value, span, defaulted) = match (self.passed(index), &self.defaults[index]) {
            (Some(a), _) => (Some(&a.value), a.span, false),
            (None, Some(d)) => (Some(d), self.span, true),
            (None, None) => (None, self.span, false),
        };
        Arg {
            bound: self,
            index,
            value,
            span,
            defaulted,
        }
    }

    /// What was passed for parameter `i`, treating an explicit `none` as absent.
    fn passed(&self, i: usize) -> Option<&ArgVal> {
        self.given
            .get(i)
            .and_then(|s| s.as_ref())
            .filter(|a| !matches!(a.value, Value::None))
    }

    /// What was passed for parameter `name` (not `none`), for labels in errors.
    pub fn given(&self, name: &str) -> Option<&ArgVal> {
        let i = self.builtin.params.iter().position(|p| p.name() == name)?;
        self.passed(i)
    }

    /// Whether `none` itself was passed for parameter `name` (the binding otherwise
    /// treats it as not passed): for a parameter whose default is not `none` but
    /// that takes it, as `sort(x, axis=none)`.
    pub fn passed_none(&self, name: &str) -> bool {
        let i = self.builtin.params.iter().position(|p| p.name() == name);
        i.and_then(|i| self.given.get(i))
            .and_then(|s| s.as_ref())
            .is_some_and(|a| matches!(a.value, Value::None))
    }

    /// The extra positional arguments a variadic parameter collected.
    pub(super) fn rest(&self) -> &[ArgVal] {
        &self.rest
    }

    /// A diagnostic at the call.
    pub fn err(&self, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.span, msg)
    }

    /// A diagnostic pointing at the argument given for parameter `name`.
    pub fn arg_err(&self, name: &str, msg: impl Into<String>) -> Diagnostic {
        let i = self.builtin.params.iter().position(|p| p.name() == name);
        self.arg_err_at(i, msg)
    }

    /// An argument's error is a value error, or a file error when the argument
    /// is a path (a file that is missing, unreadable or malformed).
    fn arg_err_at(&self, i: Option<usize>, msg: impl Into<String>) -> Diagnostic {
        let span = i.and_then(|i| self.passed(i)).map_or(self.span, |a| a.span);
        let is_path = i.is_some_and(|i| self.builtin.params[i].name() == "path");
        let kind = if is_path {
            ErrorKind::File
        } else {
            ErrorKind::Value
        };
        Diagnostic::new(span, msg)
            .with_note(format!("signature: {}", self.builtin.signature()))
            .with_kind(kind)
    }

    /// A tensor error at the call, labelling the first two arguments for broadcast errors.
    pub fn tensor_err(&self, e: TensorError) -> Diagnostic {
        let spans: Vec<Span> = self.given.iter().flatten().map(|a| a.span).collect();
        tensor_diag(e, self.span, &spans)
    }

    /// A recorded op's result as a value, its error at the call.
    pub fn recorded(&self, r: Result<Var, GradError>) -> Result<Value, Diagnostic> {
        r.map(Value::from).map_err(|e| self.grad_err(e))
    }

    /// A recorded op's error at the call.
    pub fn grad_err(&self, e: GradError) -> Diagnostic {
        match e {
            GradError::Tensor(e) => self.tensor_err(e),
            other => grad_diag(other, self.span),
        }
    }
}

/// One parameter's argument (or its default) as a conversion sees it.
#[derive(Clone)]
pub struct Arg<'a> {
    bound: &'a Bound,
    index: usize,
    value: Option<&'a Value>,
    /// Where the argument was written (the call when it is absent or defaulted).
    pub span: Span,
    /// The value is the declared default, nothing was passed.
    pub defaulted: bool,
}

impl<'a> Arg<'a> {
    /// The parameter's primary name.
    pub fn name(&self) -> &'static str {
        self.bound
            .builtin
            .params
            .get(self.index)
            .map_or("?", |p| p.name())
    }

    /// The builtin's name, for messages.
    pub fn callee(&self) -> &'static str {
        self.bound.builtin.name
    }

    /// The value, if one was passed (not `none`) or declared as default.
    pub fn get(&self) -> Option<&'a Value> {
        self.value
    }

    /// The value of a parameter that needs one.
    pub fn value(&self) -> Result<&'a Value, Diagnostic> {
        self.value.ok_or_else(|| {
            self.bound.err(format!(
                "{} needs a value for `{}`, got none",
                self.bound.builtin.name,
                self.name()
            ))
        })
    }

    /// The extra positional arguments (for a variadic parameter).
    pub fn rest(&self) -> &'a [ArgVal] {
        self.bound.rest()
    }

    /// A diagnostic pointing at this argument.
    pub fn err(&self, msg: impl Into<String>) -> Diagnostic {
        self.bound.arg_err_at(Some(self.index), msg)
    }

    /// A tensor error at the call.
    pub fn tensor_err(&self, e: TensorError) -> Diagnostic {
        self.bound.tensor_err(e)
    }

    /// "argument `axis` of sum must be an int or a list of ints, got ..."
    pub fn type_err(&self, want: &str, got: &Value) -> Diagnostic {
        self.err(format!(
            "argument `{}` of {} must be {want}, got {}",
            self.name(),
            self.bound.builtin.name,
            got.describe()
        ))
        .with_kind(ErrorKind::Type)
    }
}

//! Binding a call's arguments to a callee's parameters: the one binder for
//! builtins and user functions, with the four binding errors (too many, unknown
//! keyword, duplicate, missing).

use crate::diag::Diagnostic;
use crate::span::Span;

use super::value::Value;

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

/// What the binder needs to know of a callee: its parameters and how its
/// binding errors name it (builtins and user functions word them differently).
pub trait Callee {
    /// The callee as binding errors name it: `sum` or `` `f` ``.
    fn label(&self) -> String;
    /// How many positional arguments it takes, for "takes ..., got n".
    fn takes(&self, fixed: usize) -> String;
    /// The note added to binding errors: `signature: f(x, y)`.
    fn signature_note(&self) -> String;
    fn param_count(&self) -> usize;
    /// The primary name of parameter `i`.
    fn param_name(&self, i: usize) -> &str;
    /// Whether parameter `i` (a non-variadic one) answers to keyword `name`.
    fn accepts(&self, i: usize, name: &str) -> bool;
    fn has_default(&self, i: usize) -> bool;
    fn is_variadic(&self, i: usize) -> bool;
}

/// Arguments matched to parameter slots: `slots[i]` is what was passed for
/// parameter `i` (an explicit `none` included), `rest` the extra positional
/// arguments a variadic parameter collects.
#[derive(Debug)]
pub struct Slots {
    pub span: Span,
    pub slots: Vec<Option<ArgVal>>,
    pub rest: Vec<ArgVal>,
}

impl CallArgs {
    /// Matches positional and keyword arguments to `callee`'s parameters.
    pub fn bind(self, callee: &impl Callee) -> Result<Slots, Diagnostic> {
        let count = callee.param_count();
        let mut slots: Vec<Option<ArgVal>> = vec![None; count];
        let mut rest = Vec::new();
        let fixed = (0..count).take_while(|&i| !callee.is_variadic(i)).count();
        let has_varargs = fixed < count;
        let given = self.positional.len();
        for (i, arg) in self.positional.into_iter().enumerate() {
            if i < fixed {
                slots[i] = Some(arg);
            } else if has_varargs {
                rest.push(arg);
            } else {
                let msg = format!(
                    "{} takes {}, got {given}",
                    callee.label(),
                    callee.takes(fixed)
                );
                return Err(Diagnostic::new(arg.span, msg).with_note(callee.signature_note()));
            }
        }
        for (name, name_span, arg) in self.keyword {
            let Some(i) =
                (0..count).position(|i| !callee.is_variadic(i) && callee.accepts(i, &name))
            else {
                let msg = format!("{} has no parameter named `{name}`", callee.label());
                return Err(Diagnostic::new(name_span, msg).with_note(callee.signature_note()));
            };
            if slots[i].is_some() {
                let msg = format!(
                    "{} got two values for `{}`",
                    callee.label(),
                    callee.param_name(i)
                );
                return Err(Diagnostic::new(name_span, msg));
            }
            slots[i] = Some(arg);
        }
        for (i, slot) in slots.iter().enumerate() {
            if slot.is_none() && !callee.has_default(i) && !callee.is_variadic(i) {
                let msg = format!(
                    "{} is missing the argument `{}`",
                    callee.label(),
                    callee.param_name(i)
                );
                return Err(Diagnostic::new(self.span, msg).with_note(callee.signature_note()));
            }
        }
        Ok(Slots {
            span: self.span,
            slots,
            rest,
        })
    }
}

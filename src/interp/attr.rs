//! Attributes: the tensor attribute table, module members, dict keys.

use std::rc::Rc;

use crate::autograd::rules;
use crate::diag::Diagnostic;
use crate::ops::rearrange::swap_last_two;
use crate::runtime::value::{Key, Value};
use crate::runtime::{grad_diag, tensor_diag};
use crate::syntax::ast::Ident;

use super::Interp;

impl Interp {
    pub(super) fn attr(&self, v: &Value, name: &Ident) -> Result<Value, Diagnostic> {
        let ints = |xs: Vec<i64>| Value::Tuple(Rc::new(xs.into_iter().map(Value::Int).collect()));
        let found = match v {
            Value::Tensor(t) => match &*name.name {
                "shape" => Some(ints(t.shape().iter().map(|&d| d as i64).collect())),
                "strides" => Some(ints(t.strides().iter().map(|&s| s as i64).collect())),
                "dtype" => Some(Value::DType(t.dtype())),
                "ndim" => Some(Value::Int(t.ndim() as i64)),
                "numel" => Some(Value::Int(t.numel() as i64)),
                "nbytes" => Some(Value::Int(t.nbytes() as i64)),
                "is_contiguous" => Some(Value::Bool(t.is_contiguous())),
                "owns_data" => Some(Value::Bool(t.owns_data())),
                // NumPy's `.T` reverses all axes; torch's `.mT` swaps the last two.
                "T" => Some(Value::from(
                    rules::reverse_axes(t).map_err(|e| grad_diag(e, name.span))?,
                )),
                "mT" => {
                    swap_last_two(t).map_err(|e| tensor_diag(e, name.span, &[]))?;
                    let r = rules::transpose(t, -2, -1);
                    Some(Value::from(r.map_err(|e| grad_diag(e, name.span))?))
                }
                // Autograd (torch's names).
                "grad" => Some(t.grad().map_or(Value::None, Value::from)),
                "requires_grad" => Some(Value::Bool(t.requires_grad())),
                "is_leaf" => Some(Value::Bool(t.is_leaf())),
                "grad_fn" => Some(t.grad_fn().map_or(Value::None, Value::str)),
                _ => None,
            },
            Value::Module(m) => m.scope.lookup(&name.name),
            // `model.metadata`: string keys of a dict read as attributes.
            Value::Dict(d) => match d.get(&Key::Str(name.name.clone())) {
                Some(Value::Lazy(l)) => Some(l.force().map_err(|e| Diagnostic::new(name.span, e))?),
                other => other.cloned(),
            },
            Value::Quant(q) => {
                let shape = q.shape();
                match &*name.name {
                    "shape" => Some(ints(shape.iter().map(|&d| d as i64).collect())),
                    "dtype" => Some(Value::str(q.q.qtype.name())),
                    "ndim" => Some(Value::Int(shape.len() as i64)),
                    "numel" => Some(Value::Int(shape.iter().product::<usize>() as i64)),
                    "nbytes" => Some(Value::Int(q.q.nbytes() as i64)),
                    // A quantized tensor is 2-D: both transposes are the same.
                    "T" | "mT" => Some(Value::Quant(crate::runtime::value::QuantValue {
                        q: q.q.clone(),
                        transposed: !q.transposed,
                    })),
                    _ => None,
                }
            }
            _ => None,
        };
        found.ok_or_else(|| {
            let mut d = Diagnostic::new(name.span, format!("{} has no attribute `{}`", v.describe(), name.name));
            if matches!(v, Value::Tensor(_)) {
                d = d.with_note("tensor attributes: shape dtype ndim numel nbytes strides is_contiguous owns_data T mT");
            }
            d
        })
    }
}

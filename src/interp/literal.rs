//! Tensor literals: `[1, 2, 3]` → i64, any float → f32, all bools → bool; nested
//! lists stack along a new first axis and must not be ragged. A literal built
//! [`Floats::Wide`] (the data of `tensor([...], dtype=...)`) keeps its floats as f64.

use crate::autograd::{rules, Var};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::tensor::{DType, Tensor};

use crate::runtime::value::Value;

/// The dtype of a literal's float numbers.
#[derive(Clone, Copy, PartialEq)]
pub enum Floats {
    /// f32, the default float.
    Default,
    /// f64: every bit of the numbers, for a literal converted next to a named dtype.
    Wide,
}

/// [`build`] as a value, tracked for gradients when a row is.
pub fn build_value(
    items: Vec<(Value, Span)>,
    span: Span,
    floats: Floats,
) -> Result<Value, Diagnostic> {
    let rows: Option<Vec<Option<Var>>> = items
        .iter()
        .any(|(v, _)| matches!(v, Value::Tensor(t) if t.is_tracked()))
        .then(|| {
            items
                .iter()
                .map(|(v, _)| match v {
                    Value::Tensor(t) => Some((**t).clone()),
                    _ => None,
                })
                .collect()
        });
    let out = build(items, span, floats)?;
    Ok(match rows {
        Some(rows) => {
            let rows: Vec<Option<&Var>> = rows.iter().map(Option::as_ref).collect();
            Value::from(rules::stacked(&rows, out))
        }
        None => Value::from(out),
    })
}

pub fn build(items: Vec<(Value, Span)>, span: Span, floats: Floats) -> Result<Tensor, Diagnostic> {
    let tensor_err = |e: crate::tensor::TensorError| Diagnostic::new(span, e.to_string());
    if items.is_empty() {
        return Tensor::from_vec(Vec::<f32>::new(), &[0]).map_err(tensor_err);
    }
    if items.iter().all(|(v, _)| v.as_scalar().is_some()) {
        return scalars(&items, floats).map_err(tensor_err);
    }
    // Rows: every element a tensor (or a scalar next to 0-d tensors) of one shape.
    let mut parts = Vec::with_capacity(items.len());
    let mut dtype: Option<DType> = None;
    for (v, s) in &items {
        let t = match v {
            Value::Tensor(t) => t.tensor().clone(),
            // Weak: converted once, from its own value, to the rows' dtype.
            other => other.to_tensor_exact().ok_or_else(|| {
                Diagnostic::new(
                    *s,
                    format!("a tensor literal cannot hold {}", other.describe()),
                )
                .with_label(*s, format!("this is {}", other.describe()))
            })?,
        };
        if let Some((first, first_span)) = parts
            .first()
            .map(|(p, sp): &(Tensor, Span)| (p.shape().to_vec(), *sp))
        {
            if t.shape() != first.as_slice() {
                return Err(Diagnostic::new(
                    *s,
                    "ragged tensor literal: rows have different shapes",
                )
                .with_label(
                    first_span,
                    format!(
                        "this row has shape {}",
                        crate::tensor::shape::shape_str(&first)
                    ),
                )
                .with_label(
                    *s,
                    format!(
                        "this row has shape {}",
                        crate::tensor::shape::shape_str(t.shape())
                    ),
                ));
            }
        }
        // Scalars are weak: they don't widen the dtype of the tensors beside them.
        if matches!(v, Value::Tensor(_)) {
            dtype = Some(dtype.map_or(t.dtype(), |d| DType::promote(d, t.dtype())));
        }
        parts.push((t, *s));
    }
    let dtype = dtype.unwrap_or(DType::F32);
    let mut shape = vec![parts.len()];
    shape.extend_from_slice(parts[0].0.shape());
    crate::dispatch!(dtype, T => {
        let mut data: Vec<T> = Vec::new();
        for (p, _) in &parts {
            data.extend(p.to_vec::<T>());
        }
        Tensor::from_vec(data, &shape).map_err(tensor_err)
    })
}

fn scalars(items: &[(Value, Span)], floats: Floats) -> crate::tensor::Result<Tensor> {
    let n = items.len();
    let any_float = items.iter().any(|(v, _)| matches!(v, Value::Float(_)));
    let all_bool = items.iter().all(|(v, _)| matches!(v, Value::Bool(_)));
    let values = items.iter().filter_map(|(v, _)| v.as_scalar());
    if any_float && floats == Floats::Wide {
        Tensor::from_vec(values.map(|s| s.to_f64()).collect(), &[n])
    } else if any_float {
        Tensor::from_vec(values.map(|s| s.to_f64() as f32).collect(), &[n])
    } else if all_bool {
        Tensor::from_vec(values.map(|s| s.to_i64() != 0).collect(), &[n])
    } else {
        Tensor::from_vec(values.map(|s| s.to_i64()).collect(), &[n])
    }
}

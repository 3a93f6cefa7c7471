//! Assertions for scripts and golden tests.

use super::Builtin;
use crate::diag::Diagnostic;
use crate::ops::close::mismatch;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Spanned};
use crate::tensor::format::format_float_repr;
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "assert",
        doc: "Fails with msg (or \"assertion failed\") unless cond is true (a one-element tensor counts).",
        fn(_, _a; cond: Spanned, msg: Option<&Value> = none) {
            let ok = cond
                .value
                .truthy()
                .map_err(|msg| Diagnostic::new(cond.span, msg))?;
            if ok {
                return Ok(Value::None);
            }
            let msg = match msg {
                Some(m) => format!("assertion failed: {}", m.display(&Default::default())),
                None => "assertion failed".to_string(),
            };
            Err(Diagnostic::new(cond.span, msg))
        }
    },
    builtin! {
        name: "assert_close",
        doc: "Fails unless abs(actual - expected) <= atol + rtol * abs(expected) everywhere after broadcasting (numpy.testing.assert_allclose; nan equals nan).",
        fn(_, a; actual: Tensor, expected: Tensor, rtol: f64 = 1e-5, atol: f64 = 1e-8) {
            for (name, v) in [("rtol", rtol), ("atol", atol)] {
                if v.is_nan() || v < 0.0 {
                    let msg = format!("tolerances must be non-negative numbers, got {v}");
                    return Err(a.arg_err(name, msg));
                }
            }
            let Some(m) = mismatch(&actual, &expected, rtol, atol).map_err(|e| a.tensor_err(e))?
            else {
                return Ok(Value::None);
            };
            let idx: Vec<String> = m.worst_index.iter().map(|i| i.to_string()).collect();
            Err(a
                .err(format!(
                    "assert_close: {} of {} elements differ beyond rtol={rtol:e}, atol={atol:e}",
                    m.count, m.total
                ))
                .with_note(format!(
                    "worst at index [{}]: actual {}, expected {}",
                    idx.join(", "),
                    format_float_repr(m.worst_actual),
                    format_float_repr(m.worst_expected)
                ))
                .with_note(format!(
                    "max abs difference {:.3e}, max rel difference {:.3e}",
                    m.max_abs, m.max_rel
                )))
        }
    },
];

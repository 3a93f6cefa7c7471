//! Assertions for scripts and golden tests.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::ops::close::mismatch;
use crate::runtime::value::Value;
use crate::tensor::format::format_float_repr;

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "assert",
        params: &["cond", "msg=none"],
        doc: "Fails with msg (or \"assertion failed\") unless cond is true (a one-element tensor counts).",
        func: assert,
    },
    Builtin {
        name: "assert_close",
        params: &["actual", "expected", "rtol=1e-5", "atol=1e-8"],
        doc: "Fails unless abs(actual - expected) <= atol + rtol * abs(expected) everywhere after broadcasting (numpy.testing.assert_allclose; nan equals nan).",
        func: assert_close,
    },
];

fn assert(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let cond = a.req(0)?;
    let ok = cond
        .value
        .truthy()
        .map_err(|msg| Diagnostic::new(cond.span, msg))?;
    if ok {
        return Ok(Value::None);
    }
    let msg = match a.get(1) {
        Some(m) => format!("assertion failed: {}", m.value.display(&Default::default())),
        None => "assertion failed".to_string(),
    };
    Err(Diagnostic::new(cond.span, msg))
}

fn assert_close(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let actual = a.tensor(0)?;
    let expected = a.tensor(1)?;
    let rtol = a.opt_float(2)?.unwrap_or(1e-5);
    let atol = a.opt_float(3)?.unwrap_or(1e-8);
    for (i, v) in [(2, rtol), (3, atol)] {
        if v.is_nan() || v < 0.0 {
            return Err(a.arg_err(
                i,
                format!("tolerances must be non-negative numbers, got {v}"),
            ));
        }
    }
    let Some(m) = mismatch(&actual, &expected, rtol, atol).map_err(|e| a.tensor_err(e))? else {
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

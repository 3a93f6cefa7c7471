//! Printing, print options, ranges and other language-level helpers.

use std::rc::Rc;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::runtime::value::{range_len, Value};
use crate::tensor::format::PrintOptions;

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "print",
        params: &[
            "*values",
            "precision=none",
            "threshold=none",
            "edgeitems=none",
            "linewidth=none",
            "suppress=none",
            "sep=\" \"",
            "end=\"\\n\"",
        ],
        doc: "Writes the values separated by `sep`; tensors print exactly as NumPy prints them. Print options given here apply to this call only.",
        func: print,
    },
    Builtin {
        name: "set_printoptions",
        params: &[
            "precision=8",
            "threshold=1000",
            "edgeitems=3",
            "linewidth=75",
            "suppress=false",
        ],
        doc: "Sets how tensors print from now on (NumPy's options and defaults); options not given keep their value.",
        func: set_printoptions,
    },
    Builtin {
        name: "range",
        params: &["start", "stop=none", "step=1"],
        doc: "Integers from start (or 0) up to, not including, stop: `range(3)` is 0, 1, 2.",
        func: range,
    },
    Builtin {
        name: "len",
        params: &["x"],
        doc: "Length of a tensor's first axis, or of a tuple, dict, string or range.",
        func: len,
    },
    Builtin {
        name: "args",
        params: &[],
        doc: "The script's command-line arguments (after the script path), as a tuple of strings.",
        func: args,
    },
    Builtin {
        name: "perf_counter",
        params: &[],
        doc: "Seconds (f64) on a monotonic clock with an unspecified start, for timing: `let t = perf_counter(); ...; print(perf_counter() - t)`.",
        func: perf_counter,
    },
    Builtin {
        name: "str",
        params: &["x"],
        doc: "The text `print` would write for x.",
        func: to_str,
    },
];

/// Print options with this call's overrides applied (slots 1..=5 of print and set_printoptions).
fn options_from(a: &Bound, base: &PrintOptions, first: usize) -> Result<PrintOptions, Diagnostic> {
    let mut o = base.clone();
    if a.get(first).is_some() {
        o.precision = a.count(first)?;
    }
    if a.get(first + 1).is_some() {
        o.threshold = a.count(first + 1)?;
    }
    if a.get(first + 2).is_some() {
        o.edgeitems = a.count(first + 2)?;
    }
    if a.get(first + 3).is_some() {
        o.linewidth = a.count(first + 3)?;
    }
    o.suppress = a.bool_or(first + 4, o.suppress)?;
    Ok(o)
}

fn print(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let opts = options_from(&a, ctx.print, 1)?;
    let sep = match a.get(6) {
        Some(_) => a.string(6)?,
        None => " ".to_string(),
    };
    let end = match a.get(7) {
        Some(_) => a.string(7)?,
        None => "\n".to_string(),
    };
    let text: Vec<String> = a.rest.iter().map(|v| v.value.display(&opts)).collect();
    let line = format!("{}{end}", text.join(&sep));
    ctx.out
        .write_all(line.as_bytes())
        .map_err(|e| a.err(format!("print: cannot write output: {e}")))?;
    Ok(Value::None)
}

fn set_printoptions(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    *ctx.print = options_from(&a, ctx.print, 0)?;
    Ok(Value::None)
}

fn range(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (start, stop) = match a.opt_int(1)? {
        Some(stop) => (a.int(0)?, stop),
        None => (0, a.int(0)?),
    };
    let step = a.opt_int(2)?.unwrap_or(1);
    if step == 0 {
        return Err(a.arg_err(2, "range step must not be zero"));
    }
    Ok(Value::Range(start, stop, step))
}

fn len(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let v = &a.req(0)?.value;
    let n = match v {
        Value::Tensor(t) => match t.shape().first() {
            Some(&d) => d as i64,
            None => return Err(a.arg_err(0, "len: a 0-d tensor has no length")),
        },
        Value::Tuple(items) => items.len() as i64,
        Value::Dict(d) => d.entries.len() as i64,
        Value::Str(s) => s.chars().count() as i64,
        Value::Range(s, e, st) => {
            let n = range_len(*s, *e, *st);
            i64::try_from(n).map_err(|_| {
                a.arg_err(
                    0,
                    format!("len: the range has {n} values, more than an int can hold"),
                )
            })?
        }
        other => {
            return Err(a.arg_err(
                0,
                format!(
                    "len: {} has no length (len takes a tensor, tuple, dict, string or range)",
                    other.describe()
                ),
            ))
        }
    };
    Ok(Value::Int(n))
}

fn args(ctx: &mut Ctx, _: Bound) -> Result<Value, Diagnostic> {
    let items = ctx.script_args.iter().map(|s| Value::str(s)).collect();
    Ok(Value::Tuple(Rc::new(items)))
}

fn perf_counter(_: &mut Ctx, _: Bound) -> Result<Value, Diagnostic> {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    Ok(Value::Float(start.elapsed().as_secs_f64()))
}

fn to_str(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    Ok(Value::str(&a.req(0)?.value.display(ctx.print)))
}

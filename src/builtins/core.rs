//! Printing, print options, ranges and other language-level helpers.

use std::rc::Rc;

use super::{Bound, Builtin};
use crate::diag::Diagnostic;
use crate::runtime::text_size::display_checked;
use crate::runtime::value::{range_len, Value};
use crate::runtime::{builtin, Keep, Rest};
use crate::tensor::format::PrintOptions;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "print",
        doc: "Writes the values separated by `sep`; tensors print exactly as NumPy prints them. Print options given here apply to this call only.",
        fn(ctx, a;
            values: Rest,
            precision: Option<usize> = none,
            threshold: Option<usize> = none,
            edgeitems: Option<usize> = none,
            linewidth: Option<usize> = none,
            suppress: Option<bool> = none,
            sep: String = " ",
            end: String = "\n",
        ) {
            let overrides = [precision, threshold, edgeitems, linewidth];
            let opts = with_options(ctx.print_options(), overrides, suppress);
            let line = print_line(&a, &values, &opts, &sep, &end)?;
            ctx.out()
                .write_all(line.as_bytes())
                .map_err(|e| a.err(format!("print: cannot write output: {e}")))?;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "set_printoptions",
        doc: "Sets how tensors print from now on (NumPy's options and defaults); options not given keep their value.",
        fn(ctx, _a;
            precision: Keep<usize> = 8,
            threshold: Keep<usize> = 1000,
            edgeitems: Keep<usize> = 3,
            linewidth: Keep<usize> = 75,
            suppress: Keep<bool> = false,
        ) {
            let overrides = [precision.0, threshold.0, edgeitems.0, linewidth.0];
            let opts = with_options(ctx.print_options(), overrides, suppress.0);
            *ctx.print_options() = opts;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "range",
        doc: "Integers from start (or 0) up to, not including, stop: `range(3)` is 0, 1, 2.",
        fn(_, a; start: i64, stop: Option<i64> = none, step: i64 = 1) {
            let (start, stop) = match stop {
                Some(stop) => (start, stop),
                None => (0, start),
            };
            if step == 0 {
                return Err(a.arg_err("step", "range step must not be zero"));
            }
            Ok(Value::Range(start, stop, step))
        }
    },
    builtin! {
        name: "len",
        doc: "Length of a tensor's first axis, or of a tuple, dict, string or range.",
        fn(_, a; x: &Value) {
            len(&a, x)
        }
    },
    builtin! {
        name: "args",
        doc: "The script's command-line arguments (after the script path), as a tuple of strings.",
        fn(ctx, _a) {
            let items = ctx.script_args().iter().map(|s| Value::str(s)).collect();
            Ok(Value::Tuple(Rc::new(items)))
        }
    },
    builtin! {
        name: "perf_counter",
        doc: "Seconds (f64) on a monotonic clock with an unspecified start, for timing: `let t = perf_counter(); ...; print(perf_counter() - t)`.",
        fn(_, _a) {
            static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
            let start = *START.get_or_init(std::time::Instant::now);
            Ok(Value::Float(start.elapsed().as_secs_f64()))
        }
    },
    builtin! {
        name: "str",
        doc: "The text `print` would write for x.",
        fn(ctx, a; x: &Value) {
            let text = display_checked(x, ctx.print_options(), "str").map_err(|e| a.tensor_err(e))?;
            Ok(Value::str(&text))
        }
    },
];

/// What `print` writes for `values`: each as `print` shows it, joined by `sep`,
/// then `end`.
pub(super) fn print_line(
    a: &Bound,
    values: &Rest,
    opts: &PrintOptions,
    sep: &str,
    end: &str,
) -> Result<String, Diagnostic> {
    let text = values
        .0
        .iter()
        .map(|v| display_checked(&v.value, opts, a.builtin.name).map_err(|e| a.tensor_err(e)))
        .collect::<Result<Vec<String>, _>>()?;
    Ok(format!("{}{end}", text.join(sep)))
}

/// `base` with the given overrides of precision, threshold, edgeitems,
/// linewidth and suppress.
fn with_options(
    base: &PrintOptions,
    sizes: [Option<usize>; 4],
    suppress: Option<bool>,
) -> PrintOptions {
    let mut o = base.clone();
    let [precision, threshold, edgeitems, linewidth] = sizes;
    o.precision = precision.unwrap_or(o.precision);
    o.threshold = threshold.unwrap_or(o.threshold);
    o.edgeitems = edgeitems.unwrap_or(o.edgeitems);
    o.linewidth = linewidth.unwrap_or(o.linewidth);
    o.suppress = suppress.unwrap_or(o.suppress);
    o
}

fn len(a: &Bound, v: &Value) -> Result<Value, Diagnostic> {
    let n = match v {
        Value::Tensor(t) => match t.shape().first() {
            Some(&d) => d as i64,
            None => return Err(a.arg_err("x", "len: a 0-d tensor has no length")),
        },
        Value::Tuple(items) => items.len() as i64,
        Value::Dict(d) => d.entries.len() as i64,
        Value::Str(s) => s.chars().count() as i64,
        Value::Range(s, e, st) => {
            let n = range_len(*s, *e, *st);
            i64::try_from(n).map_err(|_| {
                a.arg_err(
                    "x",
                    format!("len: the range has {n} values, more than an int can hold"),
                )
            })?
        }
        other => {
            return Err(a.arg_err(
                "x",
                format!(
                    "len: {} has no length (len takes a tensor, tuple, dict, string or range)",
                    other.describe()
                ),
            ))
        }
    };
    Ok(Value::Int(n))
}

//! No builtin panics on wrong argument counts, types, shapes, axes or dtypes: every
//! builtin in the registry is called with a battery of bad arguments, in-process, and
//! each call must either succeed or return a diagnostic — never panic.

use std::panic::{catch_unwind, AssertUnwindSafe};

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;

/// Argument lists tried for every builtin (written as tsr source).
const BAD_ARGS: &[&str] = &[
    "",
    "none",
    "\"text\"",
    "1",
    "-1",
    "2.5",
    "true",
    "(1, 2)",
    "{}",
    "f32",
    "x0",
    "xe",
    "x1",
    "x2",
    "x4",
    "xi",
    "xb",
    "x2, x2",
    "x2, x1",
    "x2, xe",
    "x2, -5",
    "x2, 99",
    "x2, [0, 0]",
    "x2, \"bad\"",
    "x2, f32",
    "x2, none, none, none, none, none, none, none, none, none",
    "x2, axis=5",
    "x2, axis=-9",
    "x2, axis=[0, 0]",
    "x2, dim=\"a\"",
    "x2, keepdim=3",
    "x2, dtype=\"q9\"",
    "x2, nosuch=1",
    "x4, x4, x4",
    "x4, ones([2, 3, 5, 5]), stride=0",
    "x4, ones([4, 3, 2, 2]), groups=2",
    "x4, 3, stride=-1",
    "x4, 0",
    "xe, xe",
    "[1, 2], [1, 2, 3]",
    "x2, [[1, 2], [3, 4], [5, 6]]",
];

const SETUP: &str = "let x0 = tensor(2.5)
let xe = zeros([0, 3])
let x1 = arange(6).to(f32)
let x2 = arange(12).reshape(3, 4).to(f32).T
let x4 = ones([1, 3, 4, 4])
let xi = arange(6)
let xb = [true, false, true]";

#[test]
fn no_builtin_panics_on_bad_arguments() {
    std::panic::set_hook(Box::new(|_| {}));
    let mut panics = Vec::new();
    let mut calls = 0;
    for b in tsr::builtins::all() {
        if matches!(b.name, "print" | "info") {
            continue; // they print anything; exercised elsewhere
        }
        for args in BAD_ARGS {
            let code = format!("{}({args})", b.name);
            calls += 1;
            let result = catch_unwind(AssertUnwindSafe(|| {
                let mut interp = Interp::new(Box::new(SharedOutput::default()));
                interp.run("<setup>", SETUP, None).expect("setup runs");
                match interp.run("<call>", &code, None) {
                    Ok(_) => Ok(()),
                    Err(diags) => {
                        let text = interp.render(&diags, false);
                        if text.contains("<call>:1:") {
                            Ok(())
                        } else {
                            Err(format!(
                                "{code}: diagnostic without a span in the call:\n{text}"
                            ))
                        }
                    }
                }
            }));
            match result {
                Ok(Ok(())) => {}
                Ok(Err(msg)) => panics.push(msg),
                Err(_) => panics.push(format!("{code}: PANICKED")),
            }
        }
    }
    let _ = std::panic::take_hook();
    assert!(
        panics.is_empty(),
        "{} of {calls} calls went wrong:\n{}",
        panics.len(),
        panics.join("\n")
    );
}

//! The program and its surroundings: `exit`, `env`, `eprint`.

use super::core::print_line;
use super::Builtin;
use crate::runtime::value::Value;
use crate::runtime::{builtin, Rest};

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "exit",
        doc: "Ends the program with exit code code (0 to 255) once the output is flushed; in the REPL, leaves it.",
        fn(ctx, a; code: i64 = 0) {
            let code = u8::try_from(code)
                .map_err(|_| a.arg_err("code", format!("an exit code is 0 to 255, got {code}")))?;
            ctx.request_exit(code);
            Ok(Value::None)
        }
    },
    builtin! {
        name: "env",
        doc: "The environment variable name as a string, or default when it is not set.",
        fn(_, a; name: String, default: Option<&Value> = none) {
            if name.is_empty() || name.contains(['=', '\0']) {
                let msg = format!("{name:?} cannot name an environment variable");
                return Err(a.arg_err("name", msg));
            }
            match std::env::var(&name) {
                Ok(v) => Ok(Value::str(&v)),
                Err(std::env::VarError::NotPresent) => Ok(default.cloned().unwrap_or_default()),
                Err(std::env::VarError::NotUnicode(_)) => Err(a.arg_err(
                    "name",
                    format!("the environment variable {name} is not valid UTF-8"),
                )),
            }
        }
    },
    builtin! {
        name: "eprint",
        doc: "Writes the values like print, to stderr (never into the output tsr test compares); print's output so far is flushed first, so the two keep their order.",
        fn(ctx, a; values: Rest, sep: String = " ", end: String = "\n") {
            let line = print_line(&a, &values, ctx.print_options(), &sep, &end)?;
            let _ = ctx.out().flush();
            let err = ctx.err();
            err.write_all(line.as_bytes())
                .and_then(|()| err.flush())
                .map_err(|e| a.err(format!("eprint: cannot write to stderr: {e}")))?;
            Ok(Value::None)
        }
    },
];

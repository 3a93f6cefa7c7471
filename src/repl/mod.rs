//! The interactive loop: line editing and history (rustyline), multi-line input while
//! brackets are open, an echo of each value with its dtype and shape.

mod helper;

use std::io::IsTerminal;
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::{Config, Editor};

use crate::interp::value::type_line;
use crate::interp::{Interp, Value};

use helper::TsrHelper;

/// `$XDG_STATE_HOME/tsr/history`, else `~/.local/state/tsr/history`.
pub fn history_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".local/state"),
    };
    Some(base.join("tsr").join("history"))
}

/// What the REPL prints after evaluating a line: the value, then `dtype[shape]` for tensors.
pub fn echo(interp: &Interp, v: &Value) -> Option<String> {
    match v {
        Value::None => None,
        Value::Tensor(t) => Some(format!(
            "{}\n{}\n",
            v.repr(&interp.print_opts),
            type_line(t)
        )),
        Value::Quant(q) => Some(format!("{}\n", q.type_line())),
        other => Some(format!("{}\n", other.repr(&interp.print_opts))),
    }
}

/// Runs the REPL until Ctrl-D; returns the process exit code.
pub fn run() -> u8 {
    let config = Config::builder().auto_add_history(true).build();
    let mut editor: Editor<TsrHelper, rustyline::history::DefaultHistory> =
        match Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => {
                eprintln!("tsr: cannot start the line editor: {e}");
                return 1;
            }
        };
    editor.set_helper(Some(TsrHelper));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    let mut interp = Interp::new(Box::new(std::io::stdout()));
    let color = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    println!(
        "tsr {} — :quit or Ctrl-D to leave",
        env!("CARGO_PKG_VERSION")
    );
    let mut entry = 0;
    loop {
        match editor.readline(">>> ") {
            Ok(line) => {
                let trimmed = line.trim();
                if trimmed.is_empty() {
                    continue;
                }
                if trimmed == ":quit" || trimmed == ":q" {
                    break;
                }
                entry += 1;
                match interp.run(&format!("<repl:{entry}>"), &line, None) {
                    Ok(v) => {
                        if let Some(text) = echo(&interp, &v) {
                            interp.write_out(&text);
                            // `_` is the last value shown, as in Python.
                            interp.globals.define(&std::rc::Rc::from("_"), v);
                        }
                    }
                    Err(diags) => eprint!("{}", interp.render(&diags, color)),
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("tsr: {e}");
                break;
            }
        }
    }
    if let Some(h) = &history {
        if let Some(dir) = h.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        let _ = editor.append_history(h);
    }
    0
}

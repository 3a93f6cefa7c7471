//! The interactive loop: line editing and history (rustyline), multi-line input while
//! brackets are open, an echo of each value with its dtype and shape, `:` commands,
//! and Ctrl-C that stops the running line but keeps the session.

pub(crate) mod commands;
pub mod complete;
mod helper;
pub mod highlight;
mod history;
mod keyword_help;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::rc::Rc;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{CompletionType, Config, Editor};

use crate::interp::Interp;
use crate::kernels::interrupt;
use crate::runtime::text_size::repr_checked;
use crate::runtime::value::{grad_note, type_line};
use crate::runtime::Value;

use commands::Outcome;
use complete::Names;
use helper::TsrHelper;
use history::History;

/// `$XDG_STATE_HOME/tsr/history`, else `~/.local/state/tsr/history`.
pub fn history_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".local/state"),
    };
    Some(base.join("tsr").join("history"))
}

/// What the REPL prints after evaluating a line: the value, then `dtype[shape]` for tensors.
/// A value whose text would not fit the memory limit is described instead.
pub fn echo(interp: &Interp, v: &Value) -> Option<String> {
    let text = || match repr_checked(v, &interp.print_opts, "echo") {
        Ok(text) => text,
        Err(e) => format!("<{}: {e}>", v.describe()),
    };
    match v {
        Value::None => None,
        Value::Tensor(t) => Some(format!("{}\n{}{}\n", text(), type_line(t), grad_note(t))),
        Value::Quant(q) => Some(format!("{}\n", q.type_line())),
        _ => Some(format!("{}\n", text())),
    }
}

/// Runs the REPL until Ctrl-D or `:quit`; returns the process exit code.
pub fn run() -> u8 {
    let config = Config::builder()
        .auto_add_history(true)
        .completion_type(CompletionType::List)
        .build();
    let mut editor: Editor<TsrHelper, FileHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("tsr: cannot start the line editor: {e}");
            return 1;
        }
    };
    let color = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    editor.set_helper(Some(TsrHelper::new(color)));
    let mut history = History::open(&mut editor, history_path());
    // Ctrl-C while a line runs sets the interrupt flag instead of ending the process
    // (at the prompt the line editor reads the key itself).
    if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, interrupt::flag()) {
        eprintln!("tsr: Ctrl-C will end the session: {e}");
    }
    let mut interp = Interp::new(Box::new(std::io::stdout()));
    println!(
        "tsr {} — :help for help, :quit or Ctrl-D to leave",
        env!("CARGO_PKG_VERSION")
    );
    let mut entry = 0;
    loop {
        // A Ctrl-C pressed between lines must not stop the next one. It is cleared
        // before the prompt, not after the line is read: from the moment the editor
        // hands the line back, a Ctrl-C is meant for that line and must not be lost.
        interrupt::take();
        match editor.readline(">>> ") {
            Ok(line) => {
                let trimmed = line.trim();
                if trimmed.is_empty() {
                    continue;
                }
                if trimmed.starts_with(':') {
                    match commands::run(trimmed, &mut interp, color) {
                        Outcome::Show(text) => interp.write_out(&text),
                        Outcome::Error(text) => eprint!("{text}"),
                        Outcome::Reset => interp = Interp::new(Box::new(std::io::stdout())),
                        Outcome::Quit => break,
                    }
                } else {
                    entry += 1;
                    match interp.run_line(&format!("<repl:{entry}>"), &line) {
                        Ok(v) => {
                            if let Some(text) = echo(&interp, &v) {
                                interp.write_out(&text);
                                // `_` is the last value shown, as in Python.
                                interp.globals.define(&Rc::from("_"), v);
                            }
                        }
                        Err(diags) => eprint!("{}", interp.render(&diags, color)),
                    }
                }
                history.save(&mut editor);
                // `exit(code)` leaves the REPL with that code.
                if let Some(code) = interp.exit_code() {
                    return code;
                }
                if let Some(helper) = editor.helper_mut() {
                    helper.names = Names::of(&interp);
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
    0
}

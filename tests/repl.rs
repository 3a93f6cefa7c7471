//! The REPL driven through a pseudo-terminal, as a person types: multi-line input,
//! Tab completion, `:` commands, errors that keep the session, Ctrl-C, history.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rexpect::session::PtySession;

const TIMEOUT_MS: u64 = 20_000;

/// A REPL with its history in `state` (as `$XDG_STATE_HOME`), colour off.
fn start(state: &Path) -> PtySession {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tsr"));
    cmd.env("XDG_STATE_HOME", state)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut s = rexpect::session::spawn_command(cmd, Some(TIMEOUT_MS)).expect("spawn tsr");
    until_ready(&mut s);
    s
}

/// rustyline turns bracketed paste on when it starts reading a line, after it has put
/// the terminal in raw mode. Keys must only be typed then: typed earlier, the terminal
/// echoes them itself, and a Ctrl-C (which also flushes the typed-ahead input) would
/// be the shell's.
const READY: &str = "\x1b[?2004h";

/// Everything the REPL writes until it is ready to read the next line.
fn until_ready(s: &mut PtySession) -> String {
    match s.exp_string(READY) {
        Ok(text) => text,
        Err(e) => panic!("waiting for the prompt: {e}"),
    }
}

/// Types `keys` and Enter; returns what the line printed.
fn enter(s: &mut PtySession, keys: &str) -> String {
    send_line(s, keys);
    until_ready(s)
}

/// Types `keys` and Enter without waiting: a continuation line, or a line that runs
/// until interrupted.
fn send_line(s: &mut PtySession, keys: &str) {
    s.send(keys).unwrap();
    s.send("\r").unwrap();
    s.flush().unwrap();
}

fn expect(s: &mut PtySession, text: &str) {
    if let Err(e) = s.exp_string(text) {
        panic!("waiting for {text:?}: {e}");
    }
}

fn leave_with_ctrl_d(mut s: PtySession) {
    s.send_control('d').unwrap();
    s.exp_eof().unwrap();
}

#[track_caller]
fn assert_shows(out: &str, text: &str) {
    assert!(out.contains(text), "expected {text:?} in {out:?}");
}

/// rustyline turns bracketed paste off as it hands a line back and leaves raw mode.
const LINE_TAKEN: &str = "\x1b[?2004l";

/// Runs `keys`, presses Ctrl-C `wait` after the editor has taken the line, and returns
/// what was printed. A Ctrl-C typed while the editor still reads (a loaded machine can
/// be that slow) would be a key in its input, not the signal that stops the line.
fn interrupt(s: &mut PtySession, keys: &str, wait: Duration) -> String {
    send_line(s, keys);
    expect(s, LINE_TAKEN);
    std::thread::sleep(wait);
    s.send_control('c').unwrap();
    until_ready(s)
}

#[test]
fn a_session_of_definitions_completion_commands_and_errors() {
    let state = common::temp_dir("repl_session");
    let mut s = start(&state);
    send_line(&mut s, "fn sq(x) {");
    send_line(&mut s, "  x * x");
    enter(&mut s, "}");
    assert_shows(&enter(&mut s, "sq(7)"), "49");

    enter(&mut s, "let weights = ones([2, 5])");
    // Tab completes the variable, then the method after `.`.
    s.send("wei\t").unwrap();
    s.flush().unwrap();
    expect(&mut s, "weights");
    s.send(".sha\t").unwrap();
    s.flush().unwrap();
    expect(&mut s, "shape");
    assert_shows(&enter(&mut s, ""), "(2, 5)");

    let vars = enter(&mut s, ":vars");
    let row = vars
        .lines()
        .find(|l| l.contains("| weights "))
        .unwrap_or_default();
    for cell in ["tensor", "f32", "[2, 5]", "40", "owner"] {
        assert_shows(row, cell);
    }
    assert_shows(
        &enter(&mut s, ":help sum"),
        "sum(x, axis=none, keepdim=false)",
    );
    let err = enter(&mut s, "zeros([2]) + ones([3])");
    assert_shows(&err, "cannot be broadcast together");
    assert_shows(&enter(&mut s, "sq(9)"), "81");
    leave_with_ctrl_d(s);
}

#[test]
fn ctrl_c_stops_a_loop_and_a_kernel_and_keeps_the_variables() {
    let state = common::temp_dir("repl_ctrl_c");
    let mut s = start(&state);
    enter(&mut s, "let kept = 41 + 1");
    let out = interrupt(&mut s, "while true { }", Duration::from_millis(500));
    assert_shows(&out, "interrupted");
    assert_shows(&enter(&mut s, "kept"), "42");

    enter(&mut s, "let a = ones([256, 256])");
    let out = interrupt(
        &mut s,
        "while true { let b = exp(a @ a) }",
        Duration::from_millis(800),
    );
    assert_shows(&out, "interrupted");
    assert_shows(&enter(&mut s, "kept * 2"), "84");
    // Ctrl-C at the prompt clears the line; the session goes on.
    s.send("kept +").unwrap();
    s.send_control('c').unwrap();
    until_ready(&mut s);
    assert_shows(&enter(&mut s, "kept - 2"), "40");
    leave_with_ctrl_d(s);
}

/// Ctrl-C stops a single long `quantize` (its parallel loop checks the flag between
/// chunks); the session keeps its variables. The call runs for many seconds
/// uninterrupted, far longer than the wait.
#[test]
fn ctrl_c_stops_a_quantize() {
    let state = common::temp_dir("repl_ctrl_c_quant");
    let mut s = start(&state);
    enter(&mut s, "let kept = 7");
    enter(&mut s, "let x = ones([8192, 8192])");
    let out = interrupt(
        &mut s,
        "let q = quantize(x, \"q4_k\")",
        Duration::from_millis(500),
    );
    assert_shows(&out, "interrupted");
    assert_shows(&enter(&mut s, "kept"), "7");
    leave_with_ctrl_d(s);
}

/// Ctrl-C during a long `x @ w.T`, dense and with quantized weights (the fused
/// kernel's parallel loop checks the flag between chunks): the line stops with
/// "interrupted", its result is not bound, and earlier variables are kept. Each
/// product runs for seconds uninterrupted, far longer than the wait.
#[test]
fn ctrl_c_stops_a_dense_and_a_quantized_matmul() {
    let state = common::temp_dir("repl_ctrl_c_matmul");
    let mut s = start(&state);
    enter(&mut s, "let kept = 5");
    enter(&mut s, "let x = ones([16384, 4096])");
    enter(&mut s, "let w = ones([4096, 4096])");
    let out = interrupt(&mut s, "let y = x @ w.T", Duration::from_millis(500));
    assert_shows(&out, "interrupted");
    enter(&mut s, "let q = quantize(w, \"q8_0\")");
    // 256 activation rows: a chunk of the integer-dot kernel is 16 weight rows times
    // every activation row, and this (unoptimized) test build must finish it quickly.
    let out = interrupt(&mut s, "let y = x[:256] @ q.T", Duration::from_millis(500));
    assert_shows(&out, "interrupted");
    assert_shows(&enter(&mut s, "kept"), "5");
    assert_shows(&enter(&mut s, "y"), "undefined name `y`");
    leave_with_ctrl_d(s);
}

// Issue #17, item 8: after Ctrl-C, variables the line had assigned before the
// interrupt stayed assigned, where SPEC says the session is as before the line.
#[test]
fn an_interrupted_line_leaves_the_variables_as_before_it() {
    let state = common::temp_dir("repl_ctrl_c_undo");
    let mut s = start(&state);
    enter(&mut s, "let a = 1");
    enter(&mut s, "let v = zeros([3])");
    enter(&mut s, "let x = ones([16384, 4096])");
    enter(&mut s, "let w = ones([4096, 4096])");
    let line = "a = 2; let b = 3; v[0] = 7; let y = x @ w.T";
    let out = interrupt(&mut s, line, Duration::from_millis(500));
    assert_shows(&out, "interrupted");
    // The printed line alone (the prompt's escape codes hold digits too).
    let out = enter(&mut s, "print(a)");
    assert!(out.contains("\n1\r") && !out.contains("\n2\r"), "{out:?}");
    assert_shows(&enter(&mut s, "b"), "undefined name `b`");
    assert_shows(&enter(&mut s, "y"), "undefined name `y`");
    // Changed in place before the interrupt: kept (SPEC).
    assert_shows(&enter(&mut s, "v"), "[7. 0. 0.]");
    // A line that ends normally keeps everything it did.
    enter(&mut s, "a = 4");
    assert_shows(&enter(&mut s, "a"), "4");
    leave_with_ctrl_d(s);
}

#[test]
fn history_survives_a_restart() {
    let state = common::temp_dir("repl_history");
    let _ = std::fs::remove_dir_all(state.join("tsr"));
    let mut s = start(&state);
    enter(&mut s, "let remembered = 123");
    send_line(&mut s, ":quit");
    s.exp_eof().unwrap();
    let file = std::fs::read_to_string(state.join("tsr").join("history")).unwrap();
    assert!(file.contains("let remembered = 123"), "{file}");

    let mut s = start(&state);
    // Up arrow recalls the previous session's line.
    s.send("\x1b[A").unwrap();
    s.flush().unwrap();
    expect(&mut s, "let remembered = 123");
    enter(&mut s, "");
    assert_shows(&enter(&mut s, "remembered + 1"), "124");
    leave_with_ctrl_d(s);
}

/// Starts a REPL whose history is `history` (under `state`, made by `make`), and
/// returns it with what it printed before its first prompt.
fn start_with_history(state: &Path, make: impl FnOnce(&Path)) -> (PtySession, String) {
    let _ = std::fs::remove_dir_all(state.join("tsr"));
    std::fs::create_dir_all(state).unwrap();
    make(&state.join("tsr"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tsr"));
    cmd.env("XDG_STATE_HOME", state)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut s = rexpect::session::spawn_command(cmd, Some(TIMEOUT_MS)).expect("spawn tsr");
    let banner = until_ready(&mut s);
    (s, banner)
}

// Issue #17: a FIFO as the history blocked the start; /dev/zero as the history
// read until memory ran out.
#[test]
fn a_history_that_is_not_a_regular_file_is_never_read() {
    let state = common::temp_dir("repl_history_kinds");
    let fifo = |dir: &Path| {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mkfifo")
            .arg(dir.join("history"))
            .status()
            .unwrap();
        assert!(ok.success());
    };
    let zero = |dir: &Path| {
        std::fs::create_dir_all(dir).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.join("history")).unwrap();
    };
    let directory = |dir: &Path| std::fs::create_dir_all(dir.join("history")).unwrap();
    for (make, kind) in [
        (&fifo as &dyn Fn(&Path), "a FIFO (named pipe)"),
        (&zero, "a character device"),
        (&directory, "a directory"),
    ] {
        let (mut s, banner) = start_with_history(&state, make);
        assert_shows(&banner, &format!("is {kind}, not a regular file"));
        assert_shows(&enter(&mut s, "40 + 2"), "42");
        leave_with_ctrl_d(s);
    }
}

// Issue #17: an unwritable history was silently not saved; it must say so once.
#[test]
fn an_unwritable_history_warns_once() {
    let state = common::temp_dir("repl_history_unwritable");
    // `tsr` is a file, so the history's directory cannot be made (even as root).
    let (mut s, _) = start_with_history(&state, |dir| std::fs::write(dir, b"x").unwrap());
    let first = enter(&mut s, "1 + 1");
    assert_shows(&first, "2");
    assert_shows(&first, "cannot write the history file");
    let later = format!("{}{}", enter(&mut s, "2 + 2"), enter(&mut s, "3 + 3"));
    assert_shows(&later, "6");
    assert!(!later.contains("history"), "{later:?}");
    leave_with_ctrl_d(s);
}

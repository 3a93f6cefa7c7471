//! Issue #18, "Errors": `error(msg)`, `try { } catch e { }` with `e.message` and
//! `e.kind`, what is never caught, and the call chain under a diagnostic.

mod common;

use common::run_ok as run;

#[test]
fn try_catch_is_an_expression_with_message_and_kind() {
    assert_eq!(
        run("let e = try { error(\"boom\") } catch e { e }; print(e.message, e.kind, try { 3 } catch e { 0 })"),
        "boom error 3\n"
    );
    let kinds = [
        ("1 + \"a\"", "type"),
        ("nope", "name"),
        ("{\"a\": 1}[\"b\"]", "key"),
        ("(1,)[4]", "index"),
        ("[1, 2] + [1, 2, 3]", "shape"),
        ("int(\"x\")", "value"),
        ("load(\"/no/such.npy\")", "file"),
        ("1 // 0", "value"),
    ];
    for (code, kind) in kinds {
        let got = run(&format!("print(try {{ {code} }} catch e {{ e.kind }})"));
        assert_eq!(got, format!("{kind}\n"), "{code}");
    }
}

#[test]
fn an_uncaught_error_ends_the_script_with_exit_1() {
    let out = common::eval("print(1); error(\"stop here\"); print(2)");
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "1\n");
    assert!(out.stderr.contains("stop here"), "{}", out.stderr);
}

#[test]
fn caught_errors_can_be_raised_again() {
    assert_eq!(
        run("let r = try { try { (1,)[3] } catch e { error(e) } } catch e2 { e2 }; print(r.kind)"),
        "index\n"
    );
    let out = common::eval("error(3)");
    assert_eq!(out.code, 1);
    assert!(out
        .stderr
        .contains("msg must be a string or a caught error"));
}

#[test]
fn limits_interrupts_and_exit_are_never_caught() {
    let memory = common::tsr(
        &[
            "--max-memory",
            "1MiB",
            "-e",
            "print(try { zeros([1000000]) } catch e { \"caught\" })",
        ],
        None,
    );
    assert_eq!(memory.code, 1, "{}", memory.stdout);
    assert!(memory.stderr.contains("memory limit"), "{}", memory.stderr);
    let string = common::tsr(
        &["--max-memory", "1MiB", "-e", "let s = \"ab\"; try { for i in range(40) { s = s + s } } catch e { print(\"caught\") }"],
        None,
    );
    assert_eq!(string.code, 1);
    assert!(!string.stdout.contains("caught"));
    let timeout = common::tsr(
        &[
            "--timeout",
            "0.5",
            "-e",
            "try { while true { } } catch e { print(\"caught\") }",
        ],
        None,
    );
    assert_eq!(timeout.code, 1);
    assert!(timeout.stderr.contains("timed out"), "{}", timeout.stderr);
    assert!(!timeout.stdout.contains("caught"));
    let exit = common::eval("try { exit(3) } catch e { print(\"caught\") }");
    assert_eq!(exit.code, 3);
    assert_eq!(exit.stdout, "");
    let syntax = common::eval("try { (1 + } catch e { 0 }");
    assert_eq!(syntax.code, 1);
}

#[test]
fn an_error_in_nested_calls_shows_the_call_chain_innermost_first() {
    // "an error inside nested calls shows only the innermost line"
    let dir = common::scratch_dir("errors", "call_chain");
    let script = dir.join("chain.tsr");
    std::fs::write(
        &script,
        "fn inner(x) {\n    x + \"s\"\n}\nfn outer(x) {\n    inner(x)\n}\nouter(1)\n",
    )
    .unwrap();
    let out = common::tsr(&[script.to_str().unwrap()], None);
    assert_eq!(out.code, 1);
    let err = &out.stderr;
    let failing = err.find("chain.tsr:2:5").expect(err);
    let first = err.find("called from").expect(err);
    let via_outer = err.find("chain.tsr:5:5").expect(err);
    let via_top = err.find("chain.tsr:7:1").expect(err);
    assert!(
        failing < first && first < via_outer && via_outer < via_top,
        "{err}"
    );
    assert!(err.contains("    inner(x)\n"), "{err}");
}

#[test]
fn a_deep_recursion_is_shown_once_with_its_count() {
    let out = common::eval("fn r(n) { if n == 0 { error(\"bottom\") } else { r(n - 1) } }\nr(500)");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("(500 times)"), "{}", out.stderr);
    assert!(out.stderr.lines().count() < 40, "{}", out.stderr);
}

#[test]
fn callbacks_of_builtins_show_the_builtin_call() {
    let out = common::eval("print(map(|x| x + \"s\", (1,)))");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("called from <-e>:1:7"),
        "{}",
        out.stderr
    );
    // exit() inside a callback still ends the program.
    let exit = common::eval("map(|x| exit(4), (1,)); print(\"after\")");
    assert_eq!(exit.code, 4);
    assert_eq!(exit.stdout, "");
}

//! The command line: exit codes, `-e`, stdin scripts, script arguments, value semantics.

mod common;

use common::{eval, tsr, tsr_env};

#[test]
fn e_prints_numpy_text() {
    let out = eval("let x = [[1, 2, 3], [4, 5, 6]]; print(x.to(f32) / 2)");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "[[0.5 1.  1.5]\n [2.  2.5 3. ]]\n");
}

#[test]
fn e_echoes_the_last_value_unless_none() {
    assert_eq!(eval("1 + 2").stdout, "3\n");
    assert_eq!(eval("let a = 1").stdout, "");
    assert_eq!(eval("print(1)").stdout, "1\n");
}

#[test]
fn broadcast_error_exits_1_and_names_both_shapes() {
    let out = eval("[1, 2] + [1, 2, 3]");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("[2]") && out.stderr.contains("[3]"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("^") || out.stderr.contains("─"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"));
}

#[test]
fn three_syntax_errors_are_reported_together() {
    let out = eval("let = 5\nlet b = 2 * * 3\nprint(1 +)\nlet c = 4");
    assert_eq!(out.code, 1);
    assert!(out.stderr.matches("Error").count() >= 3, "{}", out.stderr);
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(tsr(&["--threads", "abc", "-e", "1"], None).code, 2);
    assert_eq!(tsr(&["no-such-file.tsr"], None).code, 2);
    assert_eq!(tsr(&["--no-such-flag"], None).code, 2);
}

#[test]
fn version_and_help() {
    let v = tsr(&["--version"], None);
    assert_eq!(v.code, 0);
    assert!(v.stdout.starts_with("tsr "));
    assert!(tsr(&["--help"], None).stdout.contains("-e <CODE>"));
}

#[test]
fn version_names_the_kernels_and_tsr_isa_caps_them() {
    let supported = tsr::kernels::isa::Isa::supported();
    let best = supported.last().unwrap().name();
    let v = tsr_env(&["--version"], None, None, &[("TSR_ISA", None)]);
    assert!(
        v.stdout.ends_with(&format!("\nkernels: {best}\n")),
        "{}",
        v.stdout
    );
    for isa in &supported {
        let v = tsr_env(&["--version"], None, None, &[("TSR_ISA", Some(isa.name()))]);
        assert!(
            v.stdout.ends_with(&format!("kernels: {}\n", isa.name())),
            "{}",
            v.stdout
        );
        let run = tsr_env(
            &["-e", "sum(ones([1000]))"],
            None,
            None,
            &[("TSR_ISA", Some(isa.name()))],
        );
        assert_eq!(run.stdout.trim(), "1000.0");
    }
    let bad = tsr_env(&["--version"], None, None, &[("TSR_ISA", Some("sse9"))]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .contains("TSR_ISA must be scalar, avx2 or avx512, got \"sse9\""),
        "{}",
        bad.stderr
    );
    if supported.len() < 3 {
        let lacking = ["avx2", "avx512"][supported.len() - 1];
        let v = tsr_env(&["-e", "1"], None, None, &[("TSR_ISA", Some(lacking))]);
        assert_eq!(v.code, 2);
        assert!(v.stderr.contains("this CPU does not run"), "{}", v.stderr);
    }
}

#[test]
fn script_from_stdin_and_args() {
    let out = tsr(&[], Some("print(1 + 1)\n"));
    assert_eq!((out.code, out.stdout.as_str()), (0, "2\n"));
    let dir = std::env::temp_dir().join(format!("tsr-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("args.tsr");
    std::fs::write(&script, "print(args())\n").unwrap();
    let out = tsr(&[script.to_str().unwrap(), "a", "--b"], None);
    assert_eq!(out.stdout, "(\"a\", \"--b\")\n", "{}", out.stderr);
    let out = tsr(&["run", script.to_str().unwrap(), "x"], None);
    assert_eq!(out.stdout, "(\"x\",)\n", "{}", out.stderr);
}

#[test]
fn values_are_values() {
    let out = eval(
        "let a = [1, 2, 3]; let b = a; b[0] = 9; print(a, b)
         let v = a[1:]; a[1] = 7; print(v, a)
         print(v.owns_data, a.owns_data, a.T.owns_data)",
    );
    // `.T` of a vector is a view, as NumPy's `a.T.flags.owndata` is False.
    assert_eq!(
        out.stdout, "[1 2 3] [9 2 3]\n[2 3] [1 7 3]\nfalse true false\n",
        "{}",
        out.stderr
    );
}

#[test]
fn compound_assignment_updates_in_place_without_touching_copies() {
    let out = eval("let a = ones([2, 2]); let c = a; a += 1; a[0] *= 10; print(a); print(c)");
    assert_eq!(
        out.stdout, "[[20. 20.]\n [ 2.  2.]]\n[[1. 1.]\n [1. 1.]]\n",
        "{}",
        out.stderr
    );
}

#[test]
fn threads_flag_accepted() {
    let out = tsr(&["--threads", "2", "-e", "sum(arange(10))"], None);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "45\n"),
        "{}",
        out.stderr
    );
}

// Issue #18: `tsr -e 'CODE' ARGS...` was documented and rejected with exit 2.
#[test]
fn e_passes_its_arguments_to_args() {
    let out = tsr(&["-e", "print(args())", "a", "b c", "-x", "--y"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "(\"a\", \"b c\", \"-x\", \"--y\")\n");
    assert_eq!(tsr(&["-e", "args()"], None).stdout, "()\n");
    // An argument that looks like an option comes after `--`.
    let out = tsr(&["-e", "args()", "--", "-x"], None);
    assert_eq!(out.stdout, "(\"-x\",)\n", "{}", out.stderr);
    // Global options still work after the code.
    let out = tsr(&["-e", "args()", "--threads", "2", "n"], None);
    assert_eq!(out.stdout, "(\"n\",)\n", "{}", out.stderr);
}

#[test]
fn exit_ends_the_program_with_its_code() {
    let out = eval("print(1); exit(3); print(2)");
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (3, "1\n"),
        "{}",
        out.stderr
    );
    assert_eq!(eval("exit()").code, 0);
    assert_eq!(eval("exit(255)").code, 255);
    // From inside functions and loops; the value of -e is not echoed.
    let out = eval("fn f(n) { for i in range(n) { if i == 2 { exit(7) } } }; f(5); 42");
    assert_eq!((out.code, out.stdout.as_str()), (7, ""), "{}", out.stderr);
    // A script file and stdin too; a closure passed to a builtin.
    let out = tsr(&[], Some("print(\"a\")\nexit(4)\nprint(\"b\")\n"));
    assert_eq!((out.code, out.stdout.as_str()), (4, "a\n"));
    let out = eval("let f = |x| exit(x); f(5)");
    assert_eq!(out.code, 5, "{}", out.stderr);
}

#[test]
fn env_reads_the_environment_with_a_default() {
    let out = common::tsr_env(
        &[
            "-e",
            r#"print(env("TSR_TEST_VAR"), env("TSR_TEST_UNSET"), env("TSR_TEST_UNSET", 3))"#,
        ],
        None,
        None,
        &[("TSR_TEST_VAR", Some("héllo")), ("TSR_TEST_UNSET", None)],
    );
    assert_eq!(out.stdout, "héllo none 3\n", "{}", out.stderr);
}

#[test]
fn eprint_writes_to_stderr_in_order_with_print() {
    let out = eval(r#"print("out"); eprint("err", [1, 2], sep=", "); eprint("x", end="")"#);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "out\n");
    assert_eq!(out.stderr, "err, [1 2]\nx");
}

// `tsr test` compares stdout only: eprint never reaches a snapshot, exit(0) ends
// a script that passes, any other code fails it.
#[test]
fn tsr_test_ignores_eprint_and_fails_on_a_nonzero_exit() {
    let dir = common::scratch_dir("cli", "tsr_test_exit");
    std::fs::write(
        dir.join("ok.tsr"),
        "print(1)\neprint(\"noise\")\nexit(0)\nprint(2)\n",
    )
    .unwrap();
    std::fs::write(dir.join("bad.tsr"), "print(1)\nexit(2)\n").unwrap();
    let snap = |name: &str| format!("tsr-snapshot: 1\nscript: {name}\ntsr: 0\n---\n1\n");
    std::fs::write(dir.join("ok.tsr.snap"), snap("ok.tsr")).unwrap();
    std::fs::write(dir.join("bad.tsr.snap"), snap("bad.tsr")).unwrap();
    let out = common::tsr_in(&["test", "--check", "ok.tsr"], None, Some(&dir));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let out = common::tsr_in(&["test", "--check", "bad.tsr"], None, Some(&dir));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("the script called exit(2)"),
        "{}",
        out.stdout
    );
}

//! The limits of lang/SPEC.md, "Limits": memory, time, recursion and nesting end a
//! run with a diagnostic and exit 1, never an abort.

mod common;

use common::{eval, scratch_dir, tsr, tsr_env};

fn assert_diagnostic(out: &common::Output, phrase: &str) {
    assert_eq!(
        out.code, 1,
        "stdout: {}\nstderr: {}",
        out.stdout, out.stderr
    );
    assert!(out.stderr.contains(phrase), "{}", out.stderr);
    assert!(out.stderr.contains("╭─["), "no span: {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn runaway_recursion_is_an_error() {
    let out = eval("fn f(n) { f(n + 1) }; f(0)");
    assert_diagnostic(&out, "maximum call depth (1000) exceeded in `f`");
}

#[test]
fn a_100000_deep_expression_is_an_error() {
    for (open, close) in [("(", ")"), ("[", "]"), ("-", "")] {
        let dir = scratch_dir("limits", &format!("deep_{}", open.as_bytes()[0]));
        let path = dir.join("deep.tsr");
        let code = format!("{}1{}", open.repeat(100_000), close.repeat(100_000));
        std::fs::write(&path, code).unwrap();
        let out = tsr(&[path.to_str().unwrap()], None);
        assert_diagnostic(&out, "the limit is");
    }
}

#[test]
fn a_tensor_over_the_memory_limit_names_its_size() {
    let out = eval("zeros([100000, 100000, 100000])");
    assert_diagnostic(
        &out,
        "zeros: a tensor of shape [100000, 100000, 100000] has 1000000000000000 elements \
         (3.6 PiB), more than the memory limit of",
    );
}

#[test]
fn the_memory_limit_is_set_by_flag_or_environment() {
    let code = "zeros([1000, 1000])";
    let out = tsr(&["--max-memory", "1MiB", "-e", code], None);
    assert_diagnostic(&out, "more than the memory limit of 1.0 MiB allows");
    let out = tsr_env(&["-e", code], None, None, &[("TSR_MAX_MEMORY", Some("2M"))]);
    assert_diagnostic(
        &out,
        "has 1000000 elements (3.8 MiB), more than the memory limit of 2.0 MiB",
    );
    let out = tsr(
        &["--max-memory", "4MiB", "-e", &format!("{code}.shape")],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);

    // Broadcasts and element-wise results are held to it as well.
    let out = tsr(
        &[
            "--max-memory",
            "1MiB",
            "-e",
            "ones([1000, 1]) + ones([1000])",
        ],
        None,
    );
    assert_diagnostic(&out, "has 1000000 elements");
    let out = tsr(
        &[
            "--max-memory",
            "1MiB",
            "-e",
            "broadcast_to(1.0, [1000, 1000])",
        ],
        None,
    );
    assert_diagnostic(&out, "broadcast: a tensor of shape [1000, 1000]");

    for bad in ["lots", "0", "-5G"] {
        let out = tsr(&["--max-memory", bad, "-e", "1"], None);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
    }
    let out = tsr_env(&["-e", "1"], None, None, &[("TSR_MAX_MEMORY", Some("x"))]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("TSR_MAX_MEMORY"), "{}", out.stderr);
}

#[test]
fn timeout_stops_a_runaway_loop() {
    let out = tsr(
        &["--timeout", "0.2", "-e", "let i = 0; while true { i += 1 }"],
        None,
    );
    assert_diagnostic(&out, "timed out: the run took longer than 0.2 s");
    let out = tsr(&["--timeout", "5", "-e", "1 + 1"], None);
    assert_eq!((out.code, out.stdout.as_str()), (0, "2\n"));
    let out = tsr(&["--timeout", "soon", "-e", "1"], None);
    assert_eq!(out.code, 2);
}

/// Issue #17, item 8: `tsr --timeout 1 -e 'sum(a @ a @ a @ a)'` ran to the end and
/// exited 0, because the deadline was read only every 64 steps. It is now read after
/// every operator: the product below takes over a second on any CPU (550 GFLOP), so the
/// run stops at `@` (or earlier) and the print never runs.
#[test]
fn timeout_is_read_after_an_operator() {
    let code = "let x = ones([16384, 4096]); let w = ones([4096, 4096]); let y = x @ w.T; print(\"after\")";
    let out = tsr(&["--timeout", "0.5", "-e", code], None);
    assert_diagnostic(&out, "timed out: the run took longer than 0.5 s");
    assert!(!out.stdout.contains("after"), "{}", out.stdout);
}

#[test]
fn tsr_test_times_out_each_script_alone() {
    let dir = scratch_dir("limits", "tsr_test_timeout");
    std::fs::write(dir.join("loops.tsr"), "while true { }\n").unwrap();
    std::fs::write(dir.join("quick.tsr"), "print(1)\n").unwrap();
    let dir = dir.to_str().unwrap();
    let out = tsr(&["test", "--update", "--timeout", "0.3", dir], None);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(out.stdout.contains("timed out"), "{}", out.stdout);
    assert!(
        out.stdout.contains("UPDATED") && out.stdout.contains("quick.tsr"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_script_that_is_not_utf8_is_pointed_at() {
    let dir = scratch_dir("limits", "not_utf8");
    let path = dir.join("bad.tsr");
    std::fs::write(&path, b"let x = 1\nprint(\"a\xffb\")\n").unwrap();
    let out = tsr(&[path.to_str().unwrap()], None);
    assert_diagnostic(
        &out,
        "the script is not valid UTF-8: byte 0xff at offset 18",
    );
    assert!(out.stderr.contains("bad.tsr:2:9"), "{}", out.stderr);
}

#[test]
fn code_may_start_with_a_minus() {
    let out = eval("-1");
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "-1\n"),
        "{}",
        out.stderr
    );
}

#[test]
fn thread_counts_are_bounded() {
    for bad in ["0", "1025"] {
        let out = tsr(&["--threads", bad, "-e", "1"], None);
        assert_eq!(out.code, 2, "{bad}: {}", out.stderr);
        assert!(out.stderr.contains("between 1 and 1024"), "{}", out.stderr);
    }
}

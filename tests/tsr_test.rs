//! `tsr test`: verdicts, tolerance, CI behaviour, --update, the diff report and JUnit.

mod common;

use std::path::Path;

use common::{temp_dir, tsr_env, Output};

/// Runs `tsr test ARGS` in `dir` with CI set (Some) or unset (None).
fn tsr_test(dir: &Path, args: &[&str], ci: Option<&str>) -> Output {
    let mut full = vec!["test"];
    full.extend_from_slice(args);
    tsr_env(&full, None, Some(dir), &[("CI", ci)])
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn snap(output: &str) -> String {
    format!("tsr-snapshot: 1\nscript: x\ntsr: 0.1.0\n---\n{output}")
}

#[test]
fn verdicts_counts_ci_and_update() {
    let dir = temp_dir("verdicts");
    write(&dir, "pass.tsr", "print([0.1, 0.2, 0.3])\n");
    write(&dir, "pass.tsr.snap", &snap("[0.1 0.2 0.3]\n"));
    write(&dir, "fail.tsr", "print(\"loss\", 0.5)\n");
    write(&dir, "fail.tsr.snap", &snap("loss 0.25\n"));
    write(&dir, "error.tsr", "print(1)\nprint(nope)\n");
    write(&dir, "new.tsr", "print(7)\n");

    let before = listing(&dir);
    let out = tsr_test(&dir, &[], Some("true"));
    assert_eq!(out.code, 1, "{}", out.stdout);
    let lines: Vec<&str> = out.stdout.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(
        lines,
        [
            "FAIL error.tsr: the script stopped with an error",
            "FAIL fail.tsr: output differs from the snapshot",
            "FAIL new.tsr: no snapshot",
            "PASS pass.tsr",
            "1 passed, 3 failed",
        ]
    );
    assert!(
        out.stdout.contains("undefined name `nope`"),
        "{}",
        out.stdout
    );
    assert_eq!(listing(&dir), before, "CI=true must write nothing");

    // Outside CI, proposals are written next to the scripts; --check writes nothing.
    let out = tsr_test(&dir, &["--check"], None);
    assert_eq!(out.code, 1);
    assert_eq!(listing(&dir), before);
    tsr_test(&dir, &[], None);
    assert!(dir.join("new.tsr.snap.new").exists() && dir.join("fail.tsr.snap.new").exists());

    let out = tsr_test(&dir, &["--update"], Some("true"));
    assert_eq!(out.code, 1, "the erroring script still fails");
    assert!(out.stdout.contains("UPDATED fail.tsr") && out.stdout.contains("UPDATED new.tsr"));
    assert!(
        out.stdout.ends_with("3 passed, 1 failed\n"),
        "{}",
        out.stdout
    );
    assert!(
        !dir.join("new.tsr.snap.new").exists(),
        "stale proposals are removed"
    );
    std::fs::remove_file(dir.join("error.tsr")).unwrap();
    let out = tsr_test(&dir, &[], Some("true"));
    assert_eq!(
        (out.code, out.stdout.lines().last()),
        (0, Some("3 passed, 0 failed"))
    );
}

#[test]
fn skipped_scripts_are_counted() {
    let dir = temp_dir("skip");
    write(&dir, "a.tsr", "# tsr: skip needs data\nprint(1)\n");
    let out = tsr_test(&dir, &[], Some("true"));
    assert_eq!(out.code, 0);
    assert_eq!(
        out.stdout,
        "SKIP a.tsr (needs data)\n0 passed, 0 failed, 1 skipped\n"
    );
}

#[test]
fn tolerance_numbers_but_not_words() {
    let dir = temp_dir("tolerance");
    write(&dir, "t.tsr", "print(\"mean\", [0.1, 0.2, 0.3])\n");
    write(
        &dir,
        "t.tsr.snap",
        &snap("mean [0.10000001 0.2        0.30000002]\n"),
    );
    assert_eq!(
        tsr_test(&dir, &[], Some("1")).code,
        0,
        "last digits differ: passes by default"
    );
    let strict = tsr_test(&dir, &["--rtol", "0", "--atol", "0"], Some("1"));
    assert_eq!(strict.code, 1, "{}", strict.stdout);

    write(&dir, "t.tsr.snap", &snap("average [0.1 0.2 0.3]\n"));
    assert_eq!(
        tsr_test(&dir, &["--rtol", "1", "--atol", "1"], Some("1")).code,
        1,
        "a changed word fails"
    );

    write(&dir, "t.tsr.snap", &snap("mean [0.1 0.2 0.3 0.4]\n"));
    assert_eq!(
        tsr_test(&dir, &["--rtol", "1", "--atol", "1"], Some("1")).code,
        1,
        "an extra number fails"
    );

    // A header tolerance overrides the flags.
    write(
        &dir,
        "t.tsr.snap",
        "tsr-snapshot: 1\nscript: t.tsr\ntsr: 0.1.0\nrtol: 0.5\n---\nmean [0.12 0.2 0.3]\n",
    );
    assert_eq!(tsr_test(&dir, &["--rtol", "0"], Some("1")).code, 0);
}

#[test]
fn diff_report() {
    let dir = temp_dir("diff");
    write(
        &dir,
        "report.tsr",
        "print(\"epoch 1\")\nprint([1.5, 2.25, 3.0])\nprint(\"extra line\")\nprint(\"done\")\n",
    );
    write(
        &dir,
        "report.tsr.snap",
        &snap("epoch 1\n[1.5  2.2  3.01]\ndone\n"),
    );
    let out = tsr_test(&dir, &["report.tsr"], Some("true"));
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn error_report() {
    let dir = temp_dir("errreport");
    write(&dir, "bad.tsr", "let x = ones([2, 3])\nprint(x @ x)\n");
    let out = tsr_test(&dir, &["bad.tsr"], Some("true"));
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn junit_report_parses_and_names_each_script() {
    let dir = temp_dir("junit");
    write(&dir, "ok.tsr", "print(1)\n");
    write(&dir, "ok.tsr.snap", &snap("1\n"));
    write(&dir, "bad <&>.tsr", "print(2)\n");
    write(&dir, "bad <&>.tsr.snap", &snap("3\n"));
    let out = tsr_test(
        &dir,
        &["--format", "junit", "--output", "report.xml"],
        Some("true"),
    );
    assert_eq!(out.code, 1);
    assert!(out.stdout.ends_with("1 passed, 1 failed\n"));
    let xml = std::fs::read_to_string(dir.join("report.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("well-formed JUnit XML");
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let names: Vec<&str> = cases.iter().filter_map(|c| c.attribute("name")).collect();
    assert_eq!(names, ["bad <&>.tsr", "ok.tsr"]);
    let failure = cases[0]
        .children()
        .find(|n| n.has_tag_name("failure"))
        .expect("failure element");
    assert!(failure.text().unwrap_or("").contains("- 3"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(
        (suite.attribute("tests"), suite.attribute("failures")),
        (Some("2"), Some("1"))
    );

    // Without --output the XML goes to stdout.
    let out = tsr_test(&dir, &["--format", "junit"], Some("true"));
    assert!(roxmltree::Document::parse(&out.stdout).is_ok());
}

#[test]
fn usage_errors_exit_2() {
    let dir = temp_dir("usage");
    assert_eq!(tsr_test(&dir, &["missing-dir"], Some("true")).code, 2);
    assert_eq!(tsr_test(&dir, &["--rtol", "-1"], Some("true")).code, 2);
    assert_eq!(tsr_test(&dir, &["--output", "x.xml"], Some("true")).code, 2);
}

#[test]
fn assert_close_reports_the_worst_element() {
    let out = common::eval("assert_close([1.0, 2.0, 3.5], [1.0, 2.1, 3.0], rtol=1e-3)");
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stderr);
    assert_eq!(
        common::eval("assert_close([1.0, nan], [1.000001, nan])").code,
        0
    );
}

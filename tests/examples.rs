//! Each example script runs cleanly and its output is pinned by an insta snapshot.

mod common;

use std::path::Path;

fn run_example(name: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("examples").join(name);
    let out = common::tsr_in(&[path.to_str().unwrap_or_default()], None, Some(root));
    assert_eq!(out.code, 0, "{name} failed:\n{}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    out.stdout
}

#[test]
fn tour() {
    insta::assert_snapshot!(run_example("tour.tsr"));
}

#[test]
fn stats_report() {
    insta::assert_snapshot!(run_example("stats_report.tsr"));
}

#[test]
fn least_squares() {
    insta::assert_snapshot!(run_example("least_squares.tsr"));
}

#[test]
fn pca() {
    insta::assert_snapshot!(run_example("pca.tsr"));
}

// Issue #18, acceptance 5: reads a CSV dataset, fits, writes and reads back JSON;
// the JSON goes to $TMPDIR, so nothing lands in the repository.
#[test]
fn fit_csv() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = common::scratch_dir("examples", "fit_csv");
    let script = root.join("examples").join("fit_csv.tsr");
    let out = common::tsr_env(
        &[script.to_str().unwrap_or_default()],
        None,
        Some(root),
        &[("TMPDIR", tmp.to_str())],
    );
    assert_eq!(out.code, 0, "fit_csv.tsr failed:\n{}", out.stderr);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let json = std::fs::read_to_string(tmp.join("fit_csv.json")).unwrap_or_default();
    assert!(
        json.contains("\"coef\": [89.929363, -6.073017, 0.168978]"),
        "{json}"
    );
    insta::assert_snapshot!(out.stdout);
}

// Issue #22, acceptance 2: a CNN trained with autograd on the digits reaches 97%
// test accuracy, with the same output (bits) at 1 and 2 threads.
#[test]
fn digits() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let script = root.join("examples").join("digits.tsr");
    let script = script.to_str().unwrap_or_default();
    let runs: Vec<String> = ["1", "2"]
        .iter()
        .map(|threads| {
            let out = common::tsr_in(&["--threads", threads, script], None, Some(root));
            assert_eq!(out.code, 0, "digits.tsr failed:\n{}", out.stderr);
            out.stdout
        })
        .collect();
    assert_eq!(runs[0], runs[1], "--threads 1 and 2 differ");
    let last = runs[0].lines().last().unwrap_or_default();
    let accuracy: f64 = last
        .trim_start_matches("test accuracy ")
        .trim_end_matches('%')
        .parse()
        .unwrap_or_else(|_| panic!("no accuracy in {last:?}"));
    assert!(accuracy >= 97.0, "test accuracy {accuracy}% is below 97%");
    insta::assert_snapshot!(runs[0]);
}

/// Every example is covered by a test above.
#[test]
fn all_examples_have_a_test() {
    let source = include_str!("examples.rs");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".tsr") {
            assert!(
                source.contains(&format!("\"{name}\"")),
                "examples/{name} has no snapshot test"
            );
        }
    }
}

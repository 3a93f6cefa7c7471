//! Dogfood: the golden scripts under tests/golden run through `tsr test` itself.

mod common;

use std::path::Path;

#[test]
fn golden_scripts_match_their_snapshots() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = common::tsr_env(
        &["test", "tests/golden"],
        None,
        Some(root),
        &[("CI", Some("true"))],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let last = out.stdout.lines().last().unwrap_or_default();
    assert!(last.ends_with("passed, 0 failed"), "{}", out.stdout);
    assert!(!last.starts_with("0 passed"), "no golden scripts ran");
}

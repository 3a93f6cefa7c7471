//! The language reference stays in step with the builtin registry: every builtin's
//! signature and description appears in lang/SPEC.md.

#[test]
fn spec_lists_every_builtin_signature() {
    let spec = include_str!("../lang/SPEC.md");
    let mut missing = Vec::new();
    for b in tsr::builtins::all() {
        let row = format!("| `{}` | {} |", b.signature(), b.doc);
        if !spec.contains(&row) {
            missing.push(row);
        }
    }
    assert!(
        missing.is_empty(),
        "lang/SPEC.md is missing these builtin rows (copy them into the Builtins table):\n{}",
        missing.join("\n")
    );
}

#[test]
fn readme_starts_with_the_two_setup_commands() {
    let readme = include_str!("../README.md");
    let head: String = readme.lines().take(6).collect::<Vec<_>>().join("\n");
    assert!(head.contains("cargo run --release -- examples/tour.tsr"));
    assert!(head.contains("cargo test"));
    let ci = include_str!("../.ci/run");
    assert!(ci.lines().any(|l| l.trim() == "cargo test"));
}

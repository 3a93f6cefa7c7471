//! Text files both ways with Python, through committed fixtures
//! (tests/fixtures/text/gen.py writes them with Python and NumPy and checks that
//! Python reads tsr's files; these tests need neither).

mod common;

use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    common::fixture("text")
}

/// Runs `code` with the fixtures as the working directory; it must succeed.
fn run(code: &str) -> String {
    let out = common::tsr_in(&["-e", code], None, Some(&dir()));
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    out.stdout
}

// Issue #18, acceptance 3: a CSV written by Python's csv module (CRLF, quoted
// fields with commas, quotes and newlines, unicode, exponents, empty fields) loads
// with the same values.
#[test]
fn python_csv_loads_with_the_same_values() {
    let out = run(r#"let d = load_csv("py_mixed.csv")
        let e = load_npz("py_mixed.npz")
        assert(all(d["count"] == e["count"]))
        assert_close(d["value"], e["value"], rtol=0, atol=0)
        assert_close(d["maybe"], e["maybe"], rtol=0, atol=0)
        print(d["count"].dtype, d["value"].dtype, d["maybe"].dtype)
        print(d["name"])
        print(d["note"])"#);
    assert_eq!(
        out,
        "i64 f64 f64\n\
         (\"Smith, John\", \"Zoë\", \"😀 emoji\", \"plain\")\n\
         (\"said \\\"hi\\\"\", \"naïve café\", \"multi\\nline\", \"\")\n"
    );
}

#[test]
fn python_json_loads_with_the_same_values() {
    let out = run(r#"print(load_json("py_nested.json"))"#);
    assert_eq!(
        out,
        "{\"name\": \"tsr é 😀\", \
         \"ints\": (0, -1, 9223372036854775807, -9223372036854775808), \
         \"big\": 1.8446744073709552e+19, \
         \"floats\": (0.1, -2.5e-10, 1e+300, 5e-324, -0.0, 1.0), \
         \"nested\": {\"a\": (true, false, none), \"b\": {\"c\": ((1, 2), (3, 4.5))}, \"empty\": {}, \"list\": ()}, \
         \"escapes\": \"tab\\t nl\\n quote\\\" back\\\\ slash/\", \
         \"repeated\": 2}\n"
    );
}

#[test]
fn loadtxt_reads_what_numpy_reads() {
    run(r#"let x = loadtxt("np_loadtxt_in.txt", dtype=f64)
        assert_close(x, load("np_loadtxt_in.npy"), rtol=0, atol=0)
        assert(loadtxt("np_loadtxt_in.txt").dtype == f32)
        let c = loadtxt("np_loadtxt_csv.txt", delimiter=",", skiprows=1, usecols=(2, 0), dtype=i64)
        assert(all(c == load("np_loadtxt_csv.npy")))
        assert(c.dtype == i64)"#);
}

/// tsr's savetxt of `npy` with `args` must write exactly the bytes of `expected`,
/// which np.savetxt wrote.
fn savetxt_case(out_dir: &Path, npy: &str, args: &str, expected: &str) -> Option<String> {
    let out = out_dir.join(expected);
    let code = format!("savetxt({:?}, load({npy:?}){args})", out.to_string_lossy());
    let result = common::tsr_in(&["-e", &code], None, Some(&dir()));
    if result.code != 0 {
        return Some(format!("{code}: {}", result.stderr));
    }
    let got = std::fs::read(&out).unwrap_or_default();
    let want = std::fs::read(dir().join(expected)).unwrap_or_default();
    (got != want).then(|| {
        format!(
            "{code}\n--- tsr\n{}--- numpy\n{}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        )
    })
}

#[test]
fn savetxt_writes_what_numpy_writes() {
    let out = common::scratch_dir("text_fixtures", "savetxt");
    let cases = [
        (
            "np_matrix.npy",
            r#", header="x y\nsecond line""#,
            "np_matrix_default.txt",
        ),
        (
            "np_matrix.npy",
            r#", fmt="%.6g", delimiter=",""#,
            "np_matrix_g.txt",
        ),
        (
            "np_matrix.npy",
            r#", fmt="%10.3f|%-+12.4e|%g|%08.2f""#,
            "np_matrix_cols.txt",
        ),
        ("np_f32.npy", "", "np_f32_default.txt"),
        (
            "np_int.npy",
            r#", fmt="%d", delimiter="\t""#,
            "np_int_d.txt",
        ),
        ("np_int.npy", "", "np_int_default.txt"),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(npy, args, expected)| savetxt_case(&out, npy, args, expected))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// Issue #18, acceptance 3, the other way: the files tsr writes are committed, and
// gen.py checks that csv, json and np.loadtxt read them with these values.
#[test]
fn tsr_writes_the_files_python_reads() {
    let out = common::scratch_dir("text_fixtures", "tsr_out");
    let p = |name: &str| format!("{:?}", out.join(name).to_string_lossy());
    let code = format!(
        r#"save_csv({}, {{"name": ("a", "b, c", "q\"uote", "é😀", "line\nbreak"), "i": [1, -2, 3, 4, 9007199254740993], "x": [0.1, 1.5, -3.25e-5, 3.4028235e38, 2.0], "ok": [true, false, true, true, false]}})
        save_json({}, {{"name": "tsr", "ints": (1, -2, 9007199254740993), "floats": (0.5, -1e-300, 1e300), "matrix": load("np_matrix.npy"), "f32": load("np_f32.npy"), "nested": {{"a": (true, false, none), "b": {{}}, "c": ()}}, "unicode": "é\n\"😀"}})
        savetxt({}, load("np_matrix.npy"))"#,
        p("tsr_out.csv"),
        p("tsr_out.json"),
        p("tsr_matrix.txt")
    );
    run(&code);
    for name in ["tsr_out.csv", "tsr_out.json", "tsr_matrix.txt"] {
        let got = std::fs::read_to_string(out.join(name)).unwrap_or_default();
        let want = std::fs::read_to_string(dir().join(name)).unwrap_or_default();
        assert_eq!(
            got, want,
            "{name} changed: if that is intended, copy it into tests/fixtures/text and \
             run gen.py, which checks that Python reads it"
        );
    }
    // And tsr reads its own files back.
    let back = run(&format!(
        "let d = load_csv({}); print(d[\"i\"], d[\"x\"].dtype, d[\"ok\"]); print(load_json({})[\"f32\"])",
        p("tsr_out.csv"),
        p("tsr_out.json")
    ));
    assert_eq!(
        back,
        "[               1               -2                3                4\n 9007199254740993] f64 (\"true\", \"false\", \"true\", \"true\", \"false\")\n(0.1, 1.5, -3.25e-05, 3.4028235e+38)\n"
    );
}

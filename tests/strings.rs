//! Issue #18, "Sequences, strings, dicts": the string builtins behave as Python 3's
//! `str` methods (positions in code points), `split` of a tensor stays NumPy's, and
//! keys/values/items/get read a dict in insertion order. Each case runs `tsr -e` and
//! checks the exact output; the expected text is what Python prints for the same
//! calls, written as tsr prints tuples.

mod common;

fn run(code: &str) -> String {
    let out = common::eval(code);
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    out.stdout
}

/// The error `code` stops with (exit 1).
fn error(code: &str) -> String {
    let out = common::eval(code);
    assert_eq!(out.code, 1, "{code}\n{}{}", out.stdout, out.stderr);
    out.stderr
}

#[test]
fn split_on_a_separator_keeps_empty_parts() {
    assert_eq!(
        run(r#"print("a,b,,c".split(","), "".split(","), ",".split(","), "a::b::c".split("::"))"#),
        "(\"a\", \"b\", \"\", \"c\") (\"\",) (\"\", \"\") (\"a\", \"b\", \"c\")\n"
    );
}

#[test]
fn split_without_a_separator_splits_at_runs_of_whitespace() {
    assert_eq!(
        run(
            r#"print("  a \t b\nc  ".split(), "".split(), "   ".split(), "a\u{1c}b\u{3000}c".split())"#
        ),
        "(\"a\", \"b\", \"c\") () () (\"a\", \"b\", \"c\")\n"
    );
}

#[test]
fn split_stops_after_maxsplit() {
    assert_eq!(
        run(
            r#"print("  a  b  c  ".split(none, 1), "a b c".split(maxsplit=1), " a b ".split(none, 0), "   ".split(none, 0))"#
        ),
        "(\"a\", \"b  c  \") (\"a\", \"b c\") (\"a b \",) ()\n"
    );
    assert_eq!(
        run(
            r#"print("a,b,c".split(",", 0), "a,b,c".split(",", -5), "a::b::c".split("::", 1), "a,b".split(sep=",", maxsplit=9))"#
        ),
        "(\"a,b,c\",) (\"a\", \"b\", \"c\") (\"a\", \"b::c\") (\"a\", \"b\")\n"
    );
}

#[test]
fn split_of_a_string_counts_characters_not_bytes() {
    assert_eq!(
        run(r#"print("héllo wörld".split("ö"), split("日本 語", " "))"#),
        "(\"héllo w\", \"rld\") (\"日本\", \"語\")\n"
    );
}

#[test]
fn split_of_a_tensor_is_unchanged() {
    assert_eq!(
        run("print(split([1, 2, 3, 4], 2), split([1, 2, 3, 4], [1]), split([[1, 2], [3, 4]], 2, axis=1))"),
        "([1 2], [3 4]) ([1], [2 3 4]) ([[1]\n [3]], [[2]\n [4]])\n"
    );
    assert_eq!(
        run("print(split(arange(4), indices_or_sections=2, dim=0))"),
        "([0 1], [2 3])\n"
    );
}

#[test]
fn join_puts_the_separator_between_items() {
    assert_eq!(
        run(
            r#"print(",".join(("a", "b")), "-".join("abc"), "".join(()), ", ".join({"x": 1, "y": 2}), join(" ", ("é",)))"#
        ),
        "a,b a-b-c  x, y é\n"
    );
}

#[test]
fn strip_lstrip_rstrip() {
    assert_eq!(
        run(
            r#"print(("  hi \n".strip(), "xxhixx".strip("x"), "  hi ".lstrip(), "  hi ".rstrip(), "abcba".strip("ab"), "hi".strip(""), "\u{3000}hi\u{1f}".strip(), "".strip()))"#
        ),
        "(\"hi\", \"hi\", \"hi \", \"  hi\", \"c\", \"hi\", \"hi\", \"\")\n"
    );
    assert_eq!(
        run(r#"print(("ééaé".lstrip("é"), "aéé".rstrip("é"), "..a..".rstrip(".")))"#),
        "(\"aé\", \"a\", \"..a\")\n"
    );
}

#[test]
fn replace_with_a_count_and_an_empty_pattern() {
    assert_eq!(
        run(
            r#"print("abc".replace("", "-"), "abc".replace("", "-", 2), "".replace("", "x"), "aaa".replace("a", "bb", 2), "aaa".replace("a", "b", 0), "héllo".replace("l", "L"), "aaa".replace("aa", ""))"#
        ),
        "-a-b-c- -a-bc x bbbba aaa héLLo a\n"
    );
}

#[test]
fn find_returns_a_code_point_index() {
    assert_eq!(
        run(
            r#"print("héllo".find("l"), "abc".find(""), "".find(""), "abc".find("z"), "日本語".find("語"), find("abcabc", "ca"))"#
        ),
        "2 0 0 -1 2 2\n"
    );
}

#[test]
fn count_is_non_overlapping_and_empty_counts_len_plus_one() {
    assert_eq!(
        run(
            r#"print("abc".count(""), "".count(""), "aaaa".count("aa"), "héé".count("é"), "héé".count(""), "abc".count("z"))"#
        ),
        "4 1 2 2 4 0\n"
    );
}

#[test]
fn startswith_and_endswith_take_a_string_or_a_tuple() {
    assert_eq!(
        run(
            r#"print("abc".startswith(("x", "a")), "abc".startswith("b"), "abc".endswith("bc"), "abc".endswith(()), "".startswith(""), "héllo".endswith(("x", "lo")))"#
        ),
        "true false true false true true\n"
    );
}

#[test]
fn upper_and_lower_use_unicode_case_mapping() {
    assert_eq!(
        run(
            r#"print("ß".upper(), "ΑΣ".lower(), "Straße".lower(), "héllo".upper(), "MiXeD 1".lower(), "".upper())"#
        ),
        "SS ας straße HÉLLO mixed 1 \n"
    );
}

#[test]
fn ord_and_chr_are_inverse() {
    assert_eq!(
        run(
            r#"print(ord("é"), ord("a"), ord("😀"), chr(233), chr(0x1F600), chr(0) == "\0", chr(ord("z")), ord(chr(0x10FFFF)))"#
        ),
        "233 97 128512 é 😀 true z 1114111\n"
    );
}

#[test]
fn method_and_function_forms_agree() {
    assert_eq!(
        run(
            r#"let s = " A,b "; print(s.strip().lower().split(",") == split(lower(strip(s)), ","), ",".join(s.split(",")) == s)"#
        ),
        "true true\n"
    );
}

#[test]
fn dict_keys_values_items_in_insertion_order() {
    assert_eq!(
        run(r#"let d = {"b": 1, 2: "x", true: none}; d["a"] = 3.5; print(d.keys(), d.values(), d.items())"#),
        "(\"b\", 2, true, \"a\") (1, \"x\", none, 3.5) ((\"b\", 1), (2, \"x\"), (true, none), (\"a\", 3.5))\n"
    );
    assert_eq!(run("print(keys({}), values({}), items({}))"), "() () ()\n");
    assert_eq!(
        run(
            r#"let d = {"x": 1, "y": 2}; let t = 0; for (k, v) in d.items() { t += v }; print(t, len(d.keys()))"#
        ),
        "3 2\n"
    );
}

#[test]
fn dict_get_returns_the_value_or_the_default() {
    assert_eq!(
        run(
            r#"let d = {"a": 1, 2: "two"}; print(d.get("a"), d.get("z"), d.get("z", 5), get(d, 2), d.get(2, 0), d.get(false, "no"))"#
        ),
        "1 none 5 two two no\n"
    );
}

#[test]
fn dict_builtins_read_the_tensors_of_a_mapped_file() {
    let dir = common::scratch_dir("strings", "mapped");
    let code = r#"save_gguf("t.gguf", {"w": ones([2], dtype=f32)}); let t = load_gguf("t.gguf").tensors; print(t.values(), t.items()[0][1].sum(), t.get("w") == t["w"])"#;
    let out = common::tsr_in(&["-e", code], None, Some(&dir));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "([1. 1.],) 2.0 [ True  True]\n");
}

#[test]
fn errors_name_what_is_wrong() {
    let cases = [
        (r#""a,b".split("")"#, "split: empty separator"),
        (
            r#""a".split(3)"#,
            "separator of a string must be a string or none, got int",
        ),
        (
            r#""a b".split(" ", 1.5)"#,
            "split: maxsplit must be an int, got float",
        ),
        (
            "split([1, 2])",
            "split of a tensor is missing the argument `sections`",
        ),
        (
            r#"",".join(("a", 1))"#,
            "join: item 1 of items is not a string, got int",
        ),
        (
            r#"",".join({1: 2})"#,
            "join: item 0 of items is not a string, got int",
        ),
        (
            r#"",".join(3)"#,
            "join: items must be a tuple of strings, got int",
        ),
        (
            r#"ord("")"#,
            "ord expects one character, got a string of length 0",
        ),
        (
            r#"ord("ab")"#,
            "ord expects one character, got a string of length 2",
        ),
        ("chr(-1)", "chr: -1 is not in range(0x110000)"),
        ("chr(0x110000)", "chr: 1114112 is not in range(0x110000)"),
        ("chr(0xD800)", "chr: 0xD800 is a surrogate, not a character"),
        (
            r#""abc".startswith(1)"#,
            "startswith: prefix must be a string or a tuple of strings, got int",
        ),
        (
            r#""abc".endswith(("a", 2))"#,
            "endswith: item 1 of suffix is not a string, got int",
        ),
        (
            "upper(1)",
            "argument `s` of upper must be a string, got int",
        ),
        (
            r#"keys("ab")"#,
            "argument `d` of keys must be a dict, got string",
        ),
        (
            r#"{"a": 1}.get([1])"#,
            "get: dict keys are strings, ints or bools, not tensor",
        ),
    ];
    for (code, message) in cases {
        let err = error(code);
        assert!(err.contains(message), "{code}: {err}");
    }
}

//! Issue #18, "Sequences, strings, dicts": tuples as the general sequence, the
//! sequence builtins, comprehensions, dict methods and `del`. Each case runs
//! `tsr -e` and checks the exact output; the issue's own commands are quoted.

mod common;

use common::run_ok as run;

fn fails(code: &str, phrase: &str) {
    let out = common::eval(code);
    assert_eq!(out.code, 1, "{code}\n{}", out.stdout);
    assert!(out.stderr.contains(phrase), "{code}\n{}", out.stderr);
    assert!(!out.stderr.contains("internal error"), "{}", out.stderr);
}

#[test]
fn a_tuple_grows_by_concatenation_as_the_issue_asked() {
    // "`t = t + (x,)` is an error"
    assert_eq!(
        run("let t = (); for x in range(3) { t = t + (x,) }; print(t)"),
        "(0, 1, 2)\n"
    );
    assert_eq!(
        run("print((1,) * 3, 2 * (\"a\",), (1, 2) * -1)"),
        "(1, 1, 1) (\"a\", \"a\") ()\n"
    );
}

#[test]
fn append_extend_insert_pop_change_the_variable_only() {
    assert_eq!(
        run("let t = (1,); let u = t; t.append(2); t.extend((3, 4)); t.insert(0, 0); print(t, u)"),
        "(0, 1, 2, 3, 4) (1,)\n"
    );
    assert_eq!(
        run("let t = (1, 2, 3, 4); print(t.pop(), t.pop(0), t.pop(-1), t)"),
        "4 1 3 (2,)\n"
    );
    assert_eq!(
        run("let t = (1, 2); t.insert(99, 3); t.insert(-99, 0); print(t)"),
        "(0, 1, 2, 3)\n"
    );
    assert_eq!(
        run("let t = \"ab\"; let u = (); u.extend(t); print(u)"),
        "(\"a\", \"b\")\n"
    );
    fails("let t = (); t.pop()", "pop from an empty tuple");
    fails("let t = (1,); t.pop(3)", "index 3 is out of range");
    fails(
        "let t = (1,); t.append()",
        "`append` takes 1 arguments, got 0",
    );
    fails("(1, 2).append(3)", "no function `append`");
}

#[test]
fn membership_in_every_container() {
    assert_eq!(
        run("print(2 in (1, 2), 3 not in (1, 2), \"el\" in \"hello\", \"k\" in {\"k\": 1}, 4 in range(0, 10, 2), 5 in range(0, 10, 2), 2 in [1, 2, 3], 7 in [1, 2])"),
        "true true true true true false true false\n"
    );
    assert_eq!(
        run("print(not 1 in (1,), [1, 2] in ([1, 2], 3), nan in (nan,))"),
        "false true false\n"
    );
    fails(
        "print(1 in 2)",
        "`in` needs a tuple, dict, string, range or tensor",
    );
    fails("print(1 in \"abc\")", "needs a string on the left");
}

#[test]
fn destructuring_assignment_assigns_existing_variables() {
    assert_eq!(
        run("let a = 1; let b = 2; (a, b) = (b, a); print(a, b)"),
        "2 1\n"
    );
    assert_eq!(
        run("let a = 0; let b = 0; let c = 0; (a, (b, c)) = (1, [2, 3]); print(a, b, c)"),
        "1 2 3\n"
    );
    fails("(zz, yy) = (1, 2)", "assignment to undefined variable `zz`");
    fails(
        "let a = 0; let b = 0; (a, b) = (1, 2, 3)",
        "cannot unpack 3 values into 2 names",
    );
    fails(
        "let a = 0; (a, 1) = (1, 2)",
        "a destructuring assignment assigns to names",
    );
    fails(
        "let a = 0; let b = 0; (a, b) += (1, 2)",
        "a tuple of names takes `=`",
    );
}

#[test]
fn sequence_builtins_follow_python() {
    assert_eq!(
        run("print(sorted((3, 1, 2)), sorted((\"b\", \"A\", \"a\")), sorted((2, nan, 1.5, -1)), sorted(range(3), reverse=true))"),
        "(1, 2, 3) (\"A\", \"a\", \"b\") (-1, 1.5, 2, nan) (2, 1, 0)\n"
    );
    // Stable with key= and with reverse=
    assert_eq!(
        run("print(sorted((\"bb\", \"a\", \"cc\", \"d\"), key=len), sorted((\"bb\", \"a\", \"cc\", \"d\"), key=len, reverse=true))"),
        "(\"a\", \"d\", \"bb\", \"cc\") (\"bb\", \"cc\", \"a\", \"d\")\n"
    );
    // An int and a float compare exactly: 2**53 + 1 is more than 2.0**53.
    assert_eq!(
        run("print(sorted((9007199254740993, 9007199254740992.0)))"),
        "(9007199254740992.0, 9007199254740993)\n"
    );
    assert_eq!(
        run("print(enumerate(\"ab\"), zip((1, 2), (3, 4), (5,)), reversed(range(3)), map(str, (1, 2)), filter(|x| x, (0, 1, 2)))"),
        "((0, \"a\"), (1, \"b\")) ((1, 3, 5),) (2, 1, 0) (\"1\", \"2\") (1, 2)\n"
    );
    assert_eq!(
        run("print(sum((1, 2.5)), sum(range(4)), min((3, 1)), max(range(5)), max((\"x\", \"yyy\"), key=len), any(()), all(()))"),
        "3.5 6 1 4 yyy false true\n"
    );
    // Tensors still reduce.
    assert_eq!(
        run("print(sum([1, 2]), max([[1, 5], [7, 2]], axis=0), any([0, 0]))"),
        "3 [7 5] False\n"
    );
    fails("sorted((1, \"a\"))", "int and string cannot be ordered");
    fails("max(())", "max: the sequence is empty");
    fails("sum((1, 2), axis=0)", "axis= applies to a tensor");
    fails("max([1, 2], key=len)", "key= applies to a tuple or range");
    fails("sorted(3)", "sorted: cannot iterate over int");
    fails("map(|x| x)", "give a function and at least one sequence");
    fails("sorted(range(0, 9223372036854775807))", "memory limit");
}

#[test]
fn comprehensions_build_tensors_and_tuples() {
    assert_eq!(run("print([x * x for x in range(4)])"), "[0 1 4 9]\n");
    assert_eq!(run("print([x / 2 for x in range(3)].dtype)"), "f32\n");
    assert_eq!(
        run("print([[i, j] for i in range(3) for j in range(i) if j != 1])"),
        "[[1 0]\n [2 0]]\n"
    );
    assert_eq!(
        run("print((s * 2 for s in (\"a\", \"b\")), (x for x in () if x))"),
        "(\"aa\", \"bb\") ()\n"
    );
    assert_eq!(
        run("let x = 7; let y = [x for x in range(2)]; print(x, y)"),
        "7 [0 1]\n"
    );
    assert_eq!(
        run("let x = (1, 2); print([x * 10 for x in x])"),
        "[10 20]\n"
    );
    fails(
        "[x for x in range(3) if x == \"a\" + 1]",
        "`+` is not defined",
    );
    fails("[(1, 2) if true { 1 } for x in range(2)]", "expected");
    fails("[[1, 2] * k if k > 0 else 0 for k in range(2)]", "expected");
    fails("[arange(k) for k in range(3)]", "");
}

#[test]
fn dict_methods_and_del() {
    assert_eq!(
        run("let d = {\"a\": 1, \"b\": 2}; print(d.pop(\"a\"), d.pop(\"z\", 0), d); d.update({\"c\": 3}); del d[\"b\"]; print(d, \"c\" in d)"),
        "1 0 {\"b\": 2}\n{\"c\": 3} true\n"
    );
    assert_eq!(
        run("let d = {\"xs\": ()}; let e = d; d[\"xs\"].append(1); print(d, e)"),
        "{\"xs\": (1,)} {\"xs\": ()}\n"
    );
    assert_eq!(run("let t = (1, 2, 3); del t[-1]; print(t)"), "(1, 2)\n");
    fails("let d = {}; d.pop(\"k\")", "key \"k\" not found");
    fails("let d = {}; del d[\"k\"]", "key \"k\" not found");
    fails("let d = {}; d.update(3)", "`update` takes a dict");
    fails(
        "let x = [1, 2]; del x[0]",
        "`del` removes a dict entry or a tuple item",
    );
    fails("del 3", "`del` removes an entry");
}

//! Snapshots of every kind of diagnostic, rendered without colour.
//! Each case also checks the exit code and that nothing panicked.

mod common;

use common::eval;

fn diag(code: &str) -> String {
    let out = eval(code);
    assert_eq!(
        out.code, 1,
        "expected an error for {code:?}, got stdout {:?}",
        out.stdout
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(!out.stderr.contains('\u{1b}'), "colour with NO_COLOR set");
    out.stderr
}

macro_rules! diag_snapshot {
    ($name:ident, $code:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), diag($code), $code);
        }
    };
}

// Syntax
diag_snapshot!(
    syntax_three_errors,
    "let = 5\nlet b = 2 * * 3\nprint(1 +)\nlet c = 4"
);
diag_snapshot!(syntax_unclosed_paren, "print((1 + 2)");
diag_snapshot!(syntax_unterminated_string, "print(\"abc)");
diag_snapshot!(syntax_bad_assign_target, "1 + 2 = 3");
diag_snapshot!(syntax_huge_int, "let n = 99999999999999999999999");

// Names and calls
diag_snapshot!(undefined_name_with_hint, "let total = 1; print(totl)");
diag_snapshot!(assign_undefined, "y = 3");
diag_snapshot!(not_callable, "let a = 3; a(1)");
diag_snapshot!(builtin_missing_arg, "linspace(0)");
diag_snapshot!(builtin_unknown_keyword, "sum([1, 2], axes=0)");
diag_snapshot!(builtin_too_many_args, "abs(1, 2)");
diag_snapshot!(builtin_wrong_type, "sum(\"abc\")");
diag_snapshot!(fn_wrong_arity, "fn f(a, b) { a + b }\nf(1, 2, 3)");
diag_snapshot!(fn_missing_arg, "fn f(a, b) { a + b }\nf(1)");
diag_snapshot!(fn_unknown_keyword, "fn f(a, b = 2) { a + b }\nf(1, c = 3)");
diag_snapshot!(recursion_depth, "fn f(n) { f(n + 1) }\nf(0)");
diag_snapshot!(no_such_method, "let x = [1, 2]; x.frobnicate()");
diag_snapshot!(no_such_attribute, "let x = [1, 2]; x.size");

// Tensor errors
diag_snapshot!(broadcast_mismatch, "[1, 2] + [1, 2, 3]");
diag_snapshot!(matmul_mismatch, "ones([2, 3]) @ ones([4, 5])");
diag_snapshot!(index_out_of_bounds, "let x = zeros([2, 3]); x[1, 3]");
diag_snapshot!(too_many_indices, "let x = zeros([2, 3]); x[0, 0, 0]");
diag_snapshot!(axis_out_of_range, "sum(ones([2, 2]), axis=2)");
diag_snapshot!(reshape_mismatch, "arange(6).reshape(4, -1)");
diag_snapshot!(integer_division_by_zero, "[1, 2] // 0");
diag_snapshot!(scalar_division_by_zero, "7 % 0");
diag_snapshot!(ragged_literal, "[[1, 2], [3]]");
diag_snapshot!(inplace_float_into_int, "let a = [1, 2]; a += 0.5");
diag_snapshot!(
    assign_shape_mismatch,
    "let a = zeros([2, 3]); a[0] = [1, 2]"
);
diag_snapshot!(ambiguous_truth, "if [1, 2] > 0 { print(1) }");

// Control flow and values
diag_snapshot!(break_outside_loop, "break");
diag_snapshot!(return_outside_fn, "return 1");
diag_snapshot!(unpack_mismatch, "let (a, b) = (1, 2, 3)");
diag_snapshot!(dict_missing_key, "let d = {\"a\": 1}; d[\"b\"]");
diag_snapshot!(bad_format_spec, "let x = 1.5; f\"{x:.2q}\"");
diag_snapshot!(string_plus_tensor, "\"a\" + [1]");
diag_snapshot!(assert_failed, "assert(1 > 2, \"math broke\")");
diag_snapshot!(integer_overflow, "9223372036854775807 + 1");

// Modules and files
diag_snapshot!(import_missing_file, "import \"nope.tsr\" as m");
diag_snapshot!(unknown_stdlib_module, "use nosuchmodule");
diag_snapshot!(load_missing_file, "load(\"definitely-missing.npy\")");

//! Issue #18, "Scalars, comparisons, conversions": float scalars are f64 end to end,
//! comparisons chain as in Python, and int/float/bool/str/item/tolist/astype convert.
//! Each case runs `tsr -e` and checks the exact output.

mod common;

use common::run_ok as run;

#[test]
fn sqrt_of_a_float_is_a_python_float() {
    assert_eq!(run("print(sqrt(2.0))"), "1.4142135623730951\n");
}

#[test]
fn pi_written_into_an_f64_tensor_keeps_53_bits() {
    assert_eq!(
        run("let a = zeros([1], dtype=f64); a[0] = pi; print(a[0])"),
        "3.141592653589793\n"
    );
    assert_eq!(
        run("let a = zeros([3], dtype=f64); a[a == 0] = pi; print(a[2].item(), full([2], pi, dtype=f64)[1].item(), f64(pi).item(), pi.astype(f64).item())"),
        "3.141592653589793 3.141592653589793 3.141592653589793 3.141592653589793\n"
    );
}

#[test]
fn tensor_of_a_float_with_dtype_f64_is_exact() {
    assert_eq!(run("print(tensor(0.1, dtype=f64))"), "0.1\n");
    assert_eq!(
        run("let t = tensor([0.1, 0.2], dtype=f64); print(t[0].item(), t[1].item(), t.dtype)"),
        "0.1 0.2 f64\n"
    );
    assert_eq!(
        run("let t = tensor([[0.1, 1 / 3], [2, pi]], dtype=f64); print(t.tolist())"),
        "((0.1, 0.3333333333333333), (2.0, 3.141592653589793))\n"
    );
    // Without a dtype (or with none) a literal's floats are f32, as before.
    assert_eq!(
        run("print(tensor(0.1).dtype, tensor([0.1]).dtype, tensor([0.1], dtype=none).dtype, [0.1, 0.2].dtype, tensor([0.1], f64)[0].item())"),
        "f32 f32 f32 f32 0.1\n"
    );
}

#[test]
fn scalar_math_stays_f64_and_returns_scalars() {
    assert_eq!(
        run("print(sin(pi), exp(1), log(10.0), sqrt(2), abs(-3), abs(-2.5), floor(2.5), round(2.5), round(3.14159, 2))"),
        "1.2246467991473532e-16 2.718281828459045 2.302585092994046 1.4142135623730951 3 2.5 2.0 2.0 3.14\n"
    );
    assert_eq!(
        run("print(maximum(1, 2.5), minimum(3, 4), pow(2, -1), pow(2.0, 0.5), clip(5.5, 0, 1), isnan(nan), logical_and(1, 0))"),
        "2.5 3 0.5 1.4142135623730951 1.0 true false\n"
    );
    assert_eq!(
        run("let x = 0.1; print(x * 3, x + 0.2, 1 / 3, sqrt(2.0) ** 2)"),
        "0.30000000000000004 0.30000000000000004 0.3333333333333333 2.0000000000000004\n"
    );
}

#[test]
fn scalars_stay_weak_in_tensor_ops() {
    assert_eq!(
        run("print((ones([2]) * 0.1).dtype, (ones([2], dtype=f16) * 0.1).dtype, ([1, 2] * 0.5).dtype, [0.1, 0.2].dtype, sqrt([2.0]))"),
        "f32 f16 f32 f32 [1.4142135]\n"
    );
}

#[test]
fn float_scalars_print_as_python_repr() {
    assert_eq!(
        run("print(1.0, 1e-05, 0.0001, 1e16, 123456789.0, -0.0, inf, -inf, nan, 0.1 + 0.2)"),
        "1.0 1e-05 0.0001 1e+16 123456789.0 -0.0 inf -inf nan 0.30000000000000004\n"
    );
    assert_eq!(
        run("let r = sqrt(2.0); print(f\"{r:.3f} {r:.10f} {r} {r:e}\")"),
        "1.414 1.4142135624 1.4142135623730951 1.414214e+00\n"
    );
}

#[test]
fn comparisons_chain_like_python() {
    assert_eq!(run("print(0 < 0.5 < 1)"), "true\n");
    assert_eq!(
        run("let a = 5; if 0 <= a < 3 { print(\"in\") } else { print(\"out\") }"),
        "out\n"
    );
    assert_eq!(
        run("print(1 < 2 < 3 < 4, 1 < 3 > 2, 1 == 1 == 1.0, 3 > 2 > 2, 1 < 2 != 2, (1 < 2) < 3)"),
        "true true true false false true\n"
    );
}

#[test]
fn a_chain_evaluates_its_middle_once_and_stops_at_false() {
    assert_eq!(
        run("let n = 0; fn mid() { n += 1; 2 }; print(1 < mid() < 3, n)"),
        "true 1\n"
    );
    assert_eq!(
        run("let n = 0; fn f() { n += 1; 5 }; print(3 < 1 < f(), n)"),
        "false 0\n"
    );
}

#[test]
fn tensor_chains_combine_elementwise() {
    assert_eq!(
        run("let x = arange(6); print(0 < x <= 3, 1 < x < [9, 9, 9, 1, 9, 9])"),
        "[False  True  True  True False False] [False False  True False  True  True]\n"
    );
}

#[test]
fn conversions_of_numbers_and_strings() {
    assert_eq!(
        run("print(int(\"42\"), int(\" 7 \"), int(\"-1_000\"), int(2.9), int(-2.9), int(true), int(tensor(7.5)))"),
        "42 7 -1000 2 -2 1 7\n"
    );
    assert_eq!(
        run("print(float(\"2.5e3\"), float(\" .5 \"), float(\"-inf\"), float(\"nan\"), float(3), float(\"1_0.5\"))"),
        "2500.0 0.5 -inf nan 3.0 10.5\n"
    );
    assert_eq!(
        run("print(bool(0), bool(0.5), bool(\"\"), bool(\"0\"), bool(none), bool(()), bool([[3]]), str(2.5), str(sqrt(2.0)))"),
        "false true false true false false true 2.5 1.4142135623730951\n"
    );
    // `bool` is still the dtype where a dtype is expected.
    assert_eq!(
        run("print(zeros([2], dtype=bool), [1, 0].to(bool), [1].astype(bool).dtype == bool, bool)"),
        "[False False] [ True False] true bool\n"
    );
}

#[test]
fn item_and_tolist() {
    assert_eq!(
        run("print(tensor(0.1, dtype=f64).item(), [2.5].item(), [[3]].item(), [true].item(), tensor(0.1).item())"),
        "0.1 2.5 3 true 0.10000000149011612\n"
    );
    assert_eq!(
        run("print(arange(6).reshape(2, 3).tolist(), [true, false].tolist(), tensor(2.5).tolist(), zeros([2, 0]).tolist(), [0.5].tolist())"),
        "((0, 1, 2), (3, 4, 5)) (true, false) 2.5 ((), ()) (0.5,)\n"
    );
    assert_eq!(
        run(
            "let x = [1.7, -2.5]; print(x.astype(i64), x.astype(f64).dtype, (3).astype(f32).dtype)"
        ),
        "[ 1 -2] f64 f32\n"
    );
}

//! Language semantics end to end: each case runs `tsr -e` and checks exact output.

mod common;

use common::run_ok as run;

#[test]
fn scalars_are_python_like() {
    assert_eq!(
        run("print(7 / 2, 7 // 2, -7 // 2, -7 % 3, 7 % -3, 2 ** 10, 2 ** -1)"),
        "3.5 3 -4 2 -2 1024 0.5\n"
    );
    assert_eq!(
        run("print(0.1 + 0.2, 1e16, 1.0, -0.0, 1 / 0, 5.5 // 2, -5.5 % 2)"),
        "0.30000000000000004 1e+16 1.0 -0.0 inf 2.0 0.5\n"
    );
    assert_eq!(run("print(1 < 2, 1 == 1.0, not true, true and false, false or 1 > 0, 6 & 3, 6 | 3, 6 ^ 3, ~5)"), "true true false false true 2 7 5 -6\n");
}

#[test]
fn weak_scalars_keep_the_tensor_dtype() {
    assert_eq!(
        run("print(([1, 2] * 2).dtype, ([1, 2] * 2.5).dtype, (ones([2], dtype=f16) * 2.5).dtype)"),
        "i64 f32 f16\n"
    );
    assert_eq!(
        run("print(([1, 2] / [2, 2]).dtype, ([1, 2].to(u8) + [1, 2].to(i8)).dtype)"),
        "f32 i16\n"
    );
}

#[test]
fn literals_and_attributes() {
    assert_eq!(run("let t = [[1.5, 2], [3, 4]]; print(t.dtype, t.shape, t.ndim, t.numel, t.nbytes, t.strides)"), "f32 (2, 2) 2 4 16 (2, 1)\n");
    assert_eq!(
        run("print([true, false].dtype, [].shape, [[], []].shape)"),
        "bool (0,) (2, 0)\n"
    );
    assert_eq!(run("print([[1, 2], [3, 4]].T)"), "[[1 3]\n [2 4]]\n");
}

#[test]
fn indexing_views_and_assignment() {
    assert_eq!(run("let a = arange(12).reshape(3, 4); print(a[1], a[-1, ::-2], a[..., 1], a[none, 0].shape)"), "[4 5 6 7] [11  9] [1 5 9] (1, 4)\n");
    assert_eq!(run("let a = zeros([2, 3], dtype=i32); a[:, 1] = 7; a[0] = [1, 2, 3]; a[1, -1] += 5; print(a)"), "[[1 2 3]\n [0 7 5]]\n");
    assert_eq!(run("let a = arange(4); let b = a.reshape(2, 2); let o = b.owns_data; b[0, 0] = 9; print(a, o, a[1:].owns_data, b.owns_data)"), "[0 1 2 3] false false true\n");
    assert_eq!(
        run("let b = broadcast_to([1, 2], [2, 2]); b[0, 0] = 5; print(b)"),
        "[[5 2]\n [1 2]]\n"
    );
}

#[test]
fn functions_closures_and_recursion() {
    assert_eq!(
        run("fn fib(n) { if n < 2 { n } else { fib(n - 1) + fib(n - 2) } }\nprint(fib(15))"),
        "610\n"
    );
    assert_eq!(
        run("fn add(a, b = 10) { a + b }\nprint(add(1), add(1, 2), add(b = 5, a = 1))"),
        "11 3 6\n"
    );
    assert_eq!(
        run("let k = 3; let f = |x| x * k; print(f(2), [1, 2].f())"),
        "6 [3 6]\n"
    );
    assert_eq!(
        run("fn make(n) { |x| x + n }\nlet add5 = make(5); print(add5(1))"),
        "6\n"
    );
    assert_eq!(run("fn first_neg(xs) { for x in xs { if x < 0 { return x } }; none }\nprint(first_neg([3, -2, -5]), first_neg([1]))"), "-2 none\n");
}

#[test]
fn control_flow() {
    assert_eq!(run("let s = 0; let i = 0; while true { i += 1; if i % 2 == 0 { continue }; if i > 9 { break }; s += i }; print(s)"), "25\n");
    assert_eq!(run("let v = { let a = 2; a * 3 }; print(v, if v > 5 { \"big\" } else if v > 2 { \"mid\" } else { \"small\" })"), "6 big\n");
    assert_eq!(
        run("for (i, x) in ((0, \"a\"), (1, \"b\")) { print(i, x) }"),
        "0 a\n1 b\n"
    );
    assert_eq!(
        run("for row in [[1, 2], [3, 4]] { print(sum(row)) }"),
        "3\n7\n"
    );
    assert_eq!(
        run("for i in range(10, 0, -3) { print(i, end=\" \") }"),
        "10 7 4 1 "
    );
}

#[test]
fn for_loops_over_ranges() {
    // The counter is written straight into the loop variable's slot; these pin down
    // what that must keep.
    assert_eq!(
        run("let s = 0; for i in range(10) { if i == 7 { break }; if i % 2 == 0 { continue }; s += i }; print(s)"),
        "9\n"
    );
    assert_eq!(
        run("for r in (range(0, 10, 4), range(5, 5), range(3, 0), range(-2, 2), range(2, -3, -2)) { for i in r { print(i, end=\" \") }; print(\"|\") }"),
        "0 4 8 |\n|\n|\n-2 -1 0 1 |\n2 0 -2 |\n"
    );
    // Stepping past the ends of i64 ends the loop.
    assert_eq!(
        run("for i in range(9223372036854775800, 9223372036854775807, 3) { print(i) }"),
        "9223372036854775800\n9223372036854775803\n9223372036854775806\n"
    );
    assert_eq!(
        run("for i in range(-9223372036854775805, -9223372036854775807 - 1, -2) { print(i) }"),
        "-9223372036854775805\n-9223372036854775807\n"
    );
    // Each iteration has its own scope: closures keep their iteration's variables.
    assert_eq!(
        run("let d = {}; for i in range(3) { let j = i * 2; d[i] = |x| x + i * 10 + j }; print(d[0](1), d[1](1), d[2](1))"),
        "1 13 25\n"
    );
    // The loop variable shadows a global only inside the body, and only for names
    // the body itself resolves.
    assert_eq!(
        run("let i = 100; fn g() { i }; for i in range(2) { print(i, g()) }; print(i)"),
        "0 100\n1 100\n100\n"
    );
    assert_eq!(
        run("for i in range(2) { for i in range(3, 5) { print(i, end=\" \") }; print(i) }"),
        "3 4 0\n3 4 1\n"
    );
    // Assigning to the loop variable does not change the iteration.
    assert_eq!(
        run("for i in range(3) { i += 10; print(i, end=\" \") }"),
        "10 11 12 "
    );
    // A name the body binds is unbound again at the start of the next iteration.
    assert_eq!(
        run("let x = \"outer\"; for i in range(2) { print(x); let x = i; print(x) }"),
        "outer\n0\nouter\n1\n"
    );
    // `op=` on a scalar: ints stay ints, mix with floats and bools as Python does.
    assert_eq!(
        run("let s = 0; let f = 0; let t = true; for i in range(4) { s -= i; s *= 2; f += 0.5; t += i }; print(s, f, t)"),
        "-22 2.0 7\n"
    );
    assert_eq!(
        run("fn f() { let s = 0; for i in range(5) { if i == 3 { return s }; s += i }; -1 }; print(f())"),
        "3\n"
    );
    let out = common::eval("let s = 9223372036854775800; for i in range(10) { s += i }");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("integer overflow in `+`"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("s += i"), "{}", out.stderr);
}

#[test]
fn tuples_dicts_strings() {
    assert_eq!(
        run("let (a, (b, c)) = (1, (2, 3)); print(a + b + c, (1,), ())"),
        "6 (1,) ()\n"
    );
    assert_eq!(run("let d = {\"a\": 1, \"b\": [1, 2]}; d[\"c\"] = 3; d[\"a\"] += 1; print(d, len(d), d[\"b\"])"), "{\"a\": 2, \"b\": [1 2], \"c\": 3} 3 [1 2]\n");
    assert_eq!(
        run("let x = 3.14159; print(f\"pi ~ {x:.2f}, {x:>8.3e}|{42:5d}|{'ab'}|{{}}\")"),
        "pi ~ 3.14, 3.142e+00|   42|ab|{}\n"
    );
    assert_eq!(
        run("print(\"a\" + \"b\", len(\"héllo\"), \"tab\\tend\")"),
        "ab 5 tab\tend\n"
    );
}

#[test]
fn modules_import_and_use() {
    let dir = std::env::temp_dir().join(format!("tsr-mod-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(
        dir.join("lib/helpers.tsr"),
        "let scale = 10\nfn twice(x) { x * 2 * scale / scale }\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("main.tsr"),
        "import \"lib/helpers.tsr\" as h\nprint(h.twice(21), h.scale)\n",
    )
    .unwrap();
    let out = common::tsr(&[dir.join("main.tsr").to_str().unwrap()], None);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "42.0 10\n"),
        "{}",
        out.stderr
    );
    assert_eq!(
        run("use stats; print(stats.mse([1.0, 2.0], [1.0, 4.0]))"),
        "2.0\n"
    );
}

#[test]
fn print_options() {
    assert_eq!(
        run("print([1.123456789, 2.0], precision=3)"),
        "[1.123 2.   ]\n"
    );
    assert_eq!(
        run("set_printoptions(threshold=5, edgeitems=2); print(arange(10))"),
        "[0 1 ... 8 9]\n"
    );
    assert_eq!(
        run("print(1, \"a\", none, true, f32, sep=\", \")"),
        "1, a, none, true, f32\n"
    );
}

#[test]
fn creation_and_reductions() {
    assert_eq!(
        run("print(arange(5), arange(1, 2, 0.25), linspace(0, 1, 5))"),
        "[0 1 2 3 4] [1.   1.25 1.5  1.75] [0.   0.25 0.5  0.75 1.  ]\n"
    );
    assert_eq!(
        run("print(eye(2, dtype=i64), full([2], 7), zeros_like([1.5]), ones_like([1, 2]))"),
        "[[1 0]\n [0 1]] [7 7] [0.] [1 1]\n"
    );
    assert_eq!(run("let m = [[1, 5, 3], [4, 2, 6]]; print(sum(m), sum(m, axis=0), max(m, axis=-1), min(m), argmax(m), argmax(m, axis=1), mean(m, dim=[0, 1]))"), "21 [5 7 9] [5 6] 1 5 [1 2] 3.5\n");
    assert_eq!(
        run("print(sum([[1, 2], [3, 4]], axis=1, keepdims=true))"),
        "[[3]\n [7]]\n"
    );
}

#[test]
fn matmul_forms() {
    assert_eq!(run("let a = arange(6).reshape(2, 3); print(a @ [1, 1, 1], [1, 1] @ a, [1, 2] @ [3, 4], (ones([4, 2, 3]) @ ones([3, 5])).shape)"), "[ 3 12] [3 5 7] 11 (4, 2, 5)\n");
}

#[test]
fn npy_round_trip() {
    let dir = std::env::temp_dir().join(format!("tsr-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.npy");
    let p = path.to_str().unwrap();
    let code = format!("save(\"{p}\", arange(6).reshape(2, 3).T); let y = load(\"{p}\"); print(y, y.dtype, y.owns_data)");
    assert_eq!(run(&code), "[[0 3]\n [1 4]\n [2 5]] i64 true\n");
}

#[test]
fn in_place_methods_update_the_variable_only() {
    assert_eq!(
        run("let x = [1.0, 4.0]; let y = x; x.sqrt_(); print(x, y); x.fill_(7); print(x, y)"),
        "[1. 2.] [1. 4.]\n[7. 7.] [1. 4.]\n"
    );
    assert_eq!(
        run("let v = arange(6).to(f32).reshape(2, 3)[:, 1:]; v.neg_(); print(v)"),
        "[[-1. -2.]\n [-4. -5.]]\n"
    );
    assert_eq!(run("print(arange(3).to(f64).exp_().dtype)"), "f64\n");
}

#[test]
fn npz_and_safetensors_round_trip() {
    let dir = common::temp_dir("archives");
    let (npz, st) = (dir.join("a.npz"), dir.join("w.safetensors"));
    let code = format!(
        "save_npz(\"{}\", {{\"a\": arange(6).reshape(2, 3), \"b\": [1.5, 2.5].to(f16)}}, compressed=true)
         let d = load_npz(\"{}\"); print(d[\"a\"], d[\"b\"].dtype)
         save_safetensors(\"{}\", {{\"w\": [[0.5, -1.0]].to(bf16), \"i\": [1, 2].to(i32)}})
         let s = load_safetensors(\"{}\"); print(s[\"w\"], s[\"w\"].dtype, s[\"i\"].dtype)",
        npz.display(),
        npz.display(),
        st.display(),
        st.display()
    );
    assert_eq!(
        run(&code),
        "[[0 1 2]\n [3 4 5]] f16\n[[ 0.5 -1. ]] bf16 i32\n"
    );
}

#[test]
fn quantized_tensors() {
    let out = run("let w = randn([64, 256], seed=1); let q = quantize(w, q4_k)
         print(q, q.shape, q.dtype, q.T.shape)
         let x = randn([3, 256], seed=2)
         let fused = x @ q.T; let reference = x @ dequantize(q).T
         print(fused.shape, max(abs(fused - reference)) < 0.5, (q @ x.T).shape, matmul(x, q).shape)
         print(dequantize(q, transpose=true).shape, dequantize(quantize(ones([1, 32]) * 2, \"q8_0\"))[0, 5])");
    assert_eq!(
        out,
        "<quantized q4_k[64, 256], 9216 bytes> (64, 256) q4_k (256, 64)\n(3, 64) True (64, 3) (3, 64)\n(256, 64) 1.9998779\n"
    );
}

#[test]
fn gguf_models_open_lazily() {
    let root = env!("CARGO_MANIFEST_DIR");
    let code = format!(
        "let m = load_gguf(\"{root}/tests/fixtures/gguf/small.gguf\")
         print(m.metadata[\"general.architecture\"], m.tensors[\"weight_f32\"].shape)
         print(m.tensors[\"blk.0.q4_k\"], dequantize(m.tensors[\"blk.0.q4_k\"]).shape)
         print(m.tensors[\"ids_i32\"].dtype, len(m.tensors))"
    );
    assert_eq!(
        run(&code),
        "tsr-test (3, 4)\n<quantized q4_k[2, 256], 288 bytes> (2, 256)\ni32 7\n"
    );
}

#[test]
fn full_like_casts_the_value_to_the_tensors_dtype() {
    // NumPy: np.full_like(np.array([1, 2, 3]), 0.7) is [0, 0, 0].
    assert_eq!(run("print(full_like([1, 2, 3], 0.7))"), "[0 0 0]\n");
    assert_eq!(
        run("print(full_like(zeros([2, 2]), 3))"),
        "[[3. 3.]\n [3. 3.]]\n"
    );
    assert_eq!(
        run("let y = full_like([1, 2], 5, dtype=f64); print(y, y.dtype)"),
        "[5. 5.] f64\n"
    );
    let out = common::eval("full_like([1], \"a\")");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("full_like needs a number, got string"));
}

// Issue #19: "`layer_norm(x, [4])` reads `[4]` as the weight where torch users pass
// `normalized_shape` (result 4× too large)". The second argument is normalized_shape.
#[test]
fn layer_norm_second_argument_is_normalized_shape() {
    let x = "let x = [[1.0, 2, 3, 4], [2, 4, 6, 8]]";
    let by_hand = "(x - mean(x, axis=1, keepdim=true)) / sqrt(var(x, axis=1, keepdim=true) + 1e-5)";
    assert_eq!(
        run(&format!(
            "{x}; let y = layer_norm(x, [4]); print(y.shape, max(abs(y - {by_hand})) < 1e-6)"
        )),
        "(2, 4) True\n"
    );
    assert_eq!(
        run(&format!("{x}; print(max(abs(rms_norm(x, [4]) - x / sqrt(mean(x * x, axis=1, keepdim=true) + 1.1920929e-07))) < 1e-6)")),
        "True\n"
    );
}

// Issue #19: "`normalize` defaults to the last axis (torch: `dim=1`)".
#[test]
fn normalize_defaults_to_dim_1_like_torch() {
    assert_eq!(
        run("let y = normalize(ones([2, 3, 4])); print(y[0, 0, 0], normalize(ones([2, 3, 4]), dim=-1)[0, 0, 0])"),
        "0.57735026 0.5\n"
    );
}

// Issue #19: u16/u32/u64 through every layer; NumPy's promotion of unsigned with signed.
#[test]
fn unsigned_dtypes() {
    assert_eq!(
        run("let m = [0].to(u64) - 1; print(m, m.dtype, ([1].to(u16) + [1].to(i16)).dtype, ([1].to(u32) + [1].to(i8)).dtype, ([1].to(u64) + [1]).dtype)"),
        "[18446744073709551615] u64 i32 i64 f64\n"
    );
    // An element above the largest int reads as the nearest float, never a wrapped int.
    assert_eq!(
        run("let m = [0, 8].to(u64) - 1; print(m[0].item(), m[1].item(), m.tolist())"),
        "1.8446744073709552e+19 7 (1.8446744073709552e+19, 7)\n"
    );
    assert_eq!(
        run("print(sum([65535, 1].to(u16)), sum([2, 3].to(u64)).dtype, [3].to(u32) - [5].to(u32))"),
        "65536 u64 [4294967294]\n"
    );
}

#[test]
fn dot_t_reverses_all_axes_like_numpy() {
    // Issue #19: "`x.T` on a 3-D tensor swaps only the last two axes (NumPy
    // reverses all)". Now `.T` and `transpose(x)` reverse all; `.mT` swaps two.
    let x = "let x = arange(24).reshape(2, 3, 4)";
    assert_eq!(
        run(&format!(
            "{x}; print(x.T.shape, transpose(x).shape, x.mT.shape)"
        )),
        "(4, 3, 2) (4, 3, 2) (2, 4, 3)\n"
    );
    // print(np.arange(24).reshape(2, 3, 4).T.flatten())
    assert_eq!(
        run(&format!("{x}; print(x.T.flatten())")),
        "[ 0 12  4 16  8 20  1 13  5 17  9 21  2 14  6 18 10 22  3 15  7 19 11 23]\n"
    );
    assert_eq!(
        run(&format!("{x}; print(x.T[1])")),
        "[[ 1 13]\n [ 5 17]\n [ 9 21]]\n"
    );
    assert_eq!(
        run(&format!(
            "{x}; print(transpose(x, 0, 2).shape, x.T.is_contiguous)"
        )),
        "(4, 3, 2) false\n"
    );
    assert_eq!(
        run("print([1, 2].T, ones([2, 3]).mT.shape)"),
        "[1 2] (3, 2)\n"
    );
    let out = common::eval("[1, 2].mT");
    assert_eq!(out.code, 1);
    assert!(out
        .stderr
        .contains("needs a matrix or a batch of matrices, got a 1-d tensor"));
}

#[test]
fn an_element_read_updates_a_0d_accumulator_as_the_binary_op_does() {
    // `acc op= s[j]` with a 0-d accumulator of s's float dtype reads the element and
    // combines it in place without the index's view; `r = r op s[j]` is the reference.
    // acc starts as a view of s, which must copy rather than write into s.
    for dtype in ["f32", "f64"] {
        for op in ["+", "-", "*", "/"] {
            let code = format!(
                "let s = randn([7], dtype={dtype}, seed=3); let acc = s[0]; let r = s[0]; \
                 for j in range(1, 7) {{ acc {op}= s[j]; r = r {op} s[j] }}; \
                 print(acc.dtype, acc.shape, str(acc) == str(r), bool(s[0] == randn([7], dtype={dtype}, seed=3)[0]))"
            );
            assert_eq!(run(&code), format!("{dtype} () true true\n"), "{code}");
        }
    }
    // Where the fast path does not apply (another dtype, a Python float, an int tensor),
    // the general one gives its usual results.
    assert_eq!(
        run("let s = [1.5, 2.5]; let acc = zeros([], dtype=f64); acc += s[1]; let a = 0.0; a += s[0]; a += s[1]; let i = [3, 4]; let n = i[0]; n *= i[1]; print(acc.dtype, acc, a.dtype, a, n.dtype, n)"),
        "f64 2.5 f32 4.0 i64 12\n"
    );
}

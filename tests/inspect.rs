//! `tsr inspect FILE` on the committed fixtures (snapshots), its exit codes, and
//! `info(x)` for quantized tensors, dicts of tensors and models: the same tables.

mod common;

use common::{eval, fixture, tsr};

/// `tsr inspect` on a fixture; must succeed with nothing on stderr.
fn inspect(name: &str) -> String {
    let path = fixture(name);
    let out = tsr(&["inspect", path.to_str().unwrap()], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    out.stdout
}

fn run(code: &str) -> String {
    let out = eval(code);
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    out.stdout
}

/// A fixture path as a string literal for a script.
fn lit(name: &str) -> String {
    format!("{:?}", fixture(name).to_str().unwrap())
}

#[test]
fn inspect_every_format() {
    for (snapshot, file) in [
        ("gguf", "gguf/small.gguf"),
        ("safetensors", "safetensors/all_dtypes.safetensors"),
        ("npz", "npz/savez_compressed.npz"),
        ("npy", "npy/f32_3d.npy"),
    ] {
        insta::assert_snapshot!(snapshot, inspect(file), file);
    }
}

#[test]
fn info_of_a_model_is_what_inspect_prints() {
    let model = lit("gguf/small.gguf");
    assert_eq!(
        run(&format!("info(load_gguf({model}))")),
        inspect("gguf/small.gguf")
    );
    // Describing a model loads none of its tensors: they still print as mapped.
    assert_eq!(
        run(&format!(
            "let m = load_gguf({model}); info(m); print(m.tensors)"
        ))
        .lines()
        .last(),
        Some(
            "{\"weight_f32\": <mapped f32[3, 4]>, \"weight_f16\": <mapped f16[2, 5]>, \
             \"cube_f32\": <mapped f32[2, 1, 3]>, \"ids_i32\": <mapped i32[5]>, \
             \"bias_bf16\": <mapped bf16[4]>, \"blk.0.q8_0\": <mapped q8_0[2, 64]>, \
             \"blk.0.q4_k\": <mapped q4_k[2, 256]>}"
        )
    );
    let st = lit("safetensors/all_dtypes.safetensors");
    assert_eq!(
        run(&format!("info(load_safetensors({st}))")),
        inspect("safetensors/all_dtypes.safetensors")
    );
}

#[test]
fn info_of_quantized_tensors_and_dicts() {
    insta::assert_snapshot!(run(
        "let q = quantize(ones([4, 64]), q8_0); info(q); info(q.T)
         info({\"w\": q, \"b\": zeros([4]), \"scale\": ones([2, 3], dtype=f16)[:, 1:]})
         info({})"
    ));
}

#[test]
fn info_rejects_what_it_cannot_describe() {
    let out = eval("info({\"a\": ones([2]), \"n\": 3})");
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("info() describes a dict of tensors, but entry \"n\" is int"),
        "{}",
        out.stderr
    );
    let out = eval("info(\"text\")");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("not string"), "{}", out.stderr);
}

/// `tsr inspect PATH` fails with `code`, nothing on stdout, and stderr containing `want`.
fn inspect_fails(path: &std::path::Path, code: i32, want: &str) {
    let out = tsr(&["inspect", path.to_str().unwrap()], None);
    assert_eq!(out.code, code, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert!(out.stderr.contains(want), "want {want:?} in {}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn inspect_exit_codes() {
    let dir = common::temp_dir("inspect-exit-codes");
    let unknown = dir.join("model.bin");
    std::fs::write(&unknown, b"x").unwrap();
    inspect_fails(
        &unknown,
        2,
        "expected a .gguf, .safetensors, .npz or .npy file",
    );
    inspect_fails(&dir.join("missing.gguf"), 1, "tsr inspect: gguf: ");
    let bad = dir.join("bad.safetensors");
    std::fs::write(&bad, b"\x08\0\0\0\0\0\0\0{broken}").unwrap();
    inspect_fails(&bad, 1, "tsr inspect: safetensors: ");
    inspect_fails(
        &fixture("safetensors/unsupported.safetensors"),
        1,
        "which tsr does not support",
    );
    assert_eq!(tsr(&["inspect"], None).code, 2);
    assert_eq!(tsr(&["inspect", "a.gguf", "b.gguf"], None).code, 2);
}

//! Same script, same bits, for any thread count: each op is run by the real binary with
//! `--threads 1`, `2` and `3` on inputs large enough to be split into several parallel
//! chunks, and the saved results must be byte-identical.

mod common;

use common::{temp_dir, tsr};

/// Runs `body` (which must `save(out, ...)` its results) with each thread count and
/// asserts the written files are identical.
fn same_bits_for_any_thread_count(name: &str, body: &str) {
    let dir = temp_dir(&format!("determinism_{name}"));
    let mut files: Vec<(usize, Vec<u8>)> = Vec::new();
    for threads in [1, 2, 3] {
        let out = dir.join(format!("{name}_{threads}.npz"));
        let script = format!(
            "seed(7)\nlet out = \"{}\"\n{body}",
            out.display().to_string().replace('\\', "/")
        );
        let run = tsr(&["--threads", &threads.to_string(), "-e", &script], None);
        assert!(
            run.code == 0,
            "{name} with {threads} threads failed:\n{}",
            run.stderr
        );
        files.push((threads, std::fs::read(&out).unwrap()));
    }
    for (threads, bytes) in &files[1..] {
        assert!(
            *bytes == files[0].1,
            "{name}: --threads {threads} gives different bits than --threads 1"
        );
    }
}

#[test]
fn reductions() {
    same_bits_for_any_thread_count(
        "reductions",
        r#"
let x = randn([1000, 1531])
let v = x[:, ::2]
save_npz(out, {
    "sum": sum(x), "sum0": sum(x, axis=0), "sum1": sum(x, axis=1),
    "mean": mean(x), "mean0": mean(x, axis=0), "var": var(x), "var1": var(x, axis=1),
    "std0": std(v, axis=0), "sumv": sum(v), "max1": max(x, axis=1), "argmax1": argmax(x, axis=1),
    "f64": sum(x.to(f64) * 1.5), "nansum": nansum(x),
})
"#,
    );
}

#[test]
fn elementwise_and_softmax() {
    same_bits_for_any_thread_count(
        "softmax",
        r#"
let x = randn([700, 1000])
save_npz(out, {
    "softmax": softmax(x), "softmax0": softmax(x, axis=0), "log_softmax": log_softmax(x),
    "exp": exp(x), "tanh": tanh(x), "gelu": gelu(x), "bcast": x + x[0],
    "layer_norm": layer_norm(x), "rms_norm": rms_norm(x),
})
"#,
    );
}

#[test]
fn matmul() {
    same_bits_for_any_thread_count(
        "matmul",
        r#"
let a = randn([300, 517])
let b = randn([517, 260])
let batch = randn([6, 65, 80])
save_npz(out, {
    "mm": a @ b, "mm_t": b.T @ a.T, "f64": a.to(f64) @ b.to(f64),
    "batched": batch @ batch.mT, "matvec": a @ b[:, 0], "bf16": (a.to(bf16) @ b.to(bf16)).to(f32),
})
"#,
    );
}

#[test]
fn conv_and_pool() {
    same_bits_for_any_thread_count(
        "conv",
        r#"
let x = randn([4, 16, 40, 40])
let w = randn([32, 16, 3, 3])
let dw = randn([16, 1, 3, 3])
let wt = randn([16, 8, 4, 4])
save_npz(out, {
    "conv": conv2d(x, w, none, padding=1), "strided": conv2d(x, w, none, stride=2),
    "depthwise": conv2d(x, dw, none, padding=1, groups=16),
    "transpose": conv_transpose2d(x, wt, none, stride=2, padding=1),
    "max_pool": max_pool2d(x, 3, stride=2), "avg_pool": avg_pool2d(x, 2),
    "global": global_avg_pool2d(x),
})
"#,
    );
}

#[test]
fn rearranging_and_matrix_functions() {
    // None of these runs in parallel today; the test pins that down for when one does.
    same_bits_for_any_thread_count(
        "arrange",
        r#"
let x = randn([64, 300])
let v = randn([3000])
let c = randn([20000, 3])
let g = meshgrid(v[:200], v[:300])
save_npz(out, {
    "pad": pad(x, ((3, 5), (7, 2)), mode="reflect"), "pad_c": pad(x, 4, constant_values=1.5),
    "tile": tile(x, (2, 3)), "repeat": repeat(x, 3, axis=1), "roll": roll(x, (5, -7), axis=(0, 1)),
    "flip": flip(x).contiguous(), "rot90": rot90(x).contiguous(), "tril": tril(x, 3), "triu": triu(x.mT),
    "diag": diag(v[:500]), "trace": trace(x), "outer": outer(v[:1000], v[:700]),
    "kron": kron(x[:20, :30], x[:10, :20]), "cross": cross(c, c[::-1]), "gx": g[0], "gy": g[1],
    "hstack": hstack((x, x)), "logspace": logspace(-3, 3, 10000),
})
"#,
    );
}

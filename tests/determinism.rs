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
    "layer_norm": layer_norm(x, 1000), "rms_norm": rms_norm(x, [1000]),
    "normalize": normalize(x),
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
fn scatter_add_and_index_add() {
    // Many duplicate indices on a large f32 tensor: sums accumulate in index order.
    same_bits_for_any_thread_count(
        "scatter_add",
        r#"
let x = randn([64, 3000])
let src = randn([64, 3000])
let idx = randint(0, 7, [64, 3000])
let rows = randint(0, 5, [5000])
let rsrc = randn([5000, 3000])
save_npz(out, {
    "scatter_add": scatter_add(x, 1, idx, src), "scatter": scatter(x, 1, idx, src),
    "index_add": index_add(x[:5], 0, rows, rsrc), "index_add_alpha": index_add(x, 1, idx[0], src, alpha=0.5),
})
"#,
    );
}

#[test]
fn random_distributions_and_sampling() {
    same_bits_for_any_thread_count(
        "random_sampling",
        r#"
let p = rand([300, 700])
save_npz(out, {
    "uniform": uniform([300001], -2, 5), "uniform64": uniform([300001], dtype=f64, seed=3),
    "normal": normal([300001], 1, 2, dtype=f16), "rand_like": rand_like(p, dtype=f64),
    "randn_like": randn_like(p), "perm": permutation(300001),
    "shuffle": shuffle(p), "perm_rows": permutation(p, seed=5),
    "choice": choice(300001, size=[300001]), "choice_p": choice(700, 300001, p=p[0] / sum(p[0].to(f64))),
    "choice_norep": choice(300001, 200000, replace=false),
    "choice_norep_p": choice(700, 500, replace=false, p=p[1] / sum(p[1].to(f64))),
    "bernoulli": bernoulli(p), "multinomial": multinomial(p, 500),
    "multinomial_rep": multinomial(p, 1000, replacement=true),
})
"#,
    );
}

#[test]
fn sorting_and_statistics() {
    same_bits_for_any_thread_count(
        "statistics",
        r#"
let x = randn([600, 1500])
let v = x[:, ::3]
let h = histogram(x, 50)
let hw = histogram(v, 17, range=(-2, 2), weights=abs(v), density=true)
save_npz(out, {
    "sort": sort(x), "sort0": sort(v, axis=0), "topk": topk(x, 9)[0], "topk_i": topk(v, 4, axis=0)[1],
    "median": median(x, axis=1), "median_all": median(v), "median_axes": median(x.reshape([600, 30, 50]), axis=[0, 2]),
    "percentile": percentile(x, [5, 50, 99.5], axis=0), "nanpercentile": nanpercentile(v, 30),
    "hist": h[0], "edges": h[1], "hist_w": hw[0], "hist_w_edges": hw[1],
    "cumprod": cumprod(1 + x / 100, axis=1), "cumprod0": cumprod(v, axis=0), "cummax": cummax(x, axis=0),
    "logsumexp": logsumexp(x), "logsumexp1": logsumexp(v, axis=1), "nanvar": nanvar(x, axis=0),
    "cov": cov(x[:40]), "corrcoef": corrcoef(v[:, :30], rowvar=false), "ptp": ptp(x, axis=1),
    "average": average(x, axis=1, weights=abs(x)), "diff": diff(v, n=2, axis=0),
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

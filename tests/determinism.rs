//! Same script, same bits, for any thread count and any kernel ISA: each op is run by
//! the real binary with `--threads 1`, `2` and `3`, and under `TSR_ISA` set to each
//! level this CPU runs, on inputs large enough to be split into several parallel chunks;
//! the saved results must be byte-identical.

mod common;

use common::{temp_dir, tsr_env};
use tsr::kernels::isa::Isa;

/// Runs `body` (which must `save(out, ...)` its results) with each thread count at the
/// best ISA, and at each lower ISA with 2 threads, and asserts the written files are
/// identical. ISA levels this CPU lacks are skipped, and said so.
fn same_bits_everywhere(name: &str, body: &str) {
    let dir = temp_dir(&format!("determinism_{name}"));
    let supported = Isa::supported();
    let best = supported.last().copied().unwrap_or(Isa::SCALAR);
    for level in ["scalar", "avx2", "avx512"] {
        if !supported.iter().any(|isa| isa.name() == level) {
            eprintln!("{name}: skipping TSR_ISA={level}: this CPU does not run it");
        }
    }
    let runs = [1, 2, 3].map(|threads| (threads, best)).into_iter().chain(
        supported
            .iter()
            .filter(|&&isa| isa != best)
            .map(|&isa| (2, isa)),
    );
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for (threads, isa) in runs {
        let what = format!("--threads {threads} TSR_ISA={}", isa.name());
        let out = dir.join(format!("{name}_{threads}_{}.npz", isa.name()));
        let script = format!(
            "seed(7)\nlet out = \"{}\"\n{body}",
            out.display().to_string().replace('\\', "/")
        );
        let args = ["--threads", &threads.to_string(), "-e", &script];
        let run = tsr_env(&args, None, None, &[("TSR_ISA", Some(isa.name()))]);
        assert!(run.code == 0, "{name} with {what} failed:\n{}", run.stderr);
        files.push((what, std::fs::read(&out).unwrap()));
    }
    for (what, bytes) in &files[1..] {
        assert!(
            *bytes == files[0].1,
            "{name}: {what} gives different bits than {}",
            files[0].0
        );
    }
}

#[test]
fn reductions() {
    same_bits_everywhere(
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
    same_bits_everywhere(
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
    same_bits_everywhere(
        "matmul",
        r#"
let a = randn([300, 517])
let b = randn([517, 260])
let batch = randn([6, 65, 80])
save_npz(out, {
    "mm": a @ b, "mm_t": b.T @ a.T, "f64": a.to(f64) @ b.to(f64),
    "batched": batch @ batch.mT, "matvec": a @ b[:, 0], "bf16": (a.to(bf16) @ b.to(bf16)).to(f32),
    "bf16_matvec": (a.to(bf16) @ b[:, 0].to(bf16)).to(f32),
    "bf16_row": (a[0].to(bf16) @ b.to(bf16)).to(f32),
    "bf16_tiny": ((a * 1e-30).to(bf16) @ b.to(bf16)).to(f32),
})
"#,
    );
}

#[test]
fn conv_and_pool() {
    same_bits_everywhere(
        "conv",
        r#"
let x = randn([4, 16, 40, 40])
let w = randn([32, 16, 3, 3])
let dw = randn([16, 1, 3, 3])
let wt = randn([16, 8, 4, 4])
let xo = randn([2, 12, 23, 17])
let wo = randn([14, 12, 3, 3])
let w7 = randn([13, 12, 7, 7])
save_npz(out, {
    "conv": conv2d(x, w, none, padding=1), "strided": conv2d(x, w, none, stride=2),
    "odd": conv2d(xo, wo, none, padding=2), "7x7": conv2d(xo, w7, none, stride=2, padding=3),
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
    same_bits_everywhere(
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
    same_bits_everywhere(
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
    same_bits_everywhere(
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
    same_bits_everywhere(
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

#[test]
fn linear_algebra() {
    // Sizes past the factorizations' block of 64, so their GEMM updates run (on each
    // ISA's micro-kernels) beside the plain loops.
    same_bits_everywhere(
        "linalg",
        r#"
let a = randn([3, 70, 70])
let spd = a @ a.mT + 70 * eye(70)
let b = randn([3, 70, 5])
let r = randn([150, 70])
let q = qr(r)
let e = eigh(spd)
let s = svd(r, full_matrices=false)
let l = lstsq(r, randn([150, 3]))
save_npz(out, {
    "solve": solve(a, b), "inv": inv(a), "det": det(a), "slogdet": slogdet(a)[1],
    "tri": solve_triangular(triu(a) + 70 * eye(70), b), "power": matrix_power(a[0], 5),
    "chol": cholesky(spd), "q": q[0], "r": q[1], "w": e[0], "v": e[1], "eigvalsh": eigvalsh(spd),
    "u": s[0], "s": s[1], "vh": s[2], "svdvals": svdvals(r), "x": l[0], "res": l[1],
    "pinv": pinv(r), "rank": matrix_rank(r), "nuc": norm(r, "nuc"), "two": norm(r, 2), "fro": norm(a, axis=(1, 2)),
    "einsum": einsum("bij,bjk->bik", a, b), "attn": einsum("bhqd,bhkd->bhqk", a.reshape([3, 2, 35, 70]), a.reshape([3, 2, 35, 70])),
    "tensordot": tensordot(a[0], b[0], 1), "vdot": vdot(r, r), "inner": inner(r, r),
    "polyfit": polyfit(r[:, 0], r[:, 1], 3), "polyval": polyval(r[0], r[:, 2]), "interp": interp(r[:, 3], sort(r[:, 4]), r[:, 5]),
})
"#,
    );
}

#[test]
fn quantized_and_activations() {
    same_bits_everywhere(
        "quant",
        r#"
let w = randn([96, 512])
let x = randn([40, 512])
let q4 = quantize(w, "q4_k")
let q6 = quantize(w, "q6_k")
let q8 = quantize(w, "q8_0")
let y = randn([300001])
save_npz(out, {
    "q4": x @ q4.T, "q6": x @ q6.T, "q8": x[:3] @ q8.T, "dq4": dequantize(q4), "dq6": dequantize(q6),
    "exp": exp(y), "tanh": tanh(y), "sigmoid": sigmoid(y), "gelu": gelu(y), "gelu_tanh": gelu(y, approximate="tanh"),
    "silu": silu(y), "log": log(abs(y)), "softmax": softmax(x), "layer_norm": layer_norm(x, 512),
    "argmax": argmax(x, axis=1), "max": max(x, axis=0),
})
"#,
    );
}

#[test]
fn gradients_and_a_training_run() {
    same_bits_everywhere(
        "gradients",
        r#"
let x = randn([512, 96])
let y = randint(0, 10, [512])
let p = {"w1": randn([96, 128]) * 0.1, "b1": zeros([128]), "w2": randn([128, 10]) * 0.1}
let loss = |p| -mean(log_softmax(relu(x @ p["w1"] + p["b1"]) @ p["w2"], axis=1)[arange(512), y])
let step = value_and_grad(loss)
for i in range(3) {
    let (l, g) = step(p)
    p = {"w1": p["w1"] - 0.1 * g["w1"], "b1": p["b1"] - 0.1 * g["b1"], "w2": p["w2"] - 0.1 * g["w2"]}
}
let (l, g) = step(p)
let m = randn([64, 200])
let gm = grad(|a| sum(softmax(a @ a.T, axis=1) * 3.0) + sum(var(a, axis=0)))(m)
save_npz(out, {"w1": p["w1"], "b1": p["b1"], "w2": p["w2"], "g1": g["w1"], "gm": gm, "l": l})
"#,
    );
}

//! The random stream is a promise: for a given seed, `rand`, `randn` and `randint`
//! give the same values on every platform, for every thread count, in every version
//! of tsr (src/tensor/random.rs defines the stream). These tests pin it bit for bit —
//! changing an expected value here breaks that promise — and check that the values
//! behave like random numbers and that the session's stream works as documented.
//! tests/fixtures/random/stream_reference.py recomputes the golden values from the
//! documented stream alone (independent pure Python), as a cross-check.

mod common;

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;
use tsr::runtime::value::Value;
use tsr::tensor::{DType, Tensor};

fn session() -> Interp {
    Interp::new(Box::new(SharedOutput::default()))
}

/// Runs `code` in `interp`; its last expression must be a tensor.
fn tensor_in(interp: &mut Interp, code: &str) -> Tensor {
    match interp.run("<test>", code, None) {
        Ok(Value::Tensor(t)) => t.tensor().clone(),
        Ok(v) => panic!("`{code}` gave {}", v.describe()),
        Err(d) => panic!("`{code}` failed:\n{}", interp.render(&d, false)),
    }
}

fn tensor(code: &str) -> Tensor {
    tensor_in(&mut session(), code)
}

/// The rendered diagnostic of `code`, which must fail.
fn error(code: &str) -> String {
    let mut interp = session();
    match interp.run("<test>", code, None) {
        Ok(v) => panic!("`{code}` should fail, gave {}", v.describe()),
        Err(d) => interp.render(&d, false),
    }
}

fn f32_bits(t: &Tensor, n: usize) -> Vec<u32> {
    t.to_vec::<f32>()[..n].iter().map(|x| x.to_bits()).collect()
}

fn f64_bits(t: &Tensor, n: usize) -> Vec<u64> {
    t.to_vec::<f64>()[..n].iter().map(|x| x.to_bits()).collect()
}

/// FNV-1a (64-bit) over bytes.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

const RANDN_1M: &str = "seed(7)\nrandn([1000000])";

#[test]
fn randn_golden_values() {
    let x = tensor(RANDN_1M);
    assert_eq!((x.dtype(), x.shape()), (DType::F32, &[1_000_000][..]));
    // 0.22970817 0.20041439 0.63267456 1.1822866 1.1322135 -2.9875069 0.82183856 1.0985345
    assert_eq!(
        f32_bits(&x, 8),
        [
            0x3e6b389e, 0x3e4d396e, 0x3f21f6f6, 0x3f97552b, 0x3f90ec5f, 0xc03f3350, 0x3f526403,
            0x3f8c9cc7
        ]
    );
    // All of it: FNV-1a over the little-endian f32 bytes.
    let bytes = x.to_vec::<f32>().into_iter().flat_map(f32::to_le_bytes);
    assert_eq!(fnv1a(bytes), 0xe368_92a7_341e_e909);
    // f64 pins the Box–Muller arithmetic (ln, sin, cos) to the last bit.
    let x = tensor("seed(7)\nrandn([8], dtype=f64)");
    // 0.22970816692959925 0.20041439043229675 0.632674558736723 1.1822866285700235
    // 1.132213506982538 -2.987506772117901 0.8218385410885297 1.0985344231138556
    assert_eq!(
        f64_bits(&x, 8),
        [
            0x3fcd6713c44b1a37,
            0x3fc9a72dc246f986,
            0x3fe43edeb7592275,
            0x3ff2eaa562434d36,
            0x3ff21d8be9094581,
            0xc007e669f356996a,
            0x3fea4c80571229ad,
            0x3ff19398d4ccde27
        ]
    );
}

#[test]
fn rand_golden_values() {
    let x = tensor("seed(7)\nrand([1000000])");
    // 0.9545971 0.7501522 0.114177346 0.085657835 0.40696037 0.79528403 0.17179865 0.95785415
    assert_eq!(
        f32_bits(&x, 8),
        [
            0x3f74607a, 0x3f4009f9, 0x3de9d5d0, 0x3daf6d60, 0x3ed05d1c, 0x3f4b97bc, 0x3e2febfc,
            0x3f7535ee
        ]
    );
    let x = tensor("seed(7)\nrand([8], dtype=f64)");
    // 0.9545971261687 0.11417736161631942 0.4069604044303493 0.1717986715859393
    // 0.006075128914893813 0.8076551209317242 0.39019907038894674 0.14777501000534388
    assert_eq!(
        f64_bits(&x, 8),
        [
            0x3fee8c0f45b8013f,
            0x3fbd3aba4215eda8,
            0x3fda0ba3a6f2e5ee,
            0x3fc5fd7fb5fa9af4,
            0x3f78e23c00229f80,
            0x3fe9d84f8d5b2864,
            0x3fd8f9058590021a,
            0x3fc2ea4aa191cb90
        ]
    );
    // The counter advanced past the 500000 blocks randn([1000000]) read.
    let x = tensor(&format!("{RANDN_1M}\nrand([4])"));
    // 0.011698127 0.7959942 0.28728652 0.7804341
    assert_eq!(
        f32_bits(&x, 4),
        [0x3c3fa980, 0x3f4bc647, 0x3e931738, 0x3f47ca87]
    );
}

#[test]
fn randint_golden_values() {
    let x = tensor("seed(7)\nrandint(0, 1000, [1000000])");
    assert_eq!(x.dtype(), DType::I64);
    assert_eq!(
        x.to_vec::<i64>()[..8],
        [954, 114, 406, 171, 6, 807, 390, 147]
    );
    let x = tensor("seed(7)\nrandint(-1000000000000, 1000000000000, [8])");
    assert_eq!(
        x.to_vec::<i64>(),
        [
            909194252337,
            -771645276768,
            -186079191140,
            -656402656829,
            -987849742171,
            615310241863,
            -219601859223,
            -704449979990
        ]
    );
    // The values do not depend on the integer dtype.
    let x = tensor("seed(7)\nrandint(0, 1000, [8], dtype=i16)");
    assert_eq!(x.to_vec::<i64>(), [954, 114, 406, 171, 6, 807, 390, 147]);
}

/// The same script run by the binary with 1 and 2 worker threads writes the same bytes
/// (the draws are large enough to be generated in parallel chunks).
#[test]
fn thread_count_does_not_change_the_stream() {
    let dir = common::temp_dir("random-threads");
    let names = ["n", "u", "i", "h"];
    let run = |threads: &str| -> Vec<Vec<u8>> {
        let d = dir.display();
        let code = format!(
            "seed(7)\nsave(\"{d}/n.npy\", randn([1000000]))\n\
             save(\"{d}/u.npy\", rand([300001], dtype=f64))\n\
             save(\"{d}/i.npy\", randint(-5, 5, [300001], dtype=i8))\n\
             save(\"{d}/h.npy\", rand([300001], dtype=f16))"
        );
        let out = common::tsr(&["--threads", threads, "-e", &code], None);
        assert_eq!(out.code, 0, "--threads {threads}: {}", out.stderr);
        names
            .iter()
            .map(|n| std::fs::read(dir.join(format!("{n}.npy"))).expect("read npy"))
            .collect()
    };
    let one = run("1");
    let two = run("2");
    for ((a, b), name) in one.iter().zip(&two).zip(names) {
        assert!(a == b, "{name}.npy differs between --threads 1 and 2");
    }
    // And the binary agrees with the library: the randn file ends with the same bytes.
    let lib: Vec<u8> = tensor(RANDN_1M)
        .to_vec::<f32>()
        .into_iter()
        .flat_map(f32::to_le_bytes)
        .collect();
    assert!(one[0].ends_with(&lib));
    let _ = std::fs::remove_dir_all(&dir);
}

fn mean_std(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

#[test]
fn values_look_random() {
    let z: Vec<f64> = tensor(RANDN_1M).to_vec();
    let (mean, std) = mean_std(&z);
    assert!(
        mean.abs() < 0.01 && (std - 1.0).abs() < 0.01,
        "randn {mean} {std}"
    );
    // The tails of a normal: P(|z| > 3) = 0.0027.
    let tail = z.iter().filter(|x| x.abs() > 3.0).count() as f64 / 1e6;
    assert!((tail - 0.0027).abs() < 0.0003, "tail {tail}");

    for dtype in ["f16", "bf16", "f32", "f64"] {
        let u: Vec<f64> = tensor(&format!("seed(7)\nrand([1000000], dtype={dtype})")).to_vec();
        assert!(
            u.iter().all(|&x| (0.0..1.0).contains(&x)),
            "{dtype} outside [0, 1)"
        );
        let (mean, std) = mean_std(&u);
        // Uniform on [0, 1): mean 1/2, std 1/sqrt(12) (bf16's coarse grid shifts both).
        assert!((mean - 0.5).abs() < 0.01, "{dtype} mean {mean}");
        assert!(
            (std - 12f64.sqrt().recip()).abs() < 0.01,
            "{dtype} std {std}"
        );
    }

    // randint covers [low, high) evenly: chi-square with 9 degrees of freedom. The
    // value is fixed by the seed; 30 would be exceeded by chance with p < 0.0005.
    let k: Vec<i64> = tensor("seed(7)\nrandint(-3, 7, [1000000])").to_vec();
    let mut counts = [0u32; 10];
    for v in k {
        counts[usize::try_from(v + 3).expect("value below low")] += 1;
    }
    let expected = 1e6 / 10.0;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (f64::from(c) - expected).powi(2) / expected)
        .sum();
    assert!(chi2 < 30.0, "chi-square {chi2}, counts {counts:?}");
}

#[test]
fn session_stream_semantics() {
    // A session starts as seed(0).
    assert_eq!(
        tensor("rand([5])").to_vec::<f32>(),
        tensor("seed(0)\nrand([5])").to_vec::<f32>()
    );
    // Successive draws continue the stream: `a` reads block 0 (3 of its 4 words), `b`
    // starts at block 1.
    let mut s = session();
    let a = tensor_in(&mut s, "seed(7)\nrand([3])").to_vec::<f32>();
    let b = tensor_in(&mut s, "rand([3])").to_vec::<f32>();
    let all = tensor("seed(7)\nrand([8])").to_vec::<f32>();
    assert_eq!((&a[..], &b[..]), (&all[..3], &all[4..7]));
    // seed= uses a fresh stream and leaves the session's alone.
    let c = tensor_in(&mut s, "seed(7)\nrandn([4], seed=99)").to_vec::<f32>();
    assert_eq!(c, tensor("seed(99)\nrandn([4])").to_vec::<f32>());
    assert_eq!(tensor_in(&mut s, "rand([3])").to_vec::<f32>(), a);
    // Seeding again restarts the stream.
    assert_eq!(tensor_in(&mut s, "seed(7)\nrand([3])").to_vec::<f32>(), a);
}

#[test]
fn dtypes_and_shapes() {
    // randn is computed in f64 and rounded once, so dtypes agree.
    assert_eq!(
        tensor("randn([2, 3], dtype=f32, seed=5)").to_vec::<f32>(),
        tensor("randn([2, 3], dtype=f64, seed=5).to(f32)").to_vec::<f32>()
    );
    let x = tensor("randn([2, 0, 3], dtype=bf16)");
    assert_eq!((x.dtype(), x.shape()), (DType::BF16, &[2, 0, 3][..]));
    let x = tensor("rand([], dtype=f16)");
    assert_eq!((x.dtype(), x.shape()), (DType::F16, &[][..]));
    let x = tensor("rand(4)");
    assert_eq!((x.dtype(), x.shape()), (DType::F32, &[4][..]));
    // NumPy: randint(n) draws from [0, n); no shape gives a 0-d tensor.
    let x = tensor("randint(5, shape=[1000])");
    assert_eq!((x.dtype(), x.shape()), (DType::I64, &[1000][..]));
    assert!(x.to_vec::<i64>().iter().all(|v| (0..5).contains(v)));
    assert_eq!(tensor("randint(3, 4)").shape(), &[] as &[usize]);
    assert_eq!(tensor("randint(3, 4)").to_vec::<i64>(), [3]);
    let x = tensor("randint(-128, 128, size=[5000], dtype=i8)");
    assert_eq!(x.dtype(), DType::I8);
    let v = x.to_vec::<i64>();
    assert!(v.contains(&-128) && v.contains(&127));
    let x = tensor("randint(250, 256, [100], dtype=u8)").to_vec::<i64>();
    assert!(x.iter().all(|v| (250..256).contains(v)));
}

#[test]
fn bad_arguments_name_the_argument() {
    for (code, want) in [
        ("rand([2, -1])", "negative dimension -1 in shape"),
        ("randn([2], dtype=i64)", "`dtype` must be a float dtype"),
        ("rand(3, dtype=bool)", "`dtype` must be a float dtype"),
        (
            "randint(0, 5, [2], dtype=f32)",
            "`dtype` must be an integer dtype",
        ),
        (
            "randint(5, 5)",
            "`low` must be less than `high`, got low=5, high=5",
        ),
        (
            "randint(0)",
            "`low` must be less than `high`, got low=0, high=0",
        ),
        (
            "randint(0, 300, dtype=u8)",
            "[0, 300) of `low` and `high` does not fit in u8",
        ),
        ("randint(-1, 3, dtype=u8)", "does not fit in u8"),
        (
            "randint(0, 2.5)",
            "argument `high` of randint must be an integer",
        ),
        ("seed(-1)", "`n` must not be negative"),
        ("rand(2, seed=-3)", "`seed` must not be negative"),
        (
            "randn(2, seed=1.5)",
            "argument `seed` of randn must be an integer",
        ),
        ("rand(\"x\")", "argument `shape` of rand must be a shape"),
    ] {
        let msg = error(code);
        assert!(msg.contains(want), "`{code}`: expected {want:?} in\n{msg}");
    }
    // A failed call draws nothing.
    let mut s = session();
    assert!(s.run("<test>", "seed(7)\nrandint(3, 1)", None).is_err());
    let after = tensor_in(&mut s, "rand([2])").to_vec::<f32>();
    assert_eq!(after, tensor("seed(7)\nrand([2])").to_vec::<f32>());
}

/// The distributions and sampling functions: moments over 1e5 draws, and the
/// defining property of each (a permutation permutes, p is respected, ...).
#[test]
fn distributions_and_sampling_behave_as_documented() {
    let u: Vec<f64> = tensor("uniform([100000], -2, 6, seed=1)").to_vec();
    let (mean, std) = mean_std(&u);
    assert!(u.iter().all(|&x| (-2.0..6.0).contains(&x)));
    assert!(
        (mean - 2.0).abs() < 0.05 && (std - 8.0 / 12f64.sqrt()).abs() < 0.05,
        "uniform {mean} {std}"
    );
    let n: Vec<f64> = tensor("normal([100000], 3, 0.5, dtype=f64, seed=1)").to_vec();
    let (mean, std) = mean_std(&n);
    assert!(
        (mean - 3.0).abs() < 0.01 && (std - 0.5).abs() < 0.01,
        "normal {mean} {std}"
    );
    // uniform(0, 1) is rand; normal is mean + std * randn; the _like forms are rand/randn.
    assert_eq!(
        tensor("uniform([9], seed=4)").to_vec::<f32>(),
        tensor("rand([9], seed=4)").to_vec::<f32>()
    );
    assert_eq!(
        tensor("rand_like(zeros([3, 3], dtype=f64), seed=4)").to_vec::<f64>(),
        tensor("rand([3, 3], dtype=f64, seed=4)").to_vec::<f64>()
    );
    assert_eq!(
        tensor("randn_like(ones([5], dtype=f16), seed=4)").to_vec::<f64>(),
        tensor("randn([5], dtype=f16, seed=4)").to_vec::<f64>()
    );

    let mut p: Vec<i64> = tensor("permutation(100000, seed=2)").to_vec();
    assert_ne!(p[..10], (0..10).collect::<Vec<_>>()[..]);
    p.sort();
    assert_eq!(p, (0..100000).collect::<Vec<_>>());
    // shuffle(x) and permutation(x) give the rows of x in permutation(len(x))'s order.
    let order: Vec<i64> = tensor("permutation(50, seed=2)").to_vec();
    let rows: Vec<i64> = tensor("shuffle(arange(100).reshape(50, 2), seed=2)").to_vec();
    let want: Vec<i64> = order.iter().flat_map(|&i| [2 * i, 2 * i + 1]).collect();
    assert_eq!(rows, want);
    assert_eq!(
        tensor("permutation(arange(100).reshape(50, 2), seed=2)").to_vec::<i64>(),
        want
    );
    // choice without replacement is a prefix of the permutation: distinct items.
    let c: Vec<i64> = tensor("choice(50, 20, replace=false, seed=2)").to_vec();
    assert_eq!(c, order[..20]);

    // choice with p: the frequencies follow p (within 5 standard errors).
    let c: Vec<i64> = tensor("choice(4, 100000, p=tensor([0.1, 0.0, 0.6, 0.3]), seed=3)").to_vec();
    let freq = |v: &[i64], k: i64| v.iter().filter(|&&x| x == k).count() as f64 / v.len() as f64;
    for (k, want) in [(0, 0.1), (1, 0.0), (2, 0.6), (3, 0.3)] {
        let got = freq(&c, k);
        assert!(
            (got - want).abs() < 5.0 * (want * (1.0 - want) / 1e5).sqrt() + 1e-9,
            "choice p[{k}]: {got}"
        );
    }
    // Without replacement, p: the first pick follows p; all picks are distinct.
    let firsts: Vec<i64> =
        tensor("multinomial(ones([20000, 1]) * tensor([[1.0, 3.0, 0.0, 4.0]]), 2, seed=3)[:, 0]")
            .to_vec();
    for (k, want) in [(0, 0.125), (1, 0.375), (2, 0.0), (3, 0.5)] {
        let got = freq(&firsts, k);
        assert!(
            (got - want).abs() < 0.015,
            "multinomial first pick {k}: {got}"
        );
    }
    let m: Vec<i64> = tensor("multinomial(tensor([0.2, 0.2, 0.2, 0.2, 0.2]), 5, seed=3)").to_vec();
    let mut sorted = m.clone();
    sorted.sort();
    assert_eq!(sorted, [0, 1, 2, 3, 4]);
    let r: Vec<i64> =
        tensor("multinomial(tensor([1.0, 0.0, 3.0]), 100000, replacement=true, seed=3)").to_vec();
    assert!((freq(&r, 2) - 0.75).abs() < 0.01 && freq(&r, 1) == 0.0);

    // bernoulli: the mean is p, the dtype p's.
    let b = tensor("bernoulli(full([100000], 0.3, dtype=f64), seed=5)");
    assert_eq!(b.dtype(), DType::F64);
    let (mean, _) = mean_std(&b.to_vec::<f64>());
    assert!((mean - 0.3).abs() < 0.01, "bernoulli {mean}");
    assert_eq!(
        tensor("bernoulli(tensor([0.0, 1.0, 1.0, 0.0]))").to_vec::<f32>(),
        [0.0, 1.0, 1.0, 0.0]
    );
}

#[test]
fn sampling_bad_arguments_name_what_is_wrong() {
    for (code, want) in [
        (
            "uniform([2], 0, float(\"inf\"))",
            "`high` must be a finite number",
        ),
        ("normal([2], 0, -1)", "`std` must not be negative"),
        ("normal([2], dtype=i32)", "`dtype` must be a float dtype"),
        (
            "rand_like(zeros([2], dtype=i64))",
            "`dtype` must be a float dtype",
        ),
        ("permutation(-1)", "`n` must not be negative"),
        ("permutation(2.5)", "`x` must be an int or a tensor"),
        ("shuffle(tensor(3.0))", "at least one dimension"),
        ("choice(zeros([2, 2]))", "x must be 1-dimensional"),
        (
            "choice(3, 4, replace=false)",
            "cannot take a larger sample (4) than the population (3)",
        ),
        (
            "choice(3, p=tensor([0.5, 0.5]))",
            "one probability per item",
        ),
        ("choice(2, p=tensor([0.5, 0.6]))", "do not sum to 1"),
        ("choice(2, p=tensor([-0.5, 1.5]))", "finite, non-negative"),
        (
            "choice(2, 2, replace=false, p=tensor([0.0, 1.0]))",
            "fewer nonzero entries",
        ),
        ("choice(0)", "empty population"),
        ("bernoulli(tensor([0.5, 1.5]))", "in [0, 1]"),
        ("bernoulli(tensor([1, 0]))", "`dtype` must be a float dtype"),
        ("multinomial(tensor([0.0, 0.0]), 1)", "sums to 0"),
        (
            "multinomial(tensor([1.0, 0.0]), 2)",
            "cannot take 2 samples without replacement",
        ),
        (
            "multinomial(tensor([1.0]), 0)",
            "`num_samples` must be positive",
        ),
        ("multinomial(zeros([2, 2, 2]), 1)", "1-D or 2-D"),
    ] {
        let msg = error(code);
        assert!(msg.contains(want), "`{code}`: expected {want:?} in\n{msg}");
    }
}

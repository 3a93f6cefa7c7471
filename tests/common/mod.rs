//! Helpers shared by the integration tests: run the `tsr` binary and capture output.

#![allow(dead_code)]

pub mod fixtures;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `tsr` with `args` (and optional stdin), colour off.
pub fn tsr(args: &[&str], stdin: Option<&str>) -> Output {
    tsr_in(args, stdin, None)
}

pub fn tsr_in(args: &[&str], stdin: Option<&str>, dir: Option<&Path>) -> Output {
    tsr_env(args, stdin, dir, &[])
}

/// Runs `tsr` with extra environment variables; a value of None removes the variable.
pub fn tsr_env(
    args: &[&str],
    stdin: Option<&str>,
    dir: Option<&Path>,
    env: &[(&str, Option<&str>)],
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tsr"));
    for (k, v) in env {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    cmd.args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let mut child = cmd.spawn().expect("spawn tsr");
    {
        let mut pipe = child.stdin.take().expect("stdin");
        if let Some(text) = stdin {
            pipe.write_all(text.as_bytes()).expect("write stdin");
        }
    }
    let out = child.wait_with_output().expect("wait tsr");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `-e CODE`.
pub fn eval(code: &str) -> Output {
    tsr(&["-e", code], None)
}

/// Runs `-e CODE`, which must succeed, and returns what it printed.
pub fn run_ok(code: &str) -> String {
    let out = eval(code);
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    out.stdout
}

/// A fresh, empty directory for one test.
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tsr-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// A committed fixture under tests/fixtures.
pub fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A path for `file` in a fresh scratch directory of one test of a suite.
pub fn scratch(suite: &str, test: &str, file: &str) -> std::path::PathBuf {
    scratch_dir(suite, test).join(file)
}

/// A fresh, empty scratch directory for one test of a suite (under Cargo's target tmpdir).
pub fn scratch_dir(suite: &str, test: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(suite)
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Deterministic values in [-0.5, 0.5) (xorshift), as `dtype`.
pub fn tensor(shape: &[usize], seed: u64, dtype: tsr::tensor::DType) -> tsr::tensor::Tensor {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        })
        .collect();
    tsr::tensor::Tensor::from_vec(v, shape)
        .expect("a tensor of the shape")
        .to_dtype(dtype)
}

/// Runs `f` on a fresh pool of `n` threads, to compare results across thread counts.
pub fn with_threads<R: Send>(n: usize, f: impl FnOnce() -> R + Send) -> R {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .expect("a test thread pool")
        .install(f)
}

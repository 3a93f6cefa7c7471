//! A training loop's memory stays flat: no tape grows, each step's graph is freed
//! when the next one replaces it. `tests/memory/train_loop.tsr` runs 1,000 steps
//! of a small MLP in both autograd styles and prints its peak resident set (Linux's
//! VmHWM) after step 10 and at the end.

mod common;

#[cfg(target_os = "linux")]
#[test]
fn a_training_loop_keeps_its_peak_memory() {
    let out = common::tsr(&["tests/memory/train_loop.tsr"], None);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let kb: Vec<f64> = out
        .stdout
        .split_whitespace()
        .map(|w| w.parse().expect("a number of kB"))
        .collect();
    let [at10, at_end] = kb[..] else {
        panic!("expected two figures, got {:?}", out.stdout)
    };
    assert!(
        at_end <= 1.10 * at10,
        "peak memory grew from {at10} kB at step 10 to {at_end} kB at step 1000"
    );
}

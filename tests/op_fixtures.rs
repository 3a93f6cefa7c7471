//! Runs the NumPy-generated op fixtures in tests/fixtures/ops/*/ (see opfix.py there):
//! each case binds its inputs, evaluates a tsr expression and compares the result's
//! dtype, shape and values with what NumPy computed.

use std::path::Path;

mod common;

use common::fixtures::{read_cases, run_case, same_dtype_and_shape, Case};
use tsr::ops::close::is_close;
use tsr::tensor::Tensor;

/// Every case of every family folder, with its family.
fn cases(root: &Path) -> Vec<(String, Case)> {
    let mut families: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    families.sort();
    let mut out = Vec::new();
    for dir in families {
        let family = dir.file_name().unwrap().to_string_lossy().into_owned();
        out.extend(read_cases(&dir).into_iter().map(|c| (family.clone(), c)));
    }
    out
}

fn compare(actual: &Tensor, expected: &Tensor, c: &Case, which: &str) -> Result<(), String> {
    same_dtype_and_shape(actual, expected, which)?;
    let (a, e) = (actual.to_vec::<f64>(), expected.to_vec::<f64>());
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        let same_zero_sign = !(*x == 0.0 && *y == 0.0)
            || x.is_sign_negative() == y.is_sign_negative()
            || c.atol > 0.0;
        if !is_close(*x, *y, c.rtol, c.atol) || !same_zero_sign {
            return Err(format!(
                "{which}: element {i}: got {x:e}, expected {y:e} (rtol {}, atol {})",
                c.rtol, c.atol
            ));
        }
    }
    Ok(())
}

#[test]
fn numpy_op_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ops");
    let all = cases(&root);
    let mut failures = Vec::new();
    for (family, c) in &all {
        if let Err(e) = run_case(&root.join(family), c, compare) {
            failures.push(format!(
                "{}/{}: {}\n  {}",
                family,
                c.name,
                c.expr,
                e.replace('\n', "\n  ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} op fixtures failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

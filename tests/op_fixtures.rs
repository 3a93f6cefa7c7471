//! Runs the NumPy-generated op fixtures in tests/fixtures/ops/*/ (see opfix.py there):
//! each case binds its inputs, evaluates a tsr expression and compares the result's
//! dtype, shape and values with what NumPy computed.

use std::path::Path;

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;
use tsr::io::npy::load_npy;
use tsr::ops::close::is_close;
use tsr::runtime::Value;
use tsr::tensor::Tensor;

struct Case {
    family: String,
    name: String,
    expr: String,
    inputs: Vec<String>,
    rtol: f64,
    atol: f64,
}

fn cases(root: &Path) -> Vec<Case> {
    let mut out = Vec::new();
    let mut families: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    families.sort();
    for dir in families {
        let Ok(text) = std::fs::read_to_string(dir.join("cases.tsv")) else {
            continue;
        };
        let family = dir.file_name().unwrap().to_string_lossy().into_owned();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "bad line in {family}/cases.tsv: {line}");
            out.push(Case {
                family: family.clone(),
                name: f[0].into(),
                expr: f[1].into(),
                inputs: f[2]
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
                rtol: f[3].parse().unwrap(),
                atol: f[4].parse().unwrap(),
            });
        }
    }
    out
}

fn compare(actual: &Tensor, expected: &Tensor, c: &Case, which: &str) -> Result<(), String> {
    if actual.dtype() != expected.dtype() || actual.shape() != expected.shape() {
        return Err(format!(
            "{which}: got {}{:?}, expected {}{:?}",
            actual.dtype(),
            actual.shape(),
            expected.dtype(),
            expected.shape()
        ));
    }
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

fn run_case(dir: &Path, c: &Case) -> Result<(), String> {
    let mut interp = Interp::new(Box::new(SharedOutput::default()));
    for var in &c.inputs {
        let t = load_npy(&dir.join(format!("{}.{var}.npy", c.name)))?;
        interp.globals.define(&var.as_str().into(), Value::from(t));
    }
    let v = interp
        .run("<case>", &c.expr, None)
        .map_err(|d| interp.render(&d, false))?;
    let results: Vec<Value> = match v {
        Value::Tuple(items) => items.to_vec(),
        other => vec![other],
    };
    for (i, r) in results.iter().enumerate() {
        let single = dir.join(format!("{}.out.npy", c.name));
        let path = if results.len() == 1 && single.exists() {
            single
        } else {
            dir.join(format!("{}.out{i}.npy", c.name))
        };
        let expected = load_npy(&path)?;
        let actual = r
            .to_tensor()
            .ok_or_else(|| format!("result {i} is {}, not a tensor", r.describe()))?;
        compare(&actual, &expected, c, &format!("result {i}"))?;
    }
    Ok(())
}

#[test]
fn numpy_op_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ops");
    let all = cases(&root);
    let mut failures = Vec::new();
    for c in &all {
        if let Err(e) = run_case(&root.join(&c.family), c) {
            failures.push(format!(
                "{}/{}: {}\n  {}",
                c.family,
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

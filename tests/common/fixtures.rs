//! NumPy-generated fixture cases (the format of tests/fixtures/ops/opfix.py): a
//! `cases.tsv` per folder, inputs as `NAME.VAR.npy`, expected results as
//! `NAME.out.npy` (`NAME.outI.npy` for a tuple).

use std::path::Path;

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;
use tsr::io::npy::load_npy;
use tsr::runtime::Value;
use tsr::tensor::Tensor;

pub struct Case {
    pub name: String,
    pub expr: String,
    pub inputs: Vec<String>,
    pub rtol: f64,
    pub atol: f64,
}

/// The cases of `dir/cases.tsv` (none when the file is missing).
pub fn read_cases(dir: &Path) -> Vec<Case> {
    let Ok(text) = std::fs::read_to_string(dir.join("cases.tsv")) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "bad line in {}: {line}", dir.display());
            Case {
                name: f[0].into(),
                expr: f[1].into(),
                inputs: f[2]
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect(),
                rtol: f[3].parse().unwrap(),
                atol: f[4].parse().unwrap(),
            }
        })
        .collect()
}

/// Binds the case's inputs, evaluates its expression and checks each result against
/// the expected one with `compare(actual, expected, case, "result I")`.
pub fn run_case(
    dir: &Path,
    c: &Case,
    compare: impl Fn(&Tensor, &Tensor, &Case, &str) -> Result<(), String>,
) -> Result<(), String> {
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

/// An error naming both when the dtypes or shapes differ.
pub fn same_dtype_and_shape(actual: &Tensor, expected: &Tensor, which: &str) -> Result<(), String> {
    if actual.dtype() != expected.dtype() || actual.shape() != expected.shape() {
        return Err(format!(
            "{which}: got {}{:?}, expected {}{:?}",
            actual.dtype(),
            actual.shape(),
            expected.dtype(),
            expected.shape()
        ));
    }
    Ok(())
}

//! Runs the NumPy-generated sorting and selection fixtures in tests/fixtures/sort/
//! (written by tests/fixtures/gen_sort.py): each case binds its inputs, evaluates a tsr
//! expression and compares dtype, shape and values, exactly (bitwise for floats, any
//! NaN equal to any NaN) unless the case gives a tolerance.

use std::path::Path;

use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;
use tsr::io::npy::load_npy;
use tsr::ops::close::is_close;
use tsr::runtime::Value;
use tsr::tensor::Tensor;

struct Case {
    name: String,
    expr: String,
    inputs: Vec<String>,
    rtol: f64,
    atol: f64,
}

fn cases(dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join("cases.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "bad line in cases.tsv: {line}");
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
    let exact = c.rtol == 0.0 && c.atol == 0.0;
    let (a, e) = (actual.to_vec::<f64>(), expected.to_vec::<f64>());
    for (i, (x, y)) in a.iter().zip(&e).enumerate() {
        let same = if x.is_nan() || y.is_nan() {
            x.is_nan() && y.is_nan()
        } else if exact && c.name.contains("sort") {
            x.to_bits() == y.to_bits()
        } else if exact {
            // Order statistics: which of -0.0 and 0.0 a partition picks is unspecified.
            x == y
        } else {
            is_close(*x, *y, c.rtol, c.atol)
        };
        if !same {
            return Err(format!("{which}: element {i}: got {x:e}, expected {y:e}"));
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
fn numpy_sort_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sort");
    let all = cases(&dir);
    let failures: Vec<String> = all
        .iter()
        .filter_map(|c| {
            run_case(&dir, c)
                .err()
                .map(|e| format!("{}: {}\n  {}", c.name, c.expr, e.replace('\n', "\n  ")))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} sort fixtures failed:\n{}",
        failures.len(),
        all.len(),
        failures.join("\n")
    );
}

/// NumPy: sorting a 0-d array along an axis is an error; tsr names the axis.
#[test]
fn zero_d_sort_along_an_axis_is_an_error() {
    let mut interp = Interp::new(Box::new(SharedOutput::default()));
    let err = interp.run("<case>", "sort(tensor(1.5))", None).unwrap_err();
    let text = interp.render(&err, false);
    assert!(
        text.contains("axis -1 is out of bounds for a tensor of 0 dimensions"),
        "{text}"
    );
}

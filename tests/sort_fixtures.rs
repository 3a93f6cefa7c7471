//! Runs the NumPy-generated sorting and selection fixtures in tests/fixtures/sort/
//! (written by tests/fixtures/gen_sort.py): each case binds its inputs, evaluates a tsr
//! expression and compares dtype, shape and values, exactly (bitwise for floats, any
//! NaN equal to any NaN) unless the case gives a tolerance.

use std::path::Path;

mod common;

use common::fixtures::{read_cases, run_case, same_dtype_and_shape, Case};
use tsr::interp::output::SharedOutput;
use tsr::interp::Interp;
use tsr::ops::close::is_close;
use tsr::tensor::Tensor;

fn compare(actual: &Tensor, expected: &Tensor, c: &Case, which: &str) -> Result<(), String> {
    same_dtype_and_shape(actual, expected, which)?;
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

#[test]
fn numpy_sort_fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sort");
    let all = read_cases(&dir);
    let failures: Vec<String> = all
        .iter()
        .filter_map(|c| {
            run_case(&dir, c, compare)
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

/// torch: the top 1 of a 0-d tensor is 0-d, and so is its k-th value.
#[test]
fn zero_d_topk_and_kthvalue_are_zero_d() {
    let mut interp = Interp::new(Box::new(SharedOutput::default()));
    for expr in ["topk(tensor(5.0), 1)", "kthvalue(tensor(5.0), 1)"] {
        let v = interp.run("<case>", expr, None).unwrap();
        let tsr::runtime::Value::Tuple(items) = v else {
            panic!("{expr}: not a tuple")
        };
        for t in items.iter() {
            let t: Tensor = t.to_tensor().unwrap();
            assert_eq!(t.shape(), &[] as &[usize], "{expr}");
        }
    }
}

//! Closeness in the sense of `numpy.testing.assert_allclose`:
//! `|actual - expected| <= atol + rtol * |expected|`, nan equal to nan, an infinity
//! only equal to the same infinity; and NumPy's `isclose`/`allclose`, the same test
//! elementwise with nan equal to nan only when asked.

use super::binary::map_as;
use super::Operand;
use crate::kernels::reduce::any;
use crate::tensor::shape::broadcast_shapes;
use crate::tensor::{Elem, Result, Tensor};

pub fn is_close(actual: f64, expected: f64, rtol: f64, atol: f64) -> bool {
    if actual.is_nan() || expected.is_nan() {
        return actual.is_nan() && expected.is_nan();
    }
    if actual.is_infinite() || expected.is_infinite() {
        return actual == expected;
    }
    (actual - expected).abs() <= atol + rtol * expected.abs()
}

/// NumPy's `isclose(a, b, rtol, atol, equal_nan)`: a bool tensor of the broadcast
/// shape. The operands promote as for `a - b`, and each pair is compared in f64
/// (NumPy computes in the promoted float dtype, which can differ at the boundary).
pub fn isclose(a: Operand, b: Operand, rtol: f64, atol: f64, equal_nan: bool) -> Result<Tensor> {
    let shape = broadcast_shapes("isclose", a.shape(), b.shape())?;
    crate::dispatch!(Operand::promote(a, b), T => {
        map_as("isclose", a, b, &shape, move |x: T, y: T| {
            let (x, y) = (x.to_f64(), y.to_f64());
            if x.is_nan() || y.is_nan() {
                equal_nan && x.is_nan() && y.is_nan()
            } else {
                is_close(x, y, rtol, atol)
            }
        })
    })
}

/// NumPy's `allclose`: whether `isclose` holds everywhere (true when empty).
pub fn allclose(a: Operand, b: Operand, rtol: f64, atol: f64, equal_nan: bool) -> Result<bool> {
    let close = isclose(a, b, rtol, atol, equal_nan)?;
    let data = super::elems::<bool>("allclose", &close)?;
    Ok(!any(data, close.layout(), |c| !c))
}

/// What differs when two tensors are not close.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub count: usize,
    pub total: usize,
    /// Multi-index (in the broadcast shape) of the largest absolute difference.
    pub worst_index: Vec<usize>,
    pub worst_actual: f64,
    pub worst_expected: f64,
    pub max_abs: f64,
    pub max_rel: f64,
}

/// Compares after broadcasting; `None` when every element is close.
pub fn mismatch(
    actual: &Tensor,
    expected: &Tensor,
    rtol: f64,
    atol: f64,
) -> Result<Option<Mismatch>> {
    let shape = broadcast_shapes("assert_close", actual.shape(), expected.shape())?;
    let a = actual.broadcast_to(&shape)?.to_vec::<f64>();
    let e = expected.broadcast_to(&shape)?.to_vec::<f64>();
    let mut m = Mismatch {
        count: 0,
        total: a.len(),
        worst_index: vec![],
        worst_actual: 0.0,
        worst_expected: 0.0,
        max_abs: 0.0,
        max_rel: 0.0,
    };
    let mut worst = None;
    for (k, (&x, &y)) in a.iter().zip(&e).enumerate() {
        if is_close(x, y, rtol, atol) {
            continue;
        }
        m.count += 1;
        let abs = (x - y).abs();
        let abs_key = if abs.is_nan() { f64::INFINITY } else { abs };
        if worst.is_none() || abs_key > m.max_abs {
            worst = Some(k);
            m.max_abs = abs_key;
        }
        if y != 0.0 {
            m.max_rel = m.max_rel.max(abs / y.abs());
        } else {
            m.max_rel = f64::INFINITY;
        }
    }
    let Some(k) = worst else {
        return Ok(None);
    };
    m.worst_actual = a[k];
    m.worst_expected = e[k];
    // Unravel the flat position into a multi-index of the broadcast shape.
    let mut rest = k;
    m.worst_index = vec![0; shape.len()];
    for (slot, &d) in m.worst_index.iter_mut().zip(&shape).rev() {
        *slot = rest % d.max(1);
        rest /= d.max(1);
    }
    Ok(Some(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_rule() {
        assert!(is_close(1.0 + 1e-6, 1.0, 1e-5, 1e-8));
        assert!(!is_close(1.001, 1.0, 1e-5, 1e-8));
        assert!(is_close(f64::NAN, f64::NAN, 0.0, 0.0));
        assert!(!is_close(f64::INFINITY, f64::NEG_INFINITY, 1.0, 1.0));
    }

    #[test]
    fn reports_the_worst_element() {
        let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.5], &[2, 2]).unwrap();
        let e = Tensor::from_vec(vec![1.0f32, 2.1, 3.0, 4.0], &[2, 2]).unwrap();
        let m = mismatch(&a, &e, 1e-5, 1e-8).unwrap().unwrap();
        assert_eq!(
            (m.count, m.total, m.worst_index.clone()),
            (2, 4, vec![1, 1])
        );
        assert_eq!(
            (m.worst_actual, m.worst_expected, m.max_abs),
            (4.5, 4.0, 0.5)
        );
        assert!(mismatch(&a, &a, 0.0, 0.0).unwrap().is_none());
        let col = Tensor::from_vec(vec![1.0f32, 3.0], &[2, 1]).unwrap();
        assert_eq!(mismatch(&a, &col, 0.0, 0.0).unwrap().unwrap().total, 4);
    }

    #[test]
    fn isclose_and_allclose_follow_numpy() {
        let nan = f64::NAN;
        let a = Tensor::from_vec(vec![1.0f32, f32::NAN, f32::INFINITY, 2.0], &[4]).unwrap();
        let b = Tensor::from_vec(vec![1.0 + 1e-6, nan, f64::INFINITY, 2.1], &[4]).unwrap();
        let (ta, tb) = (Operand::Tensor(&a), Operand::Tensor(&b));
        let got = isclose(ta, tb, 1e-5, 1e-8, false).unwrap();
        assert_eq!(got.to_vec::<bool>(), [true, false, true, false]);
        let got = isclose(ta, tb, 1e-5, 1e-8, true).unwrap();
        assert_eq!(got.to_vec::<bool>(), [true, true, true, false]);
        assert!(!allclose(ta, tb, 0.1, 0.0, false).unwrap());
        assert!(allclose(ta, tb, 0.1, 0.0, true).unwrap());
        // Broadcasting, a weak scalar, and an empty result.
        let col = Tensor::from_vec(vec![1i64, 2], &[2, 1]).unwrap();
        let two = Operand::Scalar(crate::tensor::Scalar::Int(2));
        let got = isclose(Operand::Tensor(&col), ta, 0.0, 0.0, false).unwrap();
        assert_eq!(got.shape(), &[2, 4]);
        assert_eq!(
            isclose(Operand::Tensor(&col), two, 0.0, 0.0, false)
                .unwrap()
                .to_vec::<bool>(),
            [false, true]
        );
        let empty = Tensor::from_vec(Vec::<f32>::new(), &[0]).unwrap();
        assert!(allclose(Operand::Tensor(&empty), two, 0.0, 0.0, false).unwrap());
        assert!(isclose(
            ta,
            Operand::Tensor(&col.reshape(&[1, 2]).unwrap()),
            0.0,
            0.0,
            false
        )
        .is_err());
    }
}

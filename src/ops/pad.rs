//! NumPy's pad: a copy of x with elements added before and after along each axis,
//! a constant or taken from x itself (reflect, symmetric, edge, wrap).

use super::axis_gather::gather_axes;
use crate::tensor::{Result, Scalar, Tensor, TensorError};

/// Where `pad` takes the added elements from (NumPy's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// A constant value.
    Constant,
    /// The mirror image without the edge element (`[1, 2, 3]` → `3 2 | 1 2 3 | 2 1`).
    Reflect,
    /// The mirror image with the edge element (`2 1 | 1 2 3 | 3 2`).
    Symmetric,
    /// The edge element repeated.
    Edge,
    /// The other end of the axis, as if x repeated (`2 3 | 1 2 3 | 1 2`).
    Wrap,
}

impl PadMode {
    pub fn from_name(name: &str) -> Result<PadMode> {
        Ok(match name {
            "constant" => PadMode::Constant,
            "reflect" => PadMode::Reflect,
            "symmetric" => PadMode::Symmetric,
            "edge" => PadMode::Edge,
            "wrap" => PadMode::Wrap,
            _ => {
                return Err(TensorError::value(
                    "pad",
                    format!("unknown mode \"{name}\"; modes: constant reflect symmetric edge wrap"),
                ))
            }
        })
    }

    /// The input index an output index `j` places outside `0..n` reads (n > 0),
    /// `None` for the constant. Reflections repeat periodically for widths longer
    /// than the axis, which is what NumPy's repeated reflecting gives.
    fn source(self, j: i64, n: i64) -> Option<i64> {
        Some(match self {
            PadMode::Constant => return None,
            PadMode::Edge => j.clamp(0, n - 1),
            PadMode::Wrap => j.rem_euclid(n),
            PadMode::Reflect if n == 1 => 0,
            PadMode::Reflect => {
                let r = j.rem_euclid(2 * (n - 1));
                if r >= n {
                    2 * (n - 1) - r
                } else {
                    r
                }
            }
            PadMode::Symmetric => {
                let r = j.rem_euclid(2 * n);
                if r >= n {
                    2 * n - 1 - r
                } else {
                    r
                }
            }
        })
    }
}

/// `numpy.pad(x, widths, mode, constant_values=value)`: `widths` holds one
/// (before, after) pair per axis, or one pair for every axis. The result keeps x's
/// dtype; `value` is cast to it as astype casts.
pub fn pad(x: &Tensor, widths: &[(i64, i64)], mode: PadMode, value: Scalar) -> Result<Tensor> {
    let ndim = x.ndim();
    let widths: Vec<(i64, i64)> = match widths.len() {
        1 => vec![widths[0]; ndim],
        n if n == ndim => widths.to_vec(),
        n => {
            return Err(TensorError::shape(
                "pad",
                format!(
                "{n} (before, after) pairs for a {ndim}-d tensor; give one per axis or one for all"
            ),
            ))
        }
    };
    let mut shape = Vec::with_capacity(ndim);
    for (axis, (&n, &(before, after))) in x.shape().iter().zip(&widths).enumerate() {
        if before < 0 || after < 0 {
            return Err(TensorError::value(
                "pad",
                format!("pad widths must not be negative, got ({before}, {after}) for axis {axis}"),
            ));
        }
        if n == 0 && mode != PadMode::Constant && before + after > 0 {
            return Err(TensorError::value(
                "pad",
                format!("cannot extend the empty axis {axis} with mode other than \"constant\""),
            ));
        }
        let len = (n as u128) + (before as u128) + (after as u128);
        shape.push(usize::try_from(len).map_err(|_| {
            TensorError::value(
                "pad",
                format!("axis {axis} would be longer than can be counted"),
            )
        })?);
    }
    gather_axes("pad", x, &shape, value, |axis, i| {
        // i < shape[axis], which fits in memory, so these fit in i64.
        let n = x.shape()[axis] as i64;
        let j = i as i64 - widths[axis].0;
        let j = if (0..n).contains(&j) {
            Some(j)
        } else {
            mode.source(j, n)
        };
        j.map(|j| j as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};
    use crate::tensor::DType;

    fn row(mode: PadMode, before: i64, after: i64) -> Vec<f64> {
        let x = tensor(&[1.0, 2.0, 3.0], &[3], DType::I16);
        values(&pad(&x, &[(before, after)], mode, Scalar::Float(9.7)).unwrap())
    }

    #[test]
    fn modes_match_numpy() {
        assert_eq!(row(PadMode::Constant, 1, 2), [9.0, 1.0, 2.0, 3.0, 9.0, 9.0]);
        assert_eq!(
            row(PadMode::Reflect, 2, 2),
            [3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]
        );
        assert_eq!(
            row(PadMode::Reflect, 5, 0),
            [2.0, 1.0, 2.0, 3.0, 2.0, 1.0, 2.0, 3.0]
        );
        assert_eq!(
            row(PadMode::Symmetric, 2, 2),
            [2.0, 1.0, 1.0, 2.0, 3.0, 3.0, 2.0]
        );
        assert_eq!(row(PadMode::Edge, 2, 1), [1.0, 1.0, 1.0, 2.0, 3.0, 3.0]);
        assert_eq!(
            row(PadMode::Wrap, 4, 1),
            [3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0]
        );
    }

    #[test]
    fn pads_every_axis_and_layout() {
        let m = tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2], DType::F32);
        for v in views(&m) {
            let p = pad(&v, &[(1, 0), (0, 1)], PadMode::Edge, Scalar::Int(0)).unwrap();
            assert_eq!(p.shape(), &[3, 3]);
            assert_eq!(values(&p), [1.0, 2.0, 2.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0]);
        }
        let s = pad(
            &Tensor::scalar(5i64),
            &[(3, 3)],
            PadMode::Reflect,
            Scalar::Int(0),
        )
        .unwrap();
        assert_eq!(s.shape(), &[] as &[usize]);
    }

    #[test]
    fn bad_widths_and_modes_are_errors() {
        let x = tensor(&[1.0, 2.0], &[2], DType::F64);
        assert!(pad(&x, &[(1, 1), (1, 1)], PadMode::Constant, Scalar::Int(0)).is_err());
        assert!(pad(&x, &[(-1, 1)], PadMode::Constant, Scalar::Int(0)).is_err());
        assert!(pad(
            &x,
            &[(i64::MAX, i64::MAX)],
            PadMode::Constant,
            Scalar::Int(0)
        )
        .is_err());
        let e = Tensor::zeros(DType::F32, &[0]).unwrap();
        assert!(pad(&e, &[(1, 0)], PadMode::Wrap, Scalar::Int(0)).is_err());
        assert_eq!(
            pad(&e, &[(1, 0)], PadMode::Constant, Scalar::Int(0))
                .unwrap()
                .shape(),
            &[1]
        );
        assert!(PadMode::from_name("mean").is_err());
    }
}

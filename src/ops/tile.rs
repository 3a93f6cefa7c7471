//! Copies that repeat or rotate elements along axes: NumPy's tile, repeat and
//! roll. Each is a per-axis index map handed to `gather_axes`.

use super::axis_gather::gather_axes;
use crate::tensor::shape::{check_op_rank, normalize_axis, shape_str};
use crate::tensor::{Result, Scalar, Tensor, TensorError};

/// `numpy.tile`: x repeated `reps[d]` times along each axis. A shorter `reps` is
/// padded with leading 1s; a longer one gives x leading size-1 axes.
pub fn tile(x: &Tensor, reps: &[i64]) -> Result<Tensor> {
    if let Some(r) = reps.iter().find(|&&r| r < 0) {
        return Err(TensorError::value(
            "tile",
            format!("reps must not be negative, got {r}"),
        ));
    }
    let rank = x.ndim().max(reps.len());
    check_op_rank("tile", rank)?;
    let lead = |n: usize| std::iter::repeat_n(1, rank - n);
    let dims: Vec<usize> = lead(x.ndim()).chain(x.shape().iter().copied()).collect();
    let reps: Vec<usize> = lead(reps.len())
        .chain(reps.iter().map(|&r| r as usize))
        .collect();
    let shape = dims
        .iter()
        .zip(&reps)
        .map(|(&d, &r)| d.checked_mul(r))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            TensorError::value("tile", "the result has more elements than can be counted")
        })?;
    let x = x.reshape(&dims.iter().map(|&d| d as i64).collect::<Vec<_>>())?;
    gather_axes("tile", &x, &shape, Scalar::Int(0), |axis, i| {
        Some(i % dims[axis])
    })
}

/// How many times `repeat` repeats each element.
#[derive(Clone, Debug, PartialEq)]
pub enum Repeats {
    /// Every element the same number of times.
    Each(i64),
    /// One count per element along the axis (or a single count for all).
    PerElement(Vec<i64>),
}

/// `numpy.repeat`: each element repeated along `axis`, one after another
/// (`[1, 2]` twice is `[1, 1, 2, 2]`); without an axis, of the flattened x.
pub fn repeat(x: &Tensor, repeats: &Repeats, axis: Option<i64>) -> Result<Tensor> {
    let (x, axis) = match axis {
        Some(a) => (x.clone(), normalize_axis("repeat", a, x.ndim())?),
        None => (x.reshape(&[-1])?, 0),
    };
    let n = x.shape()[axis];
    let counts = match repeats {
        Repeats::Each(r) => vec![*r; n],
        Repeats::PerElement(v) if v.len() == 1 => vec![v[0]; n],
        Repeats::PerElement(v) if v.len() == n => v.clone(),
        Repeats::PerElement(v) => {
            return Err(TensorError::shape(
                "repeat",
                format!(
                    "{} repeats for an axis of size {n} (shape {}); give one per element or one for all",
                    v.len(),
                    shape_str(x.shape())
                ),
            ))
        }
    };
    // ends[k]: the output index one past element k's last copy.
    let mut ends = Vec::with_capacity(n);
    let mut total = 0usize;
    for &c in &counts {
        let c = usize::try_from(c).map_err(|_| {
            TensorError::value("repeat", format!("repeats must not be negative, got {c}"))
        })?;
        total = total.checked_add(c).ok_or_else(|| {
            TensorError::value("repeat", "the result has more elements than can be counted")
        })?;
        ends.push(total);
    }
    let mut shape = x.shape().to_vec();
    shape[axis] = total;
    gather_axes("repeat", &x, &shape, Scalar::Int(0), |a, i| {
        Some(if a == axis {
            ends.partition_point(|&e| e <= i)
        } else {
            i
        })
    })
}

/// `numpy.roll`: elements shifted along each axis, those pushed off the end coming
/// back at the start. `shifts` and `axes` pair up (one of them may be a single
/// value, used for every entry of the other); an axis named twice adds its shifts.
/// Without axes, x is rolled flattened and keeps its shape.
pub fn roll(x: &Tensor, shifts: &[i64], axes: Option<&[i64]>) -> Result<Tensor> {
    let Some(axes) = axes else {
        let flat = x.reshape(&[-1])?;
        let rolled = roll(&flat, shifts, Some(&[0]))?;
        let shape: Vec<i64> = x.shape().iter().map(|&d| d as i64).collect();
        return rolled.reshape(&shape);
    };
    let pairs: Vec<(i64, i64)> = match (shifts.len(), axes.len()) {
        (s, a) if s == a => shifts.iter().copied().zip(axes.iter().copied()).collect(),
        (1, _) => axes.iter().map(|&a| (shifts[0], a)).collect(),
        (_, 1) => shifts.iter().map(|&s| (s, axes[0])).collect(),
        (s, a) => {
            return Err(TensorError::value(
                "roll",
                format!("{s} shifts for {a} axes; give one shift per axis"),
            ))
        }
    };
    // Net shift per axis, reduced modulo the axis length.
    let mut net = vec![0usize; x.ndim()];
    for (shift, axis) in pairs {
        let a = normalize_axis("roll", axis, x.ndim())?;
        let n = x.shape()[a] as i64;
        if n > 0 {
            net[a] = ((net[a] as i64 + shift.rem_euclid(n)) % n) as usize;
        }
    }
    let shape = x.shape().to_vec();
    gather_axes("roll", x, &shape, Scalar::Int(0), |a, i| {
        let n = shape[a];
        Some((i + n - net[a]) % n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::{tensor, values, views};
    use crate::tensor::DType;

    #[test]
    fn tile_pads_reps_or_rank() {
        let x = tensor(&[1.0, 2.0, 3.0], &[3], DType::I64);
        let t = tile(&x, &[2]).unwrap();
        assert_eq!(values(&t), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
        let t = tile(&x, &[2, 1]).unwrap();
        assert_eq!(t.shape(), &[2, 3]);
        assert_eq!(tile(&x, &[0]).unwrap().shape(), &[0]);
        assert!(tile(&x, &[-1]).is_err());
        assert!(tile(&x, &[i64::MAX, i64::MAX]).is_err());
        let m = tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2], DType::F32);
        for v in views(&m) {
            assert_eq!(
                values(&tile(&v, &[1, 2]).unwrap()),
                [1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]
            );
        }
    }

    #[test]
    fn repeat_counts_each_element() {
        let x = tensor(&[1.0, 2.0, 3.0, 4.0], &[2, 2], DType::U8);
        let r = repeat(&x, &Repeats::Each(2), None).unwrap();
        assert_eq!(values(&r), [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0]);
        let r = repeat(&x, &Repeats::PerElement(vec![0, 2]), Some(-1)).unwrap();
        assert_eq!(
            (r.shape().to_vec(), values(&r)),
            (vec![2, 2], vec![2.0, 2.0, 4.0, 4.0])
        );
        assert!(repeat(&x, &Repeats::PerElement(vec![1, 2, 3]), Some(0)).is_err());
        assert!(repeat(&x, &Repeats::Each(-1), Some(0)).is_err());
        assert!(repeat(&x, &Repeats::Each(i64::MAX), None).is_err());
        assert_eq!(
            repeat(&Tensor::scalar(7i32), &Repeats::Each(3), None)
                .unwrap()
                .shape(),
            &[3]
        );
    }

    #[test]
    fn roll_wraps_and_sums_repeated_axes() {
        let x = tensor(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0], &[2, 3], DType::F64);
        let r = roll(&x, &[1], None).unwrap();
        assert_eq!(
            (r.shape().to_vec(), values(&r)),
            (vec![2, 3], vec![5.0, 0.0, 1.0, 2.0, 3.0, 4.0])
        );
        let r = roll(&x, &[-1, 3], Some(&[1, 1])).unwrap();
        assert_eq!(values(&r), [1.0, 2.0, 0.0, 4.0, 5.0, 3.0]);
        // -2**63 is 0 modulo 2 and 1 modulo 3.
        let r = roll(&x, &[i64::MIN], Some(&[0, 1])).unwrap();
        assert_eq!(values(&r), [2.0, 0.0, 1.0, 5.0, 3.0, 4.0]);
        assert!(roll(&x, &[1, 2], Some(&[0, 1, 1])).is_err());
        assert!(roll(&x, &[1], Some(&[2])).is_err());
        let e = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
        assert_eq!(roll(&e, &[2], Some(&[0])).unwrap().shape(), &[0, 3]);
    }
}

//! interpolate: resampling is separable, so each spatial axis (the last first,
//! as torch's kernels sum) is gathered at its taps and the taps weighted and
//! added, in recorded ops: the gradient adds back into the positions read.

use super::shape::ALL;
use super::{add, cast, index, mul};
use crate::autograd::error::{GradError, Result};
use crate::autograd::var::Var;
use crate::ops::index::Index;
use crate::ops::interpolate::{axis_samples, check_sizes, Mode};
use crate::tensor::{DType, Tensor};

/// x [N, C, *spatial] resized to `sizes` (one per spatial dim); `factors` are the
/// user's scale factors (used for the mapping when given, as torch).
pub fn interpolate(
    x: &Var,
    sizes: &[usize],
    factors: &[Option<f64>],
    mode: Mode,
    align_corners: bool,
) -> Result<Var> {
    check_sizes(x.shape(), sizes, x.dtype().size())?;
    let weighted = matches!(mode, Mode::Linear | Mode::Bicubic);
    let mut y = if weighted && !x.dtype().is_float() {
        cast(x, DType::F32)?
    } else {
        x.clone()
    };
    for d in (0..sizes.len()).rev() {
        let axis = 2 + d;
        let input = y.shape()[axis];
        let samples = axis_samples(mode, input, sizes[d], align_corners, factors[d]);
        let read = |taps: &[i64]| -> Result<Var> {
            let mut items = vec![Index::Slice(ALL); axis];
            items.push(Index::Tensor(Tensor::from_vec(
                taps.to_vec(),
                &[taps.len()],
            )?));
            index(&y, &items).map_err(|e| GradError::Tensor(e.error))
        };
        let next = match &samples.weights {
            None => read(&samples.taps[0])?,
            Some(weights) => {
                // Each weight broadcasts along the axis's trailing dims.
                let mut wshape = vec![sizes[d]];
                wshape.extend(std::iter::repeat_n(1, y.ndim() - axis - 1));
                let mut sum: Option<Var> = None;
                for (taps, w) in samples.taps.iter().zip(weights) {
                    let w = Tensor::from_vec(w.clone(), &wshape)?.to_dtype(y.dtype());
                    let term = mul(&read(taps)?, &Var::constant(w))?;
                    sum = Some(match sum {
                        None => term,
                        Some(s) => add(&s, &term)?,
                    });
                }
                match sum {
                    Some(s) => s,
                    None => read(&samples.taps[0])?,
                }
            }
        };
        y = next;
    }
    Ok(y)
}

//! Where `interpolate` samples along one axis, as torch computes it: for each
//! output position, the input positions it reads and their weights. Resampling
//! is separable, so an N-d interpolation is one of these per spatial axis.

use crate::tensor::{Result, TensorError};

/// torch.nn.functional.interpolate's modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Nearest,
    NearestExact,
    /// linear, bilinear and trilinear (by the input's rank).
    Linear,
    Bicubic,
}

impl Mode {
    /// The mode called `name`, and the number of spatial dims it requires (none:
    /// any of 1, 2, 3).
    pub fn parse(name: &str) -> Option<(Mode, Option<usize>)> {
        Some(match name {
            "nearest" => (Mode::Nearest, None),
            "nearest-exact" => (Mode::NearestExact, None),
            "linear" => (Mode::Linear, Some(1)),
            "bilinear" => (Mode::Linear, Some(2)),
            "trilinear" => (Mode::Linear, Some(3)),
            "bicubic" => (Mode::Bicubic, Some(2)),
            _ => return None,
        })
    }
}

/// The samples of one axis: `taps[k][o]` is the input position output `o` reads
/// in its k-th tap, with weight `weights[k][o]` (none for nearest: weight 1).
pub struct AxisSamples {
    pub taps: Vec<Vec<i64>>,
    pub weights: Option<Vec<Vec<f64>>>,
}

/// The output size along an axis of `input` for a scale factor (torch: floor).
pub fn scaled_size(input: usize, factor: f64) -> Result<usize> {
    let size = (input as f64 * factor).floor();
    if !(size >= 1.0 && size < (1u64 << 40) as f64) {
        return Err(TensorError::value(
            "interpolate",
            format!(
                "scale_factor {factor} gives an output size of {size} for an input size of {input}"
            ),
        ));
    }
    Ok(size as usize)
}

/// Checks the output of resizing `x_shape` ([N, C, *spatial]) to `sizes`, and the
/// taps of each axis, against the memory limit before anything is built.
pub fn check_sizes(x_shape: &[usize], sizes: &[usize], elem_bytes: usize) -> Result<()> {
    let mut out = x_shape[..2.min(x_shape.len())].to_vec();
    out.extend_from_slice(sizes);
    crate::tensor::budget::check_bytes("interpolate", &out, elem_bytes)?;
    for &n in sizes {
        // Up to four taps of an index and a weight per output position.
        crate::tensor::budget::check_bytes("interpolate", &[n, 4], 16)?;
    }
    Ok(())
}

/// torch's area_pixel_compute_scale: input positions per output position.
fn pixel_scale(input: usize, output: usize, align_corners: bool, factor: Option<f64>) -> f64 {
    if align_corners {
        if output > 1 {
            (input as f64 - 1.0) / (output as f64 - 1.0)
        } else {
            0.0
        }
    } else {
        match factor {
            Some(f) if f > 0.0 => 1.0 / f,
            _ => input as f64 / output as f64,
        }
    }
}

/// torch's area_pixel_compute_source_index.
fn source_index(scale: f64, out: usize, align_corners: bool, cubic: bool) -> f64 {
    if align_corners {
        scale * out as f64
    } else {
        let src = scale * (out as f64 + 0.5) - 0.5;
        if !cubic && src < 0.0 {
            0.0
        } else {
            src
        }
    }
}

/// The samples along an axis of `input` positions resized to `output`;
/// `factor` is the user's scale factor for it, which torch uses for the mapping
/// when given.
pub fn axis_samples(
    mode: Mode,
    input: usize,
    output: usize,
    align_corners: bool,
    factor: Option<f64>,
) -> AxisSamples {
    let last = input as i64 - 1;
    match mode {
        Mode::Nearest | Mode::NearestExact => {
            // torch computes nearest positions in f32.
            let scale = match factor {
                Some(f) if f > 0.0 => (1.0 / f) as f32,
                _ => input as f32 / output as f32,
            };
            let offset = if mode == Mode::NearestExact { 0.5 } else { 0.0 };
            let taps = (0..output)
                .map(|o| {
                    let at = ((o as f32 + offset) * scale).floor() as i64;
                    at.min(last)
                })
                .collect();
            AxisSamples {
                taps: vec![taps],
                weights: None,
            }
        }
        Mode::Linear => {
            let scale = pixel_scale(input, output, align_corners, factor);
            let (mut lo, mut hi, mut w_lo, mut w_hi) = (vec![], vec![], vec![], vec![]);
            for o in 0..output {
                let src = source_index(scale, o, align_corners, false);
                let i = (src.floor() as i64).min(last);
                let lambda = (src - i as f64).clamp(0.0, 1.0);
                lo.push(i);
                hi.push(if i < last { i + 1 } else { i });
                w_lo.push(1.0 - lambda);
                w_hi.push(lambda);
            }
            AxisSamples {
                taps: vec![lo, hi],
                weights: Some(vec![w_lo, w_hi]),
            }
        }
        Mode::Bicubic => {
            let scale = pixel_scale(input, output, align_corners, factor);
            let mut taps: Vec<Vec<i64>> = (0..4).map(|_| Vec::with_capacity(output)).collect();
            let mut weights: Vec<Vec<f64>> = (0..4).map(|_| Vec::with_capacity(output)).collect();
            for o in 0..output {
                let src = source_index(scale, o, align_corners, true);
                let i = src.floor();
                let t = src - i;
                for (k, w) in cubic_weights(t).into_iter().enumerate() {
                    taps[k].push((i as i64 - 1 + k as i64).clamp(0, last));
                    weights[k].push(w);
                }
            }
            AxisSamples {
                taps,
                weights: Some(weights),
            }
        }
    }
}

/// The cubic convolution weights (A = -0.75, torch's) of the four taps around a
/// position `t` past the second.
fn cubic_weights(t: f64) -> [f64; 4] {
    const A: f64 = -0.75;
    let near = |x: f64| ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
    let far = |x: f64| ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A;
    [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cubic_weights_sum_to_one() {
        for t in [0.0, 0.25, 0.5, 0.9] {
            let s: f64 = cubic_weights(t).iter().sum();
            assert!((s - 1.0).abs() < 1e-12, "{t}: {s}");
        }
    }

    #[test]
    fn nearest_doubles_each_position() {
        let s = axis_samples(Mode::Nearest, 3, 6, false, None);
        assert_eq!(s.taps, vec![vec![0, 0, 1, 1, 2, 2]]);
    }

    #[test]
    fn linear_with_align_corners_hits_both_ends() {
        let s = axis_samples(Mode::Linear, 3, 5, true, None);
        assert_eq!(s.taps[0], vec![0, 0, 1, 1, 2]);
        let w = s.weights.unwrap();
        assert_eq!(w[1], vec![0.0, 0.5, 0.0, 0.5, 0.0]);
    }
}

//! Neural-network functions over lanes in a float compute type (f32, or f64 for f64
//! inputs): softmax and normalizations over a contiguous lane (the per-element
//! activations are in `math::activation`). Sums use the pairwise tree, so results do
//! not depend on how lanes are split.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::kernels::isa::Isa;
use crate::kernels::math::apply::MathFn;
use crate::kernels::math::arith::Float;
use crate::kernels::parallel::{for_each_chunk_mut, ELEMENTWISE_CHUNK};
use crate::kernels::reduce::pairwise_sum;

/// The types nn functions compute in: f32 and f64, with operators.
pub trait NnFloat:
    Float
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
}

impl NnFloat for f32 {}
impl NnFloat for f64 {}

/// Calls `f(out_lane, in_lane)` for consecutive lanes of `lane` elements, in parallel
/// over groups of whole lanes whose size depends only on `lane` (so any thread count
/// runs the same per-lane arithmetic).
pub fn for_each_lane<F: Send + Sync>(
    out: &mut [F],
    src: &[F],
    lane: usize,
    f: impl Fn(&mut [F], &[F]) + Sync + Send,
) {
    if lane == 0 {
        return;
    }
    let group = (ELEMENTWISE_CHUNK / lane).max(1) * lane;
    for_each_chunk_mut(out, group, |start, chunk| {
        let src = &src[start..start + chunk.len()];
        for (o, i) in chunk.chunks_exact_mut(lane).zip(src.chunks_exact(lane)) {
            f(o, i);
        }
    });
}

/// The largest element of a non-empty lane, ignoring NaN (a NaN makes every
/// e^(x - max) it meets NaN anyway). Eight running maxima, so the loop vectorizes.
fn lane_max<F: NnFloat>(x: &[F]) -> F {
    let pick = |m: F, v: F| if v > m { v } else { m };
    let mut acc = [F::from_f64(f64::NEG_INFINITY); 8];
    let mut blocks = x.chunks_exact(8);
    for b in &mut blocks {
        for (a, &v) in acc.iter_mut().zip(b) {
            *a = pick(*a, v);
        }
    }
    let tail = blocks.remainder().iter().copied();
    acc.into_iter().chain(tail).fold(acc[0], pick)
}

/// `out = e^(x - max)` with the vector exp; returns the lane's max.
fn shifted_exp<F: NnFloat>(isa: Isa, out: &mut [F], x: &[F]) -> F {
    let max = lane_max(x);
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v - max;
    }
    F::math_in_place(isa, MathFn::Exp, out);
    max
}

/// e^(x - max) / Σ e^(x - max): subtracting the lane's maximum keeps every power
/// at most 1, so large inputs do not overflow. A lane with NaN, +inf, or only -inf
/// gives NaN (inf - inf).
pub fn softmax<F: NnFloat>(isa: Isa, out: &mut [F], x: &[F]) {
    shifted_exp(isa, out, x);
    let sum = pairwise_sum(out, |e| e);
    for o in out.iter_mut() {
        *o = *o / sum;
    }
}

/// (x - max) - ln Σ e^(x - max), the stable form of ln(softmax(x)).
pub fn log_softmax<F: NnFloat>(isa: Isa, out: &mut [F], x: &[F]) {
    let max = shifted_exp(isa, out, x);
    let log_sum = pairwise_sum(out, |e| e).ln();
    for (o, &v) in out.iter_mut().zip(x) {
        *o = (v - max) - log_sum;
    }
}

/// `(x - mean) / √(var + eps) · weight + bias` over one lane, with the biased
/// variance computed from the deviations (two passes, no cancellation).
pub fn layer_norm<F: NnFloat>(
    out: &mut [F],
    x: &[F],
    weight: Option<&[F]>,
    bias: Option<&[F]>,
    eps: F,
) {
    let n = F::from_f64(x.len() as f64);
    let mean = pairwise_sum(x, |v| v) / n;
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v - mean;
    }
    let var = pairwise_sum(out, |d| d * d) / n;
    let rstd = F::from_f64(1.0) / (var + eps).sqrt();
    for o in out.iter_mut() {
        *o = *o * rstd;
    }
    scale_shift(out, weight, bias);
}

/// `x / √(mean(x²) + eps) · weight` over one lane.
pub fn rms_norm<F: NnFloat>(out: &mut [F], x: &[F], weight: Option<&[F]>, eps: F) {
    let n = F::from_f64(x.len() as f64);
    let mean_square = pairwise_sum(x, |v| v * v) / n;
    let rstd = F::from_f64(1.0) / (mean_square + eps).sqrt();
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v * rstd;
    }
    scale_shift(out, weight, None);
}

/// The elementwise affine step of the norms: `out * weight + bias`, each optional.
fn scale_shift<F: NnFloat>(out: &mut [F], weight: Option<&[F]>, bias: Option<&[F]>) {
    if let Some(w) = weight {
        out.iter_mut().zip(w).for_each(|(o, &w)| *o = *o * w);
    }
    if let Some(b) = bias {
        out.iter_mut().zip(b).for_each(|(o, &b)| *o = *o + b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rtol: f64) -> bool {
        a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * b.abs().max(1e-300)
    }

    #[test]
    fn softmax_is_stable_and_normalized() {
        let x = [1000.0f32, 1001.0, 999.0, -inf32()];
        let mut out = [0.0f32; 4];
        softmax(Isa::detect(), &mut out, &x);
        let e: Vec<f64> = [1.0f64, 0.0, 2.0].iter().map(|d| (-d).exp()).collect();
        let sum: f64 = e.iter().sum();
        for (o, w) in out.iter().zip([e[0] / sum, e[1] / sum, e[2] / sum, 0.0]) {
            assert!(close(f64::from(*o), w, 1e-6), "{out:?}");
        }
        let mut logs = [0.0f32; 4];
        log_softmax(Isa::detect(), &mut logs, &x);
        assert!(
            close(f64::from(logs[1]), (e[1] / sum).ln(), 1e-6),
            "{logs:?}"
        );
        assert_eq!(logs[3], -inf32());
        // A NaN, or nothing but -inf, gives NaN everywhere (as PyTorch).
        for bad in [[1.0, f32::NAN], [-inf32(), -inf32()]] {
            let mut out = [0.0f32; 2];
            softmax(Isa::detect(), &mut out, &bad);
            assert!(out.iter().all(|v| v.is_nan()), "{bad:?} -> {out:?}");
        }
    }

    fn inf32() -> f32 {
        f32::INFINITY
    }

    #[test]
    fn norms_match_their_formulas() {
        let x = [1.0f64, 2.0, 4.0, -3.0];
        let (w, b) = ([0.5, 1.0, 2.0, -1.0], [0.0, 1.0, -1.0, 0.5]);
        let mean = 1.0;
        let var = (0.0 + 1.0 + 9.0 + 16.0) / 4.0;
        let mut out = [0.0; 4];
        layer_norm(&mut out, &x, Some(&w), Some(&b), 1e-5);
        for i in 0..4 {
            let want = (x[i] - mean) / (var + 1e-5f64).sqrt() * w[i] + b[i];
            assert!(close(out[i], want, 1e-15), "{out:?}");
        }
        rms_norm(&mut out, &x, Some(&w), 1e-6);
        let ms = (1.0 + 4.0 + 16.0 + 9.0) / 4.0;
        for i in 0..4 {
            assert!(close(out[i], x[i] / (ms + 1e-6f64).sqrt() * w[i], 1e-15));
        }
        // A constant lane has zero variance: eps keeps the result finite.
        layer_norm(&mut out, &[3.0; 4], None, None, 1e-5);
        assert_eq!(out, [0.0; 4]);
    }
}

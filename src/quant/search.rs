//! The scale searches of ggml's k-quant reference quantizers (`make_qkx2_quants` for
//! Q4_K/Q5_K, `make_qx_quants` with rmse_type 1 for Q6_K), run on all the sub-blocks of
//! a super-block at once: lane `s` is sub-block `s`, and `x[i]` holds element `i` of
//! every sub-block. Each lane performs exactly the scalar code's sequence of f32
//! operations (same order, no fused multiply-add), so the results are ggml's bit for
//! bit, while the independent lanes vectorize.

use super::lanes::{F, I};

/// ggml's GROUP_MAX_EPS: a group whose largest |x| is below this quantizes to zeros.
pub const GROUP_MAX_EPS: f32 = 1e-15;

/// The result of `make_qkx2_quants` per lane: `x ≈ scale·q − min`.
pub struct ScaleMin<const L: usize, const N: usize> {
    pub scale: F<L>,
    /// The subtracted minimum, ≥ 0 (ggml's `the_min`).
    pub min: F<L>,
    pub q: [I<L>; N],
}

/// ggml's `make_qkx2_quants(N, nmax, x, w, ..., rmin, rdelta, nstep, use_mad=false)`:
/// an asymmetric quantization to 0..=nmax, searched over `nstep + 1` candidate scales,
/// each refined by weighted least squares.
#[inline(always)]
pub fn make_qkx2_quants<const L: usize, const N: usize>(
    x: &[F<L>; N],
    w: &[F<L>; N],
    nmax: i32,
    (rmin, rdelta, nstep): (f32, f32, i32),
) -> ScaleMin<L, N> {
    let zero = F::splat(0.0);
    let (mut min, mut max) = (x[0], x[0]);
    let mut sum_w = w[0];
    let mut sum_x = w[0] * x[0];
    for (&xi, &wi) in x.iter().zip(w).skip(1) {
        min = xi.lt(min).select(xi, min);
        max = xi.gt(max).select(xi, max);
        sum_w = sum_w + wi;
        sum_x = sum_x + wi * xi;
    }
    min = min.gt(zero).select(zero, min);
    // Lanes whose values are all equal (after clamping min to <= 0) give zeros.
    let flat = max.eq(min);
    let flat_min = min;

    let nmaxf = F::splat(nmax as f32);
    let iscale = nmaxf / (max - min);
    let mut scale = F::splat(1.0) / iscale;
    let mut q = [I::splat(0); N];
    let mut best = zero;
    for i in 0..N {
        let l = (iscale * (x[i] - min)).nearest_int().clamp(0, nmax);
        q[i] = l;
        let diff = scale * l.to_f32() + min - x[i];
        best = best + w[i] * (diff * diff);
    }

    let mut aux = [I::splat(0); N];
    for is in 0..=nstep {
        let factor = F::splat(rmin + rdelta * is as f32 + nmax as f32);
        let iscale = factor / (max - min);
        let (mut sum_l, mut sum_l2, mut sum_xl) = (zero, zero, zero);
        for i in 0..N {
            let l = (iscale * (x[i] - min)).nearest_int().clamp(0, nmax);
            aux[i] = l;
            let lf = l.to_f32();
            let wl = w[i] * lf;
            sum_l = sum_l + wl;
            sum_l2 = sum_l2 + wl * lf;
            sum_xl = sum_xl + wl * x[i];
        }
        let d = sum_w * sum_l2 - sum_l * sum_l;
        let clamp_min = ((sum_l2 * sum_x - sum_l * sum_xl) / d).gt(zero);
        let this_scale = clamp_min.select(sum_xl / sum_l2, (sum_w * sum_xl - sum_x * sum_l) / d);
        let this_min = clamp_min.select(zero, (sum_l2 * sum_x - sum_l * sum_xl) / d);
        let mut err = zero;
        for i in 0..N {
            let diff = this_scale * aux[i].to_f32() + this_min - x[i];
            err = err + w[i] * (diff * diff);
        }
        let better = d.gt(zero).and(err.lt(best));
        best = better.select(err, best);
        scale = better.select(this_scale, scale);
        min = better.select(this_min, min);
        for (qi, &ai) in q.iter_mut().zip(&aux) {
            *qi = better.select_i(ai, *qi);
        }
    }

    for qi in &mut q {
        *qi = flat.select_i(I::splat(0), *qi);
    }
    ScaleMin {
        scale: flat.select(zero, scale),
        min: -flat.select(flat_min, min),
        q,
    }
}

/// The result of `make_qx_quants` per lane: `x ≈ scale·(q − nmax)`.
pub struct Scale<const L: usize, const N: usize> {
    pub scale: F<L>,
    pub q: [I<L>; N],
}

/// ggml's `make_qx_quants(N, nmax, x, L, rmse_type = 1, qw = NULL)`: a symmetric
/// quantization to -nmax..nmax-1 (stored offset by nmax) with weights x², searched over
/// 18 scales around `nmax / max|x|`.
#[inline(always)]
pub fn make_qx_quants<const L: usize, const N: usize>(x: &[F<L>; N], nmax: i32) -> Scale<L, N> {
    let zero = F::splat(0.0);
    let (mut max, mut amax) = (zero, zero);
    for &xi in x {
        let bigger = xi.abs().gt(amax);
        amax = bigger.select(xi.abs(), amax);
        max = bigger.select(xi, max);
    }
    let empty = amax.lt(F::splat(GROUP_MAX_EPS));
    let w: [F<L>; N] = std::array::from_fn(|i| x[i] * x[i]);
    let wx: [F<L>; N] = std::array::from_fn(|i| w[i] * x[i]);

    // One candidate scale: its quants (offset by nmax) and the sums Σw·x·l, Σw·l².
    let candidate = |iscale: F<L>, q: &mut [I<L>; N]| {
        let (mut sumlx, mut suml2) = (zero, zero);
        for i in 0..N {
            let l = (iscale * x[i]).nearest_int().clamp(-nmax, nmax - 1);
            let lf = l.to_f32();
            q[i] = I(l.0.map(|v| v + nmax));
            sumlx = sumlx + wx[i] * lf;
            suml2 = suml2 + w[i] * lf * lf;
        }
        (sumlx, suml2)
    };

    let mut q = [I::splat(0); N];
    let (sumlx, suml2) = candidate(F::splat(-(nmax as f32)) / max, &mut q);
    let mut scale = suml2.ne(zero).select(sumlx / suml2, zero);
    let mut best = scale * sumlx;
    let mut aux = [I::splat(0); N];
    for is in (-9..=9).filter(|&is| is != 0) {
        let iscale = F::splat(-(nmax as f32 + 0.1 * is as f32)) / max;
        let (sumlx, suml2) = candidate(iscale, &mut aux);
        let better = suml2.gt(zero).and((sumlx * sumlx).gt(best * suml2));
        scale = better.select(sumlx / suml2, scale);
        best = better.select(scale * sumlx, best);
        for (qi, &ai) in q.iter_mut().zip(&aux) {
            *qi = better.select_i(ai, *qi);
        }
    }
    for qi in &mut q {
        *qi = empty.select_i(I::splat(0), *qi);
    }
    Scale {
        scale: empty.select(zero, scale),
        q,
    }
}

//! The scale searches of ggml's k-quant reference quantizers (`make_qkx2_quants` for
//! Q4_K/Q5_K, `make_qx_quants` with rmse_type 1 for Q6_K), run on all the sub-blocks of
//! a super-block at once: lane `s` of every array is sub-block `s`, and `x[i][s]` is
//! element `i` of sub-block `s`. Each lane performs exactly the scalar code's sequence
//! of f32 operations (same order, no fused multiply-add), so the results are ggml's
//! bit for bit, while the independent lanes vectorize and overlap.

use super::rounding::nearest_int;

/// ggml's GROUP_MAX_EPS: a group whose largest |x| is below this quantizes to zeros.
pub const GROUP_MAX_EPS: f32 = 1e-15;

/// The result of `make_qkx2_quants` per lane: `x ≈ scale·q − min`.
pub struct ScaleMin<const L: usize, const N: usize> {
    pub scale: [f32; L],
    /// The subtracted minimum, ≥ 0 (ggml's `the_min`).
    pub min: [f32; L],
    pub q: [[u8; L]; N],
}

/// ggml's `make_qkx2_quants(N, nmax, x, w, ..., rmin, rdelta, nstep, use_mad=false)`
/// for `nstep >= 1`: an asymmetric quantization to 0..=nmax searched over
/// `nstep + 1` candidate scales, each refined by weighted least squares.
#[inline(always)]
pub fn make_qkx2_quants<const L: usize, const N: usize>(
    x: &[[f32; L]; N],
    w: &[[f32; L]; N],
    nmax: i32,
    rmin: f32,
    rdelta: f32,
    nstep: i32,
) -> ScaleMin<L, N> {
    let nmaxf = nmax as f32;
    let mut min = x[0];
    let mut max = x[0];
    let mut sum_w = w[0];
    let mut sum_x: [f32; L] = std::array::from_fn(|s| sum_w[s] * x[0][s]);
    for (xi, wi) in x.iter().zip(w).skip(1) {
        for s in 0..L {
            min[s] = if xi[s] < min[s] { xi[s] } else { min[s] };
            max[s] = if xi[s] > max[s] { xi[s] } else { max[s] };
            sum_w[s] += wi[s];
            sum_x[s] += wi[s] * xi[s];
        }
    }
    for m in &mut min {
        *m = if *m > 0.0 { 0.0 } else { *m };
    }
    // Lanes whose values are all equal (after clamping min to <= 0) return zeros.
    let flat: [bool; L] = std::array::from_fn(|s| max[s] == min[s]);
    let flat_min = min;

    let mut iscale: [f32; L] = std::array::from_fn(|s| nmaxf / (max[s] - min[s]));
    let mut scale: [f32; L] = std::array::from_fn(|s| 1.0 / iscale[s]);
    let mut q = [[0u8; L]; N];
    let mut best = [0f32; L];
    for i in 0..N {
        for s in 0..L {
            let l = nearest_int(iscale[s] * (x[i][s] - min[s])).clamp(0, nmax);
            q[i][s] = l as u8;
            let diff = scale[s] * l as f32 + min[s] - x[i][s];
            best[s] += w[i][s] * (diff * diff);
        }
    }

    let mut aux = [[0u8; L]; N];
    for is in 0..=nstep {
        let factor = rmin + rdelta * is as f32 + nmaxf;
        for s in 0..L {
            iscale[s] = factor / (max[s] - min[s]);
        }
        let mut sum_l = [0f32; L];
        let mut sum_l2 = [0f32; L];
        let mut sum_xl = [0f32; L];
        for i in 0..N {
            for s in 0..L {
                let l = nearest_int(iscale[s] * (x[i][s] - min[s])).clamp(0, nmax);
                aux[i][s] = l as u8;
                let lf = l as f32;
                let wl = w[i][s] * lf;
                sum_l[s] += wl;
                sum_l2[s] += wl * lf;
                sum_xl[s] += wl * x[i][s];
            }
        }
        let mut this_scale = [0f32; L];
        let mut this_min = [0f32; L];
        let mut solvable = [false; L];
        for s in 0..L {
            let d = sum_w[s] * sum_l2[s] - sum_l[s] * sum_l[s];
            solvable[s] = d > 0.0;
            let sc = (sum_w[s] * sum_xl[s] - sum_x[s] * sum_l[s]) / d;
            let mn = (sum_l2[s] * sum_x[s] - sum_l[s] * sum_xl[s]) / d;
            (this_scale[s], this_min[s]) = if mn > 0.0 {
                (sum_xl[s] / sum_l2[s], 0.0)
            } else {
                (sc, mn)
            };
        }
        let mut err = [0f32; L];
        for i in 0..N {
            for s in 0..L {
                let diff = this_scale[s] * aux[i][s] as f32 + this_min[s] - x[i][s];
                err[s] += w[i][s] * (diff * diff);
            }
        }
        let better: [bool; L] = std::array::from_fn(|s| solvable[s] && err[s] < best[s]);
        for s in 0..L {
            if better[s] {
                best[s] = err[s];
                scale[s] = this_scale[s];
                min[s] = this_min[s];
            }
        }
        for (qi, ai) in q.iter_mut().zip(&aux) {
            for s in 0..L {
                qi[s] = if better[s] { ai[s] } else { qi[s] };
            }
        }
    }

    for s in 0..L {
        if flat[s] {
            scale[s] = 0.0;
            min[s] = flat_min[s];
        }
        min[s] = -min[s];
    }
    for qi in &mut q {
        for s in 0..L {
            qi[s] = if flat[s] { 0 } else { qi[s] };
        }
    }
    ScaleMin { scale, min, q }
}

/// The result of `make_qx_quants` per lane: `x ≈ scale·(q − nmax)`.
pub struct Scale<const L: usize, const N: usize> {
    pub scale: [f32; L],
    pub q: [[u8; L]; N],
}

/// ggml's `make_qx_quants(N, nmax, x, L, rmse_type = 1, qw = NULL)`: a symmetric
/// quantization to -nmax..nmax-1 (stored offset by nmax) with weights x², searched over
/// 18 scales around `nmax / max|x|`.
#[inline(always)]
pub fn make_qx_quants<const L: usize, const N: usize>(x: &[[f32; L]; N], nmax: i32) -> Scale<L, N> {
    let nmaxf = nmax as f32;
    let mut max = [0f32; L];
    let mut amax = [0f32; L];
    for xi in x {
        for s in 0..L {
            let ax = xi[s].abs();
            let bigger = ax > amax[s];
            amax[s] = if bigger { ax } else { amax[s] };
            max[s] = if bigger { xi[s] } else { max[s] };
        }
    }
    let zero: [bool; L] = std::array::from_fn(|s| amax[s] < GROUP_MAX_EPS);
    let w: [[f32; L]; N] = std::array::from_fn(|i| std::array::from_fn(|s| x[i][s] * x[i][s]));
    let wx: [[f32; L]; N] = std::array::from_fn(|i| std::array::from_fn(|s| w[i][s] * x[i][s]));

    // One candidate: quants for `iscale` and the least-squares sums Σw·x·l, Σw·l².
    let candidate = |iscale: &[f32; L], q: &mut [[u8; L]; N]| {
        let mut sumlx = [0f32; L];
        let mut suml2 = [0f32; L];
        for i in 0..N {
            for s in 0..L {
                let l = nearest_int(iscale[s] * x[i][s]).clamp(-nmax, nmax - 1);
                q[i][s] = (l + nmax) as u8;
                let lf = l as f32;
                sumlx[s] += wx[i][s] * lf;
                suml2[s] += w[i][s] * lf * lf;
            }
        }
        (sumlx, suml2)
    };

    let iscale: [f32; L] = std::array::from_fn(|s| -nmaxf / max[s]);
    let mut q = [[0u8; L]; N];
    let (sumlx, suml2) = candidate(&iscale, &mut q);
    let mut scale: [f32; L] =
        std::array::from_fn(|s| if suml2[s] != 0.0 { sumlx[s] / suml2[s] } else { 0.0 });
    let mut best: [f32; L] = std::array::from_fn(|s| scale[s] * sumlx[s]);
    let mut aux = [[0u8; L]; N];
    for is in (-9..=9).filter(|&is| is != 0) {
        let factor = nmaxf + 0.1 * is as f32;
        let iscale: [f32; L] = std::array::from_fn(|s| -factor / max[s]);
        let (sumlx, suml2) = candidate(&iscale, &mut aux);
        let better: [bool; L] = std::array::from_fn(|s| {
            suml2[s] > 0.0 && sumlx[s] * sumlx[s] > best[s] * suml2[s]
        });
        for s in 0..L {
            if better[s] {
                scale[s] = sumlx[s] / suml2[s];
                best[s] = scale[s] * sumlx[s];
            }
        }
        for (qi, ai) in q.iter_mut().zip(&aux) {
            for s in 0..L {
                qi[s] = if better[s] { ai[s] } else { qi[s] };
            }
        }
    }
    for s in 0..L {
        scale[s] = if zero[s] { 0.0 } else { scale[s] };
    }
    for qi in &mut q {
        for s in 0..L {
            qi[s] = if zero[s] { 0 } else { qi[s] };
        }
    }
    Scale { scale, q }
}

/// Transposes `v` (L groups of N consecutive values) into lanes: `out[i][s] = v[s*N + i]`.
#[inline(always)]
pub fn to_lanes<const L: usize, const N: usize>(v: &[f32]) -> [[f32; L]; N] {
    std::array::from_fn(|i| std::array::from_fn(|s| v[s * N + i]))
}

//! The vector steps of the factorizations' plain loops, each built by `twin!` for
//! AVX-512, AVX2 and as its scalar twin: elementwise updates (one multiply and one add
//! or subtract per element, never fused, so every build rounds alike) and the dot
//! product of `linalg::dot` (fixed lanes and tree on every ISA).

use super::Real;
use crate::kernels::isa::Isa;
use crate::kernels::linalg::dot::dot as lane_dot;
use crate::kernels::twin::twin;

twin! {
    fn sub_scaled_on[T: Real](dst: &mut [T], coef: T, src: &[T]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d -= coef * *s;
        }
    }
}

twin! {
    fn add_scaled_on[T: Real](dst: &mut [T], coef: T, src: &[T]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d += coef * *s;
        }
    }
}

twin! {
    fn sub_on[T: Real](dst: &mut [T], src: &[T]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d -= *s;
        }
    }
}

twin! {
    fn sub_rank2_on[T: Real](dst: &mut [T], vi: T, w: &[T], wi: T, v: &[T]) {
        for ((d, wc), vc) in dst.iter_mut().zip(w).zip(v) {
            *d = *d - vi * *wc - wi * *vc;
        }
    }
}

/// `dst -= coef · src`, element by element.
pub fn sub_scaled<T: Real>(dst: &mut [T], coef: T, src: &[T]) {
    sub_scaled_on(Isa::detect(), dst, coef, src);
}

/// `dst += coef · src`, element by element.
pub fn add_scaled<T: Real>(dst: &mut [T], coef: T, src: &[T]) {
    add_scaled_on(Isa::detect(), dst, coef, src);
}

/// `dst -= src`, element by element.
pub fn sub<T: Real>(dst: &mut [T], src: &[T]) {
    sub_on(Isa::detect(), dst, src);
}

/// `dst -= vᵢ·w + wᵢ·v`, element by element (a row of a symmetric rank-2 update).
pub fn sub_rank2<T: Real>(dst: &mut [T], (vi, w): (T, &[T]), (wi, v): (T, &[T])) {
    sub_rank2_on(Isa::detect(), dst, vi, w, wi, v);
}

/// Σ x·y in `linalg::dot`'s fixed order.
pub fn dot<T: Real>(x: &[T], y: &[T]) -> T {
    lane_dot(Isa::detect(), x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(len: usize, seed: u32) -> Vec<f64> {
        (0..len)
            .map(|i| ((i as u32).wrapping_mul(2654435761) ^ seed) as f64 / 1e9 - 2.0)
            .collect()
    }

    /// Every build this CPU runs gives the scalar twin's bits, on lengths around the
    /// vector widths.
    #[test]
    fn every_isa_gives_the_scalar_bits() {
        for isa in Isa::supported() {
            for len in [0, 1, 7, 8, 15, 16, 17, 63, 100] {
                let (x, y) = (values(len, 1), values(len, 2));
                let check = |f: &dyn Fn(Isa) -> Vec<f64>| {
                    let (got, want) = (f(isa), f(Isa::SCALAR));
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&want), "{} len {len}", isa.name());
                };
                check(&|isa| {
                    let mut d = x.clone();
                    sub_scaled_on(isa, &mut d, 0.3, &y);
                    d
                });
                check(&|isa| {
                    let mut d = x.clone();
                    add_scaled_on(isa, &mut d, -1.7, &y);
                    d
                });
                check(&|isa| {
                    let mut d = x.clone();
                    sub_on(isa, &mut d, &y);
                    d
                });
                check(&|isa| {
                    let mut d = x.clone();
                    sub_rank2_on(isa, &mut d, 0.25, &y, -3.5, &x);
                    d
                });
            }
        }
    }
}

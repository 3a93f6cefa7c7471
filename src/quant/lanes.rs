//! Fixed-width lanes of f32 / i32 for the quantizers' searches: one lane per sub-block.
//! Every operation is a plain loop over the lanes, so each compiles to one vector
//! instruction per 8 lanes (in the AVX2 copy) while computing exactly what the scalar
//! code computes lane by lane.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::rounding::nearest_int;

#[derive(Clone, Copy, Debug)]
pub struct F<const L: usize>(pub [f32; L]);

#[derive(Clone, Copy, Debug)]
pub struct I<const L: usize>(pub [i32; L]);

/// A lane mask.
#[derive(Clone, Copy, Debug)]
pub struct M<const L: usize>(pub [bool; L]);

macro_rules! binary {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<const L: usize> $tr for F<L> {
            type Output = F<L>;
            #[inline(always)]
            fn $f(self, o: F<L>) -> F<L> {
                let mut r = self.0;
                for (a, b) in r.iter_mut().zip(o.0) {
                    *a $op b;
                }
                F(r)
            }
        }
    };
}
binary!(Add, add, +=);
binary!(Sub, sub, -=);
binary!(Mul, mul, *=);
binary!(Div, div, /=);

impl<const L: usize> Neg for F<L> {
    type Output = F<L>;
    #[inline(always)]
    fn neg(self) -> F<L> {
        self.map(|v| -v)
    }
}

impl<const L: usize> F<L> {
    #[inline(always)]
    pub fn splat(v: f32) -> Self {
        F([v; L])
    }

    #[inline(always)]
    fn map(self, f: impl Fn(f32) -> f32) -> Self {
        F(self.0.map(f))
    }

    #[inline(always)]
    fn cmp(self, o: F<L>, f: impl Fn(f32, f32) -> bool) -> M<L> {
        let mut m = [false; L];
        for ((r, a), b) in m.iter_mut().zip(self.0).zip(o.0) {
            *r = f(a, b);
        }
        M(m)
    }

    #[inline(always)]
    pub fn abs(self) -> Self {
        self.map(f32::abs)
    }

    #[inline(always)]
    pub fn sqrt(self) -> Self {
        self.map(f32::sqrt)
    }

    #[inline(always)]
    pub fn lt(self, o: F<L>) -> M<L> {
        self.cmp(o, |a, b| a < b)
    }

    #[inline(always)]
    pub fn gt(self, o: F<L>) -> M<L> {
        self.cmp(o, |a, b| a > b)
    }

    #[inline(always)]
    pub fn eq(self, o: F<L>) -> M<L> {
        self.cmp(o, |a, b| a == b)
    }

    #[inline(always)]
    pub fn ne(self, o: F<L>) -> M<L> {
        self.cmp(o, |a, b| a != b)
    }

    /// ggml's `nearest_int` per lane.
    #[inline(always)]
    pub fn nearest_int(self) -> I<L> {
        I(self.0.map(nearest_int))
    }
}

impl<const L: usize> I<L> {
    #[inline(always)]
    pub fn splat(v: i32) -> Self {
        I([v; L])
    }

    /// `MAX(lo, MIN(hi, v))` per lane.
    #[inline(always)]
    pub fn clamp(self, lo: i32, hi: i32) -> Self {
        I(self.0.map(|v| v.min(hi).max(lo)))
    }

    #[inline(always)]
    pub fn to_f32(self) -> F<L> {
        F(self.0.map(|v| v as f32))
    }
}

impl<const L: usize> M<L> {
    #[inline(always)]
    pub fn and(self, o: M<L>) -> M<L> {
        let mut r = self.0;
        for (a, b) in r.iter_mut().zip(o.0) {
            *a &= b;
        }
        M(r)
    }

    /// `a` where the mask is set, else `b`.
    #[inline(always)]
    pub fn select(self, a: F<L>, b: F<L>) -> F<L> {
        let mut r = b.0;
        for ((r, m), a) in r.iter_mut().zip(self.0).zip(a.0) {
            *r = if m { a } else { *r };
        }
        F(r)
    }

    #[inline(always)]
    pub fn select_i(self, a: I<L>, b: I<L>) -> I<L> {
        let mut r = b.0;
        for ((r, m), a) in r.iter_mut().zip(self.0).zip(a.0) {
            *r = if m { a } else { *r };
        }
        I(r)
    }
}

/// Transposes `v` (L groups of N consecutive values) into lanes: `out[i].0[s] = v[s·N + i]`.
#[inline(always)]
pub fn to_lanes<const L: usize, const N: usize>(v: &[f32]) -> [F<L>; N] {
    std::array::from_fn(|i| F(std::array::from_fn(|s| v[s * N + i])))
}

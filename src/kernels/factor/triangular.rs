//! Triangular solves `T x = b` in place for a row-major `b` with many columns, blocked
//! left-looking: each block of `BLOCK` rows first loses the product of the rows already
//! solved (one GEMM), then is solved with plain loops against its diagonal block.

use super::{product, sub_product, vector, view, Real, BLOCK};

/// Which triangle of the matrix holds `T`, and whether its diagonal is taken as ones
/// (an LU factor's `L`) rather than read.
#[derive(Clone, Copy)]
pub struct Triangle {
    pub lower: bool,
    pub unit: bool,
}

/// Overwrites the `n × k` row-major `b` with `T⁻¹ b`, `T` the triangle of the `n × n`
/// row-major `t` (the other triangle is never read). A zero on a read diagonal gives
/// infinities or NaN, as LAPACK's `trsm` does; callers check for it first.
pub fn solve<T: Real>(t: &[T], n: usize, tri: Triangle, b: &mut [T], k: usize) {
    let mut blocks: Vec<usize> = (0..n).step_by(BLOCK).collect();
    if !tri.lower {
        blocks.reverse();
    }
    for r0 in blocks {
        let r1 = (r0 + BLOCK).min(n);
        let solved = if tri.lower { 0..r0 } else { r1..n };
        if !solved.is_empty() && k > 0 {
            let update = product(view(t, n, r0..r1, solved.clone()), view(b, k, solved, 0..k));
            sub_product(&mut b[r0 * k..], k, &update, k);
        }
        solve_block(t, n, tri, b, k, r0..r1);
    }
}

/// Solves rows `rows` of `b` against the diagonal block of `t` on those rows.
fn solve_block<T: Real>(
    t: &[T],
    n: usize,
    tri: Triangle,
    b: &mut [T],
    k: usize,
    rows: std::ops::Range<usize>,
) {
    let mut order: Vec<usize> = rows.clone().collect();
    if !tri.lower {
        order.reverse();
    }
    for r in order {
        let earlier = if tri.lower {
            rows.start..r
        } else {
            r + 1..rows.end
        };
        for c in earlier {
            let coef = t[r * n + c];
            let (row, other) = two_rows(b, k, r, c);
            vector::sub_scaled(row, coef, other);
        }
        if !tri.unit {
            let d = t[r * n + r];
            for x in &mut b[r * k..(r + 1) * k] {
                *x /= d;
            }
        }
    }
}

/// Row `r` of the row-major `b` (mutable) and row `c` ≠ `r` (shared).
fn two_rows<T>(b: &mut [T], k: usize, r: usize, c: usize) -> (&mut [T], &[T]) {
    if c < r {
        let (top, rest) = b.split_at_mut(r * k);
        (&mut rest[..k], &top[c * k..(c + 1) * k])
    } else {
        let (top, rest) = b.split_at_mut(c * k);
        (&mut top[r * k..(r + 1) * k], &rest[..k])
    }
}

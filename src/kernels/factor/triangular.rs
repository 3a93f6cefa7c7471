//! Triangular solves `T x = b` in place for a row-major `b` with many columns, blocked
//! left-looking: each block of `BLOCK` rows first loses the product of the rows already
//! solved (one GEMM), then is solved with plain loops against its diagonal block.

use super::{product, sub_product, vector, view, Real, BLOCK};
use crate::kernels::parallel::{for_each_item, Disjoint};

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

/// Columns of `b` that one parallel task solves in a block.
const CHUNK_COLUMNS: usize = 256;

/// Solves rows `rows` of `b` against the diagonal block of `t` on those rows. The
/// columns are independent, so chunks of them run in parallel, each entry with the
/// same operations whatever the chunk.
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
    let r0 = rows.start;
    let block = Disjoint::new(&mut b[r0 * k..rows.end * k]);
    for_each_item(
        k.div_ceil(CHUNK_COLUMNS),
        || (),
        |_, chunk| {
            let cols = chunk * CHUNK_COLUMNS..((chunk + 1) * CHUNK_COLUMNS).min(k);
            let segment = |r: usize| (r - r0) * k + cols.start;
            for &r in &order {
                // SAFETY: this task alone touches columns `cols` of the block, and each
                // segment taken while `row` lives is of another row.
                let row = unsafe { block.part(segment(r), cols.len()) };
                let earlier = if tri.lower { r0..r } else { r + 1..rows.end };
                for c in earlier {
                    // SAFETY: as above (c ≠ r).
                    let other = unsafe { block.part(segment(c), cols.len()) };
                    vector::sub_scaled(row, t[r * n + c], other);
                }
                if !tri.unit {
                    let d = t[r * n + r];
                    for x in row.iter_mut() {
                        *x /= d;
                    }
                }
            }
        },
    );
}

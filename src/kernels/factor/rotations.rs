//! The rows of a matrix of vectors under the plane rotations an iterative
//! diagonalization makes (implicit QL, bidiagonal QR), applied in batches.
//!
//! Why batched: rotating two whole rows the moment each rotation is found streams the
//! whole matrix through the cache once per sweep, thousands of times for a large
//! matrix, on one thread. A rotation only mixes entries of the same column, so the
//! columns are independent: the pending rotations are applied strip by strip (a few
//! columns at a time, which stay in cache for the whole batch), the strips in
//! parallel. Each entry still sees the same rotations in the same order with the same
//! arithmetic, so the bits do not depend on the batch, the strip width or the threads.

use super::Real;
use crate::kernels::isa::Isa;
use crate::kernels::parallel::{for_each_item, Disjoint};
use crate::kernels::twin::twin;

/// Rotations kept before they are applied: about 1.5 MB of them for f64.
const PENDING: usize = 1 << 16;

/// Columns of one strip. Consecutive rotations share a row, so each waits for the
/// last: a strip must be wide enough that the vector steps of one rotation hide that
/// wait (32 columns measured 1.7× slower than whole rows), and narrow enough to leave
/// strips for the threads.
const STRIP: usize = 128;

/// Rows `first` and `second` become `c·a + s·b` and `c·b - s·a`.
#[derive(Clone, Copy)]
struct Rotation<T> {
    first: usize,
    second: usize,
    c: T,
    s: T,
}

/// An `n × n` row-major matrix, the identity at first, whose rows are rotated.
pub struct RotatedRows<T> {
    n: usize,
    rows: Vec<T>,
    pending: Vec<Rotation<T>>,
}

impl<T: Real> RotatedRows<T> {
    pub fn identity(n: usize) -> RotatedRows<T> {
        RotatedRows {
            n,
            rows: super::identity(n),
            pending: Vec::new(),
        }
    }

    /// Rows `first` and `second` (distinct) become `c·a + s·b` and `c·b - s·a`.
    pub fn rotate(&mut self, (first, second): (usize, usize), (c, s): (T, T)) {
        self.pending.push(Rotation {
            first,
            second,
            c,
            s,
        });
        if self.pending.len() == PENDING {
            self.apply_pending();
        }
    }

    /// The matrix after every rotation, row-major.
    pub fn finish(mut self) -> Vec<T> {
        self.apply_pending();
        self.rows
    }

    fn apply_pending(&mut self) {
        let n = self.n;
        if self.pending.is_empty() || n == 0 {
            return;
        }
        let width = STRIP.min(n);
        let strips = n.div_ceil(width);
        let (isa, pending) = (Isa::detect(), &self.pending);
        let rows = Disjoint::new(&mut self.rows);
        for_each_item(strips, Vec::new, |strip: &mut Vec<T>, k| {
            let (c0, c1) = (k * width, ((k + 1) * width).min(n));
            let w = c1 - c0;
            strip.clear();
            for r in 0..n {
                // SAFETY: strip k alone touches columns c0..c1, and each row part
                // lives only for this statement.
                strip.extend_from_slice(unsafe { rows.part(r * n + c0, w) });
            }
            apply_on(isa, strip, w, pending);
            for (r, values) in strip.chunks_exact(w).enumerate() {
                // SAFETY: as above.
                unsafe { rows.part(r * n + c0, w) }.copy_from_slice(values);
            }
        });
        self.pending.clear();
    }
}

/// Columns rotated together in registers: four AVX-512 vectors of f64 a row.
const HELD: usize = 32;

twin! {
    fn apply_on[T: Real](strip: &mut [T], width: usize, rotations: &[Rotation<T>]) {
        let whole = width / HELD * HELD;
        for c0 in (0..whole).step_by(HELD) {
            apply_held::<T, HELD>(strip, width, c0, rotations);
        }
        if whole < width {
            apply_columns(strip, width, whole..width, rotations);
        }
    }
}

/// The rotations on columns `c0..c0 + B` of the strip, holding in registers the row
/// the next rotation shares with this one (consecutive rotations of a sweep share a
/// row), so that most rotations load one row and store one instead of two and two.
#[inline(always)]
fn apply_held<T: Real, const B: usize>(
    strip: &mut [T],
    width: usize,
    c0: usize,
    rotations: &[Rotation<T>],
) {
    let at = |row: usize| row * width + c0;
    let mut held: Option<(usize, [T; B])> = None;
    for (k, r) in rotations.iter().enumerate() {
        let take = |row: usize, strip: &[T]| match held {
            Some((h, values)) if h == row => values,
            _ => {
                let mut values = [T::ZERO; B];
                values.copy_from_slice(&strip[at(row)..at(row) + B]);
                values
            }
        };
        let (mut a, mut b) = (take(r.first, strip), take(r.second, strip));
        if let Some((h, values)) = held {
            if h != r.first && h != r.second {
                strip[at(h)..at(h) + B].copy_from_slice(&values);
            }
        }
        for (x, y) in a.iter_mut().zip(b.iter_mut()) {
            let (p, q) = (*x, *y);
            *x = r.c * p + r.s * q;
            *y = r.c * q - r.s * p;
        }
        let shares = |row: usize| {
            rotations
                .get(k + 1)
                .is_some_and(|next| next.first == row || next.second == row)
        };
        held = if shares(r.first) {
            strip[at(r.second)..at(r.second) + B].copy_from_slice(&b);
            Some((r.first, a))
        } else {
            strip[at(r.first)..at(r.first) + B].copy_from_slice(&a);
            if shares(r.second) {
                Some((r.second, b))
            } else {
                strip[at(r.second)..at(r.second) + B].copy_from_slice(&b);
                None
            }
        };
    }
    if let Some((h, values)) = held {
        strip[at(h)..at(h) + B].copy_from_slice(&values);
    }
}

/// The rotations on columns `cols` of the strip, one whole rotation at a time.
#[inline(always)]
fn apply_columns<T: Real>(
    strip: &mut [T],
    width: usize,
    cols: std::ops::Range<usize>,
    rotations: &[Rotation<T>],
) {
    for r in rotations {
        let (lo, hi) = (r.first.min(r.second), r.first.max(r.second));
        let (top, bottom) = strip.split_at_mut(hi * width);
        let x = &mut top[lo * width + cols.start..lo * width + cols.end];
        let y = &mut bottom[cols.clone()];
        let (a, b) = if r.first < r.second { (x, y) } else { (y, x) };
        for (a, b) in a.iter_mut().zip(b.iter_mut()) {
            let (p, q) = (*a, *b);
            *a = r.c * p + r.s * q;
            *b = r.c * q - r.s * p;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::parallel::with_threads;

    /// Rotations at various angles: of pseudo-random pairs of distinct rows, then
    /// chains as the sweeps make them (adjacent pairs, descending then ascending).
    fn rotations(n: usize, count: usize) -> Vec<Rotation<f64>> {
        let random = (0..count).map(|i| {
            let first = (i * 7919 + 3) % n;
            (first, (first + 1 + (i * 104_729) % (n - 1)) % n)
        });
        let down = (0..n - 1).rev().map(|i| (i, i + 1));
        let up = (0..n - 1).map(|i| (i + 1, i));
        random
            .chain(down)
            .chain(up)
            .enumerate()
            .map(|(i, (first, second))| {
                let angle = i as f64 * 0.37;
                let (s, c) = angle.sin_cos();
                Rotation {
                    first,
                    second,
                    c,
                    s,
                }
            })
            .collect()
    }

    /// Applied one at a time to whole rows: what the batches must reproduce.
    fn one_by_one(n: usize, rots: &[Rotation<f64>]) -> Vec<u64> {
        let mut m = crate::kernels::factor::identity::<f64>(n);
        for r in rots {
            for j in 0..n {
                let (p, q) = (m[r.first * n + j], m[r.second * n + j]);
                m[r.first * n + j] = r.c * p + r.s * q;
                m[r.second * n + j] = r.c * q - r.s * p;
            }
        }
        m.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn batches_give_the_bits_of_one_rotation_at_a_time_on_every_isa_and_thread_count() {
        for n in [2, 3, 9, 70, 300] {
            let rots = rotations(n, 500);
            let want = one_by_one(n, &rots);
            for threads in [1, 2, 3] {
                let got = with_threads(threads, || {
                    let mut m = RotatedRows::identity(n);
                    for r in &rots {
                        m.rotate((r.first, r.second), (r.c, r.s));
                    }
                    m.finish()
                });
                let got: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "n {n}, {threads} threads");
            }
            for isa in Isa::supported() {
                let mut strip = crate::kernels::factor::identity::<f64>(n);
                apply_on(isa, &mut strip, n, &rots);
                let got: Vec<u64> = strip.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "n {n}, {}", isa.name());
            }
        }
    }
}

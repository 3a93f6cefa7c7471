//! Singular values and vectors of an upper bidiagonal matrix by implicit-shift QR
//! (Golub and Kahan, 1965; Golub and Reinsch, 1970; as in Golub and Van Loan,
//! "Matrix Computations", algorithms 8.6.1 and 8.6.2): chase a bulge down each
//! unreduced block with Givens rotations, shifted by the trailing 2 × 2 block of
//! `BᵀB`; split where a superdiagonal becomes negligible; rotate a zero diagonal
//! entry's row or column out first.

use super::householder::scaled_norm;
use super::rotations::RotatedRows;
use super::Real;

/// The QR sweeps one matrix may take in all: 6 n², as LAPACK's `bdsqr` allows.
const SWEEPS_PER_SQUARE: usize = 6;

/// The rows `U` and `V` rotations apply to: row `k` of `ut` is column `k` of `U`
/// (left vectors), row `k` of `vt` column `k` of `V`, both `n × n`.
pub struct Vectors<'a, T> {
    pub ut: &'a mut RotatedRows<T>,
    pub vt: &'a mut RotatedRows<T>,
}

/// Diagonalizes `B` (diagonal `d`, `n` values; superdiagonal `f`, `n - 1`): afterwards
/// `d` holds the singular values, unsorted and possibly negative, and each rotation
/// of `B`'s rows (columns) has been applied to the rows of `ut` (`vt`). `None` when
/// the sweeps do not converge.
pub fn diagonalize<T: Real>(
    d: &mut [T],
    f: &mut [T],
    mut vectors: Option<Vectors<'_, T>>,
) -> Option<()> {
    let n = d.len();
    let norm = d
        .iter()
        .chain(f.iter())
        .fold(T::ZERO, |m, x| if x.abs() > m { x.abs() } else { m });
    let tiny = T::EPSILON * norm;
    let mut budget = SWEEPS_PER_SQUARE * n * n;
    let mut hi = n;
    while hi > 1 {
        let negligible =
            |f: &[T], d: &[T], i: usize| f[i].abs() <= T::EPSILON * (d[i].abs() + d[i + 1].abs());
        if negligible(f, d, hi - 2) {
            f[hi - 2] = T::ZERO;
            hi -= 1;
            continue;
        }
        // The unreduced block lo..hi: every superdiagonal in it is non-negligible.
        let mut lo = hi - 2;
        while lo > 0 && !negligible(f, d, lo - 1) {
            lo -= 1;
        }
        if lo > 0 {
            f[lo - 1] = T::ZERO;
        }
        budget = budget.checked_sub(1)?;
        if let Some(k) = (lo..hi).find(|&k| d[k].abs() <= tiny) {
            d[k] = T::ZERO;
            if k + 1 < hi {
                clear_row(d, f, k, hi, vectors.as_mut().map(|v| &mut *v.ut));
            } else {
                clear_column(d, f, lo, hi, vectors.as_mut().map(|v| &mut *v.vt));
            }
            continue;
        }
        sweep(d, f, lo..hi, vectors.as_mut());
    }
    Some(())
}

/// `(c, s, r)` with `c·y + s·z = r` and `-s·y + c·z = 0`.
fn givens<T: Real>(y: T, z: T) -> (T, T, T) {
    let r = scaled_norm([y, z].into_iter());
    if r == T::ZERO {
        (T::ONE, T::ZERO, T::ZERO)
    } else {
        (y / r, z / r, r)
    }
}

/// With `d[k]` zero (`k < hi - 1`), rotates row `k` against the rows below it until its
/// superdiagonal is zero, so the block splits at `k`.
fn clear_row<T: Real>(
    d: &mut [T],
    f: &mut [T],
    k: usize,
    hi: usize,
    mut ut: Option<&mut RotatedRows<T>>,
) {
    let mut bulge = f[k];
    f[k] = T::ZERO;
    for j in k + 1..hi {
        let (c, s, r) = givens(d[j], bulge);
        d[j] = r;
        if j + 1 < hi {
            bulge = -s * f[j];
            f[j] = c * f[j];
        }
        if let Some(ut) = ut.as_deref_mut() {
            ut.rotate((j, k), (c, s));
        }
    }
}

/// With the last diagonal `d[hi - 1]` zero, rotates column `hi - 1` against the columns
/// left of it until its superdiagonal is zero, so the block splits there.
fn clear_column<T: Real>(
    d: &mut [T],
    f: &mut [T],
    lo: usize,
    hi: usize,
    mut vt: Option<&mut RotatedRows<T>>,
) {
    let last = hi - 1;
    let mut bulge = f[last - 1];
    f[last - 1] = T::ZERO;
    for j in (lo..last).rev() {
        let (c, s, r) = givens(d[j], bulge);
        d[j] = r;
        if j > lo {
            bulge = -s * f[j - 1];
            f[j - 1] = c * f[j - 1];
        }
        if let Some(vt) = vt.as_deref_mut() {
            vt.rotate((j, last), (c, s));
        }
    }
}

/// One implicit-shift QR sweep over the unreduced block `block` (at least 2 × 2, no
/// zero on its diagonal).
fn sweep<T: Real>(
    d: &mut [T],
    f: &mut [T],
    block: std::ops::Range<usize>,
    mut vectors: Option<&mut Vectors<'_, T>>,
) {
    let (lo, hi) = (block.start, block.end);
    let (mut y, mut z) = shifted_start(d, f, lo, hi);
    for k in lo..hi - 1 {
        // Columns k and k + 1: zero z against y.
        let (c, s, r) = givens(y, z);
        if k > lo {
            f[k - 1] = r;
        }
        let (dk, fk, dk1) = (d[k], f[k], d[k + 1]);
        d[k] = c * dk + s * fk;
        f[k] = -s * dk + c * fk;
        let bulge = s * dk1;
        d[k + 1] = c * dk1;
        if let Some(v) = vectors.as_deref_mut() {
            v.vt.rotate((k, k + 1), (c, s));
        }
        // Rows k and k + 1: zero the bulge below the diagonal.
        let (c, s, r) = givens(d[k], bulge);
        d[k] = r;
        let (fk, dk1) = (f[k], d[k + 1]);
        f[k] = c * fk + s * dk1;
        d[k + 1] = -s * fk + c * dk1;
        if k + 2 < hi {
            y = f[k];
            z = s * f[k + 1];
            f[k + 1] = c * f[k + 1];
        }
        if let Some(v) = vectors.as_deref_mut() {
            v.ut.rotate((k, k + 1), (c, s));
        }
    }
}

/// The first column of `BᵀB - μI` on the block's first two rows, `μ` the eigenvalue of
/// the block's trailing 2 × 2 of `BᵀB` nearer its last entry (Wilkinson's shift), all
/// on values divided by the block's largest so that no square overflows.
fn shifted_start<T: Real>(d: &[T], f: &[T], lo: usize, hi: usize) -> (T, T) {
    let big = d[lo..hi]
        .iter()
        .chain(&f[lo..hi - 1])
        .fold(T::ZERO, |m, x| if x.abs() > m { x.abs() } else { m });
    let at = |x: T| x / big;
    let (dm, dn, fm) = (at(d[hi - 2]), at(d[hi - 1]), at(f[hi - 2]));
    let fp = if hi - 2 > lo { at(f[hi - 3]) } else { T::ZERO };
    let (t11, t22, t12) = (dm * dm + fp * fp, dn * dn + fm * fm, dm * fm);
    let two = T::ONE + T::ONE;
    let delta = (t11 - t22) / two;
    let root = scaled_norm([delta, t12].into_iter());
    let denom = if delta >= T::ZERO {
        delta + root
    } else {
        delta - root
    };
    let mu = if denom == T::ZERO {
        t22
    } else {
        t22 - t12 * t12 / denom
    };
    let d0 = at(d[lo]);
    (d0 * d0 - mu, d0 * at(f[lo]))
}

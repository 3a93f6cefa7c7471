//! The singular value decomposition (`numpy.linalg.svd`): reduction to bidiagonal
//! form, implicit-shift QR on the bidiagonal matrix, and the vectors carried back by
//! the reduction's reflectors; singular values descending and non-negative. A wide
//! matrix is decomposed through its transpose.

use super::bidiagonal::reduce;
use super::bidiagonal_svd::{diagonalize, Vectors};
use super::rotations::RotatedRows;
use super::Real;
use crate::kernels::transpose::transpose;

/// `a = u diag(s) vh` for the `m × n` row-major `a`: `u` is `m × m` with `full`, else
/// `m × k` (k = min(m, n)); `vh` is `n × n` with `full`, else `k × n`.
pub struct Svd<T> {
    pub u: Vec<T>,
    pub s: Vec<T>,
    pub vh: Vec<T>,
}

/// The singular values of the `m × n` row-major `a`, descending; `None` when the
/// iterations do not converge.
pub fn singular_values<T: Real>(a: &[T], m: usize, n: usize) -> Option<Vec<T>> {
    let (a, (m, n)) = tall(a, m, n);
    let b = reduce(&a, m, n);
    let (mut d, mut f) = (b.diag, b.off);
    diagonalize(&mut d, &mut f, None)?;
    let mut s: Vec<T> = d.iter().map(|x| x.abs()).collect();
    s.sort_by(|x, y| y.partial_cmp(x).unwrap_or(std::cmp::Ordering::Equal));
    Some(s)
}

/// The decomposition of the `m × n` row-major `a`; `None` when the iterations do not
/// converge.
pub fn decompose<T: Real>(a: &[T], m: usize, n: usize, full: bool) -> Option<Svd<T>> {
    if m >= n {
        let (u, s, v) = decompose_tall(a, m, n, full)?;
        return Some(Svd {
            u,
            s,
            vh: transpose(&v, n, n),
        });
    }
    // aᵀ = u' s v'ᵀ, so a = v' s u'ᵀ.
    let (a_t, _) = tall(a, m, n);
    let (u_t, s, v_t) = decompose_tall(&a_t, n, m, full)?;
    let cols = if full { n } else { m };
    Some(Svd {
        u: v_t,
        s,
        vh: transpose(&u_t, n, cols),
    })
}

/// `a` when it has at least as many rows as columns, else its transpose, with the
/// shape of what is returned.
fn tall<T: Real>(a: &[T], m: usize, n: usize) -> (Vec<T>, (usize, usize)) {
    if m >= n {
        (a.to_vec(), (m, n))
    } else {
        (transpose(a, m, n), (n, m))
    }
}

/// `(u, s, v)` for `m ≥ n`: `u` `m × m` (`full`) or `m × n`, `s` descending, `v`
/// `n × n` (columns the right vectors).
fn decompose_tall<T: Real>(
    a: &[T],
    m: usize,
    n: usize,
    full: bool,
) -> Option<(Vec<T>, Vec<T>, Vec<T>)> {
    let b = reduce(a, m, n);
    let (mut d, mut f) = (b.diag.clone(), b.off.clone());
    let (mut ut, mut vt) = (RotatedRows::identity(n), RotatedRows::identity(n));
    diagonalize(
        &mut d,
        &mut f,
        Some(Vectors {
            ut: &mut ut,
            vt: &mut vt,
        }),
    )?;
    let (ut, mut vt) = (ut.finish(), vt.finish());
    // Non-negative values (a negative one flips its right vector), then descending.
    for (k, x) in d.iter_mut().enumerate() {
        if *x < T::ZERO {
            *x = -*x;
            for y in &mut vt[k * n..(k + 1) * n] {
                *y = -*y;
            }
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| d[j].partial_cmp(&d[i]).unwrap_or(std::cmp::Ordering::Equal));
    // u = U_B · diag(P, I) and v = V_B · Q, P's and Q's columns the sorted rows of ut, vt.
    let cols = if full { m } else { n };
    let mut u = vec![T::ZERO; m * cols];
    let mut v = vec![T::ZERO; n * n];
    for (k, &from) in order.iter().enumerate() {
        for i in 0..n {
            u[i * cols + k] = ut[from * n + i];
            v[i * n + k] = vt[from * n + i];
        }
    }
    for i in n..cols {
        u[i * cols + i] = T::ONE;
    }
    b.apply_u(&mut u, cols);
    b.apply_v(&mut v, n);
    Some((u, order.iter().map(|&k| d[k]).collect(), v))
}

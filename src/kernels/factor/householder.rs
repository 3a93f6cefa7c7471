//! Householder QR (LAPACK's `geqrf` / `orgqr` with its sign convention): `a = Q R` for a
//! row-major `m × n` matrix, blocked. Each panel of `BLOCK` columns is reduced with
//! vector steps down its columns; its reflectors `H = I - τ v vᵀ` are then gathered
//! into one block reflector `I - V T Vᵀ` (LAPACK's `larft`) and applied to the columns
//! right of the panel by three GEMMs.

use super::{product, store_panel, sub_product, transposed_panel, vector, view, Real, BLOCK};
use crate::kernels::math::arith::is_nan;
use std::ops::Range;

/// Reduces the `m × n` row-major `a` in place: afterwards its upper triangle is `R` and
/// below the diagonal lie the reflectors' vectors (their leading 1 implied). Returns
/// the reflectors' `τ`, `min(m, n)` of them.
pub fn factor<T: Real>(a: &mut [T], m: usize, n: usize) -> Vec<T> {
    let k = m.min(n);
    let mut taus = Vec::with_capacity(k);
    for j0 in (0..k).step_by(BLOCK) {
        let j1 = (j0 + BLOCK).min(k);
        taus.extend(factor_panel(&mut a[j0 * n..], (m - j0, n), j0..j1));
        if j1 < n {
            // The columns right of the panel become (I - V Tᵀ Vᵀ) C.
            let block = block_reflector(a, (m, n), j0..j1, &taus[j0..j1]);
            apply_block(&block, true, (a, n), (j0..m, j1..n));
        }
    }
    taus
}

/// The first `rows` rows of `R` (row-major, `rows × n`, zeros below the diagonal).
pub fn r_factor<T: Real>(a: &[T], (m, n): (usize, usize), rows: usize) -> Vec<T> {
    let mut r = vec![T::ZERO; rows * n];
    for i in 0..rows.min(m) {
        let from = i.min(n);
        r[i * n + from..(i + 1) * n].copy_from_slice(&a[i * n + from..(i + 1) * n]);
    }
    r
}

/// The first `cols` columns of `Q = H₀ H₁ ⋯` (row-major `m × cols`), from `factor`'s
/// output and `τ`s.
pub fn q_factor<T: Real>(a: &[T], (m, n): (usize, usize), taus: &[T], cols: usize) -> Vec<T> {
    let mut q = vec![T::ZERO; m * cols];
    for i in 0..m.min(cols) {
        q[i * cols + i] = T::ONE;
    }
    apply_blocks(a, (m, n), taus, (&mut q, cols), true);
    q
}

/// Overwrites the `m × cols` row-major `c` with `Q c`, `Q = H₀ H₁ ⋯` from `factor`'s
/// output (or any matrix holding reflectors the same way) and `τ`s.
pub fn apply_q<T: Real>(a: &[T], (m, n): (usize, usize), taus: &[T], c: &mut [T], cols: usize) {
    apply_blocks(a, (m, n), taus, (c, cols), false);
}

/// `apply_q` by block reflectors, last to first. When `c` started as the identity,
/// the block at `j0` leaves columns left of `j0` alone: they are zero on its rows.
fn apply_blocks<T: Real>(
    a: &[T],
    (m, n): (usize, usize),
    taus: &[T],
    (c, cols): (&mut [T], usize),
    from_identity: bool,
) {
    let starts: Vec<usize> = (0..taus.len()).step_by(BLOCK).collect();
    for &j0 in starts.iter().rev() {
        let j1 = (j0 + BLOCK).min(taus.len());
        let c0 = if from_identity { j0 } else { 0 };
        if c0 >= cols {
            continue;
        }
        // Rows j0.. of c become (I - V T Vᵀ) C.
        let block = block_reflector(a, (m, n), j0..j1, &taus[j0..j1]);
        apply_block(&block, false, (c, cols), (j0..m, c0..cols));
    }
}

/// `C ← (I - V T Vᵀ) C` (or with `Tᵀ` when `transposed`) for the block `C` of rows
/// `rows` and columns `cols` of the row-major `c` with `ld` columns, `(V, T)` a
/// `block_reflector` whose vectors start at row `rows.start`: three GEMMs.
fn apply_block<T: Real>(
    (v, t): &(Vec<T>, Vec<T>),
    transposed: bool,
    (c, ld): (&mut [T], usize),
    (rows, cols): (std::ops::Range<usize>, std::ops::Range<usize>),
) {
    // T is jb × jb, for jb reflectors.
    let (jb, height, width) = (t.len().isqrt(), rows.len(), cols.len());
    let r0 = rows.start;
    let c0 = cols.start;
    let t = view(t, jb, 0..jb, 0..jb);
    let w = product(view(v, jb, 0..height, 0..jb).t(), view(c, ld, rows, cols));
    let tw = product(
        if transposed { t.t() } else { t },
        view(&w, width, 0..jb, 0..width),
    );
    let update = product(
        view(v, jb, 0..height, 0..jb),
        view(&tw, width, 0..jb, 0..width),
    );
    sub_product(&mut c[r0 * ld + c0..], ld, &update, width);
}

/// Turns column `j` (rows `j..m`) of the `m × n` row-major `a` into `β e₀` by a reflector `I - τ v vᵀ` with
/// `v₀ = 1` (LAPACK's `larfg`): stores `β` on the diagonal and `v` below it, and
/// returns `τ` (0 when the column below the diagonal is already zero).
pub fn reflect_column<T: Real>(a: &mut [T], (m, n): (usize, usize), j: usize) -> T {
    let mut x: Vec<T> = (j..m).map(|i| a[i * n + j]).collect();
    let tau = reflect(&mut x);
    for (i, v) in (j..m).zip(x) {
        a[i * n + j] = v;
    }
    tau
}

/// The reflector of row `j` of the `n`-column row-major `s`, right of the diagonal
/// (`reflect` on `s[j][j+1..]`, which must not be empty): returns `β`, `τ` and `v`
/// (with `v₀ = 1`), and stores `v₁, v₂, …` below the diagonal of column `j` of the
/// `(n-1) × (n-1)` `store`, where `apply_q` finds reflectors.
pub fn reflect_row_tail<T: Real>(s: &[T], n: usize, j: usize, store: &mut [T]) -> (T, T, Vec<T>) {
    let w = n - 1;
    let mut v = s[j * n + j + 1..(j + 1) * n].to_vec();
    let tau = reflect(&mut v);
    let beta = v[0];
    for (r, x) in v.iter().enumerate().skip(1) {
        store[(j + r) * w + j] = *x;
    }
    v[0] = T::ONE;
    (beta, tau, v)
}

/// LAPACK's `larfg` on `x`: finds `τ` and `v` (`v₀ = 1`) with
/// `(I - τ v vᵀ) x = β e₀`, and overwrites `x` with `β` followed by `v₁, v₂, …`.
/// `τ` is 0 (no reflection) when `x` is already zero after its first element.
pub fn reflect<T: Real>(x: &mut [T]) -> T {
    let Some((&alpha, rest)) = x.split_first() else {
        return T::ZERO;
    };
    let below = scaled_norm(rest.iter().copied());
    if below == T::ZERO {
        return T::ZERO;
    }
    let norm = scaled_norm([alpha, below].into_iter());
    let beta = if alpha >= T::ZERO { -norm } else { norm };
    let tau = (beta - alpha) / beta;
    let scale = alpha - beta;
    for v in &mut x[1..] {
        *v /= scale;
    }
    x[0] = beta;
    tau
}

/// The 2-norm of `xs`, computed on the values divided by the largest magnitude so that
/// squaring neither overflows nor underflows. NaN when a value is NaN.
pub fn scaled_norm<T: Real>(xs: impl Iterator<Item = T> + Clone) -> T {
    let mut big = T::ZERO;
    for x in xs.clone() {
        let x = x.abs();
        if x > big || is_nan(x) {
            big = x;
        }
    }
    if big == T::ZERO || is_nan(big) {
        return big;
    }
    let mut sum = T::ZERO;
    for x in xs {
        let s = x / big;
        sum += s * s;
    }
    big * sum.sqrt()
}

/// Reduces columns `cols` of the `rows × n` row-major `a`, whose first row is row
/// `cols.start` of the panel (the diagonal starts at its column `cols.start`), one
/// reflector a column, each applied to the panel's later columns; returns the `τ`s.
/// The panel is worked transposed, so each step is a dot product and a vector update
/// down a whole column.
fn factor_panel<T: Real>(a: &mut [T], (rows, n): (usize, usize), cols: Range<usize>) -> Vec<T> {
    let jb = cols.len();
    let mut panel = transposed_panel(a, n, cols.clone(), rows);
    let mut taus = Vec::with_capacity(jb);
    for j in 0..jb {
        let (done, later) = panel.split_at_mut((j + 1) * rows);
        let column = &mut done[j * rows + j..];
        let tau = reflect(column);
        let v = &column[1..];
        if tau != T::ZERO {
            // Column k loses v (τ vᵀc), v₀ = 1.
            for c in later.chunks_exact_mut(rows) {
                let (head, tail) = c[j..].split_at_mut(1);
                let w = tau * (head[0] + vector::dot(v, tail));
                head[0] -= w;
                vector::sub_scaled(tail, w, v);
            }
        }
        taus.push(tau);
    }
    store_panel(a, n, cols, &panel, rows);
    taus
}

/// The block reflector of columns `cols`: `V` (rows `cols.start..m`, row-major, unit
/// diagonal, zeros above) and the upper-triangular `T` with
/// `H_{j0} ⋯ H_{j1-1} = I - V T Vᵀ` (LAPACK's `larft`, forward, columnwise).
fn block_reflector<T: Real>(
    a: &[T],
    (m, n): (usize, usize),
    cols: std::ops::Range<usize>,
    taus: &[T],
) -> (Vec<T>, Vec<T>) {
    let (j0, jb) = (cols.start, cols.len());
    let rows = m - j0;
    let mut v = vec![T::ZERO; rows * jb];
    for r in 0..rows {
        for c in 0..jb.min(r + 1) {
            v[r * jb + c] = if r == c {
                T::ONE
            } else {
                a[(j0 + r) * n + j0 + c]
            };
        }
    }
    // Column i of T is -τᵢ T[..i, ..i] (V[:, ..i]ᵀ vᵢ); the products VᵀV in one GEMM.
    let gram = product(
        view(&v, jb, 0..rows, 0..jb).t(),
        view(&v, jb, 0..rows, 0..jb),
    );
    let mut t = vec![T::ZERO; jb * jb];
    for i in 0..jb {
        for r in 0..i {
            let mut s = T::ZERO;
            for c in r..i {
                s += t[r * jb + c] * gram[c * jb + i];
            }
            t[r * jb + i] = -taus[i] * s;
        }
        t[i * jb + i] = taus[i];
    }
    (v, t)
}

//! The factorizations against their definitions, on sizes below, at and across
//! `BLOCK` (so the blocked updates run), in f64 and f32.

use super::cholesky;
use super::householder;
use super::lu;
use super::svd;
use super::symmetric_eigen;
use super::triangular::{self, Triangle};
use crate::kernels::parallel::with_threads;
use crate::kernels::transpose::transpose;

/// A reproducible matrix of values in [-1, 1).
fn random(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..rows * cols)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

/// The row-major product of `a` (m × k) and `b` (k × n), summed naively.
fn mul(a: &[f64], b: &[f64], (m, k, n): (usize, usize, usize)) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            for j in 0..n {
                out[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    out
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{what}: element {i} is {g}, want {w}");
    }
}

const SIZES: [usize; 9] = [0, 1, 2, 5, 63, 64, 65, 130, 200];

/// Tall, wide and square shapes, empty ones included, below, at and across `BLOCK`.
const RECTANGLES: [(usize, usize); 12] = [
    (0, 0),
    (1, 1),
    (3, 0),
    (0, 3),
    (5, 3),
    (3, 5),
    (64, 64),
    (70, 70),
    (150, 65),
    (65, 150),
    (130, 129),
    (200, 3),
];

#[test]
fn lu_reproduces_the_permuted_matrix() {
    for n in SIZES {
        let a = random(n, n, n as u64);
        let mut f = a.clone();
        let pivots = lu::factor(&mut f, n);
        let mut l = vec![0.0; n * n];
        let mut u = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                match i.cmp(&j) {
                    std::cmp::Ordering::Greater => l[i * n + j] = f[i * n + j],
                    std::cmp::Ordering::Equal => {
                        l[i * n + j] = 1.0;
                        u[i * n + j] = f[i * n + j];
                    }
                    std::cmp::Ordering::Less => u[i * n + j] = f[i * n + j],
                }
            }
        }
        // Partial pivoting keeps every multiplier within 1.
        assert!(l.iter().all(|x| x.abs() <= 1.0), "n = {n}");
        let mut pa = a.clone();
        pivots.apply(&mut pa, n);
        assert_close(
            &mul(&l, &u, (n, n, n)),
            &pa,
            1e-12 * (n as f64 + 1.0),
            &format!("LU, n = {n}"),
        );
    }
}

#[test]
fn lu_of_a_singular_matrix_keeps_the_zero_pivot() {
    let a = [1.0, 2.0, 2.0, 4.0];
    let mut f = a;
    let pivots = lu::factor(&mut f, 2);
    assert_eq!(pivots.swaps, [1, 1]);
    assert_eq!(f[3], 0.0);
    assert_eq!(pivots.sign::<f64>(), -1.0);
}

#[test]
fn triangular_solves_satisfy_their_system() {
    for n in SIZES {
        // 600 columns solve in three parallel chunks.
        for k in [1, 3, 70, 600] {
            for (lower, unit) in [(true, true), (true, false), (false, true), (false, false)] {
                // Off-diagonal entries small enough to keep the system well conditioned.
                let scale = 1.0 / (n as f64 + 1.0);
                let mut t: Vec<f64> = random(n, n, 3 + n as u64)
                    .iter()
                    .map(|v| v * scale)
                    .collect();
                for i in 0..n {
                    t[i * n + i] = if unit { 1.0 } else { 1.5 + t[i * n + i] };
                    // The other triangle is never read: poison it.
                    for j in 0..n {
                        if (j > i) == lower && j != i {
                            t[i * n + j] = f64::NAN;
                        }
                    }
                }
                let b = random(n, k, 5);
                let mut x = b.clone();
                let tri = Triangle { lower, unit };
                triangular::solve(&t, n, tri, &mut x, k);
                let clean: Vec<f64> = t
                    .iter()
                    .map(|v| if v.is_nan() { 0.0 } else { *v })
                    .collect();
                let what = format!("n = {n}, k = {k}, lower = {lower}, unit = {unit}");
                assert_close(&mul(&clean, &x, (n, n, k)), &b, 1e-10, &what);
            }
        }
    }
}

#[test]
fn triangular_solves_give_the_same_bits_for_any_thread_count() {
    let (n, k) = (130, 600);
    let t: Vec<f64> = random(n, n, 9)
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if i % (n + 1) == 0 {
                2.0 + v
            } else {
                v / n as f64
            }
        })
        .collect();
    let b = random(n, k, 10);
    for lower in [true, false] {
        let tri = Triangle { lower, unit: false };
        let solve = || {
            let mut x = b.clone();
            triangular::solve(&t, n, tri, &mut x, k);
            x.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()
        };
        let one = with_threads(1, solve);
        assert_eq!(one, with_threads(2, solve), "lower = {lower}");
        assert_eq!(one, with_threads(3, solve), "lower = {lower}");
    }
}

#[test]
fn cholesky_reproduces_a_positive_definite_matrix() {
    for n in SIZES {
        let x = random(n, n, 11 + n as u64);
        let mut a = mul(&x, &transpose(&x, n, n), (n, n, n));
        for i in 0..n {
            a[i * n + i] += n as f64;
            // Only the lower triangle is read.
            for j in i + 1..n {
                a[i * n + j] = f64::NAN;
            }
        }
        let l = cholesky::factor(&a, n).expect("positive definite");
        for i in 0..n {
            assert!(l[i * n + i + 1..(i + 1) * n].iter().all(|v| *v == 0.0));
        }
        let llt = mul(&l, &transpose(&l, n, n), (n, n, n));
        for i in 0..n {
            for j in 0..=i {
                let (g, w) = (llt[i * n + j], a[i * n + j]);
                assert!(
                    (g - w).abs() <= 1e-12 * n as f64,
                    "n = {n} ({i}, {j}): {g} vs {w}"
                );
            }
        }
    }
    assert!(cholesky::factor(&[1.0, 0.0, 2.0, -1.0], 2).is_none());
    assert!(cholesky::factor(&[f64::NAN], 1).is_none());
    assert!(cholesky::factor(&[0.0], 1).is_none());
}

#[test]
fn qr_reproduces_the_matrix_with_orthonormal_q() {
    for (m, n) in RECTANGLES {
        let a = random(m, n, (m * 1000 + n) as u64);
        let mut f = a.clone();
        let taus = householder::factor(&mut f, m, n);
        let k = m.min(n);
        assert_eq!(taus.len(), k);
        for cols in [k, m] {
            let what = format!("{m} x {n}, q with {cols} columns");
            let q = householder::q_factor(&f, (m, n), &taus, cols);
            let r = householder::r_factor(&f, (m, n), cols);
            for i in 0..cols {
                assert!(
                    r[i * n..i * n + i.min(n)].iter().all(|v| *v == 0.0),
                    "{what}"
                );
            }
            assert_close(
                &mul(&q, &r, (m, cols, n)),
                &a,
                1e-12 * (m as f64 + 1.0),
                &what,
            );
            let qtq = mul(&transpose(&q, m, cols), &q, (cols, m, cols));
            let mut eye = vec![0.0; cols * cols];
            for i in 0..cols {
                eye[i * cols + i] = 1.0;
            }
            assert_close(&qtq, &eye, 1e-12 * (m as f64 + 1.0), &what);
        }
    }
}

#[test]
fn qr_follows_lapacks_signs() {
    // geqrf makes R's diagonal the negated sign of the column's leading entry.
    let a = [3.0f64, 1.0, 4.0, 1.0];
    let mut f = a;
    let taus = householder::factor(&mut f, 2, 2);
    assert!((f[0] + 5.0).abs() < 1e-15, "{f:?}");
    assert!(taus[0] > 0.0);
    // A column already zero below the diagonal is left alone (τ = 0).
    let mut g = [2.0, 1.0, 0.0, 3.0];
    let taus = householder::factor(&mut g, 2, 2);
    assert_eq!((taus[0], g[0]), (0.0, 2.0));
}

#[test]
fn f32_factorizations_run_on_the_f32_gemm() {
    let n = 130;
    let a: Vec<f32> = random(n, n, 99).iter().map(|&v| v as f32).collect();
    let mut f = a.clone();
    let pivots = lu::factor(&mut f, n);
    let mut x: Vec<f32> = random(n, 1, 7).iter().map(|&v| v as f32).collect();
    let b = x.clone();
    pivots.apply(&mut x, 1);
    triangular::solve(
        &f,
        n,
        Triangle {
            lower: true,
            unit: true,
        },
        &mut x,
        1,
    );
    triangular::solve(
        &f,
        n,
        Triangle {
            lower: false,
            unit: false,
        },
        &mut x,
        1,
    );
    let a64: Vec<f64> = a.iter().map(|&v| v as f64).collect();
    let x64: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let b64: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    assert_close(&mul(&a64, &x64, (n, n, 1)), &b64, 2e-3, "f32 solve");
}

/// A symmetric matrix with eigenvalues spread over [-n, n] and some repeated.
fn symmetric(n: usize, seed: u64) -> Vec<f64> {
    let x = random(n, n, seed);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = x[i * n + j] + x[j * n + i];
        }
    }
    a
}

#[test]
fn eigh_diagonalizes_symmetric_matrices() {
    for n in [0, 1, 2, 3, 5, 63, 64, 65, 66, 130, 200] {
        let a = symmetric(n, 40 + n as u64);
        let (w, v) = symmetric_eigen::eigen(&a, n).expect("converges");
        assert!(w.windows(2).all(|p| p[0] <= p[1]), "n = {n}: not ascending");
        let tol = 1e-11 * (n as f64 + 1.0);
        // a v = v diag(w), and vᵀ v = I.
        let av = mul(&a, &v, (n, n, n));
        let vw: Vec<f64> = (0..n * n).map(|i| v[i] * w[i % n]).collect();
        assert_close(&av, &vw, tol, &format!("eigh a v = v w, n = {n}"));
        let vtv = mul(&transpose(&v, n, n), &v, (n, n, n));
        let eye: Vec<f64> = (0..n * n)
            .map(|i| f64::from(u8::from(i / n == i % n)))
            .collect();
        assert_close(&vtv, &eye, tol, &format!("eigh vᵀv, n = {n}"));
        let values = symmetric_eigen::eigenvalues(&a, n).expect("converges");
        assert_close(&values, &w, tol, &format!("eigvalsh, n = {n}"));
    }
}

#[test]
fn eigh_of_matrices_with_repeated_and_zero_values() {
    // The identity, a zero matrix, and diag(2, 2, -1) rotated.
    let n = 70;
    let eye: Vec<f64> = (0..n * n)
        .map(|i| f64::from(u8::from(i / n == i % n)))
        .collect();
    let (w, v) = symmetric_eigen::eigen(&eye, n).expect("converges");
    assert!(w.iter().all(|&x| x == 1.0));
    assert_close(&v, &eye, 0.0, "eigenvectors of the identity");
    let (w, _) = symmetric_eigen::eigen(&vec![0.0; n * n], n).expect("converges");
    assert!(w.iter().all(|&x| x == 0.0));
    let q = [0.6, 0.8, 0.0, -0.8, 0.6, 0.0, 0.0, 0.0, 1.0];
    let d = [2.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, -1.0];
    let a = mul(&mul(&q, &d, (3, 3, 3)), &transpose(&q, 3, 3), (3, 3, 3));
    let w = symmetric_eigen::eigenvalues(&a, 3).expect("converges");
    assert_close(&w, &[-1.0, 2.0, 2.0], 1e-15, "repeated eigenvalues");
}

/// `u diag(s) vh` for `u` `m × k'` and `vh` `k' × n`, using the first `s.len()`
/// columns of `u` and rows of `vh`.
fn reconstruct(svd: &svd::Svd<f64>, (m, n): (usize, usize)) -> Vec<f64> {
    let k = svd.s.len();
    let ucols = svd.u.len() / m.max(1);
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                out[i * n + j] += svd.u[i * ucols + p] * svd.s[p] * svd.vh[p * n + j];
            }
        }
    }
    out
}

fn assert_orthonormal_rows(x: &[f64], rows: usize, cols: usize, tol: f64, what: &str) {
    let xxt = mul(x, &transpose(x, rows, cols), (rows, cols, rows));
    let eye: Vec<f64> = (0..rows * rows)
        .map(|i| f64::from(u8::from(i / rows == i % rows)))
        .collect();
    assert_close(&xxt, &eye, tol, what);
}

#[test]
fn svd_reproduces_the_matrix() {
    for (m, n) in RECTANGLES {
        let a = random(m, n, (m * 7 + n) as u64);
        let k = m.min(n);
        let tol = 1e-11 * (m.max(n) as f64 + 1.0);
        for full in [false, true] {
            let what = format!("svd {m} x {n}, full = {full}");
            let f = svd::decompose(&a, m, n, full).expect("converges");
            let (ucols, vrows) = if full { (m, n) } else { (k, k) };
            assert_eq!(
                (f.u.len(), f.s.len(), f.vh.len()),
                (m * ucols, k, vrows * n),
                "{what}"
            );
            assert!(
                f.s.windows(2).all(|p| p[0] >= p[1]) && f.s.iter().all(|&x| x >= 0.0),
                "{what}"
            );
            assert_close(&reconstruct(&f, (m, n)), &a, tol, &what);
            assert_orthonormal_rows(
                &transpose(&f.u, m, ucols),
                ucols,
                m,
                tol,
                &format!("{what}: u"),
            );
            assert_orthonormal_rows(&f.vh, vrows, n, tol, &format!("{what}: vh"));
            let s = svd::singular_values(&a, m, n).expect("converges");
            assert_close(&s, &f.s, tol, &format!("{what}: svdvals"));
        }
    }
}

#[test]
fn svd_of_rank_deficient_and_graded_matrices() {
    // Rank 1, a zero matrix, and singular values from 1 down to 1e-12.
    let (m, n) = (80, 70);
    let x = random(m, 1, 3);
    let y = random(1, n, 4);
    let rank1 = mul(&x, &y, (m, 1, n));
    let zero = vec![0.0; m * n];
    let q = svd::decompose(&random(m, n, 5), m, n, false).expect("converges");
    let graded: Vec<f64> = (0..m * n)
        .map(|i| {
            let (r, c) = (i / n, i % n);
            (0..n)
                .map(|p| q.u[r * n + p] * 10f64.powf(-12.0 * p as f64 / n as f64) * q.vh[p * n + c])
                .sum()
        })
        .collect();
    for (a, what) in [(rank1, "rank 1"), (zero, "zero"), (graded, "graded")] {
        let f = svd::decompose(&a, m, n, true).expect("converges");
        assert_close(&reconstruct(&f, (m, n)), &a, 1e-12, what);
        assert_orthonormal_rows(&transpose(&f.u, m, m), m, m, 1e-12, what);
        assert_orthonormal_rows(&f.vh, n, n, 1e-12, what);
    }
}

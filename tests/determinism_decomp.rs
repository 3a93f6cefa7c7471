//! Every linear-algebra function gives the same bits for 1, 2 and 3 threads: stacks
//! of matrices spread over threads, and single matrices large enough for the blocked
//! factorizations' GEMM updates to split over threads.

use tsr::ops::linalg as la;
use tsr::ops::linalg::NormOrd;
use tsr::tensor::{DType, Tensor};
mod common;

use common::{tensor, with_threads};

/// `x xᵀ + n I` for each matrix of `x`: symmetric positive definite.
fn spd(x: &Tensor) -> Tensor {
    let n = x.shape()[x.ndim() - 1];
    let xxt = la::matmul(x, &x.transpose(-1, -2).unwrap()).unwrap();
    let eye = tsr::ops::eye(n, n, 0, x.dtype()).unwrap();
    let scaled = tsr::ops::binary(
        tsr::ops::BinaryOp::Mul,
        tsr::ops::Operand::Tensor(&eye),
        tsr::ops::Operand::Tensor(&Tensor::scalar(n as f64).to_dtype(x.dtype())),
    )
    .unwrap();
    tsr::ops::binary(
        tsr::ops::BinaryOp::Add,
        tsr::ops::Operand::Tensor(&xxt),
        tsr::ops::Operand::Tensor(&scaled),
    )
    .unwrap()
}

fn bits(ts: &[Tensor]) -> Vec<u64> {
    ts.iter()
        .flat_map(|t| t.to_vec::<f64>().into_iter().map(f64::to_bits))
        .collect()
}

/// Runs `f` with 1, 2 and 3 threads and asserts the results are bitwise equal.
fn same_bits(what: &str, f: impl Fn() -> Vec<Tensor> + Send + Sync) {
    let one = bits(&with_threads(1, &f));
    for n in [2, 3] {
        assert!(bits(&with_threads(n, &f)) == one, "{what}: {n} threads");
    }
}

#[test]
fn linear_algebra_is_the_same_for_any_thread_count() {
    for dtype in [DType::F64, DType::F32] {
        for shape in [&[7, 24, 24][..], &[1, 130, 130]] {
            let a = tensor(shape, 1, dtype);
            let b = tensor(&[shape[0], shape[1], 3], 2, dtype);
            let s = spd(&a);
            let h = la::matmul(&a, &a.transpose(-1, -2).unwrap()).unwrap();
            let w = tensor(&[shape[0], shape[1], shape[1] / 2], 3, dtype);
            let what = |f: &str| format!("{f} {dtype:?} {shape:?}");
            same_bits(&what("solve"), || vec![la::solve(&a, &b).unwrap()]);
            same_bits(&what("solve_triangular"), || {
                vec![la::solve_triangular(&s, &b, true).unwrap()]
            });
            same_bits(&what("inv"), || vec![la::inv(&a).unwrap()]);
            same_bits(&what("det"), || vec![la::det(&a).unwrap()]);
            same_bits(&what("slogdet"), || {
                let (s, l) = la::slogdet(&a).unwrap();
                vec![s, l]
            });
            same_bits(&what("matrix_power"), || {
                vec![la::matrix_power(&a, -3).unwrap()]
            });
            same_bits(&what("cholesky"), || vec![la::cholesky(&s, false).unwrap()]);
            same_bits(&what("qr"), || la::qr(&w, "complete").unwrap());
            same_bits(&what("eigh"), || la::eigh(&h, true).unwrap());
            same_bits(&what("svd"), || la::svd(&w, true, true).unwrap());
            same_bits(&what("pinv"), || vec![la::pinv(&w, None).unwrap()]);
            same_bits(&what("matrix_rank"), || {
                vec![la::matrix_rank(&w, None).unwrap()]
            });
            for ord in [NormOrd::Nuc, NormOrd::P(2.0), NormOrd::P(1.0), NormOrd::Fro] {
                same_bits(&what(&format!("norm {ord:?}")), || {
                    vec![la::norm(&a, ord, Some(&[-2, -1]), false).unwrap()]
                });
            }
            same_bits(&what("einsum"), || {
                vec![la::einsum("bij,bkj,bkl->bil", &[a.clone(), a.clone(), w.clone()]).unwrap()]
            });
            same_bits(&what("tensordot"), || {
                vec![la::tensordot(&a, &w, &[0, 1], &[0, 1]).unwrap()]
            });
        }
        // One matrix large enough for the factorizations' GEMM updates to run in parallel.
        let big = tensor(&[520, 520], 9, dtype);
        let big_spd = spd(&big);
        let rhs = tensor(&[520, 2], 10, dtype);
        same_bits("large solve", || vec![la::solve(&big, &rhs).unwrap()]);
        same_bits("large cholesky", || {
            vec![la::cholesky(&big_spd, false).unwrap()]
        });
        same_bits("large qr", || la::qr(&big, "reduced").unwrap());
        same_bits("large eigh", || la::eigh(&big_spd, true).unwrap());
        same_bits("large svd", || la::svd(&big, false, true).unwrap());
        let a = tensor(&[200, 40], 4, dtype);
        let y = tensor(&[200, 3], 5, dtype);
        same_bits("lstsq", || la::lstsq(&a, &y, None).unwrap());
        let x = tensor(&[300], 6, dtype);
        let y1 = tensor(&[300], 7, dtype);
        same_bits("polyfit", || vec![la::polyfit(&x, &y1, 5).unwrap()]);
        let c = tensor(&[6], 8, dtype);
        same_bits("polyval", || vec![la::polyval(&c, &x).unwrap()]);
        same_bits("vdot and inner", || {
            vec![la::vdot(&x, &y1).unwrap(), la::inner(&a, &a).unwrap()]
        });
    }
}

//! Linear algebra builtins: the matrix products and `numpy.linalg`.

use std::rc::Rc;

use super::sort::result;
use super::Builtin;
use crate::autograd::{self, rules, Var};
use crate::diag::Diagnostic;
use crate::ops::linalg::{self as la, NormOrd};
use crate::runtime::builtin;
use crate::runtime::quant_matmul::quant_matmul;
use crate::runtime::value::{QuantValue, Value};
use crate::runtime::{Axes, Bound, Rest};
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "matmul",
        doc: "Matrix product as numpy.matmul (also `a @ b`): 1-D, 2-D and batched with broadcast batch dims.",
        fn(_, bound; a: &Value, b: &Value) {
            // matmul(x, q) with a quantized q [N, K] (GGML's weight layout) is x @ q.T.
            if let Value::Quant(q) = b {
                let weight = Value::Quant(QuantValue {
                    q: q.q.clone(),
                    transposed: !q.transposed,
                });
                return match quant_matmul(a, &weight) {
                    Some(r) => r
                        .map(Value::from)
                        .map_err(|e| bound.err(format!("matmul: {e}"))),
                    None => Err(bound.err("matmul: unsupported operands")),
                };
            }
            let (a, b): (Var, Var) = (bound.convert("a")?, bound.convert("b")?);
            bound.recorded(rules::matmul(&a, &b))
        }
    },
    builtin! {
        name: "dot",
        doc: "numpy.dot: the sum over the last axis of a and the second-to-last of b (inner product of 1-D, matrix product of 2-D); a 0-d operand multiplies.",
        fn(_, bound; a: Var, b: Var) {
            bound.recorded(la::dot(&a, &b))
        }
    },
    builtin! {
        name: "solve",
        doc: "The solution x of a @ x = b for square a, batched over leading axes (numpy.linalg.solve; b is a vector only when 1-D, as NumPy 2); a singular matrix is an error.",
        fn(_, c; a: Var, b: Var) {
            c.recorded(rules::solve(&a, &b))
        }
    },
    builtin! {
        name: "solve_triangular",
        doc: "The solution x of a @ x = b for triangular a, reading only its lower (lower=true) or upper triangle (scipy.linalg.solve_triangular), batched like solve; a zero on the diagonal is a singular matrix.",
        fn(_, c; a: Var, b: Var, lower: bool = false) {
            c.recorded(rules::solve_triangular(&a, &b, lower))
        }
    },
    builtin! {
        name: "inv",
        doc: "The inverse of each square matrix (numpy.linalg.inv); a singular matrix is an error.",
        fn(_, c; a: Var) {
            c.recorded(rules::inv(&a))
        }
    },
    builtin! {
        name: "det",
        doc: "The determinant of each square matrix, from its LU factors (numpy.linalg.det); 1 for 0 x 0.",
        fn(_, c; a: Var) {
            c.recorded(rules::det(&a))
        }
    },
    builtin! {
        name: "slogdet",
        doc: "(sign, logabsdet) of each square matrix's determinant, det = sign * exp(logabsdet) without overflow; a singular matrix gives (0, -inf) (numpy.linalg.slogdet).",
        fn(_, c; a: Var) {
            let (s, l) = rules::slogdet(&a).map_err(|e| c.grad_err(e))?;
            Ok(Value::Tuple(Rc::new(vec![Value::from(s), Value::from(l)].into())))
        }
    },
    builtin! {
        name: "matrix_power",
        doc: "The square matrix a multiplied by itself n times by repeated squaring (the identity for 0, integers stay integers; a negative n inverts first) (numpy.linalg.matrix_power).",
        fn(_, c; a: Var, n: i64) {
            if !autograd::recording(&[&a]) {
                return result(&c, la::matrix_power(&a, n));
            }
            c.recorded(rules::matrix_power(&a, n))
        }
    },
    builtin! {
        name: "cholesky",
        doc: "The lower-triangular L with a = L @ L.mT of each symmetric positive-definite matrix, reading only its lower triangle; upper=true gives U = L.mT (numpy.linalg.cholesky); otherwise not positive definite is an error.",
        fn(_, c; a: Var, upper: bool = false) {
            if !autograd::recording(&[&a]) {
                return result(&c, la::cholesky(&a, upper));
            }
            c.recorded(rules::cholesky(&a, upper))
        }
    },
    builtin! {
        name: "qr",
        doc: "The QR factorization (q, r) of each matrix (numpy.linalg.qr): mode \"reduced\" gives q m x k and r k x n (k = min(m, n)), \"complete\" q m x m and r m x n, \"r\" r alone.",
        fn(_, c; a: Var, mode: String = "reduced") {
            // r alone is the reduced factorization's r (the same bits).
            let factor_mode = if mode == "r" { "reduced" } else { mode.as_str() };
            let (q, r) = rules::qr(&a, factor_mode).map_err(|e| c.grad_err(e))?;
            if mode == "r" {
                return Ok(Value::from(r));
            }
            Ok(Value::Tuple(Rc::new(vec![Value::from(q), Value::from(r)].into())))
        }
    },
    builtin! {
        name: "eigh",
        doc: "(w, v): the eigenvalues, ascending, and eigenvectors (the columns of v) of each symmetric matrix, reading only its lower triangle (numpy.linalg.eigh).",
        fn(_, c; a: Var) {
            let (w, v) = rules::eigh(&a).map_err(|e| c.grad_err(e))?;
            Ok(Value::Tuple(Rc::new(vec![Value::from(w), Value::from(v)].into())))
        }
    },
    builtin! {
        name: "eigvalsh",
        doc: "The eigenvalues, ascending, of each symmetric matrix, reading only its lower triangle (numpy.linalg.eigvalsh).",
        fn(_, c; a: Var) {
            c.recorded(rules::eigvalsh(&a))
        }
    },
    builtin! {
        name: "svd",
        doc: "(u, s, vh) with a = u @ diag(s) @ vh for each matrix, s descending (numpy.linalg.svd): u m x m and vh n x n, or m x k and k x n when full_matrices=false; compute_uv=false gives s alone.",
        fn(_, c; a: Var, full_matrices: bool = true, compute_uv: bool = true) {
            if !compute_uv {
                return c.recorded(rules::svdvals(&a));
            }
            let (u, s, vh) = rules::svd(&a, full_matrices).map_err(|e| c.grad_err(e))?;
            Ok(Value::Tuple(Rc::new(
                vec![Value::from(u), Value::from(s), Value::from(vh)].into(),
            )))
        }
    },
    builtin! {
        name: "svdvals",
        doc: "The singular values of each matrix, descending (numpy.linalg.svdvals).",
        fn(_, c; a: Var) {
            c.recorded(rules::svdvals(&a))
        }
    },
    builtin! {
        name: "lstsq",
        doc: "(x, residuals, rank, sv): the least-squares solution of a @ x = b for a matrix a through its SVD, singular values at or below rcond times the largest dropped (none: max(m, n) epsilons); residuals are the squared residual sums of b's columns when a has full column rank and more rows than columns, else empty (numpy.linalg.lstsq).",
        fn(_, c; a: Var, b: Var, rcond: Option<f64> = none) {
            let (x, residuals, rank, sv) =
                rules::lstsq(&a, &b, rcond).map_err(|e| c.grad_err(e))?;
            Ok(Value::Tuple(Rc::new(
                vec![
                    Value::from(x),
                    Value::from(residuals),
                    Value::from(rank),
                    Value::from(sv),
                ]
                .into(),
            )))
        }
    },
    builtin! {
        name: "pinv",
        doc: "The pseudo-inverse of each matrix through its SVD, singular values at or below rcond times the largest taken as zero (none: max(m, n) epsilons) (numpy.linalg.pinv).",
        fn(_, c; a: Var, rcond: Option<f64> = none) {
            c.recorded(rules::pinv(&a, rcond))
        }
    },
    builtin! {
        name: "matrix_rank",
        doc: "The rank of each matrix as i64: its count of singular values above tol (none: the largest times max(m, n) epsilons); a vector has rank 1 unless all zero (numpy.linalg.matrix_rank).",
        fn(_, c; a: Tensor, tol: Option<f64> = none) {
            result(&c, la::matrix_rank(&a, tol))
        }
    },
    builtin! {
        name: "norm",
        doc: "numpy.linalg.norm: without axis, the 2-norm of all elements when ord is none, else the vector norm of a 1-D x or matrix norm of a 2-D x; one axis gives vector norms (ord any number: 2, 1, inf, -inf, 0 counts nonzeros), two axes matrix norms (ord \"fro\", \"nuc\", 1, -1, 2, -2, inf, -inf).",
        fn(_, c;
            x: Var,
            ord: Option<&Value> = none,
            axis|dim: Option<Axes> = none,
            keepdim|keepdims: bool = false,
        ) {
            let ord = norm_ord(&c, ord)?;
            let axes = axis.map(|a| a.0);
            c.recorded(rules::linalg_norm(&x, ord, axes.as_deref(), keepdim))
        }
    },
    builtin! {
        name: "einsum",
        doc: "numpy.einsum: the sum of products of xs over the subscripts of spec (\"ij,jk->ik\"; ... broadcasts; a repeated subscript takes a diagonal; without -> the output is the subscripts seen once, sorted), contracted a pair at a time through the matrix product, the pair with the smallest result first.",
        fn(_, c; spec: String, xs: Rest) {
            let xs = xs.vars("einsum")?;
            c.recorded(la::einsum(&spec, &xs))
        }
    },
    builtin! {
        name: "tensordot",
        doc: "numpy.tensordot: the sum of products over the last axes of a and the first of b (axes an int n), or over the paired axes ((a axes), (b axes)); the result has a's other axes then b's.",
        fn(_, c; a: Var, b: Var, axes: &Value = 2) {
            if let Value::Int(n) = axes {
                return c.recorded(la::tensordot_n(&a, &b, *n));
            }
            let pairs = match axes {
                Value::Tuple(items) if items.len() == 2 => {
                    items[0].as_int_list().zip(items[1].as_int_list())
                }
                _ => None,
            };
            let Some((axes_a, axes_b)) = pairs else {
                return Err(c.err("tensordot: axes must be an int or a pair of axis lists"));
            };
            c.recorded(la::tensordot(&a, &b, &axes_a, &axes_b))
        }
    },
    builtin! {
        name: "vdot",
        doc: "numpy.vdot: the dot product of the flattened a and b (same size), 0-d.",
        fn(_, c; a: Var, b: Var) {
            c.recorded(la::vdot(&a, &b))
        }
    },
    builtin! {
        name: "inner",
        doc: "numpy.inner: the sum of products over the last axes of a and b; the result has a's other axes then b's; a 0-d operand multiplies.",
        fn(_, c; a: Var, b: Var) {
            c.recorded(la::inner(&a, &b))
        }
    },
    builtin! {
        name: "polyfit",
        doc: "numpy.polyfit: the least-squares coefficients, highest power first, of a degree-deg polynomial through (x, y), one column per column of a 2-D y.",
        fn(_, c; x: Var, y: Var, deg: i64) {
            c.recorded(rules::polyfit(&x, &y, deg))
        }
    },
    builtin! {
        name: "polyval",
        doc: "numpy.polyval: the polynomial with coefficients p (highest power first) at each element of x, by Horner's rule.",
        fn(_, c; p: Var, x: Var) {
            c.recorded(la::polyval(&p, &x))
        }
    },
    builtin! {
        name: "interp",
        doc: "numpy.interp: the piecewise-linear interpolant through (xp, fp), xp increasing, at each x, as f64; left and right (default fp's first and last) outside xp.",
        fn(_, c; x: Var, xp: Var, fp: Var, left: Option<f64> = none, right: Option<f64> = none) {
            c.recorded(rules::interp(&x, &xp, &fp, left, right))
        }
    },
];

/// A norm order from `none`, a number or a name.
fn norm_ord(a: &Bound, ord: Option<&Value>) -> Result<NormOrd, Diagnostic> {
    match ord {
        None => Ok(NormOrd::Default),
        Some(Value::Int(p)) => Ok(NormOrd::P(*p as f64)),
        Some(Value::Float(p)) => Ok(NormOrd::P(*p)),
        Some(Value::Str(name)) => NormOrd::from_name(name).map_err(|e| a.tensor_err(e)),
        _ => Err(a.err("norm: ord must be none, a number, \"fro\" or \"nuc\"")),
    }
}

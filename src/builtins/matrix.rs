//! Matrix-shaped builtins (NumPy names and semantics): tril, triu, diag,
//! diagonal, trace, outer, kron, cross.

use super::shape::{moved, view};
use super::Builtin;
use crate::autograd::rules::VarOperand;
use crate::autograd::{self, rules, Var};
use crate::ops::matrix;
use crate::ops::rearrange::diagonal;
use crate::ops::{BinaryOp, ReduceOp};
use crate::runtime::builtin;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "tril",
        doc: "A copy of x with the elements above diagonal k of the last two axes set to zero (k > 0 keeps k diagonals above the main one); a vector is first broadcast to a square matrix (NumPy).",
        fn(_, a; x: Var, k: i64 = 0) {
            moved(&a, &x, |t| matrix::tril(t, k))
        }
    },
    builtin! {
        name: "triu",
        doc: "A copy of x with the elements below diagonal k of the last two axes set to zero; a vector is first broadcast to a square matrix (NumPy).",
        fn(_, a; x: Var, k: i64 = 0) {
            moved(&a, &x, |t| matrix::triu(t, k))
        }
    },
    builtin! {
        name: "diag",
        doc: "Of a vector, a square matrix with it on diagonal k (above the main one for k > 0) and zeros elsewhere; of a matrix, its diagonal k as a view (NumPy).",
        fn(_, a; x: Var, k: i64 = 0) {
            moved(&a, &x, |t| matrix::diag(t, k))
        }
    },
    builtin! {
        name: "diagonal",
        doc: "The diagonal offset of the planes of axis1 and axis2: those axes are removed and the diagonal becomes the last axis; a view (NumPy).",
        fn(_, a; x: Var, offset: i64 = 0, axis1: i64 = 0, axis2: i64 = 1) {
            moved(&a, &x, |t| diagonal(t, offset, axis1, axis2))
        }
    },
    builtin! {
        name: "trace",
        doc: "The sum of diagonal offset of the planes of axis1 and axis2, with sum's dtypes (bool and ints give i64) (NumPy).",
        fn(_, a; x: Var, offset: i64 = 0, axis1: i64 = 0, axis2: i64 = 1) {
            if !autograd::recording(&[&x]) {
                return view(&a, matrix::trace(&x, offset, axis1, axis2));
            }
            // The sum of the diagonal, recorded as that.
            let d = rules::moved("trace", &x, |t| diagonal(t, offset, axis1, axis2)).map_err(|e| a.grad_err(e))?;
            a.recorded(rules::reduce(ReduceOp::Sum, &d, Some(&[-1]), false))
        }
    },
    builtin! {
        name: "outer",
        doc: "The outer product a[i] * b[j] of the flattened a and b, dtypes promoted (NumPy).",
        fn(_, c; a: Var, b: Var) {
            if !autograd::recording(&[&a, &b]) {
                return view(&c, matrix::outer(&a, &b));
            }
            // a[i] * b[j], the same products, recorded.
            let column = rules::reshape(&a, &[-1, 1]).map_err(|e| c.grad_err(e))?;
            let row = rules::reshape(&b, &[1, -1]).map_err(|e| c.grad_err(e))?;
            c.recorded(rules::binary(BinaryOp::Mul, VarOperand::Var(&column), VarOperand::Var(&row)))
        }
    },
    builtin! {
        name: "kron",
        doc: "The Kronecker product: block (i, j, ...) is a[i, j, ...] * b; the lower-rank input gets leading size-1 axes; dtypes promoted (NumPy).",
        fn(_, c; a: Var, b: Var) {
            c.recorded(matrix::kron(&a, &b))
        }
    },
    builtin! {
        name: "cross",
        doc: "The cross product of the 3-vectors (or 2-vectors, z taken as 0) along axis of a and b, the other axes broadcasting; two 2-vectors give the z component only (NumPy).",
        fn(_, c; a: Var, b: Var, axis|dim: i64 = -1) {
            c.recorded(matrix::cross(&a, &b, axis))
        }
    },
];

//! Matrix-shaped builtins (NumPy names and semantics): tril, triu, diag,
//! diagonal, trace, outer, kron, cross.

use super::shape::view;
use super::Builtin;
use crate::ops::matrix;
use crate::ops::rearrange::diagonal;
use crate::runtime::builtin;
use crate::tensor::Tensor;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "tril",
        doc: "A copy of x with the elements above diagonal k of the last two axes set to zero (k > 0 keeps k diagonals above the main one); a vector is first broadcast to a square matrix (NumPy).",
        fn(_, a; x: Tensor, k: i64 = 0) {
            view(&a, matrix::tril(&x, k))
        }
    },
    builtin! {
        name: "triu",
        doc: "A copy of x with the elements below diagonal k of the last two axes set to zero; a vector is first broadcast to a square matrix (NumPy).",
        fn(_, a; x: Tensor, k: i64 = 0) {
            view(&a, matrix::triu(&x, k))
        }
    },
    builtin! {
        name: "diag",
        doc: "Of a vector, a square matrix with it on diagonal k (above the main one for k > 0) and zeros elsewhere; of a matrix, its diagonal k as a view (NumPy).",
        fn(_, a; x: Tensor, k: i64 = 0) {
            view(&a, matrix::diag(&x, k))
        }
    },
    builtin! {
        name: "diagonal",
        doc: "The diagonal offset of the planes of axis1 and axis2: those axes are removed and the diagonal becomes the last axis; a view (NumPy).",
        fn(_, a; x: Tensor, offset: i64 = 0, axis1: i64 = 0, axis2: i64 = 1) {
            view(&a, diagonal(&x, offset, axis1, axis2))
        }
    },
    builtin! {
        name: "trace",
        doc: "The sum of diagonal offset of the planes of axis1 and axis2, with sum's dtypes (bool and ints give i64) (NumPy).",
        fn(_, a; x: Tensor, offset: i64 = 0, axis1: i64 = 0, axis2: i64 = 1) {
            view(&a, matrix::trace(&x, offset, axis1, axis2))
        }
    },
    builtin! {
        name: "outer",
        doc: "The outer product a[i] * b[j] of the flattened a and b, dtypes promoted (NumPy).",
        fn(_, c; a: Tensor, b: Tensor) {
            view(&c, matrix::outer(&a, &b))
        }
    },
    builtin! {
        name: "kron",
        doc: "The Kronecker product: block (i, j, ...) is a[i, j, ...] * b; the lower-rank input gets leading size-1 axes; dtypes promoted (NumPy).",
        fn(_, c; a: Tensor, b: Tensor) {
            view(&c, matrix::kron(&a, &b))
        }
    },
    builtin! {
        name: "cross",
        doc: "The cross product of the 3-vectors (or 2-vectors, z taken as 0) along axis of a and b, the other axes broadcasting; two 2-vectors give the z component only (NumPy).",
        fn(_, c; a: Tensor, b: Tensor, axis|dim: i64 = -1) {
            view(&c, matrix::cross(&a, &b, axis))
        }
    },
];

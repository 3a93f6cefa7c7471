//! `target op= rhs`: a binary op written straight into the target's own storage, with
//! the compound-assignment dtype rule (the target keeps its dtype).

use super::binary::{apply, check_divisor, check_dtype, converted, one_element, Kernel};
use super::{elems, BinaryOp, Operand};
use crate::kernels::math::Arith;
use crate::kernels::parallel::{for_each_chunk_mut, ELEMENTWISE_CHUNK};
use crate::kernels::strided::{at, for_each_run, for_each_run_in, Span};
use crate::tensor::shape::{broadcast_shapes, shape_str};
use crate::tensor::{Category, DType, Elem, Layout, Result, Tensor, TensorError};

/// `target = target op rhs` cast back to `target`'s dtype, computed in place: the
/// storage is copied first only when it is shared or `target` is a broadcast view.
/// Errors, in the order `x = x op y` followed by a store meets them: the broadcast and
/// dtype checks of `binary`, integer division by zero, a result of a higher dtype
/// category than the target's (`i32 /= 2` gives f32: see `compound_dtype_error`), and
/// a result shape the target would have to grow to hold.
pub fn binary_inplace(op: BinaryOp, target: &mut Tensor, rhs: Operand) -> Result<()> {
    let shape = broadcast_shapes(op.name(), target.shape(), rhs.shape())?;
    let compute = Operand::promote(Operand::Tensor(target), rhs);
    crate::dispatch!(compute, T => inplace_as::<T>(op, target, rhs, &shape))
}

/// `target op= y` for a 0-d float target of y's type `T`, the element-read loop
/// (`acc += s[i]`, the element read straight from s's storage): what `binary_inplace`
/// does with a 0-d operand of `T`, without making one. An error leaves `target` as it
/// was.
pub fn update_0d<T: Arith>(op: BinaryOp, target: &mut Tensor, y: T) -> Result<()> {
    if target.ndim() != 0 || target.dtype() != T::DTYPE || T::DTYPE.category() != Category::Float {
        return Err(TensorError::value(
            op.name(),
            "internal error: not a 0-d float target of the operand's dtype",
        ));
    }
    // The steps of `inplace_as` for two 0-d operands of one float dtype (no promotion,
    // and no divisor to check).
    check_dtype(op, T::DTYPE)?;
    apply::<T, _>(op, InPlaceOne { op, target, rhs: y })
}

/// The error for `x op= y` whose result dtype is of a higher category than x's (a float
/// result in an integer or bool tensor, an integer one in a bool tensor). The op of the
/// error is the compound operator (`+=`), and `dtype` the result's.
pub fn compound_dtype_error(op: BinaryOp, result: DType, target: DType) -> TensorError {
    let written = op.symbol().unwrap_or(op.name());
    TensorError::dtype(
        &format!("{written}="),
        result,
        format!("would store a {result} result in a {target} tensor"),
    )
}

/// The op computed in `T`, the promoted element type, into `target`.
fn inplace_as<T: Arith>(
    op: BinaryOp,
    target: &mut Tensor,
    rhs: Operand,
    shape: &[usize],
) -> Result<()> {
    check_dtype(op, T::DTYPE)?;
    let b = converted::<T>(rhs);
    if shape.iter().all(|&d| d > 0) {
        check_divisor::<T>(op, &b)?;
    }
    if shape.is_empty() {
        let rhs = one_element::<T>(op, &b)?;
        return apply::<T, _>(op, InPlaceOne { op, target, rhs });
    }
    apply::<T, _>(
        op,
        InPlace {
            op,
            target,
            rhs: &b,
            shape,
        },
    )
}

/// A 0-d target and rhs, the loop case (`acc += s[i]`): one element updated, without
/// the broadcast checks and the chunked walk of `InPlace`.
struct InPlaceOne<'a, T> {
    op: BinaryOp,
    target: &'a mut Tensor,
    rhs: T,
}

impl<T: Arith> Kernel<T> for InPlaceOne<'_, T> {
    type Out = Result<()>;
    fn map<O: Elem>(self, f: impl Fn(T, T) -> O + Sync + Send) -> Result<()> {
        let (op, t, y) = (self.op, self.target, self.rhs);
        if O::DTYPE.category() > t.dtype().category() {
            return Err(compound_dtype_error(op, O::DTYPE, t.dtype()));
        }
        t.make_writable();
        let at = t.layout().offset;
        crate::dispatch!(t.dtype(), X => {
            let slot = X::vec_mut(t.storage_mut()).and_then(|d| d.get_mut(at)).ok_or_else(|| {
                TensorError::dtype(op.name(), X::DTYPE, "internal error: storage of another dtype")
            })?;
            // The same casts as computing `x op y` and storing the result in x.
            *slot = f(slot.cast::<T>(), y).cast::<X>();
        });
        Ok(())
    }
}

/// Writes `f(target, rhs)` over the elements of the target.
struct InPlace<'a> {
    op: BinaryOp,
    target: &'a mut Tensor,
    rhs: &'a Tensor,
    /// The broadcast shape of the operands.
    shape: &'a [usize],
}

impl<T: Arith> Kernel<T> for InPlace<'_> {
    type Out = Result<()>;
    fn map<O: Elem>(self, f: impl Fn(T, T) -> O + Sync + Send) -> Result<()> {
        let (op, t) = (self.op, self.target);
        if O::DTYPE.category() > t.dtype().category() {
            return Err(compound_dtype_error(op, O::DTYPE, t.dtype()));
        }
        let b = fitted(self.rhs, self.shape, t.shape())?;
        let y = elems::<T>(op.name(), &b)?;
        t.make_writable();
        crate::dispatch!(t.dtype(), X => {
            let layout = t.layout().clone();
            let data = X::vec_mut(t.storage_mut()).ok_or_else(|| {
                TensorError::dtype(op.name(), X::DTYPE, "internal error: storage of another dtype")
            })?;
            // The same casts as computing `x op y` and storing the result in x.
            let g = |x: X, y: T| f(x.cast::<T>(), y).cast::<X>();
            write(data, &layout, y, b.layout(), g);
        });
        Ok(())
    }
}

/// `rhs` viewed with the target's shape. The result shape may only add leading size-1
/// dims to the target's (a store drops them, as NumPy does); anything else would need
/// a bigger target, the error a store of the result gives.
fn fitted(rhs: &Tensor, shape: &[usize], target: &[usize]) -> Result<Tensor> {
    let lead = shape.len().saturating_sub(target.len());
    if shape[..lead].iter().any(|&d| d != 1) || shape[lead..] != *target {
        return Err(TensorError::shape(
            "assign",
            format!(
                "cannot assign a value of shape {} to a region of shape {}",
                shape_str(shape),
                shape_str(target)
            ),
        ));
    }
    let extra = rhs.ndim().saturating_sub(target.len());
    let axes: Vec<i64> = (0..extra as i64).collect();
    rhs.squeeze(Some(&axes))?.broadcast_to(target)
}

/// `data[o] = g(data[o], y[p])` over the target layout and the rhs layout of the same
/// shape. A dense target runs in fixed parallel chunks (interruptible like every
/// elementwise map); others walk both layouts by runs. The target layout must not
/// repeat elements: the tensor was made writable first.
fn write<X, Y>(
    data: &mut [X],
    layout: &Layout,
    y: &[Y],
    y_layout: &Layout,
    g: impl Fn(X, Y) -> X + Sync + Send,
) where
    X: Copy + Send + Sync,
    Y: Copy + Sync,
{
    if layout.is_contiguous() {
        let dense = &mut data[layout.offset..layout.offset + layout.numel()];
        for_each_chunk_mut(dense, ELEMENTWISE_CHUNK, |start, chunk| {
            let span = Span {
                start,
                count: chunk.len(),
            };
            let mut pos = 0;
            for_each_run_in([y_layout], span, |run| {
                let ([o], [s]) = (run.offsets, run.strides);
                for (j, x) in chunk[pos..pos + run.len].iter_mut().enumerate() {
                    *x = g(*x, y[at(o, s, j)]);
                }
                pos += run.len;
            });
        });
        return;
    }
    for_each_run([layout, y_layout], |run| {
        let ([ox, oy], [sx, sy]) = (run.offsets, run.strides);
        for j in 0..run.len {
            let x = &mut data[at(ox, sx, j)];
            *x = g(*x, y[at(oy, sy, j)]);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::binary::binary;
    use crate::ops::testutil::{tensor, values, views};
    use crate::tensor::Scalar;
    use BinaryOp::*;
    use DType::*;

    /// `x = x op y` then a store into x's dtype, as the interpreter did it.
    fn by_copy(op: BinaryOp, x: &Tensor, y: Operand) -> Result<Tensor> {
        let result = binary(op, Operand::Tensor(x), y)?;
        if result.dtype().category() > x.dtype().category() {
            return Err(compound_dtype_error(op, result.dtype(), x.dtype()));
        }
        let mut out = x.contiguous();
        let region = out.layout().clone();
        let squeezed = fitted(&result, result.shape(), x.shape())?;
        out.assign(&region, &squeezed)?;
        Ok(out)
    }

    /// The raw bits of every element in logical order, so NaNs and signed zeros compare.
    fn bits(t: &Tensor) -> Vec<u64> {
        crate::dispatch!(t.dtype(), E => {
            t.to_vec::<E>().iter().map(|v| v.to_f64().to_bits()).collect()
        })
    }

    fn check(op: BinaryOp, x: &Tensor, y: Operand, what: &str) {
        let want = by_copy(op, x, y);
        for view in views(x) {
            let mut got = view.clone();
            let result = binary_inplace(op, &mut got, y);
            match (&want, result) {
                (Ok(w), Ok(())) => {
                    assert_eq!(got.dtype(), x.dtype(), "{what}");
                    assert_eq!(got.shape(), x.shape(), "{what}");
                    assert_eq!(bits(&got), bits(w), "{what}");
                }
                (Err(w), Err(e)) => assert_eq!(&e, w, "{what}"),
                (w, g) => panic!("{what}: want {w:?}, got {g:?}"),
            }
            // The view it was taken from is untouched when the storage is shared.
            assert_eq!(values(&view), values(x), "{what}");
        }
    }

    #[test]
    fn every_op_and_dtype_pair_matches_binary_then_a_store() {
        let x_vals = [-7.0, -2.5, -1.0, 0.0, 2.5, 7.0];
        let y_vals = [2.0, -2.0, 3.0, -1.5, 1.0, 4.0];
        let exponents = [0.0, 1.0, 2.0, 3.0, 2.0, 1.0];
        for dx in DType::ALL {
            let x = tensor(&x_vals, &[2, 3], dx);
            for dy in DType::ALL {
                for op in BinaryOp::ALL {
                    let vals = if op == Pow { &exponents } else { &y_vals };
                    let y = tensor(vals, &[2, 3], dy);
                    check(op, &x, Operand::Tensor(&y), &format!("{dx} {op:?}= {dy}"));
                    let row = tensor(&vals[..3], &[3], dy);
                    let what = format!("{dx} {op:?}= row {dy}");
                    check(op, &x, Operand::Tensor(&row), &what);
                }
            }
        }
    }

    #[test]
    fn one_element_operands_match_the_general_path() {
        // 0-d operands take the one-element kernels; the same values as [1] tensors
        // take the general walk. Errors (integer // 0) must agree too.
        let pairs = [
            (-7.0, 2.0),
            (2.5, -1.5),
            (0.0, 0.0),
            (-1.0, 3.0),
            (f64::NAN, 1.0),
        ];
        for dx in DType::ALL {
            for dy in DType::ALL {
                for op in BinaryOp::ALL {
                    for (xv, yv) in pairs {
                        let (x0, y0) = (tensor(&[xv], &[], dx), tensor(&[yv], &[], dy));
                        let (x1, y1) = (tensor(&[xv], &[1], dx), tensor(&[yv], &[1], dy));
                        let what = format!("{dx} {xv} {op:?} {dy} {yv}");
                        let new0 = binary(op, Operand::Tensor(&x0), Operand::Tensor(&y0));
                        let new1 = binary(op, Operand::Tensor(&x1), Operand::Tensor(&y1));
                        match (new0, new1) {
                            (Ok(a), Ok(b)) => {
                                assert_eq!((a.dtype(), bits(&a)), (b.dtype(), bits(&b)), "{what}")
                            }
                            (a, b) => assert_eq!(a.is_err(), b.is_err(), "{what}"),
                        }
                        let (mut in0, mut in1) = (x0.clone(), x1.clone());
                        let done0 = binary_inplace(op, &mut in0, Operand::Tensor(&y0));
                        let done1 = binary_inplace(op, &mut in1, Operand::Tensor(&y1));
                        assert_eq!(done0, done1, "{what}=");
                        assert_eq!(bits(&in0), bits(&in1), "{what}=");
                    }
                }
            }
        }
    }

    #[test]
    fn weak_scalars_match_binary_then_a_store() {
        for dx in DType::ALL {
            let x = tensor(&[-3.0, -1.0, 0.0, 1.0, 2.5, 6.0], &[3, 2], dx);
            for s in [Scalar::Int(2), Scalar::Float(1.5), Scalar::Bool(true)] {
                for op in BinaryOp::ALL {
                    check(op, &x, Operand::Scalar(s), &format!("{dx} {op:?}= {s:?}"));
                }
            }
        }
    }

    #[test]
    fn the_dtype_rule_keeps_the_target_dtype() {
        let mut i = tensor(&[1.0, 2.0], &[2], I32);
        let err = binary_inplace(Div, &mut i, Operand::Scalar(Scalar::Int(2))).unwrap_err();
        let msg = "would store a f32 result in a i32 tensor";
        assert_eq!(err, TensorError::dtype("/=", F32, msg));
        let mut b = tensor(&[1.0, 0.0], &[2], Bool);
        let err = binary_inplace(Add, &mut b, Operand::Scalar(Scalar::Int(1))).unwrap_err();
        assert_eq!(err, compound_dtype_error(Add, I64, Bool));
        // A comparison's bool result fits anywhere; a wider integer wraps into x's dtype.
        let mut f = tensor(&[1.0, 3.0], &[2], F16);
        binary_inplace(Lt, &mut f, Operand::Scalar(Scalar::Int(2))).unwrap();
        assert_eq!(values(&f), vec![1.0, 0.0]);
        let mut u = tensor(&[250.0], &[1], U8);
        let big = tensor(&[10.0], &[1], I64);
        binary_inplace(Add, &mut u, Operand::Tensor(&big)).unwrap();
        assert_eq!(u.to_vec::<u8>(), vec![4]);
    }

    #[test]
    fn the_target_does_not_grow() {
        let mut x = tensor(&[1.0, 2.0, 3.0], &[3], F32);
        let y = tensor(&[0.0; 6], &[2, 3], F32);
        let err = binary_inplace(Add, &mut x, Operand::Tensor(&y)).unwrap_err();
        let msg = "cannot assign a value of shape [2, 3] to a region of shape [3]";
        assert_eq!(err, TensorError::shape("assign", msg));
        // Leading size-1 dims are dropped, as a store drops them.
        let one = tensor(&[1.0, 1.0, 1.0], &[1, 1, 3], F32);
        binary_inplace(Add, &mut x, Operand::Tensor(&one)).unwrap();
        assert_eq!(values(&x), vec![2.0, 3.0, 4.0]);
        let mut col = tensor(&[1.0, 2.0], &[2, 1], F32);
        let row = tensor(&[1.0, 2.0], &[2], F32);
        let err = binary_inplace(Mul, &mut col, Operand::Tensor(&row)).unwrap_err();
        let msg = "cannot assign a value of shape [2, 2] to a region of shape [2, 1]";
        assert_eq!(err, TensorError::shape("assign", msg));
        let bad = tensor(&[0.0; 4], &[4], F32);
        let err = binary_inplace(Add, &mut x, Operand::Tensor(&bad)).unwrap_err();
        assert!(matches!(err, TensorError::Broadcast { .. }));
    }

    #[test]
    fn shared_storage_and_broadcast_views_are_copied_first() {
        let x = tensor(&[1.0, 2.0, 3.0], &[3], I64);
        let mut alias = x.clone();
        binary_inplace(Mul, &mut alias, Operand::Tensor(&x)).unwrap();
        assert_eq!(values(&alias), vec![1.0, 4.0, 9.0]);
        assert_eq!(values(&x), vec![1.0, 2.0, 3.0]);
        let mut wide = x.broadcast_to(&[2, 3]).unwrap();
        let y = tensor(&[10.0, 20.0], &[2, 1], I64);
        binary_inplace(Add, &mut wide, Operand::Tensor(&y)).unwrap();
        assert_eq!(values(&wide), vec![11.0, 12.0, 13.0, 21.0, 22.0, 23.0]);
        let mut zero = tensor(&[1.0], &[1], I32);
        let err = binary_inplace(Rem, &mut zero, Operand::Scalar(Scalar::Int(0))).unwrap_err();
        assert_eq!(
            err,
            TensorError::value("remainder", "integer division by zero")
        );
    }

    #[test]
    fn long_tensors_run_in_chunks() {
        let n = 3 * ELEMENTWISE_CHUNK + 5;
        let vals: Vec<f64> = (0..n).map(|i| (i % 97) as f64 - 40.0).collect();
        let x = tensor(&vals, &[n], F32);
        let y = tensor(&[3.0], &[1], I32);
        check(FloorDiv, &x, Operand::Tensor(&y), "long");
        check(Sub, &x, Operand::Tensor(&x), "long aliased");
    }
}

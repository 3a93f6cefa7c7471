//! Reductions over all elements or the given axes, the vector norm built on them, and
//! the scans (cumulative sum, product, maximum, minimum).

mod norm;
mod scan;
#[cfg(test)]
mod tests;

pub use norm::{norm, normalize};
pub use scan::{cumsum, scan, ScanOp};

use super::elems;
use crate::kernels::isa::Isa;
use crate::kernels::math::{is_nan, truth, Arith};
use crate::kernels::reduce::{
    arg_extreme, arg_extremes, extreme, extremes, pairwise_sum, reduce_lanes, reduce_lanes_grouped,
    sum_lanes,
};
use crate::tensor::budget;
use crate::tensor::shape::normalize_axis;
use crate::tensor::{DType, Elem, Layout, Result, Tensor, TensorError};

/// The reductions, one row each: variant (with its parameter and the value `ALL` gives
/// it), builtin name, and the computation over the lanes of a `Lanes<T>`. The macro
/// generates the enum, `name`, `ALL` and `apply`.
macro_rules! reduce_ops {
    ($($(#[$doc:meta])* $op:ident $({ $field:ident: $ty:ty = $default:expr })?
        ($name:literal) => |$l:ident| $f:expr;)*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum ReduceOp {
            $($(#[$doc])* $op $({ $field: $ty })?,)*
        }

        impl ReduceOp {
            /// Every op, in table order (`var` and `std` with `ddof = 0`).
            pub const ALL: [ReduceOp; [$(stringify!($op)),*].len()] =
                [$(ReduceOp::$op $({ $field: $default })?),*];

            pub const fn name(self) -> &'static str {
                match self {
                    $(ReduceOp::$op { .. } => $name,)*
                }
            }
        }

        /// The op's computation over the lanes of a reduction.
        fn apply<T: Arith>(op: ReduceOp, lanes: &Lanes<T>) -> Result<Tensor> {
            match op {
                $(ReduceOp::$op $({ $field })? => (|$l: &Lanes<T>| $f)(lanes),)*
            }
        }
    };
}

reduce_ops! {
    Sum("sum") => |l| l.totals(l.sum(T::to_acc));
    Prod("prod") => |l| l.totals(l.each(|xs| product(xs, T::to_acc)));
    Mean("mean") => |l| l.mean(T::to_acc);
    /// Mean squared deviation, divided by `n - ddof` (NumPy; `ddof = 0` by default).
    Var { ddof: i64 = 0 }("var") => |l| l.floats(l.each(|xs| variance(xs, ddof)));
    /// Square root of `Var`.
    Std { ddof: i64 = 0 }("std") => |l| l.floats(l.each(|xs| variance(xs, ddof).sqrt()));
    Max("max") => |l| l.extreme::<true, false>();
    Min("min") => |l| l.extreme::<false, false>();
    /// Max minus min ("peak to peak"), in the dtype (integers wrap, as NumPy's).
    Ptp("ptp") => |l| l.ptp();
    /// Index (i64) of the first maximum; one axis or the flattened tensor.
    ArgMax("argmax") => |l| l.arg::<true, false>();
    ArgMin("argmin") => |l| l.arg::<false, false>();
    /// The `Nan*` ops skip NaN: it neither adds nor counts.
    NanSum("nansum") => |l| l.totals(l.sum(or_nan::<T>(T::Acc::default())));
    NanProd("nanprod") => |l| {
        let one = T::Acc::from_i64(1);
        l.totals(l.each(|xs| product(xs, or_nan::<T>(one))))
    };
    NanMean("nanmean") => |l| l.nan_mean();
    NanMax("nanmax") => |l| l.extreme::<true, true>();
    NanMin("nanmin") => |l| l.extreme::<false, true>();
    NanArgMax("nanargmax") => |l| l.arg::<true, true>();
    NanArgMin("nanargmin") => |l| l.arg::<false, true>();
    /// `Var` and `Std` of the values that are not NaN: NaN where fewer than `ddof + 1`
    /// remain (NumPy's `nanvar`, `nanstd`).
    NanVar { ddof: i64 = 0 }("nanvar") => |l| l.floats(l.each(|xs| nan_variance(xs, ddof)));
    NanStd { ddof: i64 = 0 }("nanstd") => |l| l.floats(l.each(|xs| nan_variance(xs, ddof).sqrt()));
    /// `log(sum(exp(x)))` shifted by the lane's maximum, in f64 (torch's `logsumexp`).
    LogSumExp("logsumexp") => |l| l.floats(l.each(log_sum_exp));
    /// Whether any element is nonzero (NaN counts as nonzero).
    Any("any") => |l| l.tensor(l.each(|xs| xs.iter().any(|&x| truth(x))));
    All("all") => |l| l.tensor(l.each(|xs| xs.iter().all(|&x| truth(x))));
}

impl ReduceOp {
    /// The index ops, which reduce one axis or the flattened tensor.
    fn is_arg(self) -> bool {
        use ReduceOp::*;
        matches!(self, ArgMax | ArgMin | NanArgMax | NanArgMin)
    }
}

/// `axes = None` reduces everything (a 0-d result unless `keepdim`); `Some(&[])`
/// reduces nothing (NumPy's `axis=()`). Axes may be negative but not repeat.
///
/// Dtypes: `sum`/`prod` (and the nan forms) of bool/ints are i64 and of floats keep the
/// dtype (f16/bf16 accumulate in f32); `mean`, `var`, `std` give the float result dtype
/// (var/std are computed in f64); `max`/`min` keep the dtype and propagate NaN; the arg
/// ops are i64; `any`/`all` are bool. Empty lanes: sum 0, prod 1, mean/var/std NaN,
/// any false, all true; max, min and the arg ops are errors (no identity).
pub fn reduce(op: ReduceOp, a: &Tensor, axes: Option<&[i64]>, keepdim: bool) -> Result<Tensor> {
    let name = op.name();
    if op.is_arg() && axes.is_some_and(|axes| axes.len() != 1) {
        return Err(TensorError::value(
            name,
            "takes a single axis, or none to index the flattened tensor",
        ));
    }
    let plan = Plan::new(name, a, axes, keepdim)?;
    crate::dispatch!(a.dtype(), T => reduce_as::<T>(op, a, &plan))
}

/// Which dims a reduction folds, and the shape of its result.
pub(super) struct Plan {
    /// One flag per dim of the input: true for the dims to reduce.
    pub(super) reduced: Vec<bool>,
    pub(super) shape: Vec<usize>,
    /// Elements per output element.
    pub(super) lane_len: usize,
}

impl Plan {
    pub(super) fn new(op: &str, a: &Tensor, axes: Option<&[i64]>, keepdim: bool) -> Result<Plan> {
        let reduced = reduced_dims(op, a.ndim(), axes)?;
        let dims = a.shape().iter().zip(&reduced);
        let shape: Vec<usize> = dims
            .clone()
            .filter_map(|(&d, &r)| match (r, keepdim) {
                (false, _) => Some(d),
                (true, true) => Some(1),
                (true, false) => None,
            })
            .collect();
        let lane: Vec<usize> = dims.filter(|(_, &r)| r).map(|(&d, _)| d).collect();
        check_working_memory(op, &shape, &lane)?;
        Ok(Plan {
            reduced,
            shape,
            // Saturating: with no output, the lane's length is never used.
            lane_len: lane.iter().fold(1, |n: usize, &d| n.saturating_mul(d)),
        })
    }
}

/// One flag per dim of an `ndim` tensor, true for the dims in `axes` (every dim when
/// `None`); axes may be negative but not repeat.
pub(crate) fn reduced_dims(op: &str, ndim: usize, axes: Option<&[i64]>) -> Result<Vec<bool>> {
    let mut reduced = vec![axes.is_none(); ndim];
    for &axis in axes.unwrap_or_default() {
        let i = normalize_axis(op, axis, ndim)?;
        if std::mem::replace(&mut reduced[i], true) {
            return Err(TensorError::value(op, format!("axis {axis} is repeated")));
        }
    }
    Ok(reduced)
}

/// Bytes a reduction keeps per output element before the result is made: the lane's
/// start and its partial result (at most an `Option<i64>`).
const PER_OUTPUT_BYTES: usize = std::mem::size_of::<usize>() + std::mem::size_of::<Option<i64>>();

/// Holds what a reduction allocates to the memory limit before anything is built: the
/// per-output lists (an empty axis can make many outputs of nothing,
/// `zeros([100000000000, 0])` summed over axis 1) and, when there is an output, the
/// offsets of a lane's elements (a strided lane is walked by a list of them).
fn check_working_memory(op: &str, shape: &[usize], lane: &[usize]) -> Result<()> {
    let outputs = budget::check_bytes(op, shape, PER_OUTPUT_BYTES)?;
    if outputs > 0 {
        budget::check_bytes(op, lane, std::mem::size_of::<isize>())?;
    }
    Ok(())
}

fn reduce_as<T: Arith>(op: ReduceOp, a: &Tensor, plan: &Plan) -> Result<Tensor> {
    let name = op.name();
    let lanes = Lanes {
        name,
        data: elems::<T>(name, a)?,
        layout: a.layout(),
        plan,
        isa: Isa::detect(),
    };
    apply(op, &lanes)
}

/// The lanes of one reduction: the input's elements and the plan that groups them.
struct Lanes<'a, T> {
    name: &'static str,
    data: &'a [T],
    layout: &'a Layout,
    plan: &'a Plan,
    isa: Isa,
}

impl<T: Arith> Lanes<'_, T> {
    /// Pairwise sums of `f` over each lane.
    fn sum<A: Arith>(&self, f: impl Fn(T) -> A + Copy + Sync + Send) -> Vec<A> {
        sum_lanes(self.data, self.layout, &self.plan.reduced, f)
    }

    /// `f` of each lane's elements.
    fn each<O: Send>(&self, f: impl Fn(&[T]) -> O + Sync + Send) -> Vec<O> {
        reduce_lanes(self.data, self.layout, &self.plan.reduced, f)
    }

    fn totals(&self, acc: Vec<T::Acc>) -> Result<Tensor> {
        totals::<T>(acc, &self.plan.shape)
    }

    fn floats(&self, values: Vec<f64>) -> Result<Tensor> {
        floats::<T>(values, &self.plan.shape)
    }

    fn tensor<O: Elem>(&self, values: Vec<O>) -> Result<Tensor> {
        Tensor::from_vec(values, &self.plan.shape)
    }

    fn mean(&self, f: impl Fn(T) -> T::Acc + Copy + Sync + Send) -> Result<Tensor> {
        let n = self.plan.lane_len as f64;
        let sums = self.sum(f);
        self.floats(sums.into_iter().map(|s| s.to_f64() / n).collect())
    }

    fn nan_mean(&self) -> Result<Tensor> {
        let totals = self.sum(or_nan::<T>(T::Acc::default()));
        // Counting by a pairwise sum of ones in f64 is exact (lanes hold < 2^53).
        let counts = self.sum(|x: T| f64::from(u8::from(!is_nan(x))));
        let means = totals.into_iter().zip(counts).map(|(s, c)| s.to_f64() / c);
        self.floats(means.collect())
    }

    /// `f` of each lane, and `group` of lanes read side by side where that applies
    /// (`reduce_lanes_grouped`).
    fn each_grouped<O: Send, const G: usize>(
        &self,
        f: impl Fn(&[T]) -> O + Sync + Send,
        group: impl Fn([&[T]; G]) -> [O; G] + Sync + Send,
    ) -> Vec<O> {
        reduce_lanes_grouped(self.data, self.layout, &self.plan.reduced, f, group)
    }

    /// The max (`MAX`) or min of each lane, which keeps the dtype and propagates NaN
    /// unless `SKIP_NAN`; an all-NaN lane of a nan form gives NaN (NumPy warns and does
    /// the same).
    fn extreme<const MAX: bool, const SKIP_NAN: bool>(&self) -> Result<Tensor> {
        let isa = self.isa;
        let values = self.each_grouped(
            |xs| extreme::<T, MAX, SKIP_NAN>(isa, xs),
            |lanes| extremes::<T, MAX, SKIP_NAN>(isa, lanes),
        );
        self.tensor(non_empty(self.name, values)?)
    }

    /// Each lane's max minus its min in the dtype; NaN propagates. Bool has no
    /// subtraction (NumPy refuses it too).
    fn ptp(&self) -> Result<Tensor> {
        if T::DTYPE == DType::Bool {
            return Err(TensorError::dtype(
                self.name,
                T::DTYPE,
                "bool has no subtraction; convert to an integer dtype first",
            ));
        }
        let isa = self.isa;
        let ranges = self.each(|xs| {
            let (max, min) = (
                extreme::<T, true, false>(isa, xs)?,
                extreme::<T, false, false>(isa, xs)?,
            );
            Some(max.sub(min))
        });
        self.tensor(non_empty(self.name, ranges)?)
    }

    /// The index (i64) of each lane's max (`MAX`) or min, NaN skipped if `SKIP_NAN`.
    fn arg<const MAX: bool, const SKIP_NAN: bool>(&self) -> Result<Tensor> {
        let isa = self.isa;
        // A lane index fits in i64: lanes index memory.
        let index = self.each_grouped(
            |xs| arg_extreme::<T, MAX, SKIP_NAN>(isa, xs).map(|i| i as i64),
            |lanes| arg_extremes::<T, MAX, SKIP_NAN>(isa, lanes).map(|i| i.map(|i| i as i64)),
        );
        if self.plan.lane_len > 0 && index.contains(&None) {
            return Err(TensorError::value(self.name, "all-NaN slice encountered"));
        }
        self.tensor(non_empty(self.name, index)?)
    }
}

/// NaN replaced by the identity of the `nan` forms (0 for sums, 1 for products).
fn or_nan<T: Arith>(identity: T::Acc) -> impl Fn(T) -> T::Acc + Copy + Sync + Send {
    move |x: T| if is_nan(x) { identity } else { x.to_acc() }
}

/// Sums or products: floats round back to their dtype, bool and integers stay i64
/// (their accumulator type).
fn totals<T: Arith>(acc: Vec<T::Acc>, shape: &[usize]) -> Result<Tensor> {
    if T::DTYPE.is_float() {
        Tensor::from_vec(acc.into_iter().map(T::from_acc).collect::<Vec<T>>(), shape)
    } else {
        Tensor::from_vec(acc, shape)
    }
}

/// Float statistics computed in f64, in the float result dtype of `T`.
pub(super) fn floats<T: Elem>(values: Vec<f64>, shape: &[usize]) -> Result<Tensor> {
    Ok(Tensor::from_vec(values, shape)?.to_dtype(T::DTYPE.float_result()))
}

/// Sequential product in the accumulator type (NumPy's multiply reduction is not pairwise).
fn product<T: Copy, A: Arith>(xs: &[T], to_acc: impl Fn(T) -> A) -> A {
    xs.iter().fold(A::from_i64(1), |p, &x| p.mul(to_acc(x)))
}

/// Two-pass variance in f64 with pairwise sums: the squared deviations from the mean
/// over `max(n - ddof, 0)` (NaN for an empty lane, inf when `ddof >= n`, as NumPy).
fn variance<T: Elem>(xs: &[T], ddof: i64) -> f64 {
    let n = xs.len() as f64;
    let mean = pairwise_sum(xs, T::to_f64) / n;
    let squares = pairwise_sum(xs, |x| {
        let d = x.to_f64() - mean;
        d * d
    });
    squares / (n - ddof as f64).max(0.0)
}

/// The variance of the values that are not NaN, as [`variance`] of them; NaN when
/// `count - ddof <= 0` (NumPy's `nanvar`, unlike `var`'s inf).
fn nan_variance<T: Elem>(xs: &[T], ddof: i64) -> f64 {
    let value = |x: T| if is_nan(x) { 0.0 } else { x.to_f64() };
    // Counting by a pairwise sum of ones in f64 is exact (lanes hold < 2^53).
    let n = pairwise_sum(xs, |x| f64::from(u8::from(!is_nan(x))));
    let mean = pairwise_sum(xs, value) / n;
    let squares = pairwise_sum(xs, |x| {
        let d = if is_nan(x) { 0.0 } else { x.to_f64() - mean };
        d * d
    });
    let dof = n - ddof as f64;
    if dof > 0.0 {
        squares / dof
    } else {
        f64::NAN
    }
}

/// `log(sum(exp(x)))` computed as `m + log(sum(exp(x - m)))` with `m` the maximum, so
/// that large values do not overflow: NaN if any is NaN, `m` itself when it is
/// infinite (+inf, or -inf for a lane of -inf), -inf for an empty lane (log 0).
fn log_sum_exp<T: Elem>(xs: &[T]) -> f64 {
    let m = xs.iter().fold(f64::NEG_INFINITY, |m, &x| {
        let x = x.to_f64();
        if m.is_nan() || x.is_nan() {
            f64::NAN
        } else {
            m.max(x)
        }
    });
    if !m.is_finite() {
        return m;
    }
    m + pairwise_sum(xs, |x| (x.to_f64() - m).exp()).ln()
}

/// The per-lane results, or an error if a lane was empty (no identity).
pub(super) fn non_empty<O>(op: &str, lanes: Vec<Option<O>>) -> Result<Vec<O>> {
    let values: Option<Vec<O>> = lanes.into_iter().collect();
    values.ok_or_else(|| TensorError::value(op, "zero-size reduction has no identity"))
}

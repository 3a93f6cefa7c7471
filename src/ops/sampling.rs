//! Sampling from the random stream: `permutation`, `choice`, `bernoulli` and
//! `multinomial`. The stream's words are drawn by `kernels::elementwise::random::fill`
//! (fixed chunks, so they never depend on the thread count); what is done with them
//! is serial and stated here and in lang/SPEC.md ("Random numbers"), so a reader can
//! reproduce every result. Every argument is checked before anything is drawn, so a
//! failed call leaves the stream where it was.

use super::binary::map_as;
use super::index::{index_get, Index};
use super::random::{float_dtype, rand};
use super::{elems, output_buffer};
use crate::kernels::elementwise::random::fill as random_fill;
use crate::kernels::reduce::any;
use crate::tensor::random::{self, RandomState};
use crate::tensor::{DType, Elem, Result, Tensor, TensorError};

/// What `permutation` and `choice` draw from: `n` (the integers 0..n) or the rows of a
/// tensor along axis 0.
#[derive(Clone, Copy, Debug)]
pub enum Population<'a> {
    Range(i64),
    Rows(&'a Tensor),
}

impl Population<'_> {
    /// The number of items; `op` names the error for a negative `n` or a 0-d tensor.
    fn len(self, op: &str) -> Result<usize> {
        match self {
            Population::Range(n) => usize::try_from(n)
                .map_err(|_| TensorError::value(op, format!("`n` must not be negative, got {n}"))),
            Population::Rows(x) => x.shape().first().copied().ok_or_else(|| {
                TensorError::shape(op, "x must be an integer or have at least one dimension")
            }),
        }
    }

    /// The items at `indices` (an i64 tensor): the indices themselves for a range,
    /// `x[indices]` (rows along axis 0) for a tensor.
    fn take(self, indices: Tensor) -> Result<Tensor> {
        match self {
            Population::Range(_) => Ok(indices),
            Population::Rows(x) => index_get(x, &[Index::Tensor(indices)]).map_err(|e| e.error),
        }
    }
}

/// NumPy's `permutation`: the integers 0..n in a random order, or a copy of `x` with
/// its rows (axis 0) in a random order. The order is `choice`'s without replacement
/// taking every item (forward Fisher–Yates, see `shuffled_indices`).
pub fn permutation(rng: &mut RandomState, op: &str, population: Population) -> Result<Tensor> {
    let n = population.len(op)?;
    let order = shuffled_indices(rng, op, n, n)?;
    population.take(Tensor::from_vec(order, &[n])?)
}

/// NumPy's `choice(a, size, replace, p)`: `size` items (a 0-d result when `size` is
/// none) drawn from the population, with or without replacement, uniformly or with
/// the probabilities `p` (1-D, one per item, non-negative, finite, summing to 1).
pub fn choice(
    rng: &mut RandomState,
    population: Population,
    size: Option<&[usize]>,
    replace: bool,
    p: Option<&Tensor>,
) -> Result<Tensor> {
    const OP: &str = "choice";
    let n = population.len(OP)?;
    if let Population::Rows(x) = population {
        if x.ndim() != 1 {
            return Err(TensorError::shape(OP, "x must be 1-dimensional"));
        }
    }
    let shape = size.unwrap_or(&[]);
    let k = crate::tensor::budget::check(OP, shape, DType::I64)?;
    let weights = p.map(|p| choice_weights(p, n)).transpose()?;
    if n == 0 && k > 0 {
        return Err(TensorError::value(
            OP,
            "cannot take a sample from an empty population",
        ));
    }
    let indices = match (replace, &weights) {
        (true, None) => {
            let words = draw_words(rng, OP, k)?;
            words
                .iter()
                .map(|&w| random::below(w, n as u64) as i64)
                .collect()
        }
        (true, Some(w)) => Cdf::new(w).sample(&draw_uniforms(rng, OP, k)?),
        (false, None) => {
            if k > n {
                return Err(larger_sample(OP, k, n));
            }
            shuffled_indices(rng, OP, n, k)?
        }
        (false, Some(w)) => {
            let positive = w.iter().filter(|&&v| v > 0.0).count();
            if k > positive {
                let msg =
                    format!("fewer nonzero entries in `p` ({positive}) than the sample size {k}");
                return Err(TensorError::value(OP, msg));
            }
            race(w, &draw_exponentials(rng, OP, n)?, k)
        }
    };
    population.take(Tensor::from_vec(indices, shape)?)
}

/// `p`'s values for `choice` as f64, checked as NumPy checks them: 1-D of the
/// population's length, finite, non-negative, summing to 1 within
/// max(sqrt(f64 eps), sqrt(eps of p's float dtype)).
fn choice_weights(p: &Tensor, n: usize) -> Result<Vec<f64>> {
    if p.shape() != [n] {
        let msg = format!(
            "`p` must be 1-D with one probability per item ({n}), got shape {:?}",
            p.shape()
        );
        return Err(TensorError::shape("choice", msg));
    }
    let w = p.to_vec::<f64>();
    check_weights("choice", "`p`", &w)?;
    let eps = match p.dtype() {
        DType::F16 => 2f64.powi(-10),
        DType::BF16 => 2f64.powi(-7),
        DType::F32 => 2f64.powi(-23),
        _ => f64::EPSILON,
    };
    let sum: f64 = w.iter().sum();
    if (sum - 1.0).abs() > eps.sqrt() {
        let msg = format!("the probabilities `p` do not sum to 1 (they sum to {sum})");
        return Err(TensorError::value("choice", msg));
    }
    Ok(w)
}

/// An error unless every weight is finite and non-negative.
fn check_weights(op: &str, what: &str, w: &[f64]) -> Result<()> {
    match w.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        Some(v) => Err(TensorError::value(
            op,
            format!("{what} must hold finite, non-negative probabilities, got {v}"),
        )),
        None => Ok(()),
    }
}

fn larger_sample(op: &str, k: usize, n: usize) -> TensorError {
    TensorError::value(
        op,
        format!("cannot take a larger sample ({k}) than the population ({n}) without replacement"),
    )
}

/// PyTorch's `bernoulli`: 1 where `u < p` and 0 elsewhere, in p's (float) dtype,
/// where `u` is `rand(p.shape, dtype=f64)` (the same blocks) and the comparison is in
/// f64. Every p must be in [0, 1].
pub fn bernoulli(rng: &mut RandomState, p: &Tensor) -> Result<Tensor> {
    const OP: &str = "bernoulli";
    float_dtype(OP, p.dtype())?;
    let pf = p.to_dtype(DType::F64);
    if any(elems::<f64>(OP, &pf)?, pf.layout(), |v| {
        !(0.0..=1.0).contains(&v)
    }) {
        return Err(TensorError::value(
            OP,
            "`p` must hold probabilities in [0, 1]",
        ));
    }
    let u = rand(rng, p.shape(), DType::F64)?;
    let (u, pf) = (super::Operand::Tensor(&u), super::Operand::Tensor(&pf));
    crate::dispatch!(p.dtype(), T => {
        map_as(OP, u, pf, p.shape(), |u: f64, p: f64| T::from_f64(f64::from(u8::from(u < p))))
    })
}

/// PyTorch's `multinomial(probs, num_samples, replacement)`: for each row of `probs`
/// (1-D, or 2-D with one distribution per row; float, finite, non-negative, not all
/// zero; they need not sum to 1), `num_samples` category indices (i64). With
/// replacement, sample s of row r is `Cdf::sample` of uniform number r·num_samples +
/// s; without, the first `num_samples` of the row's exponential race (`race`) over
/// exponential numbers r·C + c (C categories).
pub fn multinomial(
    rng: &mut RandomState,
    probs: &Tensor,
    num_samples: i64,
    replacement: bool,
) -> Result<Tensor> {
    const OP: &str = "multinomial";
    float_dtype(OP, probs.dtype())?;
    let (rows, cats, shape) = match *probs.shape() {
        [c] => (1, c, vec![]),
        [r, c] => (r, c, vec![r]),
        _ => return Err(TensorError::shape(OP, "`probs` must be 1-D or 2-D")),
    };
    let k = match usize::try_from(num_samples) {
        Ok(k) if k > 0 => k,
        _ => {
            let msg = format!("`num_samples` must be positive, got {num_samples}");
            return Err(TensorError::value(OP, msg));
        }
    };
    let w = probs.to_vec::<f64>();
    check_weights(OP, "`probs`", &w)?;
    let row = |r: usize| &w[r * cats..(r + 1) * cats];
    for r in 0..rows {
        let positive = row(r).iter().filter(|&&v| v > 0.0).count();
        if positive == 0 {
            let msg = "a row of `probs` sums to 0: it is not a distribution";
            return Err(TensorError::value(OP, msg));
        }
        if !replacement && k > positive {
            let msg = format!(
                "cannot take {k} samples without replacement from a row with {positive} nonzero probabilities"
            );
            return Err(TensorError::value(OP, msg));
        }
    }
    let shape = [shape, vec![k]].concat();
    let mut out = Vec::with_capacity(crate::tensor::budget::check(OP, &shape, DType::I64)?);
    if replacement {
        let u = draw_uniforms(rng, OP, rows * k)?;
        for r in 0..rows {
            out.extend(Cdf::new(row(r)).sample(&u[r * k..(r + 1) * k]));
        }
    } else {
        let e = draw_exponentials(rng, OP, rows * cats)?;
        for r in 0..rows {
            out.extend(race(row(r), &e[r * cats..(r + 1) * cats], k));
        }
    }
    Tensor::from_vec(out, &shape)
}

/// Sampling by inverse CDF: the cumulative sums of the weights (sequential, in f64).
struct Cdf {
    sums: Vec<f64>,
    /// The last index with a positive weight, for a `u · total` that rounds up to
    /// the total.
    last: usize,
}

impl Cdf {
    fn new(weights: &[f64]) -> Cdf {
        let sums: Vec<f64> = weights
            .iter()
            .scan(0.0, |acc, &w| {
                *acc += w;
                Some(*acc)
            })
            .collect();
        let last = weights.iter().rposition(|&w| w > 0.0).unwrap_or(0);
        Cdf { sums, last }
    }

    /// For each uniform `u` in [0, 1): the first index whose cumulative sum exceeds
    /// `u · total` (so zero weights are never picked).
    fn sample(&self, uniforms: &[f64]) -> Vec<i64> {
        let total = self.sums.last().copied().unwrap_or(0.0);
        let pick = |u: f64| {
            let at = self.sums.partition_point(|&c| c <= u * total);
            at.min(self.last) as i64
        };
        uniforms.iter().map(|&u| pick(u)).collect()
    }
}

/// Weighted sampling without replacement by an exponential race (Efraimidis–Spirakis,
/// as PyTorch's multinomial): item i finishes at `e_i / w_i`; the first `k` to finish,
/// in finishing order (ties to the lower index), are the sample. A zero weight never
/// finishes. Equivalent to drawing one item at a time with probability proportional
/// to the weights left.
fn race(weights: &[f64], exponentials: &[f64], k: usize) -> Vec<i64> {
    let finish = |i: usize| {
        if weights[i] > 0.0 {
            exponentials[i] / weights[i]
        } else {
            f64::INFINITY
        }
    };
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| finish(a).total_cmp(&finish(b)).then(a.cmp(&b)));
    order.truncate(k);
    order.into_iter().map(|i| i as i64).collect()
}

/// The first `k` items of a forward Fisher–Yates shuffle of 0..n: for i = 0, 1, ...,
/// swap item i with item `i + below(word_i, n - i)`, word_i being the stream's i-th
/// 64-bit word; the last step (i = n - 1) is always a no-op and draws nothing, so
/// min(k, n - 1) words are read.
fn shuffled_indices(rng: &mut RandomState, op: &str, n: usize, k: usize) -> Result<Vec<i64>> {
    let mut items = output_buffer(op, &[n], 0i64)?;
    for (i, v) in items.iter_mut().enumerate() {
        *v = i as i64;
    }
    let words = draw_words(rng, op, k.min(n.saturating_sub(1)))?;
    for (i, &w) in words.iter().enumerate() {
        let j = i + random::below(w, (n - i) as u64) as usize;
        items.swap(i, j);
    }
    items.truncate(k);
    Ok(items)
}

/// The next `n` values of the stream, two per block, made by `each` from a 64-bit word
/// (`hi << 32 | lo`, as `rand` f64 and `randint` read them).
fn draw<T: Elem>(
    rng: &mut RandomState,
    op: &str,
    n: usize,
    each: impl Fn(u32, u32) -> T + Sync,
) -> Result<Vec<T>> {
    let mut out = output_buffer(op, &[n], T::default())?;
    random_fill(rng, &mut out, |w| [each(w[0], w[1]), each(w[2], w[3])]);
    Ok(out)
}

fn draw_words(rng: &mut RandomState, op: &str, n: usize) -> Result<Vec<u64>> {
    draw(rng, op, n, random::word64)
}

/// Uniform f64 values in [0, 1), as `rand(dtype=f64)` draws them.
fn draw_uniforms(rng: &mut RandomState, op: &str, n: usize) -> Result<Vec<f64>> {
    draw(rng, op, n, random::uniform_f64)
}

fn draw_exponentials(rng: &mut RandomState, op: &str, n: usize) -> Result<Vec<f64>> {
    draw(rng, op, n, random::exponential)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> RandomState {
        RandomState::from_seed(11)
    }

    #[test]
    fn permutations_are_permutations_and_choice_without_replacement_is_a_prefix() {
        for n in [0, 1, 2, 7, 1000] {
            let p = permutation(&mut rng(), "permutation", Population::Range(n)).unwrap();
            let mut v = p.to_vec::<i64>();
            v.sort();
            assert_eq!(v, (0..n).collect::<Vec<_>>());
            let c = choice(
                &mut rng(),
                Population::Range(n),
                Some(&[n as usize / 2]),
                false,
                None,
            )
            .unwrap();
            assert_eq!(c.to_vec::<i64>(), p.to_vec::<i64>()[..n as usize / 2]);
        }
        let mut r = rng();
        permutation(&mut r, "permutation", Population::Range(7)).unwrap();
        assert_eq!(r.counter, 3, "6 words, two per block");
        let x = Tensor::from_vec((0..12).map(f64::from).collect::<Vec<_>>(), &[4, 3]).unwrap();
        let rows = permutation(&mut rng(), "shuffle", Population::Rows(&x)).unwrap();
        let order = permutation(&mut rng(), "permutation", Population::Range(4)).unwrap();
        let want: Vec<f64> = order
            .to_vec::<i64>()
            .iter()
            .flat_map(|&i| (0..3).map(move |j| (i * 3 + j) as f64))
            .collect();
        assert_eq!((rows.shape(), rows.to_vec::<f64>()), (&[4, 3][..], want));
    }

    #[test]
    fn weighted_draws_skip_zero_weights() {
        let cdf = Cdf::new(&[0.0, 2.0, 0.0, 1.0, 0.0]);
        assert_eq!(
            cdf.sample(&[0.0, 0.5, 0.66, 0.67, 0.999_999_999_999]),
            [1, 1, 1, 3, 3]
        );
        assert_eq!(race(&[0.0, 1.0, 1.0], &[0.0, 2.0, 1.0], 2), [2, 1]);
        assert_eq!(race(&[1.0, 1.0], &[1.0, 1.0], 2), [0, 1]);
        let p = Tensor::from_vec(vec![0.0f64, 0.0, 1.0], &[3]).unwrap();
        for replace in [true, false] {
            let c = choice(
                &mut rng(),
                Population::Range(3),
                Some(&[1]),
                replace,
                Some(&p),
            )
            .unwrap();
            assert_eq!(c.to_vec::<i64>(), [2]);
        }
    }

    #[test]
    fn bad_arguments_draw_nothing() {
        let mut r = rng();
        let p = Tensor::from_vec(vec![0.5f32, 0.6], &[2]).unwrap();
        let m = Tensor::from_vec(vec![0.0f32, 0.0], &[1, 2]).unwrap();
        assert!(choice(&mut r, Population::Range(2), None, true, Some(&p)).is_err());
        assert!(choice(&mut r, Population::Range(2), Some(&[3]), false, None).is_err());
        assert!(choice(&mut r, Population::Range(0), None, true, None).is_err());
        assert!(choice(&mut r, Population::Range(-1), None, true, None).is_err());
        assert!(bernoulli(&mut r, &Tensor::from_vec(vec![1.5f32], &[1]).unwrap()).is_err());
        assert!(bernoulli(&mut r, &Tensor::from_vec(vec![1i64], &[1]).unwrap()).is_err());
        assert!(multinomial(&mut r, &m, 1, true).is_err());
        assert!(multinomial(&mut r, &p, 3, false).is_err());
        assert!(multinomial(&mut r, &p, 0, true).is_err());
        assert!(permutation(
            &mut r,
            "permutation",
            Population::Rows(&Tensor::scalar(1.0f32))
        )
        .is_err());
        assert_eq!(r, rng());
    }
}

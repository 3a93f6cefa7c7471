//! `einsum` as NumPy's: subscripts with `...` (broadcast, right-aligned), repeated
//! labels in one operand (diagonals), the implicit output (labels seen once, sorted,
//! after the ellipsis). Labels no other operand or the output needs are summed first;
//! then the pair whose result is smallest is contracted, one GEMM per pair, until
//! one operand is left.

use super::contract::{contract, Roles};
use crate::ops::algebra::Algebra;
use crate::tensor::shape::shape_str;
use crate::tensor::{Result, TensorError};

const OP: &str = "einsum";

/// A subscript label: a letter's code, or `ELLIPSIS + k` for the k-th axis of the
/// broadcast part counted from the right.
type Label = u32;
const ELLIPSIS: Label = 1 << 16;

fn error(msg: impl Into<String>) -> TensorError {
    TensorError::value(OP, msg)
}

/// The labels of one term (`"ij"`, `"...k"`) for an operand of `ndim` axes.
fn term_labels(term: &str, ndim: usize) -> Result<Vec<Label>> {
    let explicit = term.chars().filter(|c| *c != '.').count();
    let mut labels = Vec::with_capacity(ndim);
    let mut rest = term;
    let mut ellipsis = false;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("...") {
            if ellipsis {
                return Err(error(format!("\"{term}\" has two ellipses")));
            }
            ellipsis = true;
            let Some(broadcast) = ndim.checked_sub(explicit) else {
                return Err(error(format!(
                    "\"{term}\" names more axes than the operand's {ndim}"
                )));
            };
            labels.extend((0..broadcast).rev().map(|k| ELLIPSIS + k as Label));
            rest = after;
        } else if c.is_ascii_alphabetic() {
            labels.push(c as Label);
            rest = &rest[1..];
        } else {
            return Err(error(format!(
                "invalid subscript '{c}' in \"{term}\" (letters and ... only)"
            )));
        }
    }
    if labels.len() != ndim {
        return Err(error(format!(
            "\"{term}\" names {} axes but the operand has {ndim}",
            labels.len()
        )));
    }
    Ok(labels)
}

/// The output labels: as written after `->`, or implicitly the ellipsis then the
/// letters that appear once, in alphabetical order.
fn output_labels(out: Option<&str>, inputs: &[Vec<Label>], broadcast: usize) -> Result<Vec<Label>> {
    let count = |l: Label| inputs.iter().flatten().filter(|&&x| x == l).count();
    let ellipsis = (0..broadcast).rev().map(|k| ELLIPSIS + k as Label);
    let Some(out) = out else {
        let mut letters: Vec<Label> = inputs
            .iter()
            .flatten()
            .copied()
            .filter(|&l| l < ELLIPSIS && count(l) == 1)
            .collect();
        letters.sort_unstable();
        return Ok(ellipsis.chain(letters).collect());
    };
    if out.matches("...").count() > 1 {
        return Err(error(format!("\"{out}\" has two ellipses")));
    }
    let letters = out.replace("...", "");
    let labels = term_labels(&letters, letters.len())?;
    for (i, &l) in labels.iter().enumerate() {
        if count(l) == 0 {
            return Err(error(format!(
                "output subscript '{}' is not in any input",
                char::from_u32(l).unwrap_or('?')
            )));
        }
        if labels[..i].contains(&l) {
            return Err(error(format!(
                "output subscript '{}' appears twice",
                char::from_u32(l).unwrap_or('?')
            )));
        }
    }
    // The ellipsis goes where it was written (at the front when it was not, which
    // NumPy allows only for operands without broadcast axes).
    let at = out.find("...").map_or(0, |p| out[..p].len());
    let mut result: Vec<Label> = labels[..at].to_vec();
    result.extend(ellipsis);
    result.extend_from_slice(&labels[at..]);
    if !out.contains("...") && broadcast > 0 {
        return Err(error(
            "the output needs \"...\" when an input's ellipsis covers axes",
        ));
    }
    Ok(result)
}

/// One operand in the contraction: its tensor and the label of each axis.
struct Term<T> {
    x: T,
    labels: Vec<Label>,
}

impl<T: Algebra> Term<T> {
    /// Takes the diagonal of every repeated label until each appears once.
    fn diagonals(mut self) -> std::result::Result<Term<T>, T::Error> {
        while let Some((p, q)) = repeated(&self.labels) {
            if self.x.dims()[p] != self.x.dims()[q] {
                return Err(error(format!(
                    "a repeated subscript spans axes of sizes {} and {}",
                    self.x.dims()[p],
                    self.x.dims()[q]
                ))
                .into());
            }
            let l = self.labels[p];
            self.x = self.x.diagonal_of(0, p as i64, q as i64)?;
            self.labels.remove(q);
            self.labels.remove(p);
            self.labels.push(l);
        }
        Ok(self)
    }

    /// Sums the axes whose labels `keep` rejects.
    fn sum_unneeded(self, keep: impl Fn(Label) -> bool) -> std::result::Result<Term<T>, T::Error> {
        let axes: Vec<i64> = (0..self.labels.len())
            .filter(|&d| !keep(self.labels[d]))
            .map(|d| d as i64)
            .collect();
        if axes.is_empty() {
            return Ok(self);
        }
        let labels = self.labels.iter().copied().filter(|&l| keep(l)).collect();
        Ok(Term {
            x: self.x.sum_over(&axes)?,
            labels,
        })
    }

    fn size(&self, l: Label) -> usize {
        self.labels
            .iter()
            .position(|&x| x == l)
            .map_or(1, |d| self.x.dims()[d])
    }
}

/// The first pair of axes with the same label.
fn repeated(labels: &[Label]) -> Option<(usize, usize)> {
    (0..labels.len()).find_map(|q| (0..q).find(|&p| labels[p] == labels[q]).map(|p| (p, q)))
}

/// `numpy.einsum(spec, *xs)`.
pub fn einsum<T: Algebra>(spec: &str, xs: &[T]) -> std::result::Result<T, T::Error> {
    let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, out) = match spec.split_once("->") {
        Some((l, o)) => (l, Some(o)),
        None => (spec.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != xs.len() {
        return Err(error(format!(
            "\"{spec}\" has {} operand terms but {} tensors were given",
            terms.len(),
            xs.len()
        ))
        .into());
    }
    let inputs: Vec<Vec<Label>> = terms
        .iter()
        .zip(xs)
        .map(|(t, x)| term_labels(t, x.dims().len()))
        .collect::<Result<_>>()?;
    let broadcast = inputs
        .iter()
        .flatten()
        .filter(|&&l| l >= ELLIPSIS)
        .map(|&l| (l - ELLIPSIS) as usize + 1)
        .max()
        .unwrap_or(0);
    let output = output_labels(out, &inputs, broadcast)?;
    check_sizes(&spec, xs, &inputs)?;
    let terms: Vec<Term<T>> = xs
        .iter()
        .zip(inputs)
        .map(|(x, labels)| {
            Term {
                x: x.clone(),
                labels,
            }
            .diagonals()
        })
        .collect::<std::result::Result<_, _>>()?;
    // Sum each label only one operand has and the output does not.
    let label_sets: Vec<Vec<Label>> = terms.iter().map(|t| t.labels.clone()).collect();
    let mut live: Vec<Term<T>> = terms
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            t.sum_unneeded(|l| {
                output.contains(&l)
                    || label_sets
                        .iter()
                        .enumerate()
                        .any(|(j, ls)| j != i && ls.contains(&l))
            })
        })
        .collect::<std::result::Result<_, _>>()?;
    while live.len() > 1 {
        let (i, j) = cheapest_pair(&live, &output);
        let b = live.remove(j);
        let a = live.remove(i);
        let needed_later =
            |l: Label| output.contains(&l) || live.iter().any(|t| t.labels.contains(&l));
        live.push(contract_terms(a, b, needed_later)?);
    }
    let Some(last) = live.pop() else {
        return Err(error("einsum needs at least one operand").into());
    };
    let last = last.sum_unneeded(|l| output.contains(&l))?;
    let order: Vec<i64> = output
        .iter()
        .map(|l| last.labels.iter().position(|x| x == l).unwrap_or(0) as i64)
        .collect();
    last.x.permute_to(&order)?.contiguous_copy()
}

/// Every label's sizes agree across operands (or are 1, which broadcasts).
fn check_sizes<T: Algebra>(spec: &str, xs: &[T], inputs: &[Vec<Label>]) -> Result<()> {
    for (i, (x, labels)) in xs.iter().zip(inputs).enumerate() {
        for (y, other) in xs.iter().zip(inputs).skip(i + 1) {
            for (d, l) in labels.iter().enumerate() {
                for (e, _) in other.iter().enumerate().filter(|(_, m)| *m == l) {
                    let (p, q) = (x.dims()[d], y.dims()[e]);
                    if p != q && p != 1 && q != 1 {
                        return Err(TensorError::shape(
                            OP,
                            format!(
                                "\"{spec}\": operands of shapes {} and {} disagree on the size of a subscript ({p} and {q})",
                                shape_str(x.dims()),
                                shape_str(y.dims())
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The pair of operands whose contraction gives the fewest elements (the first
/// such pair in order: the plan depends on the shapes only).
fn cheapest_pair<T: Algebra>(live: &[Term<T>], output: &[Label]) -> (usize, usize) {
    let mut best = (0, 1);
    let mut best_size = u128::MAX;
    for i in 0..live.len() {
        for j in i + 1..live.len() {
            let needed = |l: Label| {
                output.contains(&l)
                    || live
                        .iter()
                        .enumerate()
                        .any(|(k, t)| k != i && k != j && t.labels.contains(&l))
            };
            let (a, b) = (&live[i], &live[j]);
            let mut size: u128 = 1;
            let mut seen = Vec::new();
            for &l in a.labels.iter().chain(&b.labels) {
                let summed = a.labels.contains(&l) && b.labels.contains(&l) && !needed(l);
                if !summed && !seen.contains(&l) {
                    seen.push(l);
                    size = size.saturating_mul(a.size(l).max(b.size(l)) as u128);
                }
            }
            if size < best_size {
                (best, best_size) = ((i, j), size);
            }
        }
    }
    best
}

/// Contracts two operands: labels in both become the batch when still needed and are
/// summed otherwise; the rest are kept.
fn contract_terms<T: Algebra>(
    a: Term<T>,
    b: Term<T>,
    needed_later: impl Fn(Label) -> bool,
) -> std::result::Result<Term<T>, T::Error> {
    let shared: Vec<Label> = a
        .labels
        .iter()
        .copied()
        .filter(|l| b.labels.contains(l))
        .collect();
    let (batch, summed): (Vec<Label>, Vec<Label>) = shared.iter().partition(|&&l| needed_later(l));
    let axes = |t: &Term<T>, ls: &[Label]| -> Vec<usize> {
        ls.iter()
            .map(|l| t.labels.iter().position(|x| x == l).unwrap_or(0))
            .collect()
    };
    let ra = Roles::new(a.labels.len(), axes(&a, &batch), axes(&a, &summed));
    let rb = Roles::new(b.labels.len(), axes(&b, &batch), axes(&b, &summed));
    let labels = batch
        .iter()
        .copied()
        .chain(ra.kept.iter().map(|&d| a.labels[d]))
        .chain(rb.kept.iter().map(|&d| b.labels[d]))
        .collect();
    Ok(Term {
        x: contract(&a.x, &ra, &b.x, &rb)?,
        labels,
    })
}

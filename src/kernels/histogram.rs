//! Histogram bin assignment as NumPy's `histogram` does it: each value goes to the bin
//! `i` with `edges[i] <= x < edges[i + 1]`, the last bin also taking its right edge;
//! values outside the edges, and NaN, go nowhere.

/// Equal-width bins: NumPy first estimates the bin arithmetically, in the edges'
/// dtype, then corrects the estimate by one against the edges.
pub struct EqualBins<'a> {
    /// The `n + 1` edges, as values of the edges' dtype.
    pub edges: &'a [f64],
    /// The range's lower end and width, rounded to the edges' dtype.
    pub first: f64,
    pub width: f64,
    /// Rounds each arithmetic step to the edges' dtype.
    pub round: fn(f64) -> f64,
}

impl EqualBins<'_> {
    /// The bin of `x` (already rounded to the edges' dtype), or `None` outside.
    pub fn bin_of(&self, x: f64) -> Option<usize> {
        let n = self.edges.len() - 1;
        let (first, last) = (self.edges[0], self.edges[n]);
        if !(x >= first && x <= last) {
            return None;
        }
        let r = self.round;
        let estimate = r(r(r(x - self.first) / self.width) * n as f64);
        // Truncation toward zero as NumPy's astype(intp); the value is in [0, n] up to
        // rounding, clamped so that a pathological estimate cannot index out of range.
        let mut i = (estimate as i64).clamp(0, n as i64 - 1) as usize;
        if x < self.edges[i] && i > 0 {
            i -= 1;
        } else if i + 1 < n && x >= self.edges[i + 1] {
            i += 1;
        }
        Some(i)
    }
}

/// The bin of `x` among non-decreasing `edges` (at least two), or `None` outside:
/// what NumPy's `searchsorted` of the sorted values against the edges counts.
pub fn edge_bin_of(edges: &[f64], x: f64) -> Option<usize> {
    let n = edges.len() - 1;
    if !(x >= edges[0] && x <= edges[n]) {
        return None;
    }
    // The last edge `e` with `e <= x`; x equal to the last edge joins the last bin.
    let at_or_below = edges.partition_point(|&e| e <= x);
    Some(at_or_below.saturating_sub(1).min(n - 1))
}

/// Adds each value's weight (1 when `weights` is `None`) to its bin's total, in
/// order: `bin` maps a value to its bin or to none.
pub fn count_into<W: Copy + std::ops::AddAssign>(
    totals: &mut [W],
    values: &[f64],
    weights: Option<&[W]>,
    one: W,
    bin: impl Fn(f64) -> Option<usize>,
) {
    for (k, &x) in values.iter().enumerate() {
        if let Some(i) = bin(x) {
            totals[i] += weights.map_or(one, |w| w[k]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_take_the_left_value_and_the_last_takes_both() {
        let edges = [0.0, 1.0, 1.0, 3.0];
        let bins: Vec<_> = [-0.5, 0.0, 0.5, 1.0, 2.0, 3.0, 3.5, f64::NAN]
            .iter()
            .map(|&x| edge_bin_of(&edges, x))
            .collect();
        assert_eq!(
            bins,
            [
                None,
                Some(0),
                Some(0),
                Some(2),
                Some(2),
                Some(2),
                None,
                None
            ]
        );
        let equal = EqualBins {
            edges: &[0.0, 0.25, 0.5, 0.75, 1.0],
            first: 0.0,
            width: 1.0,
            round: |v| v,
        };
        for x in [0.0, 0.1, 0.25, 0.49, 0.5, 0.99, 1.0, -0.1, 1.1, f64::NAN] {
            assert_eq!(equal.bin_of(x), edge_bin_of(equal.edges, x), "{x}");
        }
        let mut totals = [0i64; 3];
        count_into(&mut totals, &[0.5, 2.5, 1.0, 9.0], None, 1, |x| {
            edge_bin_of(&edges, x)
        });
        assert_eq!(totals, [1, 0, 2]);
    }
}

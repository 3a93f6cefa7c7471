//! The data of one figure: a line series, a histogram or a heatmap. Renderers
//! read it; nothing here draws. Non-finite values (NaN, ±inf) are kept in the data
//! and skipped by every renderer and by the axis ranges.

use super::scale::Range;

/// The most bins `hist` accepts (each bin is one counter and at least one drawn column).
pub const MAX_BINS: usize = 100_000;

/// One figure, as the last `plot`, `hist` or `imshow` call made it.
#[derive(Clone, Debug, PartialEq)]
pub enum Figure {
    /// A line through the points (x\[i\], y\[i\]); a non-finite coordinate breaks the line.
    Line { x: Vec<f64>, y: Vec<f64> },
    /// Bin `i` covers [edges\[i\], edges[i + 1]) (the last bin is closed); one
    /// more edge than counts.
    Hist { edges: Vec<f64>, counts: Vec<u64> },
    /// `rows × cols` values in row-major order; row 0 is drawn at the top.
    Heatmap {
        rows: usize,
        cols: usize,
        values: Vec<f64>,
    },
}

impl Figure {
    /// A histogram of the finite values of `data` in `bins` equal-width bins over
    /// [min, max], as `numpy.histogram(data, bins)` (a constant sample spans
    /// [v - 0.5, v + 0.5], an empty one [0, 1]). `bins` must be in 1..=MAX_BINS.
    pub fn histogram(data: &[f64], bins: usize) -> Figure {
        let bins = bins.clamp(1, MAX_BINS);
        let range = Range::of(data.iter().copied());
        let (lo, hi) = match range {
            None => (0.0, 1.0),
            Some(r) if r.lo == r.hi => (r.lo - 0.5, r.hi + 0.5),
            Some(r) => (r.lo, r.hi),
        };
        let edges = linspace(lo, hi, bins + 1);
        let mut counts = vec![0u64; bins];
        for &v in data.iter().filter(|v| v.is_finite()) {
            if let Some(c) = counts.get_mut(bin_index(v, &edges)) {
                *c += 1;
            }
        }
        Figure::Hist { edges, counts }
    }

    /// The range the x axis spans (None when nothing finite is drawn).
    pub fn x_range(&self) -> Option<Range> {
        match self {
            Figure::Line { x, y } => Range::of(finite_points(x, y).map(|(x, _)| x)),
            Figure::Hist { edges, .. } => Range::of(edges.iter().copied()),
            Figure::Heatmap { cols, .. } => Some(Range::new(0.0, *cols as f64)),
        }
    }

    /// The range the y axis spans: the data for a line, 0 to the largest count
    /// for a histogram, the row indices for a heatmap.
    pub fn y_range(&self) -> Option<Range> {
        match self {
            Figure::Line { x, y } => Range::of(finite_points(x, y).map(|(_, y)| y)),
            Figure::Hist { counts, .. } => {
                let top = counts.iter().copied().max().unwrap_or(0);
                Some(Range::new(0.0, top as f64))
            }
            Figure::Heatmap { rows, .. } => Some(Range::new(0.0, *rows as f64)),
        }
    }
}

/// The points whose coordinates are both finite.
fn finite_points<'a>(x: &'a [f64], y: &'a [f64]) -> impl Iterator<Item = (f64, f64)> + 'a {
    x.iter()
        .zip(y)
        .map(|(&x, &y)| (x, y))
        .filter(|(x, y)| x.is_finite() && y.is_finite())
}

/// The runs of consecutive finite points: a non-finite coordinate ends a run.
pub fn finite_runs(x: &[f64], y: &[f64]) -> Vec<Vec<(f64, f64)>> {
    let mut runs = vec![Vec::new()];
    for (&x, &y) in x.iter().zip(y) {
        if x.is_finite() && y.is_finite() {
            if let Some(run) = runs.last_mut() {
                run.push((x, y));
            }
        } else if runs.last().is_some_and(|r| !r.is_empty()) {
            runs.push(Vec::new());
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// `n` evenly spaced values from `lo` to `hi` inclusive, as numpy.linspace
/// (start + i * step, the last one exactly `hi`); `n >= 2`.
fn linspace(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let div = (n - 1) as f64;
    let step = (hi - lo) / div;
    (0..n)
        .map(|i| {
            if i + 1 == n {
                hi
            } else if step.is_finite() {
                lo + i as f64 * step
            } else {
                // A span wider than f64 holds: interpolate without forming hi - lo.
                let t = i as f64 / div;
                lo * (1.0 - t) + hi * t
            }
        })
        .collect()
}

/// NumPy's bin of `v` among equal-width `edges`: the computed index, then
/// corrected by one either way against the edges themselves; the last bin is closed.
fn bin_index(v: f64, edges: &[f64]) -> usize {
    let n = edges.len() - 1;
    let (lo, hi) = (edges[0], edges[n]);
    let frac = Range::new(lo, hi).frac(v);
    let mut i = ((frac * n as f64) as usize).min(n - 1);
    if v < edges[i] && i > 0 {
        i -= 1;
    }
    if v >= edges[i + 1] && i + 1 < n {
        i += 1;
    }
    i
}

/// Block means of a `rows × cols` grid shrunk to at most `max_rows × max_cols`
/// cells (non-finite values left out of each mean; a block with none is NaN).
/// Returns the new shape and values.
pub fn downsample(
    values: &[f64],
    rows: usize,
    cols: usize,
    max_rows: usize,
    max_cols: usize,
) -> (usize, usize, Vec<f64>) {
    let out_r = rows.min(max_rows.max(1));
    let out_c = cols.min(max_cols.max(1));
    let mut out = Vec::with_capacity(out_r * out_c);
    for r in 0..out_r {
        let (r0, r1) = (r * rows / out_r, (r + 1) * rows / out_r);
        for c in 0..out_c {
            let (c0, c1) = (c * cols / out_c, (c + 1) * cols / out_c);
            // Each value is scaled before summing, so huge values cannot overflow.
            let cells = ((r1 - r0) * (c1 - c0)) as f64;
            let (mut sum, mut n) = (0.0, 0usize);
            for row in r0..r1 {
                let block = values.get(row * cols + c0..row * cols + c1).unwrap_or(&[]);
                for &v in block.iter().filter(|v| v.is_finite()) {
                    sum += v / cells;
                    n += 1;
                }
            }
            out.push(if n == 0 {
                f64::NAN
            } else {
                sum * (cells / n as f64)
            });
        }
    }
    (out_r, out_c, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(fig: &Figure) -> &[u64] {
        match fig {
            Figure::Hist { counts, .. } => counts,
            _ => &[],
        }
    }

    #[test]
    fn histogram_matches_numpy() {
        // np.histogram([1, 2, 2, 3, 4, 10], bins=3) -> [4, 1, 1], edges [1, 4, 7, 10]
        let fig = Figure::histogram(&[1.0, 2.0, 2.0, 3.0, 4.0, 10.0], 3);
        assert_eq!(counts(&fig), [4, 1, 1]);
        let Figure::Hist { edges, .. } = fig else {
            unreachable!()
        };
        assert_eq!(edges, [1.0, 4.0, 7.0, 10.0]);
        // np.histogram(np.arange(10) / 10, bins=10): one per bin, despite 0.3 / 0.1 rounding.
        let tenths: Vec<f64> = (0..10).map(|i| f64::from(i) / 10.0).collect();
        assert_eq!(counts(&Figure::histogram(&tenths, 10)), [1; 10]);
    }

    #[test]
    fn histogram_edge_cases() {
        // Constant data spans v ± 0.5; empty data spans [0, 1]; non-finite is skipped.
        let fig = Figure::histogram(&[2.0, 2.0, f64::NAN, f64::INFINITY], 2);
        assert_eq!(counts(&fig), [0, 2]);
        assert_eq!(fig.x_range(), Some(Range::new(1.5, 2.5)));
        assert_eq!(counts(&Figure::histogram(&[], 4)), [0; 4]);
        let huge = Figure::histogram(&[-f64::MAX, f64::MAX, 0.0], 4);
        assert_eq!(counts(&huge), [1, 0, 1, 1]);
    }

    #[test]
    fn runs_break_at_non_finite_points() {
        let x = [0.0, 1.0, 2.0, 3.0, 4.0];
        let y = [1.0, f64::NAN, 2.0, 3.0, f64::INFINITY];
        assert_eq!(
            finite_runs(&x, &y),
            vec![vec![(0.0, 1.0)], vec![(2.0, 2.0), (3.0, 3.0)]]
        );
        assert!(finite_runs(&[], &[]).is_empty());
    }

    #[test]
    fn downsample_averages_blocks_and_skips_nan() {
        let v = [1.0, 3.0, f64::NAN, 5.0, 2.0, 4.0, f64::NAN, f64::NAN];
        let (r, c, out) = downsample(&v, 2, 4, 1, 2);
        assert_eq!((r, c), (1, 2));
        assert_eq!(out[0], 2.5);
        assert_eq!(out[1], 5.0);
        let (r, c, out) = downsample(&[f64::MAX, f64::MAX], 1, 2, 1, 1);
        assert_eq!((r, c, out), (1, 1, vec![f64::MAX]));
        assert_eq!(downsample(&[], 0, 3, 10, 10), (0, 3, vec![]));
    }
}

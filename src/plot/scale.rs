//! Axis arithmetic: data ranges, the position of a value in a range, "nice" tick
//! values and the short number labels every renderer prints.

/// A closed data range `lo <= hi` (equal for constant data).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub lo: f64,
    pub hi: f64,
}

impl Range {
    pub fn new(lo: f64, hi: f64) -> Range {
        Range { lo, hi }
    }

    /// The smallest range holding every finite value; None when there is none.
    pub fn of(values: impl IntoIterator<Item = f64>) -> Option<Range> {
        values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold(None, |r: Option<Range>, v| {
                Some(r.map_or(Range::new(v, v), |r| Range::new(r.lo.min(v), r.hi.max(v))))
            })
    }

    /// Where `v` lies: 0 at `lo`, 1 at `hi`; 0.5 for a zero-width range. Halving
    /// first keeps `hi - lo` finite even for ranges as wide as f64 allows.
    pub fn frac(&self, v: f64) -> f64 {
        let span = self.hi / 2.0 - self.lo / 2.0;
        if span > 0.0 {
            (v / 2.0 - self.lo / 2.0) / span
        } else {
            0.5
        }
    }

    /// Evenly spaced round values (steps of 1, 2 or 5 times a power of ten)
    /// inside the range, about `target` of them; the single value of a zero-width range.
    pub fn ticks(&self, target: usize) -> Vec<f64> {
        let span = self.hi / 2.0 - self.lo / 2.0;
        if span <= 0.0 || !span.is_finite() {
            return vec![self.lo];
        }
        let step = nice_step(2.0 * span / target.max(1) as f64);
        if !(step.is_finite() && step > 0.0) {
            return vec![self.lo, self.hi];
        }
        let first = (self.lo / step).ceil();
        let last = (self.hi / step).floor();
        // A step from nice_step always gives a handful; the cap is only a guard.
        let count = (last - first + 1.0).clamp(0.0, 50.0) as usize;
        (0..count).map(|k| (first + k as f64) * step).collect()
    }
}

/// 1, 2 or 5 times a power of ten, the nearest at or above `raw`.
fn nice_step(raw: f64) -> f64 {
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// A short label for a value: integers as integers, otherwise four significant
/// digits, and exponent notation for very large or small magnitudes.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return trim_exp(&format!("{v:.3e}"));
    }
    let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
    trim_zeros(format!("{v:.decimals$}"))
}

/// A tick label: as many decimals as the tick spacing `step` needs.
pub fn fmt_tick(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) || !(1e-4..).contains(&step) {
        return fmt_num(v);
    }
    let decimals = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    format!("{v:.decimals$}")
}

/// The step between consecutive ticks (1 when there are fewer than two).
pub fn tick_step(ticks: &[f64]) -> f64 {
    match ticks {
        [a, b, ..] => b - a,
        _ => 1.0,
    }
}

/// "1.500" → "1.5", "2.000" → "2".
fn trim_zeros(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// "1.500e6" → "1.5e6".
fn trim_exp(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{e}", trim_zeros(m.to_string())),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_skip_non_finite_values() {
        assert_eq!(
            Range::of([3.0, f64::NAN, -1.0, f64::INFINITY]),
            Some(Range::new(-1.0, 3.0))
        );
        assert_eq!(Range::of([f64::NAN]), None);
        assert_eq!(Range::of([]), None);
    }

    #[test]
    fn frac_handles_zero_and_huge_ranges() {
        assert_eq!(Range::new(2.0, 2.0).frac(2.0), 0.5);
        assert_eq!(Range::new(0.0, 4.0).frac(1.0), 0.25);
        let wide = Range::new(-f64::MAX, f64::MAX);
        assert_eq!(wide.frac(0.0), 0.5);
        assert_eq!(wide.frac(f64::MAX), 1.0);
    }

    #[test]
    fn ticks_are_round_and_inside() {
        assert_eq!(
            Range::new(0.0, 1.0).ticks(5),
            [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(
            Range::new(-3.0, 97.0).ticks(5),
            [0.0, 20.0, 40.0, 60.0, 80.0]
        );
        assert_eq!(Range::new(5.0, 5.0).ticks(5), [5.0]);
        assert!(Range::new(-f64::MAX, f64::MAX).ticks(5).len() <= 50);
    }

    #[test]
    fn number_labels() {
        assert_eq!(fmt_num(99.0), "99");
        assert_eq!(fmt_num(-0.5), "-0.5");
        assert_eq!(fmt_num(0.123456), "0.1235");
        assert_eq!(fmt_num(12345.6), "12346");
        assert_eq!(fmt_num(2.5e9), "2.5e9");
        assert_eq!(fmt_num(1e-7), "1e-7");
        assert_eq!(fmt_num(f64::NAN), "NaN");
        assert_eq!(fmt_tick(0.6000000000000001, 0.2), "0.6");
        assert_eq!(fmt_tick(40.0, 20.0), "40");
    }
}

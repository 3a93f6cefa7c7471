//! Colours: the series colour and viridis, a perceptually uniform colormap for
//! heatmaps, sampled at five stops and interpolated linearly between them.

/// An 8-bit sRGB colour.
pub type Rgb = [u8; 3];

/// The colour of lines and bars (matplotlib's first series colour).
pub const SERIES: Rgb = [31, 119, 180];

/// Viridis at 0, 0.25, 0.5, 0.75 and 1.
const VIRIDIS: [Rgb; 5] = [
    [68, 1, 84],
    [59, 82, 139],
    [33, 145, 140],
    [94, 201, 98],
    [253, 231, 37],
];

/// The viridis colour at `t` in [0, 1] (clamped; NaN gives the low end).
pub fn viridis(t: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let pos = t * (VIRIDIS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(VIRIDIS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    std::array::from_fn(|k| {
        (f64::from(a[k]) + (f64::from(b[k]) - f64::from(a[k])) * f).round() as u8
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viridis_hits_its_stops_and_clamps() {
        assert_eq!(viridis(0.0), [68, 1, 84]);
        assert_eq!(viridis(0.5), [33, 145, 140]);
        assert_eq!(viridis(1.0), [253, 231, 37]);
        assert_eq!(viridis(7.0), viridis(1.0));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert_eq!(viridis(0.125), [64, 42, 112]);
    }
}

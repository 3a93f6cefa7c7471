//! Figures drawn as text: a braille line chart, block-character histogram bars
//! and a heatmap of shaded (or, when colour is allowed, coloured) cells. Only
//! finite values are drawn; a figure with none says so instead of drawing.

use std::fmt::Write;

use super::colormap::{viridis, Rgb, SERIES};
use super::figure::{downsample, finite_runs, Figure};
use super::raster::bresenham;
use super::scale::{fmt_num, Range};

/// Width of the drawing area, in characters.
const WIDTH: usize = 60;
/// Height of a line chart, in lines (four braille dots each).
const LINE_HEIGHT: usize = 15;
/// Height of a histogram, in lines (eight bar levels each).
const HIST_HEIGHT: usize = 10;
/// The largest heatmap drawn cell by cell; bigger ones are averaged in blocks.
const MAX_CELLS: (usize, usize) = (30, 40);
/// Shades from the lowest to the highest value when colour is off.
const RAMP: [char; 5] = [' ', '░', '▒', '▓', '█'];
/// A histogram bar's top, in eighths of a line.
const EIGHTHS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Whether and how to colour: ANSI 256-colour or 24-bit escapes, or plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMode {
    Off,
    Ansi256,
    TrueColor,
}

impl ColorMode {
    /// `text` in colour `c` (foreground, or background when `bg`).
    fn paint(self, text: &str, c: Rgb, bg: bool) -> String {
        let layer = if bg { 48 } else { 38 };
        match self {
            _ if text.is_empty() => String::new(),
            ColorMode::Off => text.to_string(),
            ColorMode::Ansi256 => format!("\x1b[{layer};5;{}m{text}\x1b[0m", ansi256(c)),
            ColorMode::TrueColor => {
                format!("\x1b[{layer};2;{};{};{}m{text}\x1b[0m", c[0], c[1], c[2])
            }
        }
    }
}

/// The nearest colour of the 6×6×6 cube of the 256-colour palette.
fn ansi256(c: Rgb) -> u16 {
    let level = |v: u8| (u16::from(v) * 5 + 127) / 255;
    16 + 36 * level(c[0]) + 6 * level(c[1]) + level(c[2])
}

/// The figure as lines of text, each ending in a newline.
pub fn render(fig: &Figure, color: ColorMode) -> String {
    match fig {
        Figure::Line { x, y } => line_chart(fig, x, y, color),
        Figure::Hist { edges, counts } => histogram(edges, counts, color),
        Figure::Heatmap { rows, cols, values } => heatmap(values, *rows, *cols, color),
    }
}

/// Rows of a chart with y labels in a left gutter, the x axis and its labels.
struct Chart {
    /// The drawn rows, top first (trailing blanks already trimmed).
    rows: Vec<String>,
    /// Label per row index (top row first).
    labels: Vec<(usize, String)>,
    /// The x range under the drawn columns.
    x: Range,
    width: usize,
}

impl Chart {
    fn finish(self) -> String {
        let gutter = self.labels.iter().map(|(_, l)| l.chars().count()).max();
        let gutter = gutter.unwrap_or(0);
        let mut out = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            let (label, tick) = match self.labels.iter().find(|(r, _)| *r == i) {
                Some((_, l)) => (l.as_str(), '┤'),
                None => ("", '│'),
            };
            let _ = writeln!(out, "{label:>gutter$} {tick}{row}");
        }
        let _ = writeln!(out, "{:gutter$} └{}", "", "─".repeat(self.width));
        let labels = if self.x.lo == self.x.hi {
            // One value, under the middle where it is drawn.
            let label = fmt_num(self.x.lo);
            let pad = (self.width / 2 + 1).saturating_sub(label.chars().count() / 2);
            format!("{:pad$}{label}", "")
        } else {
            let (left, right) = (fmt_num(self.x.lo), fmt_num(self.x.hi));
            let pad = self.width.saturating_sub(left.chars().count()) + 1;
            format!(" {left}{right:>pad$}")
        };
        let _ = writeln!(out, "{:gutter$} {labels}", "");
        out
    }
}

/// Labels for the top and bottom rows of `height` (the middle one when `lo == hi`).
fn y_labels(r: Range, height: usize) -> Vec<(usize, String)> {
    if r.lo == r.hi {
        vec![(height / 2, fmt_num(r.lo))]
    } else {
        vec![(0, fmt_num(r.hi)), (height - 1, fmt_num(r.lo))]
    }
}

fn line_chart(fig: &Figure, x: &[f64], y: &[f64], color: ColorMode) -> String {
    let (Some(xr), Some(yr)) = (fig.x_range(), fig.y_range()) else {
        return "(empty plot: no finite points)\n".to_string();
    };
    let (pw, ph) = (WIDTH * 2, LINE_HEIGHT * 4);
    let mut dots = vec![false; pw * ph];
    let to_dot = |(x, y): (f64, f64)| {
        let px = (xr.frac(x) * (pw - 1) as f64).round() as i64;
        let py = ((1.0 - yr.frac(y)) * (ph - 1) as f64).round() as i64;
        (px.clamp(0, pw as i64 - 1), py.clamp(0, ph as i64 - 1))
    };
    for run in finite_runs(x, y) {
        let pts: Vec<(i64, i64)> = run.into_iter().map(to_dot).collect();
        let first = pts.first().map(|&p| (p, p));
        for (a, b) in first
            .into_iter()
            .chain(pts.windows(2).map(|s| (s[0], s[1])))
        {
            for (px, py) in bresenham(a, b) {
                dots[py as usize * pw + px as usize] = true;
            }
        }
    }
    let rows = (0..LINE_HEIGHT)
        .map(|row| {
            let text: String = (0..WIDTH).map(|col| braille(&dots, pw, col, row)).collect();
            color.paint(text.trim_end(), SERIES, false)
        })
        .collect();
    Chart {
        rows,
        labels: y_labels(yr, LINE_HEIGHT),
        x: xr,
        width: WIDTH,
    }
    .finish()
}

/// The braille character for the 2×4 dots of character cell (col, row).
fn braille(dots: &[bool], pw: usize, col: usize, row: usize) -> char {
    // Unicode braille dot bits, by (dx, dy).
    const BITS: [[u32; 4]; 2] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]];
    let mut code = 0x2800;
    for (dx, bits) in BITS.iter().enumerate() {
        for (dy, bit) in bits.iter().enumerate() {
            if dots[(row * 4 + dy) * pw + col * 2 + dx] {
                code |= bit;
            }
        }
    }
    if code == 0x2800 {
        return ' ';
    }
    char::from_u32(code).unwrap_or(' ')
}

fn histogram(edges: &[f64], counts: &[u64], color: ColorMode) -> String {
    let bins = counts.len();
    // One column per bin, widened when there is room; summed when bins exceed WIDTH.
    let columns: Vec<u64> = if bins <= WIDTH {
        let per = WIDTH / bins.max(1);
        let bar = if per >= 3 { per - 1 } else { per };
        counts
            .iter()
            .flat_map(|&c| (0..per).map(move |i| if i < bar { c } else { 0 }))
            .collect()
    } else {
        (0..WIDTH)
            .map(|c| {
                counts[c * bins / WIDTH..(c + 1) * bins / WIDTH]
                    .iter()
                    .sum()
            })
            .collect()
    };
    let top = columns.iter().copied().max().unwrap_or(0);
    let levels: Vec<usize> = columns
        .iter()
        .map(|&c| {
            let level = (c as f64 / top.max(1) as f64 * (HIST_HEIGHT * 8) as f64).round();
            // A nonzero count shows at least a sliver.
            (level as usize).max(usize::from(c > 0))
        })
        .collect();
    let rows = (0..HIST_HEIGHT)
        .map(|row| {
            let floor = (HIST_HEIGHT - 1 - row) * 8;
            let text: String = levels
                .iter()
                .map(|&l| EIGHTHS[l.saturating_sub(floor).min(8)])
                .collect();
            color.paint(text.trim_end(), SERIES, false)
        })
        .collect();
    let mut labels = vec![(HIST_HEIGHT - 1, "0".to_string())];
    if top > 0 {
        labels.push((0, top.to_string()));
    }
    let mut out = Chart {
        rows,
        labels,
        x: Range::new(edges[0], edges[edges.len() - 1]),
        width: columns.len(),
    }
    .finish();
    if bins > WIDTH {
        let _ = writeln!(out, "({bins} bins drawn in {WIDTH} columns)");
    }
    out
}

fn heatmap(values: &[f64], rows: usize, cols: usize, color: ColorMode) -> String {
    if rows == 0 || cols == 0 {
        return format!("(empty image: shape [{rows}, {cols}])\n");
    }
    let (r, c, cells) = downsample(values, rows, cols, MAX_CELLS.0, MAX_CELLS.1);
    let Some(range) = Range::of(cells.iter().copied()) else {
        return format!("(empty image: no finite values among {rows}×{cols})\n");
    };
    let cell = |v: f64| -> String {
        if !v.is_finite() {
            return "··".to_string();
        }
        let t = range.frac(v);
        match color {
            ColorMode::Off => RAMP[(t * 4.0).round() as usize].to_string().repeat(2),
            _ => color.paint("  ", viridis(t), true),
        }
    };
    let mut out = String::new();
    for row in cells.chunks(c) {
        let line: String = row.iter().map(|&v| cell(v)).collect();
        let _ = writeln!(out, "{line}");
    }
    let scale: String = match color {
        ColorMode::Off => RAMP.iter().collect(),
        _ => (0..8)
            .map(|i| color.paint(" ", viridis(f64::from(i) / 7.0), true))
            .collect(),
    };
    let _ = write!(out, "{} [{scale}] {}", fmt_num(range.lo), fmt_num(range.hi));
    if (r, c) != (rows, cols) {
        let _ = write!(out, "  ({rows}×{cols} shown as {r}×{c} block means)");
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(y: &[f64]) -> String {
        let x: Vec<f64> = (0..y.len()).map(|i| i as f64).collect();
        render(&Figure::Line { x, y: y.to_vec() }, ColorMode::Off)
    }

    #[test]
    fn line_chart_has_labels_and_axis() {
        let text = line(&[0.0, 1.0, 4.0, 9.0]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), LINE_HEIGHT + 2);
        assert!(lines[0].starts_with("9 ┤"));
        assert!(lines[LINE_HEIGHT - 1].starts_with("0 ┤"));
        assert!(lines[LINE_HEIGHT].starts_with("  └"));
        assert!(lines[LINE_HEIGHT + 1].trim_end().ends_with('3'));
        assert!(!text.contains('\x1b'));
    }

    #[test]
    fn degenerate_lines_do_not_panic() {
        assert!(line(&[]).contains("no finite points"));
        assert!(line(&[f64::NAN, f64::INFINITY]).contains("no finite points"));
        let single = line(&[5.0]);
        assert!(single.contains("5 ┤"));
        assert!(single
            .chars()
            .any(|c| ('\u{2801}'..='\u{28ff}').contains(&c)));
        assert!(line(&[2.0, 2.0, 2.0]).contains("2 ┤"));
        assert!(line(&[-f64::MAX, f64::MAX]).contains("e308"));
    }

    #[test]
    fn histogram_bars_scale_to_the_top_count() {
        let fig = Figure::histogram(&[0.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0], 3);
        let text = render(&fig, ColorMode::Off);
        assert!(text.starts_with("4 ┤"));
        let many = render(&Figure::histogram(&[0.0, 1.0], 1000), ColorMode::Off);
        assert!(many.contains("(1000 bins drawn in 60 columns)"));
        let empty = render(&Figure::histogram(&[], 10), ColorMode::Off);
        assert!(empty.starts_with("  │\n"));
    }

    #[test]
    fn heatmap_shades_and_colours() {
        let fig = Figure::Heatmap {
            rows: 2,
            cols: 2,
            values: vec![0.0, 1.0, f64::NAN, 4.0],
        };
        assert_eq!(render(&fig, ColorMode::Off), "  ░░\n··██\n0 [ ░▒▓█] 4\n");
        let coloured = render(&fig, ColorMode::TrueColor);
        assert!(coloured.contains("\x1b[48;2;68;1;84m  \x1b[0m"));
        assert!(render(&fig, ColorMode::Ansi256).contains("\x1b[48;5;"));
        let empty = Figure::Heatmap {
            rows: 0,
            cols: 3,
            values: vec![],
        };
        assert!(render(&empty, ColorMode::Off).contains("empty image"));
        let big = Figure::Heatmap {
            rows: 100,
            cols: 100,
            values: vec![1.0; 10_000],
        };
        assert!(render(&big, ColorMode::Off).contains("shown as 30×40"));
    }

    #[test]
    fn ansi256_maps_to_the_colour_cube() {
        assert_eq!(ansi256([0, 0, 0]), 16);
        assert_eq!(ansi256([255, 255, 255]), 231);
    }
}

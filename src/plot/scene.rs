//! A figure laid out as an image: rectangles, polylines and text in pixel
//! coordinates (origin top left), with an axes box and tick labels. The PNG and
//! SVG writers both draw this list, so the two images agree.

use super::colormap::{viridis, Rgb, SERIES};
use super::figure::{downsample, finite_runs, Figure};
use super::scale::{fmt_tick, tick_step, Range};

/// Image size in pixels.
pub const SIZE: (f64, f64) = (640.0, 480.0);
/// Axes and label colour.
pub const INK: Rgb = [0, 0, 0];
/// The most heatmap cells drawn each way; larger images are averaged in blocks.
const MAX_CELLS: usize = 200;
/// Tick length in pixels.
const TICK: f64 = 5.0;

/// How a text's `x` relates to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// One drawing primitive.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Rect {
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: Rgb,
    },
    Polyline {
        points: Vec<(f64, f64)>,
        stroke: Rgb,
        width: f64,
    },
    /// `y` is the vertical centre of the text.
    Text {
        x: f64,
        y: f64,
        text: String,
        anchor: Anchor,
    },
}

/// The plot area and the data ranges mapped onto it.
struct Axes {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
    x: Range,
    y: Range,
    /// Fraction of the area left empty at each end (lines get a margin, bars and cells none).
    pad: f64,
}

impl Axes {
    fn px(&self, v: f64) -> f64 {
        let t = self.pad + self.x.frac(v) * (1.0 - 2.0 * self.pad);
        self.left + t * (self.right - self.left)
    }

    fn py(&self, v: f64) -> f64 {
        let t = self.pad + self.y.frac(v) * (1.0 - 2.0 * self.pad);
        self.bottom - t * (self.bottom - self.top)
    }

    /// The axes box, tick marks and tick labels; `flip_y` puts y's low end at the top.
    fn frame(&self, shapes: &mut Vec<Shape>, integer_ticks: bool, flip_y: bool) {
        let (l, t, r, b) = (self.left, self.top, self.right, self.bottom);
        shapes.push(polyline(
            vec![(l, t), (r, t), (r, b), (l, b), (l, t)],
            INK,
            1.0,
        ));
        let ticks = |range: Range| {
            let mut v = range.ticks(6);
            if integer_ticks {
                v.retain(|t| t.fract() == 0.0);
            }
            v
        };
        let xt = ticks(self.x);
        for &v in &xt {
            let x = self.px(v);
            shapes.push(polyline(vec![(x, b), (x, b + TICK)], INK, 1.0));
            shapes.push(text(
                x,
                b + TICK + 9.0,
                fmt_tick(v, tick_step(&xt)),
                Anchor::Middle,
            ));
        }
        let yt = ticks(self.y);
        for &v in &yt {
            let y = if flip_y {
                t + b - self.py(v)
            } else {
                self.py(v)
            };
            shapes.push(polyline(vec![(l - TICK, y), (l, y)], INK, 1.0));
            shapes.push(text(
                l - TICK - 3.0,
                y,
                fmt_tick(v, tick_step(&yt)),
                Anchor::End,
            ));
        }
    }
}

fn polyline(points: Vec<(f64, f64)>, stroke: Rgb, width: f64) -> Shape {
    Shape::Polyline {
        points,
        stroke,
        width,
    }
}

fn text(x: f64, y: f64, text: String, anchor: Anchor) -> Shape {
    Shape::Text { x, y, text, anchor }
}

fn rect(x: f64, y: f64, w: f64, h: f64, fill: Rgb) -> Shape {
    Shape::Rect { x, y, w, h, fill }
}

/// The figure as shapes, background not included.
pub fn scene(fig: &Figure) -> Vec<Shape> {
    let unit = Range::new(0.0, 1.0);
    let mut axes = Axes {
        left: 70.0,
        top: 20.0,
        right: SIZE.0 - 20.0,
        bottom: SIZE.1 - 40.0,
        x: fig.x_range().unwrap_or(unit),
        y: fig.y_range().unwrap_or(unit),
        pad: 0.0,
    };
    let mut shapes = Vec::new();
    match fig {
        Figure::Line { x, y } => {
            axes.pad = 0.05;
            for run in finite_runs(x, y) {
                let pts = run.iter().map(|&(x, y)| (axes.px(x), axes.py(y))).collect();
                let pts = decimate(pts);
                if let [(x, y)] = pts[..] {
                    shapes.push(rect(x - 2.0, y - 2.0, 4.0, 4.0, SERIES));
                } else {
                    shapes.push(polyline(pts, SERIES, 2.0));
                }
            }
            axes.frame(&mut shapes, false, false);
        }
        Figure::Hist { edges, counts } => {
            // Headroom above the tallest bar; an all-zero histogram keeps [0, 1].
            let top = axes.y.hi;
            axes.y = Range::new(0.0, if top > 0.0 { top * 1.05 } else { 1.0 });
            for (i, &c) in counts.iter().enumerate() {
                let (x0, x1) = (axes.px(edges[i]), axes.px(edges[i + 1]));
                let y = axes.py(c as f64);
                shapes.push(rect(x0, y, x1 - x0, axes.bottom - y, SERIES));
            }
            axes.frame(&mut shapes, false, false);
        }
        Figure::Heatmap { rows, cols, values } => {
            axes.right -= 80.0;
            heatmap(&mut shapes, &mut axes, values, *rows, *cols);
        }
    }
    shapes
}

/// A polyline with no more points than the image shows: each stretch of
/// consecutive points in one pixel column keeps its first, lowest, highest and
/// last point (in their order), then repeats of the same pixel are dropped.
fn decimate(pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for group in pts.chunk_by(|a, b| a.0.round() == b.0.round()) {
        if group.len() <= 4 {
            out.extend_from_slice(group);
            continue;
        }
        let by_y = |a: &(usize, &(f64, f64)), b: &(usize, &(f64, f64))| a.1 .1.total_cmp(&b.1 .1);
        let lowest = group.iter().enumerate().min_by(by_y).map_or(0, |(i, _)| i);
        let highest = group.iter().enumerate().max_by(by_y).map_or(0, |(i, _)| i);
        let mut keep = [0, lowest, highest, group.len() - 1];
        keep.sort_unstable();
        out.extend(keep.iter().map(|&i| group[i]));
    }
    out.dedup_by(|b, a| a.0.round() == b.0.round() && a.1.round() == b.1.round());
    out
}

/// Cells coloured by viridis (non-finite ones left blank) and a colour bar.
fn heatmap(shapes: &mut Vec<Shape>, axes: &mut Axes, values: &[f64], rows: usize, cols: usize) {
    // Axes in index units with each cell centred on its index, row 0 at the top.
    axes.x = Range::new(-0.5, cols as f64 - 0.5);
    axes.y = Range::new(-0.5, rows as f64 - 0.5);
    let (r, c, cells) = downsample(values, rows, cols, MAX_CELLS, MAX_CELLS);
    let range = Range::of(cells.iter().copied());
    let (cw, ch) = (
        (axes.right - axes.left) / cols.max(1) as f64,
        (axes.bottom - axes.top) / rows.max(1) as f64,
    );
    for (k, &v) in cells.iter().enumerate() {
        let (Some(range), true) = (range, v.is_finite()) else {
            continue;
        };
        let (i, j) = (k / c, k % c);
        let (r0, r1) = ((i * rows / r) as f64, ((i + 1) * rows / r) as f64);
        let (c0, c1) = ((j * cols / c) as f64, ((j + 1) * cols / c) as f64);
        let fill = viridis(range.frac(v));
        shapes.push(rect(
            axes.left + c0 * cw,
            axes.top + r0 * ch,
            (c1 - c0) * cw,
            (r1 - r0) * ch,
            fill,
        ));
    }
    axes.frame(shapes, true, true);
    let Some(range) = range else { return };
    // The colour bar: low values at the bottom.
    let (x, steps) = (axes.right + 16.0, 64);
    let step_h = (axes.bottom - axes.top) / f64::from(steps);
    for s in 0..steps {
        let y = axes.bottom - f64::from(s + 1) * step_h;
        shapes.push(rect(
            x,
            y,
            16.0,
            step_h,
            viridis(f64::from(s) / f64::from(steps - 1)),
        ));
    }
    let ticks = range.ticks(5);
    for &v in &ticks {
        let y = axes.bottom - (axes.bottom - axes.top) * range.frac(v);
        shapes.push(text(
            x + 20.0,
            y,
            fmt_tick(v, tick_step(&ticks)),
            Anchor::Start,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(shapes: &[Shape], f: fn(&Shape) -> bool) -> usize {
        shapes.iter().filter(|s| f(s)).count()
    }

    fn inside(shapes: &[Shape]) -> bool {
        shapes.iter().all(|s| match s {
            Shape::Rect { x, y, w, h, .. } => [*x, *y, *w, *h].iter().all(|v| v.is_finite()),
            Shape::Polyline { points, .. } => points
                .iter()
                .all(|&(x, y)| (0.0..=SIZE.0).contains(&x) && (0.0..=SIZE.1).contains(&y)),
            Shape::Text { x, y, .. } => x.is_finite() && y.is_finite(),
        })
    }

    #[test]
    fn a_line_breaks_at_nan_and_marks_lone_points() {
        let fig = Figure::Line {
            x: vec![0.0, 1.0, 2.0, 3.0, 4.0],
            y: vec![1.0, 2.0, f64::NAN, 3.0, 1.0],
        };
        let shapes = scene(&fig);
        // Two runs plus the axes box and the tick marks.
        let series = |s: &Shape| matches!(s, Shape::Polyline { stroke, .. } if *stroke == SERIES);
        assert_eq!(count(&shapes, series), 2);
        assert!(inside(&shapes));
        let lone = scene(&Figure::Line {
            x: vec![3.0],
            y: vec![-f64::MAX],
        });
        assert_eq!(count(&lone, |s| matches!(s, Shape::Rect { .. })), 1);
        assert!(inside(&lone));
        let dense = scene(&Figure::Line {
            x: (0..100_000).map(f64::from).collect(),
            y: (0..100_000).map(|i| f64::from(i % 7)).collect(),
        });
        let longest = dense.iter().map(|s| match s {
            Shape::Polyline { points, .. } => points.len(),
            _ => 0,
        });
        assert!(longest.max() <= Some(4 * SIZE.0 as usize));
    }

    #[test]
    fn decimation_keeps_each_columns_extremes_in_order() {
        let pts = vec![
            (0.1, 5.0),
            (0.2, 9.0),
            (0.3, 1.0),
            (0.4, 4.0),
            (0.2, 3.0),
            (2.0, 2.0),
        ];
        assert_eq!(
            decimate(pts),
            [(0.1, 5.0), (0.2, 9.0), (0.3, 1.0), (0.2, 3.0), (2.0, 2.0)]
        );
        let same = vec![(1.0, 1.0), (1.1, 1.2), (5.0, 1.0)];
        assert_eq!(decimate(same), [(1.0, 1.0), (5.0, 1.0)]);
    }

    #[test]
    fn degenerate_figures_still_get_axes() {
        let empty = [
            Figure::Line {
                x: vec![],
                y: vec![],
            },
            Figure::histogram(&[], 5),
            Figure::Heatmap {
                rows: 0,
                cols: 0,
                values: vec![],
            },
            Figure::Heatmap {
                rows: 1,
                cols: 2,
                values: vec![f64::NAN, f64::NAN],
            },
        ];
        for fig in &empty {
            let shapes = scene(fig);
            assert!(inside(&shapes));
            assert!(count(&shapes, |s| matches!(s, Shape::Polyline { .. })) >= 1);
        }
    }

    #[test]
    fn heatmaps_are_capped_and_have_a_colour_bar() {
        let fig = Figure::Heatmap {
            rows: 1000,
            cols: 3,
            values: (0..3000).map(f64::from).collect(),
        };
        let shapes = scene(&fig);
        let rects = count(&shapes, |s| matches!(s, Shape::Rect { .. }));
        assert_eq!(rects, MAX_CELLS * 3 + 64);
        assert!(inside(&shapes));
    }
}

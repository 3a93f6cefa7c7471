//! Pixel grids: the Bresenham line walk (shared with the braille chart) and an
//! RGB canvas with filled rectangles, thick lines and bitmap-font text.

use super::colormap::Rgb;
use super::font::{glyph, GLYPH};

/// The pixels of the straight line from `a` to `b`, both ends included.
pub fn bresenham(a: (i64, i64), b: (i64, i64)) -> Vec<(i64, i64)> {
    let (mut x, mut y) = a;
    let (dx, dy) = ((b.0 - x).abs(), -(b.1 - y).abs());
    let (sx, sy) = ((b.0 - x).signum(), (b.1 - y).signum());
    let mut err = dx + dy;
    let mut out = Vec::with_capacity(usize::try_from(dx - dy + 1).unwrap_or(0));
    loop {
        out.push((x, y));
        if (x, y) == b {
            return out;
        }
        let e2 = 2 * err;
        if e2 >= dy {
            err += dy;
            x += sx;
        }
        if e2 <= dx {
            err += dx;
            y += sy;
        }
    }
}

/// An RGB image, row-major, 3 bytes a pixel; drawing outside it is clipped.
pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

impl Canvas {
    /// A canvas filled with `bg`.
    pub fn new(width: usize, height: usize, bg: Rgb) -> Canvas {
        Canvas {
            width,
            height,
            pixels: bg.repeat(width * height),
        }
    }

    fn set(&mut self, x: i64, y: i64, c: Rgb) {
        let (Ok(x), Ok(y)) = (usize::try_from(x), usize::try_from(y)) else {
            return;
        };
        if x < self.width && y < self.height {
            let i = (y * self.width + x) * 3;
            self.pixels[i..i + 3].copy_from_slice(&c);
        }
    }

    /// Fills the pixels whose centres lie in the rectangle; a rectangle with
    /// positive size covers at least one pixel each way.
    pub fn fill_rect(&mut self, x: f64, y: f64, w: f64, h: f64, c: Rgb) {
        if !(w > 0.0 && h > 0.0 && x.is_finite() && y.is_finite()) {
            return;
        }
        let span = |lo: f64, len: f64, max: usize| {
            let a = lo.round().clamp(0.0, max as f64) as usize;
            let b = (lo + len).round().clamp(0.0, max as f64) as usize;
            (a, b.max(a + 1).min(max))
        };
        let (x0, x1) = span(x, w, self.width);
        let (y0, y1) = span(y, h, self.height);
        for py in y0..y1 {
            for px in x0..x1 {
                self.set(px as i64, py as i64, c);
            }
        }
    }

    /// A line `thickness` pixels wide from `a` to `b`.
    pub fn line(&mut self, a: (f64, f64), b: (f64, f64), thickness: usize, c: Rgb) {
        let to_px = |p: (f64, f64)| (clamp_px(p.0, self.width), clamp_px(p.1, self.height));
        let back = (thickness as i64 - 1) / 2;
        for (x, y) in bresenham(to_px(a), to_px(b)) {
            for dy in 0..thickness as i64 {
                for dx in 0..thickness as i64 {
                    self.set(x + dx - back, y + dy - back, c);
                }
            }
        }
    }

    /// `text` with its left edge at `x` and vertical centre at `y`.
    pub fn text(&mut self, x: f64, y: f64, text: &str, c: Rgb) {
        let left = clamp_px(x, self.width);
        let top = clamp_px(y, self.height) - GLYPH.1 as i64 / 2;
        for (k, ch) in text.chars().enumerate() {
            let Some(rows) = glyph(ch) else { continue };
            let gx = left + (k * (GLYPH.0 + 1)) as i64;
            for (dy, bits) in rows.iter().enumerate() {
                for dx in 0..GLYPH.0 {
                    if bits >> (GLYPH.0 - 1 - dx) & 1 == 1 {
                        self.set(gx + dx as i64, top + dy as i64, c);
                    }
                }
            }
        }
    }
}

/// Width in pixels of `text` drawn by [`Canvas::text`].
pub fn text_width(text: &str) -> f64 {
    (text.chars().count() * (GLYPH.0 + 1)) as f64
}

/// A coordinate rounded to a pixel, kept a little beyond the canvas so that
/// lines to far-off points stay short walks.
fn clamp_px(v: f64, size: usize) -> i64 {
    v.round().clamp(-1.0, size as f64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLACK: Rgb = [0, 0, 0];

    fn black_pixels(c: &Canvas) -> usize {
        c.pixels.chunks(3).filter(|p| *p == BLACK).count()
    }

    #[test]
    fn bresenham_covers_both_ends() {
        assert_eq!(bresenham((0, 0), (3, 1)), [(0, 0), (1, 0), (2, 1), (3, 1)]);
        assert_eq!(bresenham((2, 2), (2, 2)), [(2, 2)]);
        assert_eq!(bresenham((3, 0), (0, 0)).len(), 4);
    }

    #[test]
    fn drawing_clips_to_the_canvas() {
        let mut c = Canvas::new(10, 10, [255; 3]);
        c.fill_rect(-5.0, -5.0, 100.0, 100.0, BLACK);
        assert_eq!(black_pixels(&c), 100);
        let mut c = Canvas::new(10, 10, [255; 3]);
        c.fill_rect(2.0, 2.0, 0.2, 0.2, BLACK);
        assert_eq!(black_pixels(&c), 1);
        c.fill_rect(2.0, 2.0, 0.0, 5.0, BLACK);
        c.fill_rect(f64::NAN, 2.0, 1.0, 5.0, BLACK);
        c.line((-1e300, 0.0), (1e300, 0.0), 1, BLACK);
        assert_eq!(black_pixels(&c), 11);
        c.text(0.0, 5.0, "1-x", BLACK);
        assert!(black_pixels(&c) > 11);
        assert_eq!(text_width("1.5"), 18.0);
    }
}

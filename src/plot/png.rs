//! PNG output: the scene rasterized onto an RGB canvas (white background,
//! Bresenham lines, bitmap-font labels) and encoded with the `png` crate.

use std::io::{self, Write};

use super::raster::{text_width, Canvas};
use super::scene::{Anchor, Shape, INK, SIZE};

/// Draws `shapes` on a white SIZE canvas.
fn rasterize(shapes: &[Shape]) -> Canvas {
    let mut canvas = Canvas::new(SIZE.0 as usize, SIZE.1 as usize, [255; 3]);
    for shape in shapes {
        match shape {
            Shape::Rect { x, y, w, h, fill } => canvas.fill_rect(*x, *y, *w, *h, *fill),
            Shape::Polyline {
                points,
                stroke,
                width,
            } => {
                for seg in points.windows(2) {
                    canvas.line(seg[0], seg[1], width.round().max(1.0) as usize, *stroke);
                }
            }
            Shape::Text { x, y, text, anchor } => {
                let w = text_width(text);
                let left = match anchor {
                    Anchor::Start => *x,
                    Anchor::Middle => x - w / 2.0,
                    Anchor::End => x - w,
                };
                canvas.text(left, *y, text, INK);
            }
        }
    }
    canvas
}

/// Writes `shapes` as an 8-bit RGB PNG.
pub fn write(shapes: &[Shape], w: impl Write) -> io::Result<()> {
    let canvas = rasterize(shapes);
    let mut encoder = png::Encoder::new(w, canvas.width as u32, canvas.height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(io::Error::other)?;
    writer
        .write_image_data(&canvas.pixels)
        .map_err(io::Error::other)?;
    writer.finish().map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::figure::Figure;
    use crate::plot::scene::scene;

    #[test]
    fn encodes_a_decodable_png() {
        let fig = Figure::Line {
            x: vec![0.0, 1.0, 2.0],
            y: vec![0.0, 1.0, 0.5],
        };
        let mut bytes = Vec::new();
        write(&scene(&fig), &mut bytes).unwrap_or_else(|e| panic!("{e}"));
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        let decoder = png::Decoder::new(io::Cursor::new(bytes));
        let reader = decoder.read_info().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((reader.info().width, reader.info().height), (640, 480));
    }

    #[test]
    fn draws_ink_and_series_colour() {
        let fig = Figure::histogram(&[1.0, 2.0, 2.0], 2);
        let canvas = rasterize(&scene(&fig));
        let has = |c: [u8; 3]| canvas.pixels.chunks(3).any(|p| p == c);
        assert!(has(INK));
        assert!(has(crate::plot::colormap::SERIES));
    }
}

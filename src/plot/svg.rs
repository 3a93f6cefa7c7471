//! SVG output: the scene as a standalone SVG document (rect, polyline and text
//! elements on a white background).

use std::fmt::Write;

use super::colormap::Rgb;
use super::scene::{Anchor, Shape, SIZE};
use crate::markup::escape;

/// A coordinate with at most two decimals ("12.5", "3").
fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn colour(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// The SVG document for `shapes`.
pub fn document(shapes: &[Shape]) -> String {
    let (w, h) = (num(SIZE.0), num(SIZE.1));
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n\
         <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>\n"
    );
    for shape in shapes {
        let _ = match shape {
            Shape::Rect { x, y, w, h, fill } => writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                num(*x),
                num(*y),
                num(*w),
                num(*h),
                colour(*fill)
            ),
            Shape::Polyline {
                points,
                stroke,
                width,
            } => {
                let pts: Vec<String> = points
                    .iter()
                    .map(|&(x, y)| format!("{},{}", num(x), num(y)))
                    .collect();
                writeln!(
                    out,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" stroke-linejoin=\"round\"/>",
                    pts.join(" "),
                    colour(*stroke),
                    num(*width)
                )
            }
            Shape::Text { x, y, text, anchor } => {
                let anchor = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                writeln!(
                    out,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" dominant-baseline=\"middle\" font-family=\"sans-serif\" font-size=\"11\">{}</text>",
                    num(*x),
                    num(*y),
                    escape(text)
                )
            }
        };
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_become_elements() {
        let doc = document(&[
            Shape::Rect {
                x: 1.0,
                y: 2.5,
                w: 3.12345,
                h: 4.0,
                fill: [255, 0, 16],
            },
            Shape::Polyline {
                points: vec![(0.0, 0.0), (10.0, 5.0)],
                stroke: [0, 0, 0],
                width: 2.0,
            },
            Shape::Text {
                x: 5.0,
                y: 6.0,
                text: "a<b".to_string(),
                anchor: Anchor::End,
            },
        ]);
        assert!(
            doc.contains("<rect x=\"1\" y=\"2.5\" width=\"3.12\" height=\"4\" fill=\"#ff0010\"/>")
        );
        assert!(doc.contains("points=\"0,0 10,5\""));
        assert!(doc.contains(">a&lt;b</text>"));
        assert!(doc.ends_with("</svg>\n"));
    }
}

//! Output richer than text: a 1-D or 2-D tensor as an HTML table, figures as PNG
//! and SVG images, `info` tables as HTML. Each comes with the text the terminal
//! shows, which front ends without HTML or images display instead.

use base64::Engine;
use serde_json::{json, Value};

use crate::markup::escape;
use crate::plot::{self, Figure, ImageFormat};
use crate::runtime::value::type_line;
use crate::runtime::Display;
use crate::tensor::format::{format_cells, Cells, PrintOptions};
use crate::tensor::Tensor;

/// A tensor's HTML: for 1-D or 2-D, a table with the indices in the header row
/// (and first column of a matrix), the elements NumPy's text shows as it formats
/// them, `…` where it summarizes, and `dtype[shape]` as the caption; for other
/// ranks (and empty tensors) `text`, the terminal's echo, in `<pre>`.
pub fn tensor_html(t: &Tensor, text: &str, opts: &PrintOptions) -> String {
    match format_cells(t, opts) {
        Some(cells) => table(t, &cells),
        None => format!("<pre>{}</pre>\n", escape(text.trim_end())),
    }
}

fn table(t: &Tensor, cells: &Cells) -> String {
    let matrix = t.ndim() == 2;
    let label = |i: &Option<usize>| i.map_or("…".to_string(), |i| i.to_string());
    let mut html = format!(
        "<table class=\"tsr-tensor\">\n<caption style=\"caption-side: bottom; text-align: left\">{}</caption>\n<thead><tr>",
        escape(&type_line(t))
    );
    if matrix {
        html += "<th></th>";
    }
    for col in &cells.cols {
        html += &format!("<th style=\"text-align: right\">{}</th>", label(col));
    }
    html += "</tr></thead>\n<tbody>\n";
    for (row, texts) in cells.rows.iter().zip(&cells.text) {
        html += "<tr>";
        if matrix {
            html += &format!("<th>{}</th>", label(row));
        }
        for text in texts {
            let text = if text == "..." { "…" } else { text };
            html += &format!("<td style=\"text-align: right\">{}</td>", escape(text));
        }
        html += "</tr>\n";
    }
    html + "</tbody>\n</table>\n"
}

/// The `data` of a `display_data` message for `item`.
pub fn display_data(item: Display<'_>) -> Value {
    match item {
        Display::Figure(fig) => figure_data(fig),
        Display::Table { text, html } => json!({ "text/plain": text, "text/html": html }),
    }
}

/// A figure as PNG (base64, as the protocol carries binary data) and SVG.
fn figure_data(fig: &Figure) -> Value {
    let png = plot::encode(fig, ImageFormat::Png);
    let svg = plot::encode(fig, ImageFormat::Svg);
    match (png, svg) {
        (Ok(png), Ok(svg)) => json!({
            "image/png": base64::engine::general_purpose::STANDARD.encode(png),
            "image/svg+xml": String::from_utf8_lossy(&svg),
            "text/plain": "<figure>",
        }),
        (Err(e), _) | (_, Err(e)) => {
            json!({ "text/plain": format!("<figure: cannot draw it: {e}>") })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_matrix_is_a_table_with_indices_and_its_type() {
        let t = Tensor::from_vec(vec![1.5f32, -2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let html = tensor_html(&t, "", &PrintOptions::default());
        assert!(html.contains(">f32[2, 2]</caption>"), "{html}");
        assert!(
            html.contains("<tr><th>1</th><td style=\"text-align: right\">3.</td>"),
            "{html}"
        );
        let scalar = tensor_html(
            &Tensor::scalar(1.0f32),
            "1.0\nf32[]\n",
            &PrintOptions::default(),
        );
        assert_eq!(scalar, "<pre>1.0\nf32[]</pre>\n");
    }

    #[test]
    fn a_long_vector_is_summarized() {
        let t = Tensor::from_vec((0..2000i64).collect(), &[2000]).unwrap();
        let html = tensor_html(&t, "", &PrintOptions::default());
        assert!(
            html.contains("<th style=\"text-align: right\">1999</th>"),
            "{html}"
        );
        assert!(html.contains(">…</td>"));
        assert_eq!(html.matches("<td").count(), 7);
    }
}

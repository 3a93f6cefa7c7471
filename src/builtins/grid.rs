//! A table of strings that renders both as the ASCII text `info` prints and as
//! the HTML a notebook shows.

use comfy_table::presets::ASCII_FULL_CONDENSED;
use comfy_table::{CellAlignment, Table};

use crate::markup::escape;

/// Rows under a header, one column optionally right-aligned, and a line after.
pub struct Grid {
    pub header: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
    /// The column whose cells are right-aligned (numbers), if any.
    pub right: Option<usize>,
    /// A line after the table (a total), without its newline.
    pub footer: Option<String>,
}

impl Grid {
    pub fn new(header: &[&'static str]) -> Grid {
        Grid {
            header: header.to_vec(),
            rows: Vec::new(),
            right: None,
            footer: None,
        }
    }

    /// An ASCII table with no lines between rows, then the footer; ends in a newline.
    pub fn text(&self) -> String {
        let mut table = Table::new();
        table
            .load_style(ASCII_FULL_CONDENSED)
            .set_header(self.header.clone());
        for row in &self.rows {
            table.add_row(row.clone());
        }
        if let Some(column) = self.right.and_then(|i| table.column_mut(i)) {
            column.set_cell_alignment(CellAlignment::Right);
        }
        match &self.footer {
            Some(line) => format!("{table}\n{line}\n"),
            None => format!("{table}\n"),
        }
    }

    /// An HTML `<table>` (the footer as its caption below), every cell escaped.
    pub fn html(&self) -> String {
        let cell = |tag: &str, i: usize, text: &str| {
            let align = if self.right == Some(i) {
                " style=\"text-align: right\""
            } else {
                ""
            };
            format!("<{tag}{align}>{}</{tag}>", escape(text))
        };
        let mut out = String::from("<table>\n");
        if let Some(line) = &self.footer {
            out += &format!(
                "<caption style=\"caption-side: bottom\">{}</caption>\n",
                escape(line)
            );
        }
        out += "<thead><tr>";
        for (i, name) in self.header.iter().enumerate() {
            out += &cell("th", i, name);
        }
        out += "</tr></thead>\n<tbody>\n";
        for row in &self.rows {
            out += "<tr>";
            for (i, text) in row.iter().enumerate() {
                out += &cell("td", i, text);
            }
            out += "</tr>\n";
        }
        out + "</tbody>\n</table>\n"
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    fn grid() -> Grid {
        let mut g = Grid::new(&["name", "bytes"]);
        g.rows.push(vec!["a<b".into(), "12".into()]);
        g.rows.push(vec!["c".into(), "3456".into()]);
        g.right = Some(1);
        g.footer = Some("2 tensors".into());
        g
    }

    #[test]
    fn text_is_an_ascii_table_with_the_footer() {
        assert_eq!(
            grid().text(),
            "+------+-------+\n\
             | name | bytes |\n\
             +==============+\n\
             | a<b  |    12 |\n\
             | c    |  3456 |\n\
             +------+-------+\n\
             2 tensors\n"
        );
    }

    #[test]
    fn html_escapes_cells_and_aligns_the_numbers() {
        let html = grid().html();
        assert!(html.starts_with("<table>"), "{html}");
        assert!(html.contains("<td>a&lt;b</td><td style=\"text-align: right\">12</td>"));
        assert!(html.contains(">2 tensors</caption>"));
    }
}

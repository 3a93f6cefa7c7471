//! CSV files (RFC 4180, through the `csv` crate): the first row names the
//! columns; a column whose fields are all integers is ints, one whose non-empty
//! fields are all numbers is floats (an empty field is NaN), anything else text.
//! Quoting is checked strictly: a quoted field that never closes, or text after
//! a closing quote, is an error at its line and column.

use std::path::Path;

use super::text_file::{line_col, located, read_text, values_over_limit};
use crate::tensor::format::scalar_str;

/// One column's values, read or to be written.
#[derive(Debug, PartialEq)]
pub enum Cells {
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    /// f32 (and f16, bf16) values, written with the shortest digits that read back
    /// as the same f32.
    Floats32(Vec<f32>),
    Bools(Vec<bool>),
    Text(Vec<String>),
}

impl Cells {
    pub fn len(&self) -> usize {
        match self {
            Cells::Ints(v) => v.len(),
            Cells::Floats(v) => v.len(),
            Cells::Floats32(v) => v.len(),
            Cells::Bools(v) => v.len(),
            Cells::Text(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The field written for row `i`.
    fn field(&self, i: usize) -> String {
        match self {
            Cells::Ints(v) => v.get(i).map(i64::to_string),
            Cells::Floats(v) => v.get(i).map(|&x| scalar_str(x)),
            Cells::Floats32(v) => v.get(i).map(|&x| scalar_str(x)),
            Cells::Bools(v) => v.get(i).map(bool::to_string),
            Cells::Text(v) => v.get(i).cloned(),
        }
        .unwrap_or_default()
    }
}

/// Reads the CSV file at `path` into its columns, in file order. Errors start with
/// "csv: " and name the file and the line (and the column where known).
pub fn load_csv(path: &Path, delimiter: u8) -> Result<Vec<(String, Cells)>, String> {
    parse_csv(&read_text(path, "csv")?, path, delimiter)
}

/// [`load_csv`] on text already read; `path` names it in errors.
pub fn parse_csv(text: &str, path: &Path, delimiter: u8) -> Result<Vec<(String, Cells)>, String> {
    // Spreadsheets start their CSV files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    check_quotes(text, delimiter).map_err(|(at, msg)| {
        let (line, col) = line_col(text, at);
        located("csv", path, line, Some(col), &msg)
    })?;
    let mut reader = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut records = reader.records();
    // Lines from byte offsets: after a `\r\n` the crate's own line count is one
    // short, and its offset is at the `\n`.
    let line_at = |p: Option<&::csv::Position>| {
        let start = p.map_or(0, |p| p.byte() as usize);
        let skip = text.as_bytes().get(start..).map_or(0, |rest| {
            rest.iter()
                .take_while(|&&b| b == b'\r' || b == b'\n')
                .count()
        });
        line_col(text, start + skip).0
    };
    let line_of = |r: &::csv::StringRecord| line_at(r.position());
    let cannot = |e: ::csv::Error| {
        let line = line_at(e.position());
        located("csv", path, line, None, &e.to_string())
    };
    let header = match records.next() {
        Some(r) => r.map_err(cannot)?,
        None => {
            return Err(format!(
                "csv: {}: the file is empty (no header row)",
                path.display()
            ))
        }
    };
    let names: Vec<String> = header.iter().map(str::to_string).collect();
    for (i, name) in names.iter().enumerate() {
        if let Some(j) = names[..i].iter().position(|n| n == name) {
            return Err(located(
                "csv",
                path,
                line_of(&header),
                None,
                &format!(
                    "the column name \"{name}\" appears twice (columns {} and {})",
                    j + 1,
                    i + 1
                ),
            ));
        }
    }
    let mut rows = Vec::new();
    for record in records {
        let record = record.map_err(cannot)?;
        if record.len() != names.len() {
            return Err(located(
                "csv",
                path,
                line_of(&record),
                None,
                &format!(
                    "the row has {} field{}, the header has {}",
                    record.len(),
                    if record.len() == 1 { "" } else { "s" },
                    names.len()
                ),
            ));
        }
        // Each field becomes a value (a text column's string is the largest).
        let fields = (rows.len() + 1).saturating_mul(names.len());
        if let Some(msg) = values_over_limit(fields, 32) {
            return Err(located("csv", path, line_of(&record), None, &msg));
        }
        rows.push(record);
    }
    Ok(names
        .into_iter()
        .enumerate()
        .map(|(c, name)| {
            let fields: Vec<&str> = rows.iter().map(|r| r.get(c).unwrap_or_default()).collect();
            (name, column(&fields))
        })
        .collect())
}

/// A column's values: ints when every field is one, floats when every non-empty
/// field is a number (and one is), else the text as it was.
fn column(fields: &[&str]) -> Cells {
    let trimmed: Vec<&str> = fields.iter().map(|f| f.trim()).collect();
    if let Some(ints) = trimmed.iter().map(|f| f.parse::<i64>().ok()).collect() {
        if !trimmed.is_empty() {
            return Cells::Ints(ints);
        }
    }
    let floats: Option<Vec<f64>> = trimmed
        .iter()
        .map(|f| match f.is_empty() {
            true => Some(f64::NAN),
            false => f.parse::<f64>().ok(),
        })
        .collect();
    match floats {
        Some(v) if trimmed.iter().any(|f| !f.is_empty()) => Cells::Floats(v),
        _ => Cells::Text(fields.iter().map(|f| f.to_string()).collect()),
    }
}

/// Checks the quoting: every quoted field closes, and a closing quote is followed
/// by the delimiter or the end of a line. The error is at a byte offset.
fn check_quotes(text: &str, delimiter: u8) -> Result<(), (usize, String)> {
    let bytes = text.as_bytes();
    let mut at_field_start = true;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if at_field_start && b == b'"' {
            let open = i;
            i += 1;
            loop {
                match bytes.get(i) {
                    None => return Err((open, "this quoted field is never closed".to_string())),
                    Some(b'"') if bytes.get(i + 1) == Some(&b'"') => i += 2,
                    Some(b'"') => break,
                    Some(_) => i += 1,
                }
            }
            i += 1;
            match bytes.get(i) {
                None | Some(b'\n' | b'\r') => {}
                Some(&d) if d == delimiter => {}
                Some(_) => {
                    let found: String = text[i..].chars().take(1).collect();
                    return Err((
                        i,
                        format!(
                            "after the closing quote, expected the delimiter or the end of \
                             the line, found '{found}'"
                        ),
                    ));
                }
            }
            continue;
        }
        at_field_start = b == delimiter || b == b'\n' || b == b'\r';
        i += 1;
    }
    Ok(())
}

/// Writes the columns (all of one length) to `path` as comma-separated values with
/// a header row, quoting only the fields that need it, atomically.
pub fn save_csv(path: &Path, columns: &[(String, Cells)]) -> Result<(), String> {
    let rows = columns.first().map_or(0, |(_, c)| c.len());
    super::write_atomically(path, |w| {
        let mut out = ::csv::Writer::from_writer(w);
        out.write_record(columns.iter().map(|(name, _)| name))?;
        for r in 0..rows {
            out.write_record(columns.iter().map(|(_, cells)| cells.field(r)))?;
        }
        out.flush()
    })
    .map_err(|e| format!("csv: cannot write the file: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<(String, Cells)>, String> {
        parse_csv(text, Path::new("t.csv"), b',')
    }

    #[test]
    fn columns_are_typed() {
        let cols = parse("a,b,c,d\n1,1.5,x,\n-2,,\"y,z\",\n").unwrap();
        assert_eq!(cols[0], ("a".into(), Cells::Ints(vec![1, -2])));
        match &cols[1].1 {
            Cells::Floats(v) => assert!(v[0] == 1.5 && v[1].is_nan()),
            other => panic!("{other:?}"),
        }
        assert_eq!(cols[2].1, Cells::Text(vec!["x".into(), "y,z".into()]));
        assert_eq!(cols[3].1, Cells::Text(vec![String::new(), String::new()]));
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = parse("a,b\n1,2\n3\n").unwrap_err();
        assert_eq!(e, "csv: t.csv:3: the row has 1 field, the header has 2");
        let e = parse("a,b\n1,\"2\n").unwrap_err();
        assert_eq!(e, "csv: t.csv:2:3: this quoted field is never closed");
        let e = parse("a,b\n1,\"2\"x\n").unwrap_err();
        assert!(
            e.starts_with("csv: t.csv:2:6: after the closing quote"),
            "{e}"
        );
        let e = parse("a,a\n").unwrap_err();
        assert!(e.contains("appears twice"), "{e}");
        assert!(parse("").unwrap_err().contains("empty"));
    }
}

//! `savetxt`: a 1-D or 2-D tensor as text, one row a line, written as
//! `numpy.savetxt` writes it (the same format string rules, the header as `# `
//! comment lines, `\n` line ends), atomically.

use std::io::Write;
use std::path::Path;

use super::printf::{Format, Num};
use crate::tensor::Tensor;

/// Writes `x` (1-D: one value a line; 2-D: one row a line) to `path`. `fmt` is
/// one conversion, repeated for each column and joined by `delimiter`, or one
/// conversion per column (used as the whole line, as NumPy does).
pub fn save_txt(
    path: &Path,
    x: &Tensor,
    delimiter: &str,
    header: &str,
    fmt: &str,
) -> Result<(), String> {
    let cols = match x.shape() {
        [_] => 1,
        [_, c] => *c,
        s => {
            return Err(format!(
                "savetxt: expected a 1-D or 2-D tensor, got {} dimensions",
                s.len()
            ))
        }
    };
    let format = Format::parse(fmt).map_err(|e| format!("savetxt: {e}"))?;
    let line = match format.conversions() {
        1 => Format::parse(&vec![fmt; cols].join(&delimiter.replace('%', "%%")))
            .map_err(|e| format!("savetxt: {e}"))?,
        n if n == cols => format,
        n => {
            return Err(format!(
                "savetxt: the format \"{fmt}\" has {n} conversions for {cols} columns \
                 (give one, or one per column)"
            ))
        }
    };
    let mut head = String::new();
    if !header.is_empty() {
        head.push_str("# ");
        head.push_str(&header.replace('\n', "\n# "));
        head.push('\n');
    }
    let grid = if x.ndim() == 1 {
        x.unsqueeze(1)
    } else {
        Ok(x.clone())
    };
    let grid = grid.map_err(|e| format!("savetxt: {e}"))?;
    // A value the format cannot take (nan under %d) stops the write; the temp file goes.
    let mut bad_value = None;
    let written = super::write_atomically(path, |w| {
        w.write_all(head.as_bytes())?;
        let mut text = String::new();
        for r in 0..grid.shape()[0] {
            let row = grid.select(0, r as i64).map_err(std::io::Error::other)?;
            text.clear();
            if let Err(e) = line.write(&numbers(&row), &mut text) {
                bad_value = Some(e);
                return Err(std::io::Error::other("a value cannot be formatted"));
            }
            text.push('\n');
            w.write_all(text.as_bytes())?;
        }
        Ok(())
    });
    match (written, bad_value) {
        (_, Some(e)) => Err(format!("savetxt: {e}")),
        (Err(e), None) => Err(format!("savetxt: cannot write the file: {e}")),
        (Ok(()), None) => Ok(()),
    }
}

/// The values of a row: floats as f64, ints and bools as i64.
fn numbers(row: &Tensor) -> Vec<Num> {
    if row.dtype().is_float() {
        row.to_vec::<f64>().into_iter().map(Num::Float).collect()
    } else {
        row.to_vec::<i64>().into_iter().map(Num::Int).collect()
    }
}

//! Text files as the text readers take them: read whole, sized against the memory
//! limit before a byte is read, checked to be UTF-8; and the `file:line:col` form
//! every text reader's errors use.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::Path;

use crate::tensor::budget;

/// The contents of the text file at `path`. `format` starts every error
/// (`"csv"`, `"read_text"`, ...). Anything but a regular file (a directory, a
/// FIFO, a device) is refused before it is opened, so reading never blocks on a
/// pipe; a file larger than the memory limit is refused before it is read.
pub fn read_text(path: &Path, format: &str) -> Result<String, String> {
    let bytes = read_bytes(path, format)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let bytes = e.as_bytes();
        let byte = bytes.get(at).copied().unwrap_or_default();
        // The prefix up to `at` is valid UTF-8, so line and column count characters.
        let valid = String::from_utf8_lossy(&bytes[..at]);
        let (line, col) = line_col(&valid, at);
        located(
            format,
            path,
            line,
            Some(col),
            &format!(
                "the file is not valid UTF-8 (byte 0x{byte:02x}); tsr reads text files as UTF-8"
            ),
        )
    })
}

fn read_bytes(path: &Path, format: &str) -> Result<Vec<u8>, String> {
    let shown = path.display();
    let cannot = |e: std::io::Error| format!("{format}: cannot open '{shown}': {e}");
    super::check_file_access().map_err(cannot)?;
    let meta = fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(super::escaped(format!(
            "{format}: '{shown}' is {}, not a regular file",
            super::kind_name(meta.file_type())
        )));
    }
    let limit = budget::limit();
    let over = |len: u128| {
        format!(
            "{format}: '{shown}' has {len} bytes, more than the memory limit of {} allows; \
             {}",
            budget::human_bytes(limit as u128),
            budget::LIMIT_HINT
        )
    };
    if meta.len() as u128 > limit as u128 {
        return Err(super::escaped(over(meta.len().into())));
    }
    let file = File::open(path).map_err(cannot)?;
    // A file that grows after the size check is still read no further than the limit.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{format}: cannot read '{shown}': {e}"))?;
    if bytes.len() > limit {
        return Err(super::escaped(over(bytes.len() as u128)));
    }
    Ok(bytes)
}

/// Writes `text` to `path` atomically (see `write_atomically`).
pub fn write_text(path: &Path, text: &str, format: &str) -> Result<(), String> {
    super::write_atomically(path, |w| w.write_all(text.as_bytes()))
        .map_err(|e| format!("{format}: cannot write the file: {e}"))
}

/// The error when `count` values of `each` bytes would be over the memory limit:
/// a reader checks it as it collects the values a file holds.
pub fn values_over_limit(count: usize, each: usize) -> Option<String> {
    let limit = budget::limit();
    let bytes = (count as u128).saturating_mul(each as u128);
    (bytes > limit as u128).then(|| {
        format!(
            "the values read so far need more than the memory limit of {} allows; \
             {}",
            budget::human_bytes(limit as u128),
            budget::LIMIT_HINT
        )
    })
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let upto = &text[..end];
    let line = upto.matches('\n').count() + 1;
    let col = upto.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// `csv: data.csv:3:7: message`, with anything the file put into the message made
/// safe to print.
pub fn located(format: &str, path: &Path, line: usize, col: Option<usize>, msg: &str) -> String {
    let place = match col {
        Some(c) => format!("{}:{line}:{c}", path.display()),
        None => format!("{}:{line}", path.display()),
    };
    super::escaped(format!("{format}: {place}: {msg}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_characters() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\né", 5), (2, 2));
        assert_eq!(line_col("é", 1), (1, 1));
    }
}

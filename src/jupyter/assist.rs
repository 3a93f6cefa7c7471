//! The editing help a notebook asks for: completion, inspection (help for the name
//! under the cursor) and whether a cell is complete. Jupyter counts `cursor_pos`
//! in Unicode code points; tsr's completer works in bytes within one line.

use serde_json::{json, Value};

use crate::interp::Interp;
use crate::repl::commands::help_text;
use crate::repl::complete::{complete, Names};
use crate::syntax::parser::is_incomplete;

/// The content of a `complete_reply` for `code` with the cursor at `cursor_pos`.
pub fn completions(code: &str, cursor_pos: usize, names: &Names) -> Value {
    let at = byte_offset(code, cursor_pos);
    let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = code[at..].find('\n').map_or(code.len(), |i| at + i);
    let (start, matches) = complete(&code[line_start..line_end], at - line_start, names);
    let start = line_start + start.min(at - line_start);
    json!({
        "status": "ok",
        "matches": matches,
        "cursor_start": code[..start].chars().count(),
        "cursor_end": code[..at].chars().count(),
        "metadata": {},
    })
}

/// The content of an `inspect_reply`: the help of the name around the cursor.
pub fn inspection(code: &str, cursor_pos: usize, interp: &Interp) -> Value {
    let text = name_at(code, byte_offset(code, cursor_pos)).and_then(|n| help_text(n, interp));
    match text {
        Some(text) => json!({
            "status": "ok",
            "found": true,
            "data": { "text/plain": text },
            "metadata": {},
        }),
        None => json!({ "status": "ok", "found": false, "data": {}, "metadata": {} }),
    }
}

/// The content of an `is_complete_reply`: "incomplete" while brackets, a string or
/// a block are open (the front end then continues the cell), else "complete".
pub fn completeness(code: &str) -> Value {
    if is_incomplete(code) {
        json!({ "status": "incomplete", "indent": "" })
    } else {
        json!({ "status": "complete" })
    }
}

/// The byte offset of code point `pos` (the end when past it).
fn byte_offset(code: &str, pos: usize) -> usize {
    code.char_indices().nth(pos).map_or(code.len(), |(i, _)| i)
}

/// The identifier that contains byte `at` or ends there.
fn name_at(code: &str, at: usize) -> Option<&str> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let start = code[..at]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_word(c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = code[at..]
        .find(|c: char| !is_word(c))
        .map_or(code.len(), |i| at + i);
    let name = &code[start..end];
    (!name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit())).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_counts_code_points_and_replaces_the_word() {
        let names = Names::default();
        let code = "let s = \"héllo ✓\"; ara";
        let c = completions(code, code.chars().count(), &names);
        assert_eq!(c["cursor_end"], code.chars().count());
        assert_eq!(c["cursor_start"], code.chars().count() - 3);
        assert!(c["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m == "arange"));
        let c = completions("x = 1\nprint(ara)", 15, &names);
        assert_eq!(
            (c["cursor_start"].clone(), c["cursor_end"].clone()),
            (json!(12), json!(15))
        );
        // A cursor past the end is the end.
        let c = completions("ara", 99, &names);
        assert_eq!(c["cursor_start"], 0);
    }

    #[test]
    fn the_name_under_the_cursor_is_found() {
        assert_eq!(name_at("let q = arange(5)", 10), Some("arange"));
        assert_eq!(name_at("let q = arange(5)", 14), Some("arange"));
        assert_eq!(name_at("f(x) + é_1", "f(x) + é_1".len()), Some("é_1"));
        assert_eq!(name_at("1 + 23", 5), None);
        assert_eq!(name_at("", 0), None);
        let interp = Interp::new(Box::new(std::io::sink()));
        assert_eq!(inspection("zz_none", 3, &interp)["found"], false);
        let help = inspection("arange", 0, &interp);
        assert!(help["data"]["text/plain"]
            .as_str()
            .unwrap()
            .contains("arange"));
    }

    #[test]
    fn open_brackets_are_incomplete() {
        assert_eq!(completeness("let x = [1, 2")["status"], "incomplete");
        assert_eq!(completeness("fn f(x) {")["status"], "incomplete");
        assert_eq!(completeness("print(1)\nlet y = 2")["status"], "complete");
    }
}

//! Text read from a file, made safe to print: a tensor name or metadata key may
//! hold terminal escape sequences, a bell, NUL or a right-to-left override that
//! would rewrite what the user sees.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control character (C0 including ESC, BEL and NUL, DEL, C1)
/// written as `\x1b` and every bidirectional override or isolate (U+202A–U+202E,
/// U+2066–U+2069) as `\u{202e}`; unchanged (and not copied) when it has none.
pub fn display_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\0'..='\x1f' | '\x7f' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A loader's error message with [`display_safe`] applied: it may quote names
/// and keys from the file.
pub(crate) fn escaped(message: String) -> String {
    match display_safe(&message) {
        Cow::Borrowed(_) => message,
        Cow::Owned(safe) => safe,
    }
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_escaped() {
        assert_eq!(display_safe("blk.0.weight"), "blk.0.weight");
        assert!(matches!(display_safe("ok"), Cow::Borrowed(_)));
        assert_eq!(display_safe("a\x1b[2Jb"), "a\\x1b[2Jb");
        assert_eq!(display_safe("\x07\0\x7f\n"), "\\x07\\x00\\x7f\\x0a");
        assert_eq!(display_safe("\u{85}"), "\\u{85}");
        assert_eq!(display_safe("x\u{202e}y\u{2066}"), "x\\u{202e}y\\u{2066}");
        assert_eq!(display_safe("名前 é"), "名前 é");
    }
}

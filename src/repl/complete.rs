//! Tab completion: what the word before the cursor can become, from the session's
//! names. Pure functions of the line and a [`Names`] snapshot, so they are tested
//! without a terminal.

use std::path::Path;

use crate::builtins;
use crate::interp::modules::STDLIB;
use crate::interp::Interp;
use crate::io::display_safe;
use crate::runtime::Value;
use crate::syntax::token::{lex, Token};

/// Attributes every tensor (and quantized tensor) has.
const TENSOR_ATTRS: &[&str] = &[
    "T",
    "dtype",
    "is_contiguous",
    "mT",
    "nbytes",
    "ndim",
    "numel",
    "owns_data",
    "shape",
    "strides",
    "grad",
    "requires_grad",
    "is_leaf",
    "grad_fn",
];

const KEYWORDS: &[&str] = &[
    "and", "as", "break", "catch", "continue", "del", "else", "false", "fn", "for", "if", "import",
    "in", "let", "no_grad", "none", "not", "or", "return", "true", "try", "use", "while",
];

/// What completion needs to know about one variable.
#[derive(Clone, Debug, PartialEq)]
pub enum Members {
    Tensor,
    /// A dict's string keys.
    Dict(Vec<String>),
    /// A module's top-level names.
    Module(Vec<String>),
    Other,
}

/// The session's variables, taken after each evaluation.
#[derive(Clone, Debug, Default)]
pub struct Names {
    pub vars: Vec<(String, Members)>,
}

impl Names {
    pub fn of(interp: &Interp) -> Names {
        let vars = interp
            .globals
            .entries()
            .into_iter()
            .map(|(name, v)| (name.to_string(), members(&v)))
            .collect();
        Names { vars }
    }

    fn get(&self, name: &str) -> Option<&Members> {
        self.vars.iter().find(|(n, _)| n == name).map(|(_, m)| m)
    }
}

fn members(v: &Value) -> Members {
    match v {
        Value::Tensor(_) | Value::Quant(_) | Value::Lazy(_) => Members::Tensor,
        Value::Dict(d) => Members::Dict(
            d.entries
                .iter()
                .filter_map(|(k, _)| match k.to_value() {
                    // A key with control characters (from a file) would reach the
                    // terminal raw in the list of candidates: it is not offered.
                    Value::Str(s) if display_safe(&s) == *s => Some(s.to_string()),
                    _ => None,
                })
                .collect(),
        ),
        Value::Module(m) => Members::Module(
            m.scope
                .entries()
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect(),
        ),
        _ => Members::Other,
    }
}

/// Completions of the text before `pos`: the byte offset where the replaced word
/// starts, and the candidates (sorted, unique).
pub fn complete(line: &str, pos: usize, names: &Names) -> (usize, Vec<String>) {
    let before = &line[..pos];
    if let Some((start, partial)) = open_string(before) {
        let head = before[..start - 1].trim_end();
        let head = head.strip_suffix('[').map(str::trim_end);
        let dict = head.and_then(trailing_ident).and_then(|n| names.get(n));
        let candidates = match dict {
            Some(Members::Dict(keys)) => starting_with(keys.iter().map(String::as_str), partial),
            _ => paths(partial),
        };
        return (start, candidates);
    }
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()
        .map_or(pos, |(i, _)| i);
    let word = &before[word_start..];
    let head = before[..word_start].trim_end();
    if head.ends_with("use") && trailing_ident(head) == Some("use") {
        return (
            word_start,
            starting_with(STDLIB.iter().map(|(n, _)| *n), word),
        );
    }
    if let Some(target) = head.strip_suffix('.') {
        let candidates = match trailing_ident(target).and_then(|n| names.get(n)) {
            Some(Members::Dict(keys)) => starting_with(keys.iter().map(String::as_str), word),
            Some(Members::Module(items)) => starting_with(items.iter().map(String::as_str), word),
            // Tensors: attributes, and every builtin in method form (`x.sum()`).
            _ => starting_with(
                TENSOR_ATTRS
                    .iter()
                    .copied()
                    .chain(builtins::all().iter().map(|b| b.name)),
                word,
            ),
        };
        return (word_start, candidates);
    }
    if word.is_empty() {
        return (pos, Vec::new());
    }
    let builtins = builtins::all();
    let all = names
        .vars
        .iter()
        .map(|(n, _)| n.as_str())
        .chain(builtins.iter().map(|b| b.name))
        .chain(KEYWORDS.iter().copied());
    (word_start, starting_with(all, word))
}

/// When `before` ends inside a string literal: where its text starts (after the
/// quote) and the text so far.
fn open_string(before: &str) -> Option<(usize, &str)> {
    let (tok, span) = lex(before).pop()?;
    // An unterminated string lexes as an error token starting at its quote.
    if tok != Token::Error {
        return None;
    }
    let quote = before[span.start..].chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let start = span.start + 1;
    Some((start, &before[start..]))
}

/// The identifier that `text` ends with, if any.
fn trailing_ident(text: &str) -> Option<&str> {
    let start = text
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()?
        .0;
    Some(&text[start..])
}

fn starting_with<'a>(items: impl Iterator<Item = &'a str>, prefix: &str) -> Vec<String> {
    let mut out: Vec<String> = items
        .filter(|s| s.starts_with(prefix))
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Files and directories (with a trailing `/`) whose path starts with `partial`.
fn paths(partial: &str) -> Vec<String> {
    let (dir, file) = match partial.rfind('/') {
        Some(i) => (&partial[..=i], &partial[i + 1..]),
        None => ("", partial),
    };
    let listing = if dir.is_empty() {
        Path::new(".")
    } else {
        Path::new(dir)
    };
    let Ok(entries) = std::fs::read_dir(listing) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            if !name.starts_with(file) || (name.starts_with('.') && !file.starts_with('.')) {
                return None;
            }
            let slash = if e.path().is_dir() { "/" } else { "" };
            Some(format!("{dir}{name}{slash}"))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Names {
        Names {
            vars: vec![
                ("weights".into(), Members::Tensor),
                (
                    "model".into(),
                    Members::Dict(vec!["metadata".into(), "tensors".into()]),
                ),
                (
                    "stats".into(),
                    Members::Module(vec!["median".into(), "zscore".into()]),
                ),
                ("count".into(), Members::Other),
            ],
        }
    }

    fn at_end(line: &str) -> (usize, Vec<String>) {
        complete(line, line.len(), &names())
    }

    #[test]
    fn variables_builtins_and_keywords() {
        assert_eq!(at_end("let y = wei"), (8, vec!["weights".to_string()]));
        let (start, c) = at_end("su");
        assert_eq!(start, 0);
        assert!(c.contains(&"sum".to_string()) && !c.contains(&"squeeze".to_string()));
        assert!(at_end("whi").1.contains(&"while".to_string()));
        assert_eq!(at_end("1 + ").1, Vec::<String>::new());
    }

    #[test]
    fn after_a_dot() {
        let (start, c) = at_end("weights.sh");
        assert_eq!(
            (start, c),
            (8, vec!["shape".to_string(), "shuffle".to_string()])
        );
        assert!(at_end("weights.").1.contains(&"sum".to_string()));
        assert_eq!(at_end("model.me").1, vec!["metadata".to_string()]);
        assert_eq!(at_end("stats.z").1, vec!["zscore".to_string()]);
    }

    #[test]
    fn dict_keys_and_modules() {
        assert_eq!(at_end("model[\"te").1, vec!["tensors".to_string()]);
        assert_eq!(at_end("model[\"te").0, 7);
        assert_eq!(at_end("use st"), (4, vec!["stats".to_string()]));
    }

    #[test]
    fn file_paths_inside_strings() {
        let dir = std::env::temp_dir().join(format!("tsr-complete-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("data.npy"), b"").unwrap();
        let prefix = format!("{}/", dir.display());
        let line = format!("load(\"{prefix}d");
        let (start, c) = complete(&line, line.len(), &names());
        assert_eq!(start, 6);
        assert_eq!(c, vec![format!("{prefix}data.npy")]);
        let line = format!("load(\"{prefix}s");
        assert_eq!(
            complete(&line, line.len(), &names()).1,
            vec![format!("{prefix}sub/")]
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

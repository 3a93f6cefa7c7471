//! Tokens (logos) and the literal decoders shared by the parser: integer and float
//! values, string escapes, and the split of an f-string into text and `{expr}` holes.
//!
//! [`lex`] is the raw token stream (comments and newlines included), used by the REPL
//! highlighter. The parser post-processes it (see `parser::layout`): it expands
//! f-strings into the `FStr*` tokens, drops comments and the newlines that do not end a
//! statement, and reports lexical errors.

use std::fmt;
use std::ops::Range;

use logos::{Lexer, Logos};

/// A token. Literal variants borrow their raw source text; decoding (escapes, digit
/// separators, range checks) happens in the parser, which reports the errors.
#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"[ \t\r\f\x{FEFF}]+")]
pub enum Token<'src> {
    /// Text the lexer could not read: an unexpected character or an unterminated string.
    Error,

    #[token("\n")]
    Newline,
    /// `# ...` up to the end of the line (the parser drops it).
    #[regex(r"#[^\n]*", allow_greedy = true)]
    Comment,

    /// An integer literal as written: `42`, `1_000`, `0x1F`, `0b101`, `0o17`.
    #[regex(r"[0-9][0-9_]*")]
    #[regex(r"0[xX][0-9a-fA-F_]*[0-9a-fA-F][0-9a-fA-F_]*")]
    #[regex(r"0[bB][01_]*[01][01_]*")]
    #[regex(r"0[oO][0-7_]*[0-7][0-7_]*")]
    Int(&'src str),
    /// A float literal as written: `1.5`, `1.`, `.5`, `1e-3`, `2.5E+10`.
    #[regex(r"[0-9][0-9_]*\.([0-9][0-9_]*)?([eE][+-]?[0-9][0-9_]*)?")]
    #[regex(r"\.[0-9][0-9_]*([eE][+-]?[0-9][0-9_]*)?")]
    #[regex(r"[0-9][0-9_]*[eE][+-]?[0-9][0-9_]*")]
    Float(&'src str),
    /// A string literal's body between the quotes, escapes not yet decoded.
    #[token("\"", |lex| string_body(lex, '"'))]
    #[token("'", |lex| string_body(lex, '\''))]
    Str(&'src str),
    /// An f-string's body between `f"` and `"`, not yet split into text and holes.
    #[token("f\"", |lex| fstring_body(lex, '"'))]
    #[token("f'", |lex| fstring_body(lex, '\''))]
    FStr(&'src str),
    /// A name: `[\p{XID_Start}_][\p{XID_Continue}]*` that is not a keyword.
    #[regex(r"[\p{XID_Start}_]\p{XID_Continue}*")]
    Ident(&'src str),

    #[token("let")]
    Let,
    #[token("fn")]
    Fn,
    #[token("if")]
    If,
    #[token("else")]
    Else,
    #[token("for")]
    For,
    #[token("in")]
    In,
    #[token("while")]
    While,
    #[token("break")]
    Break,
    #[token("continue")]
    Continue,
    #[token("return")]
    Return,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("none")]
    NoneLit,
    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("not")]
    Not,
    #[token("import")]
    Import,
    #[token("as")]
    As,
    #[token("use")]
    Use,
    #[token("try")]
    Try,
    #[token("no_grad")]
    NoGrad,
    #[token("catch")]
    Catch,
    #[token("del")]
    Del,

    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("//")]
    SlashSlash,
    #[token("%")]
    Percent,
    #[token("**")]
    StarStar,
    #[token("@")]
    At,
    #[token("==")]
    EqEq,
    #[token("!=")]
    NotEq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("&")]
    Amp,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("~")]
    Tilde,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("*=")]
    StarAssign,
    #[token("/=")]
    SlashAssign,

    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(";")]
    Semi,
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("...")]
    Ellipsis,

    // The parser expands an `FStr` token into these; `lex` never produces them.
    /// `f"` or `f'`
    FStrStart,
    /// Literal text of an f-string, escapes (and `{{`, `}}`) not yet decoded.
    FStrText(&'src str),
    /// The `{` opening an f-string hole.
    FStrOpen,
    /// The format spec of a hole, after the `:` (e.g. `.3f`).
    FStrSpec(&'src str),
    /// The `}` closing an f-string hole.
    FStrClose,
    /// The closing quote of an f-string.
    FStrEnd,
}

impl Token<'_> {
    /// The text of a keyword token (keywords are valid attribute names: `x.in`).
    pub fn keyword(&self) -> Option<&'static str> {
        Some(match self {
            Token::Let => "let",
            Token::Fn => "fn",
            Token::If => "if",
            Token::Else => "else",
            Token::For => "for",
            Token::In => "in",
            Token::While => "while",
            Token::Break => "break",
            Token::Continue => "continue",
            Token::Return => "return",
            Token::True => "true",
            Token::False => "false",
            Token::NoneLit => "none",
            Token::And => "and",
            Token::Or => "or",
            Token::Not => "not",
            Token::Import => "import",
            Token::As => "as",
            Token::Use => "use",
            Token::Try => "try",
            Token::NoGrad => "no_grad",
            Token::Catch => "catch",
            Token::Del => "del",
            _ => return None,
        })
    }

    /// The fixed spelling of a punctuation token.
    pub fn punct(&self) -> Option<&'static str> {
        Some(match self {
            Token::Plus => "+",
            Token::Minus => "-",
            Token::Star => "*",
            Token::Slash => "/",
            Token::SlashSlash => "//",
            Token::Percent => "%",
            Token::StarStar => "**",
            Token::At => "@",
            Token::EqEq => "==",
            Token::NotEq => "!=",
            Token::Lt => "<",
            Token::Le => "<=",
            Token::Gt => ">",
            Token::Ge => ">=",
            Token::Amp => "&",
            Token::Pipe => "|",
            Token::Caret => "^",
            Token::Tilde => "~",
            Token::Assign => "=",
            Token::PlusAssign => "+=",
            Token::MinusAssign => "-=",
            Token::StarAssign => "*=",
            Token::SlashAssign => "/=",
            Token::LParen => "(",
            Token::RParen => ")",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::LBrace | Token::FStrOpen => "{",
            Token::RBrace | Token::FStrClose => "}",
            Token::Comma => ",",
            Token::Semi => ";",
            Token::Colon => ":",
            Token::Dot => ".",
            Token::Ellipsis => "...",
            _ => return None,
        })
    }
}

/// How a token is named in diagnostics: "`)`", "`foo`", "newline", "string".
impl fmt::Display for Token<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(text) = self.keyword().or_else(|| self.punct()) {
            return write!(f, "`{text}`");
        }
        match self {
            Token::Ident(s) | Token::Int(s) | Token::Float(s) => write!(f, "`{s}`"),
            Token::Str(_) => f.write_str("string"),
            Token::FStr(_) | Token::FStrStart => f.write_str("f-string"),
            Token::FStrText(_) => f.write_str("f-string text"),
            Token::FStrSpec(_) => f.write_str("format spec"),
            Token::FStrEnd => f.write_str("end of f-string"),
            Token::Newline => f.write_str("newline"),
            Token::Comment => f.write_str("comment"),
            _ => f.write_str("invalid token"),
        }
    }
}

/// The raw token stream with byte ranges; unreadable text becomes `Token::Error`.
pub fn lex(src: &str) -> Vec<(Token<'_>, Range<usize>)> {
    Token::lexer(src)
        .spanned()
        .map(|(tok, span)| (tok.unwrap_or(Token::Error), span))
        .collect()
}

/// Logos callback after an opening quote: consumes the body and the closing quote.
/// An unterminated string consumes the rest of the input and becomes an error token.
fn string_body<'src>(lex: &mut Lexer<'src, Token<'src>>, quote: char) -> Option<&'src str> {
    let rest = lex.remainder();
    match string_end(rest, quote) {
        Some(end) => {
            lex.bump(end + quote.len_utf8());
            Some(&rest[..end])
        }
        None => {
            lex.bump(rest.len());
            None
        }
    }
}

/// Logos callback after `f"`/`f'`: like [`string_body`], but the quote inside a `{}`
/// hole still ends the f-string (nested strings use the other quote).
fn fstring_body<'src>(lex: &mut Lexer<'src, Token<'src>>, quote: char) -> Option<&'src str> {
    let rest = lex.remainder();
    match scan_fstring(rest, quote).end {
        Some(end) => {
            lex.bump(end + quote.len_utf8());
            Some(&rest[..end])
        }
        None => {
            lex.bump(rest.len());
            None
        }
    }
}

/// Byte offset of the unescaped `quote` that ends a string body starting at `text`.
fn string_end(text: &str, quote: char) -> Option<usize> {
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == '\\' {
            chars.next();
        } else if c == quote {
            return Some(i);
        }
    }
    None
}

/// One piece of an f-string body; offsets are relative to the body.
#[derive(Clone, Debug, PartialEq)]
pub enum FStrPiece {
    /// Literal text, still escaped (`\n`, `{{`, `}}`).
    Text(Range<usize>),
    /// `{expr}` or `{expr:spec}`: the offset of `{`, the expression text, the spec
    /// after the `:`, and the offset of the closing `}` (None if the f-string ends first).
    Hole {
        open: usize,
        expr: Range<usize>,
        spec: Option<Range<usize>>,
        close: Option<usize>,
    },
}

/// The pieces of an f-string body and the offset of its closing quote (None when the
/// input ends first).
#[derive(Clone, Debug, PartialEq)]
pub struct FStrScan {
    pub pieces: Vec<FStrPiece>,
    pub end: Option<usize>,
}

/// Splits the text after `f"` into literal text and `{expr[:spec]}` holes, up to the
/// closing `quote`. In a hole, brackets nest, strings in the other quote are skipped,
/// and a `:` outside brackets starts the format spec, which runs to the next `}`.
pub fn scan_fstring(text: &str, quote: char) -> FStrScan {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '{' if chars.peek().map(|&(_, n)| n) == Some('{') => {
                chars.next();
            }
            '{' => {
                if text_start < i {
                    pieces.push(FStrPiece::Text(text_start..i));
                }
                let hole = scan_hole(text, i, quote);
                let resume = hole.close.map_or(text.len(), |c| c + 1);
                let ended = hole.close.is_none();
                let expr_end = hole.spec.as_ref().map_or(hole.expr_end, |s| s.start - 1);
                pieces.push(FStrPiece::Hole {
                    open: i,
                    expr: i + 1..expr_end,
                    spec: hole.spec,
                    close: hole.close,
                });
                if ended {
                    // The hole ran into the closing quote or the end of input.
                    let end = string_end_at(text, hole.expr_end, quote);
                    return FStrScan { pieces, end };
                }
                text_start = resume;
                while chars.peek().is_some_and(|&(j, _)| j < resume) {
                    chars.next();
                }
            }
            c if c == quote => {
                if text_start < i {
                    pieces.push(FStrPiece::Text(text_start..i));
                }
                return FStrScan {
                    pieces,
                    end: Some(i),
                };
            }
            _ => {}
        }
    }
    if text_start < text.len() {
        pieces.push(FStrPiece::Text(text_start..text.len()));
    }
    FStrScan { pieces, end: None }
}

/// `Some(at)` when `text[at..]` starts with `quote`.
fn string_end_at(text: &str, at: usize, quote: char) -> Option<usize> {
    text.get(at..)
        .filter(|rest| rest.starts_with(quote))
        .map(|_| at)
}

/// Where a hole's parts end: `expr_end` is where scanning stopped (the `}`, the spec's
/// `}`, the f-string's quote or the end of input).
struct Hole {
    expr_end: usize,
    spec: Option<Range<usize>>,
    close: Option<usize>,
}

/// Scans a hole whose `{` is at `open`.
fn scan_hole(text: &str, open: usize, quote: char) -> Hole {
    let mut depth = 0usize;
    let mut chars = text[open + 1..]
        .char_indices()
        .map(|(j, c)| (j + open + 1, c));
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            '}' if depth > 0 => depth -= 1,
            '}' => {
                return Hole {
                    expr_end: i,
                    spec: None,
                    close: Some(i),
                }
            }
            ':' if depth == 0 => {
                let spec_start = i + 1;
                let rest = &text[spec_start..];
                let stop = rest
                    .find(['}', quote])
                    .map_or(text.len(), |k| spec_start + k);
                let close = text[stop..].starts_with('}').then_some(stop);
                return Hole {
                    expr_end: stop,
                    spec: Some(spec_start..stop),
                    close,
                };
            }
            c if c == quote => {
                return Hole {
                    expr_end: i,
                    spec: None,
                    close: None,
                }
            }
            '"' | '\'' => {
                // A nested string in the other quote: skip it, escapes included.
                let mut escaped = false;
                for (k, d) in chars.by_ref() {
                    match d {
                        _ if escaped => escaped = false,
                        '\\' => escaped = true,
                        d if d == quote => {
                            return Hole {
                                expr_end: k,
                                spec: None,
                                close: None,
                            }
                        }
                        d if d == c => break,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Hole {
        expr_end: text.len(),
        spec: None,
        close: None,
    }
}

/// A decoding error: byte range in the decoded text's source slice, and the message.
pub type LiteralError = (Range<usize>, String);

/// Decodes the escapes `\n \t \r \0 \\ \" \' \u{...}` of a string body. With `fstring`,
/// `{{` and `}}` become braces and a lone `}` is an error. Errors keep going, so every
/// bad escape is reported; the bad escape itself decodes to nothing.
pub fn unescape(raw: &str, fstring: bool) -> (String, Vec<LiteralError>) {
    let mut out = String::with_capacity(raw.len());
    let mut errors = Vec::new();
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                let Some((j, e)) = chars.next() else {
                    errors.push((i..i + 1, "a string cannot end with `\\`".to_string()));
                    break;
                };
                let simple = match e {
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    '0' => Some('\0'),
                    '\\' | '"' | '\'' => Some(e),
                    _ => None,
                };
                if let Some(s) = simple {
                    out.push(s);
                } else if e == 'u' {
                    match unicode_escape(&raw[j + 1..]) {
                        Ok((ch, len)) => {
                            out.push(ch);
                            while chars.peek().is_some_and(|&(k, _)| k < j + 1 + len) {
                                chars.next();
                            }
                        }
                        Err(msg) => errors.push((i..j + 1, msg)),
                    }
                } else {
                    errors.push((
                        i..j + e.len_utf8(),
                        format!("unknown escape sequence `\\{e}`"),
                    ));
                }
            }
            '{' | '}' if fstring => {
                if chars.peek().map(|&(_, n)| n) == Some(c) {
                    chars.next();
                    out.push(c);
                } else {
                    errors.push((
                        i..i + 1,
                        format!("single `{c}` in an f-string; write `{c}{c}` for a literal brace"),
                    ));
                }
            }
            _ => out.push(c),
        }
    }
    (out, errors)
}

/// Decodes the `{XXXX}` after `\u`: the char and the number of bytes it took.
fn unicode_escape(rest: &str) -> Result<(char, usize), String> {
    let bad = || "invalid unicode escape: expected `\\u{...}` with 1 to 6 hex digits".to_string();
    let body = rest.strip_prefix('{').ok_or_else(bad)?;
    let close = body.find('}').ok_or_else(bad)?;
    let hex = &body[..close];
    if hex.is_empty() || hex.len() > 6 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let code = u32::from_str_radix(hex, 16).map_err(|_| bad())?;
    let ch = char::from_u32(code)
        .ok_or_else(|| format!("`\\u{{{hex}}}` is not a valid unicode character"))?;
    Ok((ch, close + 2))
}

/// The value of an integer literal (digit separators `_` allowed).
pub fn int_value(raw: &str) -> Result<i64, String> {
    let digits: String = raw.chars().filter(|&c| c != '_').collect();
    let (radix, body) = match digits.get(..2) {
        Some("0x" | "0X") => (16, &digits[2..]),
        Some("0b" | "0B") => (2, &digits[2..]),
        Some("0o" | "0O") => (8, &digits[2..]),
        _ => (10, digits.as_str()),
    };
    i64::from_str_radix(body, radix).map_err(|e| match e.kind() {
        std::num::IntErrorKind::PosOverflow => "integer literal is too large".to_string(),
        _ => "invalid integer literal".to_string(),
    })
}

/// The value of a float literal (digit separators `_` allowed; overflow gives inf).
pub fn float_value(raw: &str) -> f64 {
    let digits: String = raw.chars().filter(|&c| c != '_').collect();
    digits.parse().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Token<'_>> {
        lex(src).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn numbers() {
        use Token::*;
        assert_eq!(
            kinds("42 1_000 0x1F 0b101 1.5 1. .5 1e-3 2.5E+10"),
            vec![
                Int("42"),
                Int("1_000"),
                Int("0x1F"),
                Int("0b101"),
                Float("1.5"),
                Float("1."),
                Float(".5"),
                Float("1e-3"),
                Float("2.5E+10")
            ]
        );
        // `1.e` is not a float exponent: the float is `1.` and `exp` a name.
        assert_eq!(kinds("1.exp"), vec![Float("1."), Ident("exp")]);
        assert_eq!(int_value("1_000"), Ok(1000));
        assert_eq!(int_value("0x1F"), Ok(31));
        assert_eq!(int_value("0o17"), Ok(15));
        assert_eq!(int_value("9223372036854775807"), Ok(i64::MAX));
        assert_eq!(
            int_value("9223372036854775808"),
            Err("integer literal is too large".to_string())
        );
        assert_eq!(float_value("2.5E+10"), 2.5e10);
        assert_eq!(float_value("1_0.5"), 10.5);
        assert_eq!(float_value("1e999"), f64::INFINITY);
    }

    #[test]
    fn names_keywords_and_operators() {
        use Token::*;
        assert_eq!(
            kinds("let x_1 = größe // 2 ** 3 != none"),
            vec![
                Let,
                Ident("x_1"),
                Assign,
                Ident("größe"),
                SlashSlash,
                Int("2"),
                StarStar,
                Int("3"),
                NotEq,
                NoneLit
            ]
        );
        assert_eq!(
            kinds("a...b.c f fx\"s\""),
            vec![
                Ident("a"),
                Ellipsis,
                Ident("b"),
                Dot,
                Ident("c"),
                Ident("f"),
                Ident("fx"),
                Str("s")
            ]
        );
        assert_eq!(kinds("lets _"), vec![Ident("lets"), Ident("_")]);
        assert_eq!(Token::In.to_string(), "`in`");
        assert_eq!(Token::Ident("x").to_string(), "`x`");
        assert_eq!(Token::Newline.to_string(), "newline");
    }

    #[test]
    fn comments_newlines_and_errors() {
        use Token::*;
        assert_eq!(
            kinds("a # note\r\n$b"),
            vec![Ident("a"), Comment, Newline, Error, Ident("b")]
        );
        let toks = lex("x = \"abc");
        assert_eq!(toks.last(), Some(&(Error, 4..8)));
    }

    #[test]
    fn strings() {
        assert_eq!(
            kinds(r#""a\"b" 'c'"#),
            vec![Token::Str(r#"a\"b"#), Token::Str("c")]
        );
        assert_eq!(
            unescape(r#"a\n\t\\\"\'\0\u{1F600}z"#, false).0,
            "a\n\t\\\"'\0\u{1F600}z"
        );
        let (_, errs) = unescape(r"a\qb\u{110000}\u{zz}", false);
        assert_eq!(errs.len(), 3);
        assert_eq!(errs[0], (1..3, "unknown escape sequence `\\q`".to_string()));
        assert_eq!(unescape("{{x}}", true).0, "{x}");
        assert_eq!(unescape("a}b", true).1.len(), 1);
        // A multi-line string is one token.
        assert_eq!(kinds("'a\nb'"), vec![Token::Str("a\nb")]);
    }

    #[test]
    fn fstrings() {
        let src = r#"f"m = {x.mean():.3f} {{lit}} {d['k:}']}" 1"#;
        assert_eq!(
            kinds(src),
            vec![
                Token::FStr(r#"m = {x.mean():.3f} {{lit}} {d['k:}']}"#),
                Token::Int("1")
            ]
        );
        let body = r#"m = {x.mean():.3f} {{lit}} {d['k:}']}""#;
        let scan = scan_fstring(body, '"');
        assert_eq!(scan.end, Some(body.len() - 1));
        assert_eq!(
            scan.pieces,
            vec![
                FStrPiece::Text(0..4),
                FStrPiece::Hole {
                    open: 4,
                    expr: 5..13,
                    spec: Some(14..17),
                    close: Some(17)
                },
                FStrPiece::Text(18..27),
                FStrPiece::Hole {
                    open: 27,
                    expr: 28..36,
                    spec: None,
                    close: Some(36)
                },
            ]
        );
        // A slice colon inside brackets is not a spec.
        let scan = scan_fstring("{x[1:2]}\"", '"');
        assert!(matches!(
            &scan.pieces[0],
            FStrPiece::Hole { spec: None, .. }
        ));
        // The own quote ends the f-string even inside a hole.
        let scan = scan_fstring("{x\"", '"');
        assert_eq!(scan.end, Some(2));
        assert!(matches!(
            &scan.pieces[0],
            FStrPiece::Hole { close: None, .. }
        ));
        assert_eq!(kinds("f\"{x"), vec![Token::Error]);
    }
}

//! Syntax colours for the line being edited, from the lexer's tokens: keywords,
//! numbers, strings, comments, operators, and brackets that have no partner in red.

use crate::syntax::token::{lex, Token};

const KEYWORD: &str = "\x1b[35m";
const NUMBER: &str = "\x1b[36m";
const STRING: &str = "\x1b[32m";
const COMMENT: &str = "\x1b[90m";
const OPERATOR: &str = "\x1b[33m";
const UNMATCHED: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

/// `line` with ANSI colour codes around its tokens; the text itself is unchanged.
pub fn highlight(line: &str) -> String {
    let tokens = lex(line);
    let unmatched = unmatched_brackets(&tokens);
    let mut out = String::with_capacity(line.len() * 2);
    let mut at = 0;
    for (i, (tok, span)) in tokens.iter().enumerate() {
        out.push_str(&line[at..span.start]);
        let text = &line[span.clone()];
        let colour = if unmatched.contains(&i) {
            Some(UNMATCHED)
        } else {
            colour_of(tok)
        };
        match colour {
            Some(c) => {
                out.push_str(c);
                out.push_str(text);
                out.push_str(RESET);
            }
            None => out.push_str(text),
        }
        at = span.end;
    }
    out.push_str(&line[at..]);
    out
}

fn colour_of(tok: &Token) -> Option<&'static str> {
    match tok {
        Token::Int(_) | Token::Float(_) => Some(NUMBER),
        Token::Str(_) | Token::FStr(_) => Some(STRING),
        Token::Comment => Some(COMMENT),
        t if t.keyword().is_some() => Some(KEYWORD),
        Token::LParen
        | Token::RParen
        | Token::LBracket
        | Token::RBracket
        | Token::LBrace
        | Token::RBrace
        | Token::Comma
        | Token::Semi => None,
        t if t.punct().is_some() => Some(OPERATOR),
        _ => None,
    }
}

/// Indices of the bracket tokens without a partner: closers that match no opener, and
/// openers still open at the end of the line.
fn unmatched_brackets(tokens: &[(Token, std::ops::Range<usize>)]) -> Vec<usize> {
    let mut open: Vec<(usize, Token)> = Vec::new();
    let mut bad = Vec::new();
    for (i, (tok, _)) in tokens.iter().enumerate() {
        match tok {
            Token::LParen | Token::LBracket | Token::LBrace => open.push((i, *tok)),
            Token::RParen | Token::RBracket | Token::RBrace => {
                let partner = match tok {
                    Token::RParen => Token::LParen,
                    Token::RBracket => Token::LBracket,
                    _ => Token::LBrace,
                };
                match open.last() {
                    Some((_, t)) if *t == partner => {
                        open.pop();
                    }
                    _ => bad.push(i),
                }
            }
            _ => {}
        }
    }
    bad.extend(open.into_iter().map(|(i, _)| i));
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strip(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c == '\x1b' {
                chars.by_ref().find(|&c| c == 'm');
            } else {
                out.push(c);
            }
        }
        out
    }

    #[test]
    fn text_is_unchanged_and_tokens_are_coloured() {
        let line = "let x = f(1.5, \"s\") # note";
        let h = highlight(line);
        assert_eq!(strip(&h), line);
        assert!(h.contains("\x1b[35mlet\x1b[0m"));
        assert!(h.contains("\x1b[36m1.5\x1b[0m"));
        assert!(h.contains("\x1b[32m\"s\"\x1b[0m"));
        assert!(h.contains("\x1b[90m# note\x1b[0m"));
    }

    #[test]
    fn unmatched_brackets_are_red() {
        let h = highlight("f(x])");
        assert!(h.contains("\x1b[1;31m]\x1b[0m"));
        assert!(highlight("(a").starts_with("\x1b[1;31m(\x1b[0m"));
        assert!(!highlight("[(a)]").contains("31m"));
    }
}

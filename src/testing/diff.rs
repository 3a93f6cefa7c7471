//! A readable report of how an output differs from its snapshot: changed lines as
//! `-` expected / `+` actual, numbers beyond tolerance marked with `^` and listed with
//! their absolute and relative error.

use std::fmt::Write as _;

use super::compare::{line_tokens, token_match, tokens_match, Token, Tolerance};

/// Lines of a report past which the rest is summarized in one line.
const MAX_REPORT_LINES: usize = 60;
/// Larger outputs are compared line by line at equal positions instead of aligned.
const MAX_ALIGNED_LINES: usize = 4000;

enum Op {
    Same,
    Removed(usize),
    Added(usize),
}

/// Aligns the lines of both outputs (longest common subsequence under the tolerance).
fn align(expected: &[Vec<Token>], actual: &[Vec<Token>], tol: &Tolerance) -> Vec<Op> {
    let (n, m) = (expected.len(), actual.len());
    if n > MAX_ALIGNED_LINES || m > MAX_ALIGNED_LINES {
        let mut ops = Vec::new();
        for i in 0..n.max(m) {
            match (expected.get(i), actual.get(i)) {
                (Some(e), Some(a)) if tokens_match(a, e, tol) => ops.push(Op::Same),
                (e, a) => {
                    if e.is_some() {
                        ops.push(Op::Removed(i));
                    }
                    if a.is_some() {
                        ops.push(Op::Added(i));
                    }
                }
            }
        }
        return ops;
    }
    // lcs[i][j]: common lines of expected[i..] and actual[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if tokens_match(&actual[j], &expected[i], tol) {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && tokens_match(&actual[j], &expected[i], tol) {
            ops.push(Op::Same);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(Op::Added(j));
            j += 1;
        } else {
            ops.push(Op::Removed(i));
            i += 1;
        }
    }
    ops
}

/// Byte offset of a token's text within its line.
fn offset_in(line: &str, piece: &str) -> usize {
    (piece.as_ptr() as usize).saturating_sub(line.as_ptr() as usize)
}

/// The `^` line and notes for numbers beyond tolerance in a changed line pair whose
/// text and spacing tokens agree (only numbers differ).
fn mark_numbers(actual: &str, a: &[Token], e: &[Token], tol: &Tolerance) -> Option<Vec<String>> {
    if a.len() != e.len() {
        return None;
    }
    let only_numbers_differ = a.iter().zip(e).all(|(x, y)| {
        matches!((x, y), (Token::Number(..), Token::Number(..))) || token_match(x, y, tol)
    });
    if !only_numbers_differ {
        return None;
    }
    let mut carets = String::new();
    let mut notes = Vec::new();
    // Columns are counted on from the previous number, and the carets' width is
    // kept, so a line of many numbers is marked in one pass.
    let (mut scanned, mut col, mut caret_cols) = (0, 0, 0);
    for (x, y) in a.iter().zip(e) {
        if let (Token::Number(av, at), Token::Number(ev, et)) = (x, y) {
            if tol.close(*av, *ev) {
                continue;
            }
            let offset = offset_in(actual, at);
            col += actual.get(scanned..offset).map_or(0, |s| s.chars().count());
            scanned = scanned.max(offset);
            if caret_cols < col {
                carets.extend(std::iter::repeat_n(' ', col - caret_cols));
                caret_cols = col;
            }
            let width = at.chars().count().max(1);
            carets.extend(std::iter::repeat_n('^', width));
            caret_cols += width;
            let abs = (av - ev).abs();
            let rel = if *ev != 0.0 {
                abs / ev.abs()
            } else {
                f64::INFINITY
            };
            notes.push(format!(
                "{at} vs expected {et}: abs diff {abs:.3e}, rel diff {rel:.3e} (allowed {:.3e})",
                tol.atol + tol.rtol * ev.abs()
            ));
        }
    }
    let mut out = vec![format!("  {carets}")];
    out.extend(notes.into_iter().map(|n| format!("    {n}")));
    Some(out)
}

/// A report of the differences, or None when the outputs match.
pub fn report(actual: &str, expected: &str, tol: &Tolerance) -> Option<String> {
    let a_lines: Vec<&str> = actual.split('\n').collect();
    let e_lines: Vec<&str> = expected.split('\n').collect();
    let a_toks: Vec<Vec<Token>> = a_lines.iter().map(|l| line_tokens(l)).collect();
    let e_toks: Vec<Vec<Token>> = e_lines.iter().map(|l| line_tokens(l)).collect();
    let ops = align(&e_toks, &a_toks, tol);
    if ops.iter().all(|op| matches!(op, Op::Same)) {
        return None;
    }
    let mut lines: Vec<String> = Vec::new();
    let mut k = 0;
    while k < ops.len() {
        if matches!(ops[k], Op::Same) {
            k += 1;
            continue;
        }
        // One hunk: a run of removed and added lines.
        let start = k;
        while k < ops.len() && !matches!(ops[k], Op::Same) {
            k += 1;
        }
        let removed: Vec<usize> = ops[start..k]
            .iter()
            .filter_map(|o| match o {
                Op::Removed(i) => Some(*i),
                _ => None,
            })
            .collect();
        let added: Vec<usize> = ops[start..k]
            .iter()
            .filter_map(|o| match o {
                Op::Added(j) => Some(*j),
                _ => None,
            })
            .collect();
        let at = match (removed.first(), added.first()) {
            (Some(i), _) => format!("expected line {}", i + 1),
            (None, Some(j)) => format!("output line {}", j + 1),
            _ => String::new(),
        };
        lines.push(format!("@@ {at} @@"));
        // Pair each removed line with the next added line of the same shape (only numbers
        // differ), so its numbers can be marked; everything else shows as plain -/+ lines.
        let mut next_added = 0;
        for &i in &removed {
            let partner = added[next_added..]
                .iter()
                .position(|&j| mark_numbers(a_lines[j], &a_toks[j], &e_toks[i], tol).is_some());
            match partner {
                Some(p) => {
                    for &j in &added[next_added..next_added + p] {
                        lines.push(format!("+ {}", a_lines[j]));
                    }
                    let j = added[next_added + p];
                    lines.push(format!("- {}", e_lines[i]));
                    lines.push(format!("+ {}", a_lines[j]));
                    lines.extend(
                        mark_numbers(a_lines[j], &a_toks[j], &e_toks[i], tol).unwrap_or_default(),
                    );
                    next_added += p + 1;
                }
                None => lines.push(format!("- {}", e_lines[i])),
            }
        }
        for &j in &added[next_added..] {
            lines.push(format!("+ {}", a_lines[j]));
        }
    }
    let total = lines.len();
    let mut out = String::new();
    for l in lines.iter().take(MAX_REPORT_LINES) {
        let _ = writeln!(out, "{}", l.trim_end());
    }
    if total > MAX_REPORT_LINES {
        let _ = writeln!(out, "... ({} more report lines)", total - MAX_REPORT_LINES);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_numbers_beyond_tolerance() {
        let r = report(
            "[0.1 0.2 0.31]\nend\n",
            "[0.1 0.2 0.3]\nend\n",
            &Tolerance::default(),
        )
        .unwrap();
        assert!(r.contains("- [0.1 0.2 0.3]"), "{r}");
        assert!(r.contains("+ [0.1 0.2 0.31]"), "{r}");
        assert!(r.contains("           ^^^^"), "{r}");
        assert!(r.contains("0.31 vs expected 0.3"), "{r}");
    }

    #[test]
    fn reports_inserted_and_removed_lines() {
        let r = report("a\nnew\nb\n", "a\nb\n", &Tolerance::default()).unwrap();
        assert!(r.contains("+ new") && !r.contains("- a"), "{r}");
        let r = report("a\n", "a\nb\n", &Tolerance::default()).unwrap();
        assert!(r.contains("- b"), "{r}");
        assert!(report("x 1.0000001\n", "x 1.0\n", &Tolerance::default()).is_none());
    }

    // Found by the `compare` fuzz target: the diff ignored a space that starts a line,
    // while the verdict did not.
    #[test]
    fn a_space_that_starts_a_line_counts_as_in_the_verdict() {
        let t = Tolerance::default();
        for (actual, expected) in [("]\n[2]", "]\n [2]"), ("a \nb", "a\nb")] {
            assert!(report(actual, expected, &t).is_some(), "{actual:?}");
            assert!(!super::super::compare::outputs_match(actual, expected, &t));
        }
        assert!(report("  [1 2]\n", "\t[1   2]\n", &t).is_none());
    }
}

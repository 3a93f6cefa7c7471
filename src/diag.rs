//! Diagnostics: one type for every parse and runtime error, rendered by ariadne
//! with the source span underlined. This is the only module that calls ariadne.

use std::collections::HashMap;
use std::fmt::Write as _;

use ariadne::{Color, Config, IndexType, Label as ALabel, Report, ReportKind};

use crate::span::{Span, SrcId};

/// A secondary span with a message, e.g. "left operand has shape [2, 3]".
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub message: String,
    /// The primary location; underlined even when no label names it.
    pub span: Span,
    pub labels: Vec<Label>,
    /// Extra lines after the snippet: hints, the expected form, ...
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            labels: vec![],
            notes: vec![],
        }
    }

    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

/// Every source text the session has seen, by `SrcId`, with a display name.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<(String, String)>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Registers a source text; `name` is shown in diagnostics (a path, `<-e>`, `<repl>`).
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> SrcId {
        self.files.push((name.into(), text.into()));
        SrcId((self.files.len() - 1) as u32)
    }

    pub fn name(&self, id: SrcId) -> &str {
        self.files.get(id.0 as usize).map_or("<unknown>", |f| &f.0)
    }

    pub fn text(&self, id: SrcId) -> &str {
        self.files.get(id.0 as usize).map_or("", |f| &f.1)
    }

    /// A name unique within the map, so ariadne can tell two `<repl>` lines apart.
    fn unique_name(&self, id: SrcId) -> String {
        let name = self.name(id);
        let dup = self.files.iter().filter(|f| f.0 == name).count() > 1;
        if dup {
            format!("{name}#{}", id.0)
        } else {
            name.to_string()
        }
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, id: SrcId, offset: usize) -> (usize, usize) {
        let text = self.text(id);
        let upto = &text[..floor_char_boundary(text, offset)];
        let line = upto.matches('\n').count() + 1;
        let col = upto.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Most diagnostics rendered for one source line: each shows the whole line, so a
/// line of 8,000 errors would otherwise print it 8,000 times.
pub const MAX_PER_LINE: usize = 3;
/// Most diagnostics rendered in all.
pub const MAX_TOTAL: usize = 20;

/// Renders diagnostics as text, in colour only when `color` is set: at most
/// [`MAX_PER_LINE`] for a source line and [`MAX_TOTAL`] in all, then a count of
/// the rest ("... and 7 more errors").
pub fn render(diags: &[Diagnostic], sources: &SourceMap, color: bool) -> String {
    let mut out = String::new();
    let mut lines = LineStarts::default();
    let mut per_line: HashMap<(SrcId, usize), usize> = HashMap::new();
    let mut shown = 0;
    for d in diags {
        let count = per_line
            .entry((d.span.src, lines.line(sources, d.span)))
            .or_default();
        if shown == MAX_TOTAL || *count == MAX_PER_LINE {
            continue;
        }
        *count += 1;
        shown += 1;
        out.push_str(&render_one(d, sources, color));
    }
    let rest = diags.len() - shown;
    if rest > 0 {
        let plural = if rest == 1 { "" } else { "s" };
        let _ = writeln!(out, "... and {rest} more error{plural}");
    }
    out
}

/// The offsets where each line of a source starts, found once per source, so
/// placing many diagnostics costs a binary search each.
#[derive(Default)]
struct LineStarts {
    starts: HashMap<SrcId, Vec<usize>>,
}

impl LineStarts {
    /// The 0-based line of `span`'s start.
    fn line(&mut self, sources: &SourceMap, span: Span) -> usize {
        let starts = self.starts.entry(span.src).or_insert_with(|| {
            let text = sources.text(span.src);
            std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        starts
            .partition_point(|&s| s <= span.start)
            .saturating_sub(1)
    }
}

fn to_ariadne(span: Span, sources: &SourceMap) -> (String, std::ops::Range<usize>) {
    let text = sources.text(span.src);
    let start = floor_char_boundary(text, span.start);
    let end = floor_char_boundary(text, span.end.max(span.start));
    (sources.unique_name(span.src), start..end)
}

fn render_one(d: &Diagnostic, sources: &SourceMap, color: bool) -> String {
    let primary = to_ariadne(d.span, sources);
    let mut report = Report::build(ReportKind::Error, primary.clone())
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_message(&d.message);
    // Underline the primary span unless labels already mark parts of it.
    let overlaps = |l: &Label| {
        l.span.src == d.span.src
            && l.span.start < d.span.end.max(d.span.start + 1)
            && d.span.start < l.span.end
    };
    if !d.labels.iter().any(overlaps) {
        report = report.with_label(
            ALabel::new(primary)
                .with_message("here")
                .with_color(Color::Red),
        );
    }
    for l in &d.labels {
        report = report.with_label(
            ALabel::new(to_ariadne(l.span, sources))
                .with_message(&l.message)
                .with_color(Color::Yellow),
        );
    }
    let mut notes = d.notes.iter();
    if let Some(first) = notes.next() {
        let mut all = first.clone();
        for n in notes {
            let _ = write!(all, "\n{n}");
        }
        report = report.with_note(all);
    }
    let mut files: Vec<(String, String)> = vec![];
    let mut add = |id: SrcId| {
        let name = sources.unique_name(id);
        if !files.iter().any(|f| f.0 == name) {
            files.push((name, sources.text(id).to_string()));
        }
    };
    add(d.span.src);
    for l in &d.labels {
        add(l.span.src);
    }
    let mut buf = Vec::new();
    if report
        .finish()
        .write(ariadne::sources(files), &mut buf)
        .is_err()
    {
        let (line, col) = sources.line_col(d.span.src, d.span.start);
        return format!(
            "error: {} at {}:{line}:{col}\n",
            d.message,
            sources.name(d.span.src)
        );
    }
    String::from_utf8_lossy(&buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_span_and_labels_without_colour() {
        let mut sm = SourceMap::new();
        let id = sm.add("t.tsr", "let x = [1, 2] + [1, 2, 3]\n");
        let d = Diagnostic::new(Span::new(id, 8..26), "shapes do not broadcast")
            .with_label(Span::new(id, 8..14), "left operand has shape [2]")
            .with_label(Span::new(id, 17..26), "right operand has shape [3]")
            .with_note("hint: trailing dimensions must match or be 1");
        let text = render(&[d], &sm, false);
        assert!(text.contains("t.tsr:1:9"), "{text}");
        assert!(text.contains("left operand has shape [2]"));
        assert!(!text.contains('\u{1b}'));
    }
}

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
    pub kind: ErrorKind,
    /// The call sites the error passed on its way out of user functions,
    /// innermost first (boxed: most errors have none, and every result carries
    /// the size of an error).
    calls: Option<Box<[Span]>>,
}

/// What went wrong, as `e.kind` names it in a `catch` block; the last few are
/// never caught (the run must stop).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ErrorKind {
    /// `error(msg)`, and any error without a more specific kind.
    #[default]
    Error,
    /// An undefined name.
    Name,
    /// A value of the wrong kind (a string where a tensor goes, ...).
    Type,
    /// A value of the right kind that is wrong (`int("x")`, a bad option).
    Value,
    /// An index outside its dimension or sequence.
    Index,
    /// A dict key that is not there.
    Key,
    /// Shapes that do not fit together.
    Shape,
    /// A file that cannot be read or written, or is malformed.
    File,
    /// Too deep a recursion.
    Recursion,
    /// Ctrl-C.
    Interrupt,
    /// `--timeout` passed.
    Timeout,
    /// The memory limit (`--max-memory`) or the session's step limit.
    Limit,
    /// A syntax error (of an imported file).
    Syntax,
    /// A gradient that cannot be computed (not differentiable, not a scalar, ...).
    Grad,
}

impl ErrorKind {
    /// The short name `e.kind` gives.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Error => "error",
            ErrorKind::Name => "name",
            ErrorKind::Type => "type",
            ErrorKind::Value => "value",
            ErrorKind::Index => "index",
            ErrorKind::Key => "key",
            ErrorKind::Shape => "shape",
            ErrorKind::File => "file",
            ErrorKind::Recursion => "recursion",
            ErrorKind::Interrupt => "interrupt",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Limit => "limit",
            ErrorKind::Syntax => "syntax",
            ErrorKind::Grad => "grad",
        }
    }

    /// The kind of that name (`error(msg, kind)` re-raising a caught error).
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        const ALL: [ErrorKind; 14] = [
            ErrorKind::Error,
            ErrorKind::Name,
            ErrorKind::Type,
            ErrorKind::Value,
            ErrorKind::Index,
            ErrorKind::Key,
            ErrorKind::Shape,
            ErrorKind::File,
            ErrorKind::Recursion,
            ErrorKind::Interrupt,
            ErrorKind::Timeout,
            ErrorKind::Limit,
            ErrorKind::Syntax,
            ErrorKind::Grad,
        ];
        ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether `try` may catch an error of this kind: not Ctrl-C, a timeout, a
    /// limit of the session or a syntax error, which stop the run.
    pub fn catchable(self) -> bool {
        !matches!(
            self,
            ErrorKind::Interrupt | ErrorKind::Timeout | ErrorKind::Limit | ErrorKind::Syntax
        )
    }
}

impl Diagnostic {
    pub fn new(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            message: message.into(),
            span,
            labels: vec![],
            notes: vec![],
            kind: ErrorKind::Error,
            calls: None,
        }
    }

    /// Notes that the error passed the call at `site` on its way out.
    pub fn add_call(&mut self, site: Span) {
        // Copied on each call site: an error passes at most a few thousand.
        let mut all = self.calls().to_vec();
        all.push(site);
        self.calls = Some(all.into_boxed_slice());
    }

    /// The call sites the error passed, innermost first.
    pub fn calls(&self) -> &[Span] {
        self.calls.as_deref().unwrap_or(&[])
    }

    pub fn with_kind(mut self, kind: ErrorKind) -> Diagnostic {
        self.kind = kind;
        self
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
        let mut out = format!(
            "error: {} at {}:{line}:{col}\n",
            d.message,
            sources.name(d.span.src)
        );
        render_calls(d.calls(), sources, color, &mut out);
        return out;
    }
    let mut out = String::from_utf8_lossy(&buf).into_owned();
    render_calls(d.calls(), sources, color, &mut out);
    out
}

/// The call sites shown for an error raised in nested calls: the innermost ones
/// and the outermost; a deep recursion's middle is counted, not shown.
const CALLS_SHOWN: usize = 8;

/// Each call site an error passed on its way out, innermost first: its place
/// (file:line:column) and the line with the call underlined. A call site repeated
/// in a row (a recursion) is shown once with its count.
fn render_calls(calls: &[Span], sources: &SourceMap, color: bool, out: &mut String) {
    let mut groups: Vec<(Span, usize)> = Vec::new();
    for &call in calls {
        match groups.last_mut() {
            Some((span, n)) if *span == call => *n += 1,
            _ => groups.push((call, 1)),
        }
    }
    let last = groups.len().saturating_sub(1);
    for (i, &(call, times)) in groups.iter().enumerate() {
        if i == CALLS_SHOWN && i < last {
            let hidden: usize = groups[i..last].iter().map(|g| g.1).sum();
            let _ = writeln!(out, "... {hidden} more calls ...");
        }
        if i >= CALLS_SHOWN && i < last {
            continue;
        }
        render_call(call, times, sources, color, out);
    }
}

/// One call site:
/// ```text
/// called from script.tsr:14:11
///    │
/// 14 │ fn f(x) { g(x) }
///    │           ^^^^
/// ```
fn render_call(call: Span, times: usize, sources: &SourceMap, color: bool, out: &mut String) {
    let text = sources.text(call.src);
    let start = floor_char_boundary(text, call.start);
    let end = floor_char_boundary(text, call.end.max(call.start));
    let (line, col) = sources.line_col(call.src, start);
    let line_start = text[..start].rfind('\n').map_or(0, |p| p + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |p| start + p);
    let source_line = &text[line_start..line_end];
    let width = text[start..end.min(line_end)].chars().count().max(1);
    let (on, off) = if color {
        ("\u{1b}[34m", "\u{1b}[0m")
    } else {
        ("", "")
    };
    let gutter = " ".repeat(line.to_string().len());
    let repeated = if times > 1 {
        format!(" ({times} times)")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "{on}called from{off} {}:{line}:{col}{repeated}",
        sources.name(call.src)
    );
    let _ = writeln!(out, "{gutter} │");
    let _ = writeln!(out, "{line} │ {source_line}");
    let _ = writeln!(
        out,
        "{gutter} │ {}{on}{}{off}",
        " ".repeat(col - 1),
        "^".repeat(width)
    );
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

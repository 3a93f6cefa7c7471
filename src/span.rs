//! Source locations: which source text (SrcId) and which byte range in it.

use std::ops::Range;

/// Index of a source text in the `SourceMap` (a file, `-e` code, a REPL line, a stdlib module).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SrcId(pub u32);

/// A byte range in one source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub src: SrcId,
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(src: SrcId, range: Range<usize>) -> Span {
        Span {
            src,
            start: range.start,
            end: range.end,
        }
    }

    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// The smallest span covering both (same source assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            src: self.src,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

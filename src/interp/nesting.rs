//! The evaluation-depth budget. Every recursion of the evaluator passes through
//! `Interp::eval`, which counts one level here: nested expressions, blocks, user calls
//! (which also have their own, smaller limit), imports and f-strings alike. Past
//! [`MAX_NESTING`] levels evaluation stops with a diagnostic at the expression that
//! went one level too deep.
//!
//! The native stack never overflows before that: each level runs through
//! `stacker::maybe_grow`, which moves on to a fresh stack segment on the heap when the
//! thread's own stack runs low. So the limit holds on any thread (the CLI's large
//! interpreter thread, `tsr test`'s workers, a fuzzer's or an embedder's thread), and
//! the memory all levels can take is bounded by the limit times one level's frames.

use crate::diag::{Diagnostic, ErrorKind};
use crate::span::Span;

use super::eval::Flow;
use super::Interp;

/// Deepest nesting of evaluations (expression levels plus the levels of every call in
/// progress). A thousand calls of a hundred levels each fit.
pub const MAX_NESTING: usize = 100_000;

/// Stack left below which a level starts on a new segment: more than the deepest
/// native call chain between two levels (a builtin, an op, a kernel) takes.
const RED_ZONE: usize = 1 << 20;

/// Size of each new stack segment.
const SEGMENT: usize = 16 << 20;

impl Interp {
    /// Runs `f` one evaluation level deeper, or stops at `span` past the limit.
    #[inline(always)]
    pub(super) fn nested<R>(
        &mut self,
        span: Span,
        f: impl FnOnce(&mut Self) -> Result<R, Flow>,
    ) -> Result<R, Flow> {
        if self.nesting >= MAX_NESTING {
            return Err(too_deep(span));
        }
        self.nesting += 1;
        let result = stacker::maybe_grow(RED_ZONE, SEGMENT, || f(self));
        self.nesting -= 1;
        result
    }
}

#[cold]
fn too_deep(span: Span) -> Flow {
    Diagnostic::new(
        span,
        format!("evaluation nested too deeply: more than {MAX_NESTING} levels"),
    )
    .with_note(
        "every nested expression and every call in progress takes a level; \
         hint: check the recursion's base case, or split the expression",
    )
    .with_kind(ErrorKind::Recursion)
    .into()
}

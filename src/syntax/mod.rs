//! Source text to syntax tree: spans, tokens (logos), the AST, the parser (chumsky).

pub mod ast;
pub mod parser;
pub mod span;
pub mod token;

pub use span::{Span, SrcId};

//! Source text to syntax tree: spans, tokens (logos), the AST, the parser (chumsky),
//! name resolution.

pub mod ast;
pub mod parser;
pub mod resolve;
pub mod span;
pub mod token;

pub use span::{Span, SrcId};

//! Source text to syntax tree: tokens (logos), the AST, the parser (chumsky),
//! name resolution.

pub(crate) mod ast;
pub mod parser;
pub(crate) mod resolve;
pub(crate) mod token;

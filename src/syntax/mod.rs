//! Source text to syntax tree: tokens (logos), the AST, the parser (chumsky),
//! name resolution.

pub mod ast;
pub mod parser;
pub mod resolve;
pub mod token;

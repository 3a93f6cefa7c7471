//! tsr: a tensor REPL and scripting language.
//!
//! Data flows downward through the modules: source text → [`syntax`] (tokens, AST) →
//! [`interp`] (values) → [`builtins`] → [`ops`] → [`kernels`], with [`tensor`] holding
//! the data and its NumPy-exact printing, and [`diag`] rendering every error.

pub mod builtins;
pub mod diag;
pub mod interp;
pub mod io;
pub mod kernels;
pub mod ops;
pub mod repl;
pub mod syntax;
pub mod tensor;
pub mod testing;

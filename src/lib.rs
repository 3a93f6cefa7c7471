//! tsr: a tensor REPL and scripting language.
//!
//! Data flows downward through the modules: source text → [`syntax`] (tokens, AST) →
//! [`interp`] → [`builtins`] → [`runtime`] (values, binding, operators) → [`ops`] →
//! [`kernels`], with [`tensor`] holding
//! the data and its NumPy-exact printing, and [`diag`] rendering every error.
//!
//! ```
//! use tsr::interp::{output::SharedOutput, Interp};
//!
//! # fn main() -> Result<(), String> {
//! let out = SharedOutput::default();
//! let mut interp = Interp::new(Box::new(out.clone()));
//! let code = "let x = [[1, 2], [3, 4]]\nprint(x.to(f32) / 2)";
//! interp.run("<doc>", code, None).map_err(|d| interp.render(&d, false))?;
//! assert_eq!(out.text(), "[[0.5 1. ]\n [1.5 2. ]]\n");
//! # Ok(())
//! # }
//! ```

pub mod autograd;
pub mod builtins;
pub mod diag;
pub mod interp;
pub mod io;
pub mod jupyter;
pub mod kernels;
pub(crate) mod markup;
pub mod ops;
pub(crate) mod plot;
pub(crate) mod progress;
pub mod quant;
pub mod repl;
pub mod runtime;
pub mod span;
pub mod syntax;
pub mod tensor;
pub mod testing;

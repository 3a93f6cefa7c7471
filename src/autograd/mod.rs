//! Reverse-mode automatic differentiation. Ops on tracked tensors (`Var`s) record
//! a graph of nodes, each with a backward rule written in the same differentiable
//! ops, so gradients can be differentiated again. `engine` runs the graph backward
//! in a fixed order (same bits for any thread count and ISA). This room knows
//! tensors and ops only: values, spans and diagnostics belong to `runtime`.

mod engine;
mod error;
mod mode;
mod node;
mod record;
pub mod rules;
mod var;

pub use engine::{backward, grad, Options};
pub use error::{GradError, Result};
pub use mode::{enabled, GradMode};
pub use node::any_alive;
pub use record::{opaque, recording};
pub use var::Var;

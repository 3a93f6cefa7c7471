//! The runtime under both the evaluator and the builtins: values, scopes, the
//! native-function interface, the argument binder and the operator semantics.
//! It imports neither `interp` nor `builtins`.

pub mod args;
pub mod arith;
pub mod native;
pub mod quant_matmul;
pub mod scope;
pub mod tensor_diag;
pub mod value;

pub use args::{ArgVal, Bound, CallArgs};
pub use native::{Builtin, BuiltinFn, Ctx};
pub use scope::Scope;
pub use tensor_diag::tensor_diag;
pub use value::Value;

//! The runtime under both the evaluator and the builtins: values, scopes, the
//! native-function interface with its typed parameter declarations, the one
//! argument binder and the operator semantics. It imports neither `interp` nor
//! `builtins`.

pub mod args;
pub mod arith;
pub mod bound;
pub mod closure_call;
pub mod declare;
pub mod default_literal;
pub mod from_arg;
pub mod native;
pub mod quant_matmul;
pub mod scope;
pub mod tensor_diag;
pub mod value;

pub use args::{ArgVal, CallArgs, Callee, Slots};
pub use bound::{Arg, Bound};
pub(crate) use declare::builtin;
pub use from_arg::{Axes, FromArg, Keep, Rest, Shape, Sizes, Spanned};
pub use native::{Builtin, BuiltinFn, Ctx, Param};
pub use scope::Scope;
pub use tensor_diag::tensor_diag;
pub use value::Value;

//! The runtime under both the evaluator and the builtins: values, scopes, the
//! native-function interface with its typed parameter declarations, the one
//! argument binder and the operator semantics. It imports neither `interp` nor
//! `builtins`.

pub(crate) mod args;
pub(crate) mod arith;
pub(crate) mod bound;
pub(crate) mod closure_call;
pub(crate) mod declare;
pub(crate) mod default_literal;
pub(crate) mod from_arg;
pub(crate) mod grad_diag;
pub(crate) mod grad_net;
pub(crate) mod iterate;
pub(crate) mod native;
pub(crate) mod order;
pub(crate) mod quant_matmul;
pub(crate) mod scope;
pub(crate) mod sequence_ops;
mod teardown;
pub(crate) mod tensor_diag;
pub mod text_size;
pub mod value;

pub use args::{ArgVal, CallArgs, Callee, Slots};
pub use bound::{Arg, Bound};
pub(crate) use declare::builtin;
pub use from_arg::{Axes, FromArg, Keep, Rest, Shape, Sizes, Spanned, TensorLike};
pub use grad_diag::grad_diag;
pub use native::{Builtin, BuiltinFn, Ctx, Display, Grad, Param};
pub use scope::Scope;
pub use tensor_diag::tensor_diag;
pub use value::Value;

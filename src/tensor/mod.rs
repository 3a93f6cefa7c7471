//! The tensor core: dtypes, layouts and views, typed storage, printing.
//! Knows nothing of the language, values or spans.

pub mod budget;
pub(crate) mod dtype;
pub(crate) mod error;
pub mod format;
pub(crate) mod iter;
pub(crate) mod layout;
pub(crate) mod random;
pub(crate) mod scalar;
pub(crate) mod shape;
pub(crate) mod storage;
#[allow(clippy::module_inception)]
pub(crate) mod tensor;

pub use dtype::{Category, DType, Elem};
pub use error::{Result, TensorError};
pub use layout::{Layout, SliceSpec};
pub use scalar::Scalar;
pub use storage::Storage;
pub use tensor::Tensor;

//! The tensor core: dtypes, layouts and views, typed storage, printing.
//! Knows nothing of the language, values or spans.

pub mod budget;
pub mod dtype;
pub mod error;
pub mod format;
pub mod iter;
pub mod layout;
pub mod random;
pub mod scalar;
pub mod shape;
pub mod storage;
#[allow(clippy::module_inception)]
pub mod tensor;

pub use dtype::{Category, DType, Elem};
pub use error::{Result, TensorError};
pub use layout::{Layout, SliceSpec};
pub use scalar::Scalar;
pub use storage::Storage;
pub use tensor::Tensor;

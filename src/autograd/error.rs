//! Why a gradient could not be computed. `runtime` turns these into diagnostics.

use crate::tensor::TensorError;

#[derive(Clone, Debug)]
pub enum GradError {
    /// A gradient had to pass through an op that has none (argmax, unique, ...).
    NotDifferentiable { op: String },
    /// `backward()` of a tensor with more than one element and no `gradient=`.
    NonScalar { shape: Vec<usize> },
    /// A second backward through a graph whose saved values were freed.
    Freed { op: &'static str },
    /// Only float tensors can be leaves.
    NotFloat { dtype: &'static str },
    /// The output does not depend on an input the gradient was asked for.
    Unconnected,
    /// An in-place write, in grad mode, to a tensor recorded for gradients.
    InPlace { leaf: bool },
    /// A tracked value written into a tensor in place (`x[i] = y`).
    WriteTracked,
    /// A tensor op inside a backward rule failed.
    Tensor(TensorError),
}

impl std::fmt::Display for GradError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GradError::NotDifferentiable { op } => write!(
                f,
                "not differentiable: {op}: a gradient has to pass through it and it has none"
            ),
            GradError::NonScalar { shape } => write!(
                f,
                "backward: the output has shape {}; pass gradient= of that shape or reduce it to a scalar",
                crate::tensor::shape::shape_str(shape)
            ),
            GradError::Freed { op } => write!(
                f,
                "backward through the graph a second time: the values {op} saved were freed; \
                 pass retain_graph=true to the first backward"
            ),
            GradError::NotFloat { dtype } => write!(
                f,
                "only float tensors can require gradients, got {dtype}"
            ),
            GradError::InPlace { leaf: true } => write!(
                f,
                "a leaf that requires grad cannot be changed in place while gradients are \
                 recorded: change it inside `no_grad {{ }}`, or rebind it (`w = w - ...`)"
            ),
            GradError::InPlace { leaf: false } => write!(
                f,
                "a tensor recorded for gradients cannot be changed in place while gradients \
                 are recorded: rebind it (`y = ...`), or detach() it first"
            ),
            GradError::WriteTracked => write!(
                f,
                "a tensor recorded for gradients cannot be written into another tensor in place: \
                 build the result with where, concat or a tensor literal instead"
            ),
            GradError::Unconnected => write!(f, "the output does not depend on this input"),
            GradError::Tensor(e) => write!(f, "{e}"),
        }
    }
}

impl From<TensorError> for GradError {
    fn from(e: TensorError) -> GradError {
        GradError::Tensor(e)
    }
}

pub type Result<T> = std::result::Result<T, GradError>;

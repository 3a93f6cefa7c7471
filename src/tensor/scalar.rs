//! A weakly-typed number: a script's literal or scalar variable. Combined with a tensor
//! it takes the tensor's dtype unless its category is higher (NEP 50 / PyTorch rule).

use super::dtype::Category;
use super::Tensor;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn category(self) -> Category {
        match self {
            Scalar::Bool(_) => Category::Bool,
            Scalar::Int(_) => Category::Int,
            Scalar::Float(_) => Category::Float,
        }
    }

    /// A 0-d tensor of the scalar's own type: bool, i64 or f64 (a float keeps all
    /// its bits).
    pub fn to_tensor(self) -> Tensor {
        match self {
            Scalar::Bool(b) => Tensor::scalar(b),
            Scalar::Int(i) => Tensor::scalar(i),
            Scalar::Float(f) => Tensor::scalar(f),
        }
    }

    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as u8 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }
}

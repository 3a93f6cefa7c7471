//! `Var`: a tensor and, when it takes part in gradients, where it came from. A value
//! nobody differentiates is a constant (`track: None`) and costs one pointer more
//! than its tensor.

use std::rc::Rc;

use super::error::{GradError, Result};
use super::node::{Node, NodeKind, Track};
use crate::tensor::Tensor;

#[derive(Clone)]
pub struct Var {
    tensor: Tensor,
    track: Option<Track>,
}

impl std::ops::Deref for Var {
    type Target = Tensor;

    fn deref(&self) -> &Tensor {
        &self.tensor
    }
}

impl From<Tensor> for Var {
    fn from(tensor: Tensor) -> Var {
        Var::constant(tensor)
    }
}

impl std::fmt::Debug for Var {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.tensor.fmt(f)?;
        match &self.track {
            Some(t) => write!(f, " (grad_fn={}, id {})", t.node.op, t.node.id),
            None => Ok(()),
        }
    }
}

impl Var {
    /// A tensor that takes no part in gradients.
    pub fn constant(tensor: Tensor) -> Var {
        Var {
            tensor,
            track: None,
        }
    }

    /// A new leaf: gradients flow to it and `backward` accumulates its `.grad`.
    pub fn leaf(tensor: Tensor) -> Result<Var> {
        if !tensor.dtype().is_float() {
            return Err(GradError::NotFloat {
                dtype: tensor.dtype().name(),
            });
        }
        let node = Node::leaf(tensor.dtype());
        Ok(Var::tracked(tensor, node, 0))
    }

    /// Output `slot` of `node`.
    pub(crate) fn tracked(tensor: Tensor, node: Rc<Node>, slot: usize) -> Var {
        Var {
            tensor,
            track: Some(Track { node, slot }),
        }
    }

    pub(crate) fn track(&self) -> Option<&Track> {
        self.track.as_ref()
    }

    pub fn tensor(&self) -> &Tensor {
        &self.tensor
    }

    pub fn into_tensor(self) -> Tensor {
        self.tensor
    }

    /// Whether gradients flow to or through this tensor (torch's `requires_grad`).
    pub fn requires_grad(&self) -> bool {
        self.track
            .as_ref()
            .is_some_and(|t| !matches!(t.node.kind, NodeKind::Opaque))
    }

    /// Tracked at all: with a gradient, or made from tracked tensors by an op with none.
    pub fn is_tracked(&self) -> bool {
        self.track.is_some()
    }

    /// torch's `is_leaf`: a tensor not made by a recorded op.
    pub fn is_leaf(&self) -> bool {
        self.track.as_ref().is_none_or(|t| t.node.is_leaf())
    }

    /// The recorded op that made this tensor (`None` for leaves and constants).
    pub fn grad_fn(&self) -> Option<&'static str> {
        self.track
            .as_ref()
            .filter(|t| !t.node.is_leaf())
            .map(|t| t.node.op)
    }

    /// The same data, out of the graph (shares the storage).
    pub fn detach(&self) -> Var {
        Var::constant(self.tensor.clone())
    }

    /// A leaf's accumulated gradient (`None` before a backward reaches it, and for
    /// anything that is not a leaf).
    pub fn grad(&self) -> Option<Var> {
        match &self.track.as_ref()?.node.kind {
            NodeKind::Leaf { grad, .. } => grad.borrow().clone(),
            _ => None,
        }
    }

    /// Sets a leaf's `.grad` (`x.grad = none` zeroes it the torch way). `false` when
    /// this is not a leaf that requires grad.
    pub fn set_grad(&self, g: Option<Var>) -> bool {
        match self.track.as_ref().map(|t| &t.node.kind) {
            Some(NodeKind::Leaf { grad, .. }) => {
                *grad.borrow_mut() = g;
                true
            }
            _ => false,
        }
    }

    /// The tensor to write in place, when this is a constant.
    pub fn untracked_mut(&mut self) -> Option<&mut Tensor> {
        match self.track {
            None => Some(&mut self.tensor),
            Some(_) => None,
        }
    }

    /// The tensor to write in place: a constant's always; a tracked tensor's only
    /// outside grad mode (`w -= lr * w.grad` in `no_grad { }`), keeping its identity
    /// and `.grad`. In grad mode that is an error, as in torch (values a recorded op
    /// saved are copies, by copy-on-write, but the gradient would silently ignore
    /// the write).
    pub fn writable(&mut self) -> Result<&mut Tensor> {
        match &self.track {
            Some(t) if super::mode::enabled() => Err(GradError::InPlace {
                leaf: t.node.is_leaf(),
            }),
            _ => Ok(&mut self.tensor),
        }
    }
}

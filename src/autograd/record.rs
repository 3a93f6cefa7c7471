//! Recording an op: the output becomes tracked, with a node holding the op's
//! backward rule, when grad mode is on and an input is tracked; otherwise it is a
//! constant and nothing is kept.

use std::cell::RefCell;
use std::rc::Rc;

use super::error::Result;
use super::mode;
use super::node::{Backward, Node, NodeKind};
use super::var::Var;
use crate::tensor::Tensor;

/// Whether an op on `inputs` records now.
pub fn recording(inputs: &[&Var]) -> bool {
    mode::enabled() && inputs.iter().any(|v| v.is_tracked())
}

/// A one-output op's result. `rule(g, node)` gives one gradient per input (`None`:
/// zero, or an input that takes none); `node` rebuilds a saved output as tracked.
/// Integer and bool outputs are never tracked: they carry no gradient (torch).
pub(crate) fn record(
    op: &'static str,
    inputs: &[&Var],
    out: Tensor,
    rule: impl Fn(&Var, &Rc<Node>) -> Result<Vec<Option<Var>>> + 'static,
) -> Var {
    if !recording(inputs) || !out.dtype().is_float() {
        return Var::constant(out);
    }
    let n = inputs.len();
    let backward: Backward = Box::new(move |grads, node| match &grads[0] {
        Some(g) => rule(g, node),
        None => Ok(vec![None; n]),
    });
    let node = Node::op(
        op,
        inputs,
        NodeKind::Op {
            backward: RefCell::new(Some(backward)),
            outputs: 1,
        },
    );
    Var::tracked(out, node, 0)
}

/// A several-output op's results, recorded as one node: `rule(gs, node)` gets one
/// gradient per output (`None`: zero). Outputs that are not floats stay constants.
pub(crate) fn record_many(
    op: &'static str,
    inputs: &[&Var],
    outs: Vec<Tensor>,
    rule: impl Fn(&[Option<Var>], &Rc<Node>) -> Result<Vec<Option<Var>>> + 'static,
) -> Vec<Var> {
    if !recording(inputs) {
        return outs.into_iter().map(Var::constant).collect();
    }
    let (n, count) = (inputs.len(), outs.len());
    let backward: Backward = Box::new(move |grads, node| {
        if grads.iter().all(Option::is_none) {
            return Ok(vec![None; n]);
        }
        rule(grads, node)
    });
    let node = Node::op(
        op,
        inputs,
        NodeKind::Op {
            backward: RefCell::new(Some(backward)),
            outputs: count,
        },
    );
    outs.into_iter()
        .enumerate()
        .map(|(slot, t)| match t.dtype().is_float() {
            true => Var::tracked(t, Rc::clone(&node), slot),
            false => Var::constant(t),
        })
        .collect()
}

/// `value`, the exact result of op `op`, differentiated as `composed`: the same
/// function written in recorded ops (whose last bits may differ). Used where the
/// op's own algorithm (an SVD, NumPy's fallbacks) is not made of recorded ops.
pub(crate) fn with_value(op: &'static str, composed: &Var, value: Tensor) -> Var {
    record(op, &[composed], value, |g, _| Ok(vec![Some(g.clone())]))
}

/// The result of an op that has no gradient, made from `inputs`: tracked when they
/// are, so that a gradient reaching it is an error naming `op`, never a silent zero.
pub fn opaque(op: &'static str, inputs: &[&Var], out: Tensor) -> Var {
    if !recording(inputs) || !out.dtype().is_float() {
        return Var::constant(out);
    }
    let node = Node::op(op, inputs, NodeKind::Opaque);
    Var::tracked(out, node, 0)
}

/// Output `slot` of the node being run, rebuilt as tracked (a rule that saved its
/// output, such as exp's, needs it tracked for the gradient of the gradient).
pub(crate) fn output_of(node: &Rc<Node>, saved: &Tensor) -> Var {
    slot_of(node, saved, 0)
}

/// Output `slot` of the node being run, rebuilt as tracked.
pub(crate) fn slot_of(node: &Rc<Node>, saved: &Tensor, slot: usize) -> Var {
    Var::tracked(saved.clone(), Rc::clone(node), slot)
}

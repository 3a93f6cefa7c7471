//! The recorded graph: one node per op that ran on tracked tensors, with an edge to
//! the node (and output slot) behind each tracked input. There is no tape: the graph
//! lives as long as some value refers to it, so rebinding `loss` frees the last
//! step's graph. Ids come from a per-thread counter, so an op's node always has a
//! larger id than the nodes of its inputs: descending id is a topological order.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::error::Result;
use super::var::Var;
use crate::tensor::DType;

/// A backward rule: the gradients of the outputs (`None`: zero) and the node itself
/// (to rebuild a saved output as tracked, for higher order) → one gradient per input.
pub(crate) type Backward = Box<dyn Fn(&[Option<Var>], &Rc<Node>) -> Result<Vec<Option<Var>>>>;

/// Where a tracked tensor came from: output `slot` of `node`.
#[derive(Clone)]
pub(crate) struct Track {
    pub node: Rc<Node>,
    pub slot: usize,
}

pub(crate) struct Node {
    pub id: u64,
    /// The op's name, for errors and `grad_fn=`.
    pub op: &'static str,
    pub inputs: Vec<Input>,
    pub kind: NodeKind,
}

/// An input of a recorded op.
pub(crate) struct Input {
    /// The edge to the node that made it, or `None` for a constant.
    pub edge: Option<Track>,
    /// Its dtype and shape: a gradient flowing to it is cast to the dtype and must
    /// have the shape.
    pub dtype: DType,
    pub shape: Vec<usize>,
}

pub(crate) enum NodeKind {
    /// A tensor the user asked gradients for; `.grad` accumulates here, in `dtype`.
    Leaf {
        grad: RefCell<Option<Var>>,
        dtype: DType,
    },
    /// An op with a rule; the rule is taken out (and its saved tensors freed) when
    /// it runs, unless the graph is retained.
    Op {
        backward: RefCell<Option<Backward>>,
        outputs: usize,
    },
    /// An op without a gradient: an error if a gradient has to pass through it.
    Opaque,
}

thread_local! {
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
    /// Nodes alive on this thread: none means no value can be tracked.
    static ALIVE: Cell<usize> = const { Cell::new(0) };
}

fn next_id() -> u64 {
    ALIVE.with(|a| a.set(a.get() + 1));
    NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    })
}

/// Whether any tensor on this thread may be tracked: lets the interpreter skip
/// looking for tracked arguments in programs that never ask for gradients.
pub fn any_alive() -> bool {
    ALIVE.with(|a| a.get() > 0)
}

impl Node {
    pub fn leaf(dtype: DType) -> Rc<Node> {
        Rc::new(Node {
            id: next_id(),
            op: "leaf",
            inputs: Vec::new(),
            kind: NodeKind::Leaf {
                grad: RefCell::new(None),
                dtype,
            },
        })
    }

    pub fn op(op: &'static str, inputs: &[&Var], kind: NodeKind) -> Rc<Node> {
        Rc::new(Node {
            id: next_id(),
            op,
            inputs: inputs
                .iter()
                .map(|v| Input {
                    edge: v.track().cloned(),
                    dtype: v.dtype(),
                    shape: v.shape().to_vec(),
                })
                .collect(),
            kind,
        })
    }

    pub fn is_leaf(&self) -> bool {
        matches!(self.kind, NodeKind::Leaf { .. })
    }

    /// How many outputs the op has (gradient slots).
    pub fn outputs(&self) -> usize {
        match self.kind {
            NodeKind::Op { outputs, .. } => outputs,
            _ => 1,
        }
    }
}

thread_local! {
    /// Whether a node drop on this thread is emptying the queue.
    static EMPTYING: Cell<bool> = const { Cell::new(false) };
    /// What nodes being dropped held, put off by a drop further up the stack.
    static QUEUE: RefCell<Vec<Parts>> = const { RefCell::new(Vec::new()) };
}

/// What a node owns that can own further nodes.
type Parts = (Vec<Input>, Option<Backward>, Option<Var>);

/// A chain of a million nodes (`s = s + x` in a loop) drops without recursing a
/// million deep: each node hands what it owns to a queue the outermost drop empties.
impl Drop for Node {
    fn drop(&mut self) {
        ALIVE.with(|a| a.set(a.get() - 1));
        let parts: Parts = (
            std::mem::take(&mut self.inputs),
            match &self.kind {
                NodeKind::Op { backward, .. } => backward.borrow_mut().take(),
                _ => None,
            },
            match &self.kind {
                NodeKind::Leaf { grad, .. } => grad.borrow_mut().take(),
                _ => None,
            },
        );
        if EMPTYING.with(|e| e.replace(true)) {
            QUEUE.with(|q| q.borrow_mut().push(parts));
            return;
        }
        let mut work = vec![parts];
        while let Some(p) = work.pop() {
            drop(p);
            QUEUE.with(|q| work.append(&mut q.borrow_mut()));
        }
        EMPTYING.with(|e| e.set(false));
    }
}

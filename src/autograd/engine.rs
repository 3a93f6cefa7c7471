//! Running the graph backward. From the output's node, every node that leads to a
//! requested input runs once, in descending id (a topological order that does not
//! depend on threads); the gradients reaching a node's output slot are summed in
//! that same order, so the result has the same bits every run.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use super::error::{GradError, Result};
use super::mode::GradMode;
use super::node::{Node, NodeKind, Track};
use super::rules;
use super::var::Var;
use crate::tensor::TensorError;

#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Keep the saved values so that the graph can run backward again (implied by
    /// `create_graph`, as in torch: the recorded gradient refers to the graph).
    pub retain_graph: bool,
    /// Record the backward itself, so the gradients can be differentiated.
    pub create_graph: bool,
}

/// `out.backward(gradient)`: adds the gradient of `out` (weighted by `seed`) into
/// the `.grad` of every leaf it reaches.
pub fn backward(out: &Var, seed: Option<Var>, opts: Options) -> Result<()> {
    let Some(root) = out.track() else {
        return Err(GradError::Unconnected);
    };
    let seed = seed_for(out, seed)?;
    run(root, seed, &[], true, opts).map(|_| ())
}

/// The gradients of `out` (weighted by `seed`) with respect to `inputs`, without
/// touching any `.grad`; `None` for an input the output does not reach.
pub fn grad(
    out: &Var,
    seed: Option<Var>,
    inputs: &[&Var],
    opts: Options,
) -> Result<Vec<Option<Var>>> {
    let Some(root) = out.track() else {
        return Err(GradError::Unconnected);
    };
    let seed = seed_for(out, seed)?;
    let targets: Vec<Track> = inputs
        .iter()
        .map(|v| v.track().cloned().ok_or(GradError::Unconnected))
        .collect::<Result<_>>()?;
    run(root, seed, &targets, false, opts)
}

/// The gradient the output starts with: ones for a one-element output, else the
/// one given, which must have the output's shape.
fn seed_for(out: &Var, seed: Option<Var>) -> Result<Var> {
    match seed {
        None if out.numel() == 1 => Ok(Var::constant(crate::ops::full(
            "backward",
            out.shape(),
            crate::tensor::Scalar::Int(1),
            out.dtype(),
        )?)),
        None => Err(GradError::NonScalar {
            shape: out.shape().to_vec(),
        }),
        Some(g) if g.shape() != out.shape() => Err(GradError::Tensor(TensorError::shape(
            "backward",
            format!(
                "gradient= has shape {}, the output {}",
                crate::tensor::shape::shape_str(g.shape()),
                crate::tensor::shape::shape_str(out.shape())
            ),
        ))),
        Some(g) => rules::cast(&g, out.dtype()),
    }
}

fn run(
    root: &Track,
    seed: Var,
    targets: &[Track],
    accumulate: bool,
    opts: Options,
) -> Result<Vec<Option<Var>>> {
    let nodes = reachable(&root.node);
    let needed = needed(&nodes, targets, accumulate);
    let mut pending: HashMap<u64, Vec<Option<Var>>> = HashMap::new();
    add_into(&mut pending, root, seed)?;
    let mut found: Vec<Option<Var>> = vec![None; targets.len()];
    for (id, node) in nodes.iter().rev() {
        let Some(grads) = pending.remove(id) else {
            continue;
        };
        if !needed.contains(id) {
            continue;
        }
        for (i, t) in targets.iter().enumerate() {
            if t.node.id == *id {
                found[i] = grads[t.slot].clone();
            }
        }
        match &node.kind {
            NodeKind::Leaf { grad, dtype } => {
                if accumulate {
                    if let Some(g) = grads.into_iter().next().flatten() {
                        let g = settled(rules::cast(&g, *dtype)?)?;
                        let sum = match grad.borrow_mut().take() {
                            Some(old) => rules::add(&old, &g)?,
                            None => g,
                        };
                        *grad.borrow_mut() = Some(sum);
                    }
                }
            }
            NodeKind::Opaque => {
                if grads.iter().any(Option::is_some) {
                    return Err(GradError::NotDifferentiable {
                        op: node.op.to_string(),
                    });
                }
            }
            NodeKind::Op { backward, .. } => {
                if !node
                    .inputs
                    .iter()
                    .any(|i| is_needed(&needed, i.edge.as_ref()))
                {
                    continue;
                }
                let input_grads = {
                    let _mode = GradMode::set(opts.create_graph);
                    if opts.retain_graph || opts.create_graph {
                        let rule = backward.borrow();
                        let rule = rule.as_ref().ok_or(GradError::Freed { op: node.op })?;
                        rule(&grads, node)?
                    } else {
                        // Taken out first: the saved tensors go as soon as it returns.
                        let rule = backward.borrow_mut().take();
                        let rule = rule.ok_or(GradError::Freed { op: node.op })?;
                        rule(&grads, node)?
                    }
                };
                drop(grads);
                pass_on(node, input_grads, &needed, &mut pending, opts)?;
            }
        }
    }
    found
        .into_iter()
        .map(|g| g.map(settled).transpose())
        .collect()
}

/// Adds the gradients a node's rule gave to the slots of its inputs' nodes.
fn pass_on(
    node: &Node,
    input_grads: Vec<Option<Var>>,
    needed: &HashSet<u64>,
    pending: &mut HashMap<u64, Vec<Option<Var>>>,
    opts: Options,
) -> Result<()> {
    for (input, g) in node.inputs.iter().zip(input_grads) {
        let (Some(edge), Some(g)) = (&input.edge, g) else {
            continue;
        };
        if !needed.contains(&edge.node.id) {
            continue;
        }
        if g.shape() != input.shape.as_slice() {
            return Err(GradError::Tensor(TensorError::shape(
                node.op,
                format!(
                    "internal: the gradient of an input has shape {} where the input had {}",
                    crate::tensor::shape::shape_str(g.shape()),
                    crate::tensor::shape::shape_str(&input.shape)
                ),
            )));
        }
        let _mode = GradMode::set(opts.create_graph);
        let g = rules::cast(&g, input.dtype)?;
        add_into(pending, edge, g)?;
    }
    Ok(())
}

/// Adds `g` to the gradient pending at output `slot` of `edge`'s node.
fn add_into(pending: &mut HashMap<u64, Vec<Option<Var>>>, edge: &Track, g: Var) -> Result<()> {
    let slots = pending
        .entry(edge.node.id)
        .or_insert_with(|| vec![None; edge.node.outputs()]);
    let slot = &mut slots[edge.slot];
    *slot = Some(match slot.take() {
        Some(old) => rules::add(&old, &g)?,
        None => g,
    });
    Ok(())
}

/// Every node the root's inputs lead to, by id.
fn reachable(root: &Rc<Node>) -> BTreeMap<u64, Rc<Node>> {
    let mut nodes = BTreeMap::new();
    let mut stack = vec![Rc::clone(root)];
    while let Some(n) = stack.pop() {
        if nodes.contains_key(&n.id) {
            continue;
        }
        for input in &n.inputs {
            if let Some(e) = &input.edge {
                if !nodes.contains_key(&e.node.id) {
                    stack.push(Rc::clone(&e.node));
                }
            }
        }
        nodes.insert(n.id, n);
    }
    nodes
}

/// The nodes that lead to a target (all of them when accumulating into leaves).
fn needed(nodes: &BTreeMap<u64, Rc<Node>>, targets: &[Track], accumulate: bool) -> HashSet<u64> {
    if accumulate {
        return nodes.keys().copied().collect();
    }
    let mut needed: HashSet<u64> = targets.iter().map(|t| t.node.id).collect();
    // Ascending id: a node's inputs are decided before it.
    for (id, node) in nodes {
        if node
            .inputs
            .iter()
            .any(|i| is_needed(&needed, i.edge.as_ref()))
        {
            needed.insert(*id);
        }
    }
    needed
}

fn is_needed(needed: &HashSet<u64>, edge: Option<&Track>) -> bool {
    edge.is_some_and(|e| needed.contains(&e.node.id))
}

/// A gradient handed to the user: a broadcast or strided view becomes its own
/// row-major tensor (it may be written in place next); a tracked one stays as it is.
fn settled(g: Var) -> Result<Var> {
    Ok(if g.is_tracked() {
        g
    } else {
        Var::constant(g.contiguous())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autograd::record::record;
    use crate::tensor::Tensor;

    #[test]
    fn a_chain_of_100000_nodes_runs_and_drops_without_deep_recursion() {
        let x = Var::leaf(Tensor::scalar(1.0f64)).unwrap();
        let mut s = x.clone();
        for _ in 0..100_000 {
            s = rules::add(&s, &x).unwrap();
        }
        let g = grad(&s, None, &[&x], Options::default()).unwrap();
        assert_eq!(g[0].as_ref().and_then(|g| g.item_f64()), Some(100_001.0));
        drop(s);
    }

    #[test]
    fn a_rule_and_what_it_saved_are_freed_as_soon_as_it_has_run() {
        let probe = Rc::new(());
        let held = Rc::clone(&probe);
        let x = Var::leaf(Tensor::scalar(2.0f32)).unwrap();
        let y = record("probe", &[&x], x.tensor().clone(), move |g, _| {
            let _ = &held;
            Ok(vec![Some(g.clone())])
        });
        assert_eq!(Rc::strong_count(&probe), 2);
        backward(&y, None, Options::default()).unwrap();
        // y (and so its node) is still alive; the rule is gone.
        assert_eq!(Rc::strong_count(&probe), 1);
        assert_eq!(x.grad().and_then(|g| g.item_f64()), Some(1.0));
        assert!(matches!(
            backward(&y, None, Options::default()),
            Err(GradError::Freed { op: "probe" })
        ));
    }

    #[test]
    fn retain_graph_keeps_the_rule_and_gradients_accumulate() {
        let x = Var::leaf(Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap()).unwrap();
        let y = rules::reduce(
            crate::ops::ReduceOp::Sum,
            &rules::add(&x, &x).unwrap(),
            None,
            false,
        )
        .unwrap();
        let keep = Options {
            retain_graph: true,
            create_graph: false,
        };
        backward(&y, None, keep).unwrap();
        backward(&y, None, Options::default()).unwrap();
        assert_eq!(x.grad().unwrap().to_vec::<f32>(), vec![4.0, 4.0]);
    }
}

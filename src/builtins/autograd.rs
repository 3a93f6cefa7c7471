//! Autograd builtins: the functional style (`grad`, `value_and_grad`, and calling
//! the functions they return) and the PyTorch style (`backward`, `detach`).

use std::cell::Cell;
use std::rc::Rc;

use super::{Bound, Builtin};
use crate::autograd::{self, rules, GradMode, Options, Var};
use crate::diag::{Diagnostic, ErrorKind};
use crate::runtime::value::{deeper, Argnums, Dict, GradFn, Items, Value};
use crate::runtime::{builtin, grad_diag, CallArgs, Ctx};
use crate::span::Span;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "grad",
        doc: "A function giving the gradient of f (which must return a one-element float tensor) with respect to its argument argnums (an int, or a tuple of ints for a tuple of gradients); an argument may be a tensor or a tuple/dict of them, and its gradient has the same structure.",
        fn(_, a; f: &Value, argnums: &Value = 0) {
            grad_fn(&a, f, argnums, false)
        }
    },
    builtin! {
        name: "value_and_grad",
        doc: "As grad, but the function it returns gives (f's value, the gradient).",
        fn(_, a; f: &Value, argnums: &Value = 0) {
            grad_fn(&a, f, argnums, true)
        }
    },
    builtin! {
        name: "backward",
        doc: "Adds the gradient of x (weighted by gradient=, needed unless x has one element) to the .grad of every leaf it reaches, as torch's x.backward(); retain_graph keeps the graph for another backward, create_graph records it for higher order.",
        fn(_, a; x: Var, gradient: Option<Var> = none, retain_graph: bool = false, create_graph: bool = false) {
            if !x.requires_grad() {
                return Err(a.err(
                    "backward: the tensor does not require grad: no tensor it was computed from has requires_grad=true",
                ).with_kind(ErrorKind::Grad));
            }
            let opts = Options { retain_graph, create_graph };
            autograd::backward(&x, gradient, opts).map_err(|e| a.grad_err(e))?;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "detach",
        doc: "x out of the gradient graph: the same data (shared), requires_grad false.",
        grad: Constant,
        fn(_, _a; x: Var) {
            Ok(Value::from(x.detach()))
        }
    },
];

fn grad_fn(a: &Bound, f: &Value, argnums: &Value, with_value: bool) -> Result<Value, Diagnostic> {
    if !matches!(f, Value::Func(_) | Value::Builtin(_) | Value::Grad(_)) {
        return Err(a.arg_err("f", format!("grad needs a function, got {}", f.describe())));
    }
    let index = |v: &Value| {
        v.as_int()
            .and_then(|i| usize::try_from(i).ok())
            .ok_or_else(|| {
                a.arg_err(
                    "argnums",
                    format!(
                        "argnums must be a non-negative int or a tuple of them, got {}",
                        v.describe()
                    ),
                )
            })
    };
    let argnums = match argnums {
        Value::Tuple(items) => {
            let list = items.iter().map(index).collect::<Result<Vec<_>, _>>()?;
            if list.is_empty() {
                return Err(a.arg_err("argnums", "argnums must name at least one argument"));
            }
            if let Some(i) = list
                .iter()
                .enumerate()
                .find_map(|(k, i)| list[..k].contains(i).then_some(i))
            {
                return Err(a.arg_err("argnums", format!("argnums names argument {i} twice")));
            }
            Argnums::Many(list)
        }
        other => Argnums::One(index(other)?),
    };
    Ok(Value::Grad(Rc::new(GradFn {
        f: f.clone(),
        argnums,
        with_value,
    })))
}

thread_local! {
    /// How many calls of grad functions are running: inside one, gradients are
    /// recorded so that the outer one can differentiate them.
    static DEPTH: Cell<usize> = const { Cell::new(0) };
}

/// Calls `g`: runs its function on `args` with the selected arguments' float
/// tensors as fresh leaves, then differentiates the result with respect to them.
pub fn call_grad_fn(g: &GradFn, ctx: &mut dyn Ctx, args: CallArgs) -> Result<Value, Diagnostic> {
    let span = args.span;
    let err = |msg: String| Diagnostic::new(span, msg).with_kind(ErrorKind::Grad);
    if let Some((name, at, _)) = args.keyword.first() {
        return Err(Diagnostic::new(
            *at,
            format!("a grad function takes positional arguments only, got `{name}=`"),
        ));
    }
    let mut values: Vec<Value> = args.positional.into_iter().map(|a| a.value).collect();
    for &i in g.argnums.positions() {
        if i >= values.len() {
            return Err(err(format!(
                "grad: argnums {i} is out of range: the call has {} positional argument{}",
                values.len(),
                if values.len() == 1 { "" } else { "s" }
            )));
        }
    }
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = differentiate(g, ctx, &mut values, span);
    DEPTH.with(|d| d.set(d.get() - 1));
    result
}

fn differentiate(
    g: &GradFn,
    ctx: &mut dyn Ctx,
    values: &mut [Value],
    span: Span,
) -> Result<Value, Diagnostic> {
    let err = |msg: String| Diagnostic::new(span, msg).with_kind(ErrorKind::Grad);
    let _on = GradMode::set(true);
    let mut leaves = Vec::new();
    for &i in g.argnums.positions() {
        let arg = std::mem::take(&mut values[i]);
        values[i] = capture(arg, &mut leaves).map_err(|e| grad_diag(e, span))?;
    }
    if leaves.is_empty() {
        return Err(err(format!(
            "grad: argument {} holds no float tensor to differentiate with respect to",
            g.argnums.positions().first().copied().unwrap_or(0)
        )));
    }
    let selected: Vec<Value> = g
        .argnums
        .positions()
        .iter()
        .map(|&i| values[i].clone())
        .collect();
    let out = ctx.call(&g.f, values.to_vec(), span)?;
    let out = match out {
        Value::Tensor(t) if t.numel() == 1 && t.dtype().is_float() => *t,
        other => {
            return Err(err(format!(
                "grad: f must return a one-element float tensor, got {}",
                other.describe()
            )))
        }
    };
    if !out.requires_grad() {
        if out.is_tracked() {
            // Made from the arguments only through ops without a gradient.
            return Err(grad_diag(
                autograd::GradError::NotDifferentiable {
                    op: out.grad_fn().unwrap_or("an op").to_string(),
                },
                span,
            ));
        }
        return Err(err(
            "grad: f's output does not depend on the arguments it is differentiated with respect to"
                .into(),
        ));
    }
    let nested = DEPTH.with(Cell::get) > 1 || leaves.iter().any(|(_, outer)| *outer);
    let targets: Vec<&Var> = leaves.iter().map(|(v, _)| v).collect();
    let opts = Options {
        retain_graph: false,
        create_graph: nested,
    };
    let grads = autograd::grad(&out, None, &targets, opts).map_err(|e| grad_diag(e, span))?;
    let mut grads = grads
        .into_iter()
        .zip(&leaves)
        .map(|(g, (leaf, _))| match g {
            Some(g) => Ok(g),
            // Not reached while others were: a zero gradient (JAX).
            None => crate::tensor::Tensor::zeros(leaf.dtype(), leaf.shape()).map(Var::constant),
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| grad_diag(e.into(), span))?
        .into_iter();
    let mut structures: Vec<Value> = selected.iter().map(|v| rebuild(v, &mut grads)).collect();
    let gradients = match g.argnums {
        Argnums::One(_) => structures.pop().unwrap_or_default(),
        Argnums::Many(_) => Value::Tuple(Rc::new(Items::from(structures))),
    };
    if !g.with_value {
        return Ok(gradients);
    }
    let value = if nested { out } else { out.detach() };
    Ok(Value::Tuple(Rc::new(Items::from(vec![
        Value::from(value),
        gradients,
    ]))))
}

/// `v` with each float tensor in it replaced by a leaf to differentiate with respect
/// to, pushed on `leaves` in walk order with whether it was tracked already (by an
/// outer grad: then the leaf is a new node over it, so the outer one sees through).
fn capture(v: Value, leaves: &mut Vec<(Var, bool)>) -> autograd::Result<Value> {
    Ok(match v {
        Value::Tensor(t) if t.dtype().is_float() => {
            let outer = t.is_tracked();
            let leaf = if outer {
                rules::identity(&t)
            } else {
                Var::leaf((*t).into_tensor())?
            };
            leaves.push((leaf.clone(), outer));
            Value::from(leaf)
        }
        Value::Tuple(items) => {
            let items = items
                .iter()
                .map(|v| deeper(|| capture(v.clone(), leaves)))
                .collect::<autograd::Result<Vec<_>>>()?;
            Value::Tuple(Rc::new(Items::from(items)))
        }
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                out.insert(k.clone(), deeper(|| capture(v.clone(), leaves))?);
            }
            Value::Dict(Rc::new(out))
        }
        other => other,
    })
}

/// The structure of `v` (a captured argument) with its leaves' gradients in their
/// places, taken in walk order; `none` where it held anything else.
fn rebuild(v: &Value, grads: &mut impl Iterator<Item = Var>) -> Value {
    match v {
        Value::Tensor(t) if t.dtype().is_float() => grads.next().map_or(Value::None, Value::from),
        Value::Tuple(items) => Value::Tuple(Rc::new(
            items.iter().map(|v| deeper(|| rebuild(v, grads))).collect(),
        )),
        Value::Dict(d) => {
            let mut out = Dict::default();
            for (k, v) in d.iter() {
                out.insert(k.clone(), deeper(|| rebuild(v, grads)));
            }
            Value::Dict(Rc::new(out))
        }
        _ => Value::None,
    }
}

//! Shape builtins: views (reshape, transpose, permute, ...) and copies.

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::interp::value::Value;
use crate::tensor::{Tensor, TensorError};

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "reshape",
        params: &["x", "*shape"],
        doc: "x with a new shape (a list or separate ints, one may be -1); a view when the strides allow.",
        func: reshape,
    },
    Builtin {
        name: "transpose",
        params: &["x", "d0=-2", "d1=-1"],
        doc: "Swaps two axes (a view); `x.T` swaps the last two.",
        func: transpose,
    },
    Builtin {
        name: "permute",
        params: &["x", "dims"],
        doc: "Reorders all axes (a view): `permute(x, [2, 0, 1])`.",
        func: permute,
    },
    Builtin {
        name: "unsqueeze",
        params: &["x", "axis|dim"],
        doc: "Inserts a size-1 axis at axis (a view).",
        func: unsqueeze,
    },
    Builtin {
        name: "squeeze",
        params: &["x", "axis|dim=none"],
        doc: "Removes size-1 axes (all of them, or the given ones) (a view).",
        func: squeeze,
    },
    Builtin {
        name: "flatten",
        params: &["x"],
        doc: "x as a 1-D tensor (a view when contiguous).",
        func: flatten,
    },
    Builtin {
        name: "broadcast_to",
        params: &["x", "shape"],
        doc: "A view of x repeated to shape by NumPy's broadcasting rule (a write gives it its own copy first).",
        func: broadcast_to,
    },
    Builtin {
        name: "contiguous",
        params: &["x"],
        doc: "x in row-major order (copies only when x is not).",
        func: contiguous,
    },
    Builtin {
        name: "clone",
        params: &["x"],
        doc: "A copy of x that owns its data.",
        func: clone,
    },
    Builtin {
        name: "to",
        params: &["x", "dtype"],
        doc: "x converted to dtype (`x.to(f32)`); integers wrap and floats truncate like NumPy's astype.",
        func: to,
    },
];

fn view(
    a: &Bound,
    f: impl FnOnce(&Tensor) -> Result<Tensor, TensorError>,
) -> Result<Value, Diagnostic> {
    let x = a.tensor(0)?;
    f(&x).map(Value::Tensor).map_err(|e| a.tensor_err(e))
}

fn reshape(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    // reshape(x, [2, 3]) or reshape(x, 2, 3)
    let mut dims = Vec::new();
    for arg in &a.rest {
        let list = arg.value.as_int_list().ok_or_else(|| {
            Diagnostic::new(
                arg.span,
                format!(
                    "reshape needs ints or a list of ints, got {}",
                    arg.value.describe()
                ),
            )
        })?;
        dims.extend(list);
    }
    view(&a, |x| x.reshape(&dims))
}

fn transpose(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let d0 = a.opt_int(1)?.unwrap_or(-2);
    let d1 = a.opt_int(2)?.unwrap_or(-1);
    view(&a, |x| x.transpose(d0, d1))
}

fn permute(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let dims = a.axes(1)?.unwrap_or_default();
    view(&a, |x| x.permute(&dims))
}

fn unsqueeze(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let axis = a.int(1)?;
    view(&a, |x| x.unsqueeze(axis))
}

fn squeeze(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let axes = a.axes(1)?;
    view(&a, |x| x.squeeze(axes.as_deref()))
}

fn flatten(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    view(&a, |x| x.reshape(&[-1]))
}

fn broadcast_to(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let shape = a.shape(1)?;
    view(&a, |x| x.broadcast_to(&shape))
}

fn contiguous(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    view(&a, |x| Ok(x.contiguous()))
}

fn clone(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    // contiguous() may return the same storage; a clone must own fresh data.
    view(&a, |x| {
        Tensor::from_storage(x.contiguous().storage().clone(), x.shape())
    })
}

fn to(_: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let dtype = a
        .opt_dtype(1)?
        .ok_or_else(|| a.err("to() needs a dtype, e.g. x.to(f32)"))?;
    view(&a, |x| Ok(x.to_dtype(dtype)))
}

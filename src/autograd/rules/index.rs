//! Indexing and stacking: `x[items]` passes its gradient back into the elements it
//! read (repeats accumulate), and a literal `[a, b]` gives each row its slice.

use super::IndexError;
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::record;
use crate::autograd::var::Var;
use crate::ops::index::{add_at, read, select, Index};
use crate::tensor::{Scalar, Tensor};

/// `x[items]`: a view for basic indexing, a gathered copy for advanced indexing.
pub fn index(x: &Var, items: &[Index]) -> std::result::Result<Var, IndexError> {
    let y = read(x, &select(x.layout(), items)?)?;
    let (items, shape) = (items.to_vec(), x.shape().to_vec());
    Ok(record("index", &[x], y, move |g, _| {
        Ok(vec![Some(scatter_into_zeros(g, &shape, &items)?)])
    }))
}

/// torch's gather: out[..., j, ...] = x[..., index[..., j, ...], ...] along `dim`;
/// the gradient is added back at the indices (repeats accumulate, in index order).
pub fn gather(x: &Var, dim: i64, idx: &Tensor) -> Result<Var> {
    let y = crate::ops::gather::gather(x, dim, idx)?;
    let (idx, shape) = (idx.clone(), x.shape().to_vec());
    Ok(record("gather", &[x], y, move |g, _| {
        Ok(vec![Some(scatter_add_into_zeros(g, &shape, dim, &idx)?)])
    }))
}

/// Zeros of `shape` with `g` added at `idx` along `dim`: gather's adjoint, whose
/// own adjoint is gather.
fn scatter_add_into_zeros(g: &Var, shape: &[usize], dim: i64, idx: &Tensor) -> Result<Var> {
    let zeros = Tensor::zeros(g.dtype(), shape)?;
    let out = crate::ops::scatter::scatter_add(&zeros, dim, idx, g)?;
    let idx = idx.clone();
    Ok(record("gather_backward", &[g], out, move |gg, _| {
        Ok(vec![Some(gather(gg, dim, &idx)?)])
    }))
}

/// Row `i` of `x` along its first axis (`for r in x`, `let (a, b) = x`), a view.
pub fn row(x: &Var, i: i64) -> crate::tensor::Result<Var> {
    index(x, &[Index::Int(i)]).map_err(|e| e.error)
}

/// Zeros of `shape` with `g` added at `items` (the adjoint of reading them).
fn scatter_into_zeros(g: &Var, shape: &[usize], items: &[Index]) -> Result<Var> {
    let mut out = Tensor::zeros(g.dtype(), shape)?;
    let sel = select(out.layout(), items).map_err(|e| GradError::Tensor(e.error))?;
    add_at(&mut out, &sel, g)?;
    let items = items.to_vec();
    Ok(record("index_backward", &[g], out, move |gg, _| {
        let picked = index(gg, &items).map_err(|e| GradError::Tensor(e.error))?;
        Ok(vec![Some(picked)])
    }))
}

/// `out`, the rows `rows` stacked along a new first axis (a tensor literal), tracked
/// when a row is: row `i` gets `g[i]`. `rows[i]` is `None` for a row that is a number.
pub fn stacked(rows: &[Option<&Var>], out: Tensor) -> Var {
    let inputs: Vec<&Var> = rows.iter().flatten().copied().collect();
    let at: Vec<i64> = (0..rows.len() as i64)
        .filter(|&i| rows[i as usize].is_some())
        .collect();
    record("stack", &inputs, out, move |g, _| {
        at.iter()
            .map(|&i| {
                let row = index(g, &[Index::Int(i)]).map_err(|e| GradError::Tensor(e.error))?;
                Ok(Some(row))
            })
            .collect()
    })
}

/// torch's scatter_add: x with src (read in index's shape) added at index along
/// `dim`; x's gradient passes, src's is gathered back from the same places.
pub fn scatter_add(x: &Var, dim: i64, idx: &Tensor, src: &Var) -> Result<Var> {
    let y = crate::ops::scatter::scatter_add(x, dim, idx, src)?;
    let (idx, src_shape) = (idx.clone(), src.shape().to_vec());
    Ok(record("scatter_add", &[x, src], y, move |g, _| {
        Ok(vec![
            Some(g.clone()),
            Some(read_back(g, dim, &idx, &src_shape)?),
        ])
    }))
}

/// torch's index_add: x with alpha·src added at the 1-D index along `dim`.
pub fn index_add(x: &Var, dim: i64, idx: &Tensor, src: &Var, alpha: Scalar) -> Result<Var> {
    let y = crate::ops::scatter::index_add(x, dim, idx, src, alpha)?;
    let idx = idx.clone();
    Ok(record("index_add", &[x, src], y, move |g, _| {
        let picked = super::moved("index_select", g, |t| {
            crate::ops::gather::index_select(t, dim, &idx)
        })?;
        let ga = super::binary(
            crate::ops::BinaryOp::Mul,
            super::VarOperand::Var(&picked),
            super::VarOperand::Scalar(alpha),
        )?;
        Ok(vec![Some(g.clone()), Some(ga)])
    }))
}

/// The gradient of a source read in index's shape: g gathered at the index, and
/// zeros for the rest of a larger source (elements never read).
fn read_back(g: &Var, dim: i64, idx: &Tensor, src_shape: &[usize]) -> Result<Var> {
    let picked = gather(g, dim, idx)?;
    if src_shape == idx.shape() {
        return Ok(picked);
    }
    let widths: Vec<(i64, i64)> = src_shape
        .iter()
        .zip(idx.shape())
        .map(|(&s, &i)| (0, s as i64 - i as i64))
        .collect();
    super::moved("pad", &picked, |t| {
        crate::ops::pad::pad(
            t,
            &widths,
            crate::ops::pad::PadMode::Constant,
            Scalar::Int(0),
        )
    })
}

/// numpy.diff's `y` (n-th differences along `axis`), recorded as the same
/// subtractions of slices when x is tracked.
pub fn diff(x: &Var, y: Tensor, n: i64, axis: i64) -> Result<Var> {
    if !crate::autograd::record::recording(&[x]) || n <= 0 {
        return Ok(Var::constant(y));
    }
    let axis = crate::tensor::shape::normalize_axis("diff", axis, x.ndim())?;
    let slice = |t: &Var, start: Option<i64>, stop: Option<i64>| {
        let mut items = vec![Index::Slice(super::shape::ALL); axis];
        items.push(Index::Slice(crate::tensor::SliceSpec {
            start,
            stop,
            step: 1,
        }));
        index(t, &items).map_err(|e| GradError::Tensor(e.error))
    };
    let mut t = x.clone();
    for _ in 0..n {
        let Some(last) = t.shape()[axis].checked_sub(1) else {
            break;
        };
        t = super::sub(
            &slice(&t, Some(1), None)?,
            &slice(&t, None, Some(last as i64))?,
        )?;
    }
    Ok(t)
}

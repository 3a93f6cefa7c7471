//! Indexing and stacking: `x[items]` passes its gradient back into the elements it
//! read (repeats accumulate), and a literal `[a, b]` gives each row its slice.

use super::IndexError;
use crate::autograd::error::{GradError, Result};
use crate::autograd::record::record;
use crate::autograd::var::Var;
use crate::ops::index::{add_at, read, select, Index};
use crate::tensor::Tensor;

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

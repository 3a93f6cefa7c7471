//! Indexing, NumPy's rules. Basic items (ints, slices, `...`, `none`) map one Layout to
//! another, so `x[0, 1:]` is a view. Bool masks and integer tensors (advanced indexing)
//! pick elements by storage offset: reading them gathers a copy, assigning scatters.
//! Also `nonzero`/`argwhere`, which turn a mask into the indices it selects.

use super::{elems, output_buffer, scalar_as};
use crate::kernels::math::Arith;
use crate::kernels::strided::{at, for_each_run};
use crate::tensor::shape::{broadcast_shapes, check_op_rank, shape_str};
use crate::tensor::{DType, Elem, Layout, Result, Scalar, SliceSpec, Tensor, TensorError};

/// One item of `x[...]`.
#[derive(Clone, Debug)]
pub enum Index {
    /// Picks one position and drops the axis (negative counts from the end).
    Int(i64),
    Slice(SliceSpec),
    /// `...`: as many full slices as needed.
    Ellipsis,
    /// `none`: inserts a size-1 axis.
    NewAxis,
    /// A bool mask (indexes as many axes as it has) or an integer tensor (fancy indexing).
    Tensor(Tensor),
}

/// An indexing error and the position of the item that caused it, when one did.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexError {
    pub item: Option<usize>,
    pub error: TensorError,
}

impl From<TensorError> for IndexError {
    fn from(error: TensorError) -> Self {
        IndexError { item: None, error }
    }
}

fn at_item(item: usize, error: TensorError) -> IndexError {
    IndexError {
        item: Some(item),
        error,
    }
}

/// The elements `x[items]` addresses.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// Basic indexing: a layout over the same storage.
    View(Layout),
    /// Advanced indexing: the result's shape and the storage offset of each of its
    /// elements in row-major order (an offset may repeat).
    Gather {
        shape: Vec<usize>,
        offsets: Vec<usize>,
    },
}

impl Selection {
    pub fn shape(&self) -> &[usize] {
        match self {
            Selection::View(l) => &l.shape,
            Selection::Gather { shape, .. } => shape,
        }
    }
}

impl From<Layout> for Selection {
    fn from(layout: Layout) -> Self {
        Selection::View(layout)
    }
}

/// A basic item after `...` is expanded and advanced items are replaced.
#[derive(Clone, Copy)]
enum Basic {
    Int(i64),
    Slice(SliceSpec),
    NewAxis,
}

/// An index array acting on one dim of the basic view.
struct Array {
    index: Tensor,
    /// The dim of the basic view it indexes.
    dim: usize,
    /// The input axis it indexes, for messages.
    axis: usize,
    /// Position of the index item it came from.
    item: usize,
}

/// `t[items]`: a view for basic indexing, a copy when any item is a tensor.
pub fn index_get(t: &Tensor, items: &[Index]) -> std::result::Result<Tensor, IndexError> {
    let sel = select(t.layout(), items)?;
    Ok(read(t, &sel)?)
}

/// The storage offset of the element at `index` (one int per axis, negative from
/// the end), or None when the index does not name one element.
fn element_offset(layout: &Layout, index: &[i64]) -> Option<usize> {
    if index.len() != layout.ndim() {
        return None;
    }
    let mut offset = layout.offset as isize;
    for ((&i, &size), &stride) in index.iter().zip(&layout.shape).zip(&layout.strides) {
        let n = size as i64;
        let i = if i < 0 { i + n } else { i };
        if !(0..n).contains(&i) {
            return None;
        }
        offset += i as isize * stride;
    }
    usize::try_from(offset).ok()
}

/// `t[i, j, ...]` with an int per axis, the loop case: the 0-d view `index_get` gives,
/// without resolving a selection. None when the index does not name one element (the
/// general path then reports why).
pub fn read_element(t: &Tensor, index: &[i64]) -> Option<Tensor> {
    let offset = element_offset(t.layout(), index)?;
    Some(t.with_layout(Layout {
        shape: Vec::new(),
        strides: Vec::new(),
        offset,
    }))
}

/// The element of `t` at `index` (an int per axis) in `T`, t's own element type: the
/// value `read_element`'s view holds, without making the view. None when the index does
/// not name one element or t holds another type.
pub fn element<T: Elem>(t: &Tensor, index: &[i64]) -> Option<T> {
    let offset = element_offset(t.layout(), index)?;
    t.storage_slice::<T>()?.get(offset).copied()
}

/// `t[i, j, ...] = value` with an int per axis and a number, the loop case: what
/// `select` and `write` do, converted as they convert. False, with `t` unchanged, when
/// the index does not name one element.
pub fn write_element(t: &mut Tensor, index: &[i64], value: Scalar) -> bool {
    if element_offset(t.layout(), index).is_none() {
        return false;
    }
    // make_writable may move the elements to a fresh buffer, so the offset is taken
    // after it.
    t.make_writable();
    let Some(offset) = element_offset(t.layout(), index) else {
        return false;
    };
    crate::dispatch!(t.dtype(), T => {
        match T::vec_mut(t.storage_mut()).and_then(|d| d.get_mut(offset)) {
            Some(slot) => {
                *slot = scalar_as::<T>(value);
                true
            }
            None => false,
        }
    })
}

/// Resolves `items` against `layout` following NumPy: a bool mask of k dims stands for
/// the k index arrays of its nonzero positions; ints next to a tensor index count as
/// 0-d index arrays; index arrays broadcast together, and their result dims replace the
/// indexed dims in place when they are adjacent, else go first.
pub fn select(layout: &Layout, items: &[Index]) -> std::result::Result<Selection, IndexError> {
    if let [Index::Tensor(mask)] = items {
        if mask.dtype() == DType::Bool && layout.ndim() > 0 && mask.shape() == layout.shape {
            return Ok(whole_mask(layout, mask)?);
        }
    }
    let consumed = consumed_dims(layout.ndim(), items)?;
    let fill = layout.ndim() - consumed;
    let mut walk = Walk {
        layout,
        advanced: items.iter().any(|i| matches!(i, Index::Tensor(_))),
        fill,
        basic: Vec::with_capacity(items.len() + fill),
        arrays: Vec::new(),
        dim: 0,
        axis: 0,
    };
    for (pos, item) in items.iter().enumerate() {
        walk.item(pos, item)?;
    }
    // The dims left after the last item stay, unless an ellipsis already took them.
    let trailing = if items.iter().any(|i| matches!(i, Index::Ellipsis)) {
        0
    } else {
        fill
    };
    check_op_rank("index", walk.dim + trailing)?;
    let view = basic_view(layout, &walk.basic)?;
    if walk.arrays.is_empty() {
        return Ok(Selection::View(view));
    }
    gather(&view, &walk.arrays)
}

/// How many dims of the tensor `items` index (a bool mask indexes as many as it has);
/// an error for a float index, a second ellipsis, or more dims than `ndim`.
fn consumed_dims(ndim: usize, items: &[Index]) -> std::result::Result<usize, IndexError> {
    let mut consumed = 0;
    let mut seen_ellipsis = false;
    for (pos, item) in items.iter().enumerate() {
        consumed += match item {
            Index::Tensor(t) if t.dtype().is_float() => {
                let msg = "indices must be integers or booleans";
                return Err(at_item(pos, TensorError::dtype("index", t.dtype(), msg)));
            }
            Index::Tensor(t) if t.dtype() == DType::Bool => t.ndim(),
            Index::Int(_) | Index::Slice(_) | Index::Tensor(_) => 1,
            Index::NewAxis => 0,
            Index::Ellipsis if seen_ellipsis => {
                let msg = "an index can only have a single ellipsis (`...`)";
                return Err(at_item(pos, TensorError::value("index", msg)));
            }
            Index::Ellipsis => {
                seen_ellipsis = true;
                0
            }
        };
    }
    if consumed > ndim {
        return Err(TensorError::value(
            "index",
            format!(
                "too many indices: the tensor has {ndim} dimension{} but {consumed} were indexed",
                if ndim == 1 { "" } else { "s" }
            ),
        )
        .into());
    }
    Ok(consumed)
}

const FULL: Basic = Basic::Slice(SliceSpec::FULL);

/// The items of an index, walked in order into a basic view and the index arrays. The
/// basic view keeps a full dim for every advanced item (a new axis for a 0-d mask);
/// `dim` counts the view's dims, `axis` the input's.
struct Walk<'a> {
    layout: &'a Layout,
    /// Whether any item is an index array (ints then index as arrays too).
    advanced: bool,
    /// The dims an ellipsis stands for.
    fill: usize,
    basic: Vec<(Basic, usize)>,
    arrays: Vec<Array>,
    dim: usize,
    axis: usize,
}

impl Walk<'_> {
    fn step(&mut self, dims: usize, axes: usize) {
        self.dim += dims;
        self.axis += axes;
    }

    /// Item `pos` of the index.
    fn item(&mut self, pos: usize, item: &Index) -> std::result::Result<(), IndexError> {
        match item {
            Index::Int(i) if self.advanced => {
                // Checked here: an unused index array is not, but an int always is.
                let size = self.layout.shape.get(self.axis).copied().unwrap_or(0);
                if *i < -(size as i64) || *i >= size as i64 {
                    let e = TensorError::Index {
                        op: "index".into(),
                        index: *i,
                        axis: self.axis,
                        size,
                    };
                    return Err(at_item(pos, e));
                }
                self.arrays.push(Array {
                    index: Tensor::scalar(*i),
                    dim: self.dim,
                    axis: self.axis,
                    item: pos,
                });
                self.basic.push((FULL, pos));
                self.step(1, 1);
            }
            Index::Int(i) => {
                self.basic.push((Basic::Int(*i), pos));
                self.step(0, 1);
            }
            Index::Slice(s) => {
                self.basic.push((Basic::Slice(*s), pos));
                self.step(1, 1);
            }
            Index::Ellipsis => {
                self.basic
                    .extend(std::iter::repeat_n((FULL, pos), self.fill));
                self.step(self.fill, self.fill);
            }
            Index::NewAxis => {
                self.basic.push((Basic::NewAxis, pos));
                self.step(1, 0);
            }
            Index::Tensor(t) if t.dtype() == DType::Bool && t.ndim() == 0 => {
                // NumPy: a 0-d mask adds an axis of length 1 (true) or 0 (false).
                let picked: Vec<i64> = if t.item_i64() == Some(0) {
                    vec![]
                } else {
                    vec![0]
                };
                let n = picked.len();
                self.arrays.push(Array {
                    index: Tensor::from_vec(picked, &[n])?,
                    dim: self.dim,
                    axis: self.axis,
                    item: pos,
                });
                self.basic.push((Basic::NewAxis, pos));
                self.step(1, 0);
            }
            Index::Tensor(t) if t.dtype() == DType::Bool => {
                let k = t.ndim();
                let dims = self
                    .layout
                    .shape
                    .get(self.axis..self.axis + k)
                    .unwrap_or_default();
                if t.shape() != dims {
                    return Err(at_item(
                        pos,
                        mask_mismatch(t.shape(), dims, self.axis, self.layout),
                    ));
                }
                for (j, index) in nonzero(t)?.into_iter().enumerate() {
                    self.arrays.push(Array {
                        index,
                        dim: self.dim + j,
                        axis: self.axis + j,
                        item: pos,
                    });
                    self.basic.push((FULL, pos));
                }
                self.step(k, k);
            }
            Index::Tensor(t) => {
                self.arrays.push(Array {
                    index: t.clone(),
                    dim: self.dim,
                    axis: self.axis,
                    item: pos,
                });
                self.basic.push((FULL, pos));
                self.step(1, 1);
            }
        }
        Ok(())
    }
}

fn mask_mismatch(mask: &[usize], dims: &[usize], axis: usize, layout: &Layout) -> TensorError {
    let axes = match mask.len() {
        1 => format!("axis {axis}"),
        k => format!("axes {axis}..{}", axis + k),
    };
    TensorError::shape(
        "index",
        format!(
            "boolean mask of shape {} does not match the shape {} of {axes} of a tensor of shape {}",
            shape_str(mask),
            shape_str(dims),
            shape_str(&layout.shape)
        ),
    )
}

/// Applies basic items (each with the position of the item it came from) as a view.
fn basic_view(
    layout: &Layout,
    items: &[(Basic, usize)],
) -> std::result::Result<Layout, IndexError> {
    let mut out = layout.clone();
    // `at` is the position in the output layout; `axis` the input axis, for messages.
    let (mut at, mut axis) = (0usize, 0usize);
    for &(item, pos) in items {
        match item {
            Basic::Int(i) => {
                out = out.select(at, i).map_err(|e| match e {
                    TensorError::Index { index, size, .. } => at_item(
                        pos,
                        TensorError::Index {
                            op: "index".into(),
                            index,
                            axis,
                            size,
                        },
                    ),
                    other => at_item(pos, other),
                })?;
                axis += 1;
            }
            Basic::Slice(s) => {
                out = out.slice(at, s).map_err(|e| at_item(pos, e))?;
                (at, axis) = (at + 1, axis + 1);
            }
            Basic::NewAxis => {
                out = out.unsqueeze(at);
                at += 1;
            }
        }
    }
    Ok(out)
}

/// The offsets of advanced indexing over the basic `view`.
fn gather(view: &Layout, arrays: &[Array]) -> std::result::Result<Selection, IndexError> {
    let mut picked: Vec<usize> = Vec::new();
    for a in arrays {
        picked = broadcast_shapes("index", &picked, a.index.shape()).map_err(|_| {
            let msg = format!(
                "index tensors of shapes {} and {} cannot be broadcast together",
                shape_str(&picked),
                shape_str(a.index.shape())
            );
            at_item(a.item, TensorError::shape("index", msg))
        })?;
    }
    let dims: Vec<usize> = arrays.iter().map(|a| a.dim).collect();
    let adjacent = dims.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..view.ndim()).filter(|d| !dims.contains(d)).collect();
    let first = dims.first().copied().unwrap_or(0);
    let split = if adjacent {
        rest.iter().filter(|&&d| d < first).count()
    } else {
        0
    };
    let (outer, inner) = rest.split_at(split);
    let sizes = |ds: &[usize]| -> Vec<usize> { ds.iter().map(|&d| view.shape[d]).collect() };
    let shape = [sizes(outer), picked.clone(), sizes(inner)].concat();
    let mut offsets = output_buffer("index", &shape, 0usize)?;
    // Storage offset contributed by the index arrays at each broadcast position.
    let mut picked_offsets = if offsets.is_empty() {
        Vec::new()
    } else {
        output_buffer("index", &picked, 0isize)?
    };
    // NumPy checks the indices whenever the broadcast index is not empty, even when
    // another dim makes the result empty.
    let checked = picked.iter().all(|&d| d > 0);
    for a in arrays {
        let size = view.shape[a.dim];
        let stride = view.strides[a.dim];
        let n = size as i64;
        let values = if checked {
            a.index.to_vec::<i64>()
        } else {
            vec![]
        };
        if let Some(&bad) = values.iter().find(|&&i| i < -n || i >= n) {
            let e = TensorError::Index {
                op: "index".into(),
                index: bad,
                axis: a.axis,
                size,
            };
            return Err(at_item(a.item, e));
        }
        if offsets.is_empty() {
            continue;
        }
        let values = a.index.broadcast_to(&picked)?.to_vec::<i64>();
        for (o, i) in picked_offsets.iter_mut().zip(values) {
            *o += (if i < 0 { i + n } else { i }) as isize * stride;
        }
    }
    let strides = |ds: &[usize]| -> Vec<isize> { ds.iter().map(|&d| view.strides[d]).collect() };
    let outer = relative_offsets(&sizes(outer), &strides(outer));
    let inner = relative_offsets(&sizes(inner), &strides(inner));
    let base = view.offset as isize;
    let all = outer.iter().flat_map(|o| {
        let inner = &inner;
        picked_offsets
            .iter()
            .flat_map(move |p| inner.iter().map(move |i| base + o + p + i))
    });
    for (slot, off) in offsets.iter_mut().zip(all) {
        *slot = usize::try_from(off).map_err(|_| internal())?;
    }
    Ok(Selection::Gather { shape, offsets })
}

fn internal() -> TensorError {
    TensorError::value("index", "internal error: offset outside the storage")
}

/// `x[mask]` with a mask of x's whole shape, the common case: the offsets of x's
/// elements where the mask is true, in one walk (the same result `gather` gives
/// through `nonzero`'s index arrays, without them).
fn whole_mask(layout: &Layout, mask: &Tensor) -> Result<Selection> {
    let flags = elems::<bool>("index", mask)?;
    let mut count = 0;
    for_each_run([mask.layout()], |run| {
        let ([m], [ms]) = (run.offsets, run.strides);
        count += (0..run.len).filter(|&j| flags[at(m, ms, j)]).count();
    });
    // One spare slot: every element is written, and the cursor moves only past the
    // picked ones (no branch on random masks).
    let mut offsets = output_buffer("index", &[count + 1], 0usize)?;
    let mut n = 0;
    for_each_run([layout, mask.layout()], |run| {
        let ([o, m], [s, ms]) = (run.offsets, run.strides);
        for j in 0..run.len {
            offsets[n] = at(o, s, j);
            n += usize::from(flags[at(m, ms, j)]);
        }
    });
    offsets.truncate(count);
    Ok(Selection::Gather {
        shape: vec![count],
        offsets,
    })
}

/// Offsets of the elements of a (shape, strides) walk from 0, in row-major order.
fn relative_offsets(shape: &[usize], strides: &[isize]) -> Vec<isize> {
    let layout = Layout {
        shape: shape.to_vec(),
        strides: strides.to_vec(),
        offset: 0,
    };
    let mut out = Vec::with_capacity(layout.numel());
    for_each_run([&layout], |run| {
        let ([o], [s]) = (run.offsets, run.strides);
        out.extend((0..run.len as isize).map(|j| o + j * s));
    });
    out
}

/// The elements `sel` addresses: a view, or a gathered copy.
pub fn read(t: &Tensor, sel: &Selection) -> Result<Tensor> {
    match sel {
        Selection::View(l) => Ok(t.with_layout(l.clone())),
        Selection::Gather { shape, offsets } => crate::dispatch!(t.dtype(), T => {
            let data = elems::<T>("index", t)?;
            let mut out = output_buffer("index", shape, T::default())?;
            for (d, &o) in out.iter_mut().zip(offsets) {
                *d = *data.get(o).ok_or_else(internal)?;
            }
            Tensor::from_vec(out, shape)
        }),
    }
}

/// Writes `value` (broadcast to the selection's shape, cast to t's dtype) into the
/// elements `sel` addresses. `sel` must come from `t`'s layout after `make_writable`.
/// Repeated offsets take the last value written (NumPy).
pub fn write(t: &mut Tensor, sel: &Selection, value: &Tensor) -> Result<()> {
    let shape = sel.shape();
    // NumPy drops a value's extra leading size-1 dims: `x[0] = [[1, 2]]` fills a row.
    let extra = value.ndim().saturating_sub(shape.len());
    let leading = value
        .shape()
        .iter()
        .take(extra)
        .take_while(|&&d| d == 1)
        .count();
    let axes: Vec<i64> = (0..leading as i64).collect();
    let squeezed = value.squeeze(Some(&axes))?;
    let src = squeezed.broadcast_to(shape).map_err(|_| {
        TensorError::shape(
            "assign",
            format!(
                "cannot assign a value of shape {} to a region of shape {}",
                shape_str(value.shape()),
                shape_str(shape)
            ),
        )
    })?;
    match sel {
        Selection::View(region) => t.assign(region, &src),
        Selection::Gather { offsets, .. } => crate::dispatch!(t.dtype(), T => {
            let one = match squeezed.numel() {
                1 => squeezed.to_vec::<T>().first().copied(),
                _ => None,
            };
            let dst = T::vec_mut(t.storage_mut()).ok_or_else(internal)?;
            match one {
                // One value for all: written as it is, not spread into a buffer first.
                Some(v) => {
                    for &o in offsets {
                        *dst.get_mut(o).ok_or_else(internal)? = v;
                    }
                }
                None => {
                    for (&o, v) in offsets.iter().zip(src.to_vec::<T>()) {
                        *dst.get_mut(o).ok_or_else(internal)? = v;
                    }
                }
            }
            Ok(())
        }),
    }
}

/// `t[mask] = value` for a bool mask of t's shape and a one-element value, in one
/// pass when t and the mask are both contiguous: each element keeps its value or
/// takes `value` (cast to t's dtype as `write` casts it), with no offsets built.
/// `None` when this path does not apply (the caller selects and writes); call it
/// after `make_writable`.
pub fn fill_masked(t: &mut Tensor, mask: &Tensor, value: &Tensor) -> Option<Result<()>> {
    let applies = mask.dtype() == DType::Bool
        && t.ndim() > 0
        && mask.shape() == t.shape()
        && value.numel() == 1
        && t.is_contiguous()
        && mask.is_contiguous();
    applies.then(|| fill_masked_contiguous(t, mask, value))
}

fn fill_masked_contiguous(t: &mut Tensor, mask: &Tensor, value: &Tensor) -> Result<()> {
    let (n, from) = (t.numel(), t.layout().offset);
    let start = mask.layout().offset;
    let flags = elems::<bool>("index", mask)?
        .get(start..start + n)
        .ok_or_else(internal)?;
    crate::dispatch!(t.dtype(), T => {
        let v = value.to_vec::<T>().first().copied().ok_or_else(internal)?;
        let dst = T::vec_mut(t.storage_mut()).ok_or_else(internal)?;
        let dst = dst.get_mut(from..from + n).ok_or_else(internal)?;
        // A select, not a branch: random masks would mispredict half the time.
        for (x, &f) in dst.iter_mut().zip(flags) {
            *x = if f { v } else { *x };
        }
        Ok(())
    })
}

/// Adds `value` (broadcast to the selection's shape, cast to t's dtype) into the
/// elements `sel` addresses; a repeated offset accumulates every value, in
/// selection order (NumPy's `add.at`). `sel` must come from `t`'s layout after
/// `make_writable`.
pub fn add_at(t: &mut Tensor, sel: &Selection, value: &Tensor) -> Result<()> {
    let src = value.to_dtype(t.dtype()).broadcast_to(sel.shape())?;
    let offsets: Vec<usize> = match sel {
        Selection::View(l) => relative_offsets(&l.shape, &l.strides)
            .into_iter()
            .map(|o| usize::try_from(o + l.offset as isize).map_err(|_| internal()))
            .collect::<Result<_>>()?,
        Selection::Gather { offsets, .. } => offsets.clone(),
    };
    crate::dispatch!(t.dtype(), T => {
        let dst = T::vec_mut(t.storage_mut()).ok_or_else(internal)?;
        for (&o, v) in offsets.iter().zip(src.to_vec::<T>()) {
            let d = dst.get_mut(o).ok_or_else(internal)?;
            *d = d.add(v);
        }
        Ok(())
    })
}

/// The number of nonzero elements (NaN counts as nonzero) and their coordinates, one
/// row of `ndim` per element in row-major order.
fn nonzero_coords(op: &str, t: &Tensor) -> Result<(usize, Vec<i64>)> {
    let flags = t.to_vec::<bool>();
    let count = flags.iter().filter(|&&f| f).count();
    let shape = t.shape();
    if shape.is_empty() {
        return Ok((count, Vec::new()));
    }
    let mut coords = output_buffer(op, &[count, shape.len()], 0i64)?;
    let mut rows = coords.chunks_exact_mut(shape.len());
    let mut index = vec![0usize; shape.len()];
    for f in flags {
        if f {
            if let Some(row) = rows.next() {
                for (c, &i) in row.iter_mut().zip(&index) {
                    *c = i as i64;
                }
            }
        }
        // Advance the odometer, innermost axis first.
        for (i, &d) in index.iter_mut().zip(shape).rev() {
            *i += 1;
            if *i < d {
                break;
            }
            *i = 0;
        }
    }
    Ok((count, coords))
}

/// NumPy `nonzero`: one i64 tensor of indices per axis, for the nonzero elements in
/// row-major order.
pub fn nonzero(t: &Tensor) -> Result<Vec<Tensor>> {
    let ndim = t.ndim();
    if ndim == 0 {
        return Err(TensorError::value(
            "nonzero",
            "a 0-d tensor has no axes to index; use argwhere, or reshape it to 1-D first",
        ));
    }
    let (count, coords) = nonzero_coords("nonzero", t)?;
    (0..ndim)
        .map(|j| {
            let column: Vec<i64> = coords.iter().skip(j).step_by(ndim).copied().collect();
            Tensor::from_vec(column, &[count])
        })
        .collect()
}

/// NumPy `argwhere`: the coordinates of the nonzero elements as an i64 [N, ndim] tensor.
pub fn argwhere(t: &Tensor) -> Result<Tensor> {
    let (count, coords) = nonzero_coords("argwhere", t)?;
    Tensor::from_vec(coords, &[count, t.ndim()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testutil::views;
    use crate::tensor::iter::StridedIter;

    fn offsets(l: &Layout) -> Vec<usize> {
        StridedIter::new(l).collect()
    }

    fn view_of(layout: &Layout, items: &[Index]) -> Layout {
        match select(layout, items).unwrap() {
            Selection::View(l) => l,
            other => panic!("expected a view, got {other:?}"),
        }
    }

    #[test]
    fn fill_masked_matches_select_and_write() {
        // A contiguous tensor, and a contiguous slice of one (a nonzero offset).
        let base = Tensor::from_vec((0..24).map(|i| i as f32 - 7.5).collect(), &[4, 6]).unwrap();
        let rows = SliceSpec {
            start: Some(1),
            stop: None,
            step: 1,
        };
        for t in [base.clone(), base.slice(0, rows).unwrap()] {
            let flags: Vec<bool> = (0..t.numel()).map(|i| (i * 7) % 3 == 0).collect();
            let m = Tensor::from_vec(flags, t.shape()).unwrap();
            let value = Tensor::scalar(2.25f64);
            let mut fast = t.clone();
            fast.make_writable();
            fill_masked(&mut fast, &m, &value).unwrap().unwrap();
            let mut slow = t.clone();
            slow.make_writable();
            let sel = select(slow.layout(), &[Index::Tensor(m.clone())]).unwrap();
            write(&mut slow, &sel, &value).unwrap();
            assert_eq!(fast.to_vec::<f32>(), slow.to_vec::<f32>());
            assert_eq!(
                t.to_vec::<f32>(),
                base.to_vec::<f32>()[t.layout().offset..].to_vec()
            );
        }
        // Not applicable: a transposed view, a mask of another shape, several values.
        let mut tt = base.transpose(0, 1).unwrap();
        let m = Tensor::from_vec(vec![true; 24], &[6, 4]).unwrap();
        assert!(fill_masked(&mut tt, &m, &Tensor::scalar(1.0f32)).is_none());
        let mut t = base.clone();
        let row = Tensor::from_vec(vec![true; 6], &[6]).unwrap();
        assert!(fill_masked(&mut t, &row, &Tensor::scalar(1.0f32)).is_none());
        let two = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let all = Tensor::from_vec(vec![true; 24], &[4, 6]).unwrap();
        assert!(fill_masked(&mut t, &all, &two).is_none());
    }

    fn ints(v: &[i64], shape: &[usize]) -> Index {
        Index::Tensor(Tensor::from_vec(v.to_vec(), shape).unwrap())
    }

    fn mask(v: &[bool], shape: &[usize]) -> Index {
        Index::Tensor(Tensor::from_vec(v.to_vec(), shape).unwrap())
    }

    fn arange(shape: &[usize]) -> Tensor {
        let n: usize = shape.iter().product();
        Tensor::from_vec((0..n as i64).collect(), shape).unwrap()
    }

    #[test]
    fn ints_slices_ellipsis_newaxis() {
        let l = Layout::contiguous(&[2, 3, 4]);
        let r = view_of(&l, &[Index::Int(-1)]);
        assert_eq!(r.shape, vec![3, 4]);
        assert_eq!(offsets(&r)[0], 12);
        let r = view_of(&l, &[Index::Ellipsis, Index::Int(1)]);
        assert_eq!(r.shape, vec![2, 3]);
        assert_eq!(offsets(&r), vec![1, 5, 9, 13, 17, 21]);
        let r = view_of(&l, &[Index::NewAxis, Index::Int(0), Index::NewAxis]);
        assert_eq!(r.shape, vec![1, 1, 3, 4]);
        let step = SliceSpec {
            start: None,
            stop: None,
            step: -2,
        };
        let r = view_of(&l, &[Index::Int(0), Index::Slice(step)]);
        assert_eq!(r.shape, vec![2, 4]);
        assert_eq!(offsets(&r)[..4], [8, 9, 10, 11]);
    }

    #[test]
    fn errors_name_the_axis_and_item() {
        let l = Layout::contiguous(&[2, 3]);
        let e = select(&l, &[Index::Int(0), Index::Int(5)]).unwrap_err();
        assert_eq!(e.item, Some(1));
        assert_eq!(
            e.error.to_string(),
            "index: index 5 is out of bounds for axis 1 with size 3"
        );
        let e = select(&l, &[Index::Slice(SliceSpec::FULL), ints(&[0, -4], &[2])]).unwrap_err();
        assert_eq!(e.item, Some(1));
        assert_eq!(
            e.error.to_string(),
            "index: index -4 is out of bounds for axis 1 with size 3"
        );
        let e = select(&l, &[mask(&[true, false, true], &[3])]).unwrap_err();
        assert_eq!(e.item, Some(0));
        assert_eq!(
            e.error.to_string(),
            "index: boolean mask of shape [3] does not match the shape [2] of axis 0 of a tensor of shape [2, 3]"
        );
        let e = select(&l, &[ints(&[0, 1], &[2]), ints(&[0, 1, 2], &[3])]).unwrap_err();
        assert_eq!(e.item, Some(1));
        assert_eq!(
            e.error.to_string(),
            "index: index tensors of shapes [2] and [3] cannot be broadcast together"
        );
        let floats = Index::Tensor(Tensor::from_vec(vec![0.0f32], &[1]).unwrap());
        assert_eq!(
            select(&l, &[Index::Int(0), floats]).unwrap_err().item,
            Some(1)
        );
        assert_eq!(
            select(&l, &[Index::Int(0), Index::Int(0), Index::Int(0)])
                .unwrap_err()
                .item,
            None
        );
        let e = select(&l, &[Index::Ellipsis, Index::Ellipsis]).unwrap_err();
        assert_eq!(e.item, Some(1));
        assert!(select(&Layout::contiguous(&[]), &[Index::Ellipsis]).is_ok());
    }

    /// NumPy's advanced indexing computed the slow way, for 2-D `x[a, b]` with two
    /// broadcast index arrays.
    #[test]
    fn two_arrays_broadcast_like_numpy() {
        let x = arange(&[3, 4]);
        let rows = ints(&[0, 2, -1], &[3, 1]);
        let cols = ints(&[1, -1], &[2]);
        let got = index_get(&x, &[rows, cols]).unwrap();
        assert_eq!(got.shape(), &[3, 2]);
        let mut want = vec![];
        for r in [0, 2, 2] {
            for c in [1, 3] {
                want.push(r * 4 + c);
            }
        }
        assert_eq!(got.to_vec::<i64>(), want);
        assert!(got.owns_data());
    }

    #[test]
    fn result_dims_go_in_place_or_first() {
        let x = arange(&[2, 3, 4]);
        let full = Index::Slice(SliceSpec::FULL);
        let shape = |items: &[Index]| index_get(&x, items).unwrap().shape().to_vec();
        assert_eq!(shape(&[full.clone(), ints(&[0, 2], &[2])]), vec![2, 2, 4]);
        assert_eq!(
            shape(&[full.clone(), full.clone(), ints(&[0, 1, 2], &[3, 1])]),
            vec![2, 3, 3, 1]
        );
        // An int next to an array counts as an index array: adjacent stays in place ...
        assert_eq!(
            shape(&[full.clone(), Index::Int(1), ints(&[0, 1], &[2])]),
            vec![2, 2]
        );
        // ... separated by a slice, the broadcast dims go first (NumPy's rule).
        let got = index_get(&x, &[Index::Int(1), full.clone(), ints(&[0, 3], &[2])]).unwrap();
        assert_eq!(got.shape(), &[2, 3]);
        assert_eq!(got.to_vec::<i64>(), vec![12, 16, 20, 15, 19, 23]);
        assert_eq!(
            shape(&[ints(&[0], &[1]), Index::NewAxis, ints(&[0], &[1])]),
            vec![1, 1, 4]
        );
        assert_eq!(
            shape(&[Index::NewAxis, ints(&[1, 0], &[2])]),
            vec![1, 2, 3, 4]
        );
    }

    #[test]
    fn masks_select_in_row_major_order() {
        let x = arange(&[2, 3]);
        let m = mask(&[true, false, true, false, true, true], &[2, 3]);
        let got = index_get(&x, &[m]).unwrap();
        assert_eq!(got.to_vec::<i64>(), vec![0, 2, 4, 5]);
        let cols = mask(&[false, true, true], &[3]);
        let got = index_get(&x, &[Index::Slice(SliceSpec::FULL), cols]).unwrap();
        assert_eq!(got.shape(), &[2, 2]);
        assert_eq!(got.to_vec::<i64>(), vec![1, 2, 4, 5]);
        let none = mask(&[false, false], &[2]);
        assert_eq!(index_get(&x, &[none]).unwrap().shape(), &[0, 3]);
        let yes = Index::Tensor(Tensor::scalar(true));
        assert_eq!(index_get(&x, &[yes]).unwrap().shape(), &[1, 2, 3]);
        let no = Index::Tensor(Tensor::scalar(false));
        assert_eq!(index_get(&x, &[no]).unwrap().shape(), &[0, 2, 3]);
    }

    #[test]
    fn gathers_from_every_view() {
        let base = Tensor::from_vec((0..12).map(f64::from).collect::<Vec<_>>(), &[3, 4]).unwrap();
        for v in views(&base) {
            let got = index_get(&v, &[ints(&[2, 0], &[2]), ints(&[-1], &[1])]).unwrap();
            assert_eq!(got.to_vec::<f64>(), vec![11.0, 3.0], "{:?}", v.layout());
        }
    }

    #[test]
    fn writes_scatter_with_the_last_write_winning() {
        let mut x = arange(&[2, 3]);
        x.make_writable();
        let sel = select(x.layout(), &[ints(&[1, 0, 1], &[3]), Index::Int(2)]).unwrap();
        let v = Tensor::from_vec(vec![7.9f32, 8.0, 9.0], &[3]).unwrap();
        write(&mut x, &sel, &v).unwrap();
        assert_eq!(x.to_vec::<i64>(), vec![0, 1, 8, 3, 4, 9]);
        let nested = Tensor::from_vec(vec![1i64, 2, 3], &[1, 1, 3]).unwrap();
        write(&mut x, &sel, &nested).unwrap();
        assert_eq!(x.to_vec::<i64>(), vec![0, 1, 2, 3, 4, 3]);
        let e = write(
            &mut x,
            &sel,
            &Tensor::from_vec(vec![1i64, 2], &[2]).unwrap(),
        );
        assert_eq!(
            e.unwrap_err().to_string(),
            "assign: cannot assign a value of shape [2] to a region of shape [3]"
        );
    }

    #[test]
    fn writes_through_a_shared_or_reversed_base_stay_private() {
        let a = arange(&[4]);
        let rev = a
            .slice(
                0,
                SliceSpec {
                    start: None,
                    stop: None,
                    step: -1,
                },
            )
            .unwrap();
        let mut b = rev.clone();
        b.make_writable();
        let sel = select(b.layout(), &[mask(&[true, false, false, true], &[4])]).unwrap();
        write(&mut b, &sel, &Tensor::scalar(-1i64)).unwrap();
        assert_eq!(b.to_vec::<i64>(), vec![-1, 2, 1, -1]);
        assert_eq!(a.to_vec::<i64>(), vec![0, 1, 2, 3]);
        assert_eq!(rev.to_vec::<i64>(), vec![3, 2, 1, 0]);
    }

    #[test]
    fn empty_results_still_check_bounds() {
        let x = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
        let full = Index::Slice(SliceSpec::FULL);
        assert_eq!(
            index_get(&x, &[full.clone(), ints(&[2], &[1])])
                .unwrap()
                .shape(),
            &[0, 1]
        );
        assert!(index_get(&x, &[full, ints(&[3], &[1])]).is_err());
        assert!(index_get(&x, &[ints(&[0], &[1])]).is_err());
        assert_eq!(index_get(&x, &[ints(&[], &[0])]).unwrap().shape(), &[0, 3]);
        let y = arange(&[2, 3]);
        let unused = index_get(&y, &[ints(&[], &[0]), ints(&[7], &[1])]).unwrap();
        assert_eq!(unused.shape(), &[0]);
    }

    #[test]
    fn a_whole_mask_picks_what_its_index_arrays_pick() {
        let base = Tensor::from_vec((0..12).map(f64::from).collect::<Vec<_>>(), &[3, 4]).unwrap();
        let flags: Vec<bool> = (0..12).map(|i| i % 3 != 1).collect();
        for v in views(&base) {
            let shape = v.shape().to_vec();
            let n: usize = shape.iter().product();
            let m = Tensor::from_vec(flags[..n].to_vec(), &shape).unwrap();
            // The mask itself through a view too: reversed along its first axis.
            let reversed = SliceSpec {
                start: None,
                stop: None,
                step: -1,
            };
            for m in [m.clone(), m.slice(0, reversed).unwrap()] {
                let arrays: Vec<Index> = nonzero(&m)
                    .unwrap()
                    .into_iter()
                    .map(Index::Tensor)
                    .collect();
                let via_arrays = select(v.layout(), &arrays).unwrap();
                let whole = select(v.layout(), &[Index::Tensor(m.clone())]).unwrap();
                assert_eq!(whole, via_arrays, "{:?}", v.layout());
            }
        }
    }

    #[test]
    fn one_element_reads_and_writes_match_the_general_path() {
        let base =
            Tensor::from_vec((0..12).map(|i| i as f32).collect::<Vec<_>>(), &[3, 4]).unwrap();
        for v in views(&base) {
            if v.ndim() != 2 {
                continue;
            }
            let (rows, cols) = (v.shape()[0] as i64, v.shape()[1] as i64);
            for (i, j) in [
                (0, 0),
                (rows - 1, cols - 1),
                (-1, -cols),
                (rows, 0),
                (0, -cols - 1),
            ] {
                let items = [Index::Int(i), Index::Int(j)];
                let general = index_get(&v, &items).ok();
                let fast = read_element(&v, &[i, j]);
                assert_eq!(
                    fast.is_some(),
                    general.is_some(),
                    "[{i}, {j}] of {:?}",
                    v.layout()
                );
                if let (Some(a), Some(b)) = (fast, general) {
                    assert_eq!(a.to_vec::<f32>(), b.to_vec::<f32>());
                    assert_eq!(a.shape(), b.shape());
                }
                for value in [Scalar::Float(2.75), Scalar::Int(-3), Scalar::Bool(true)] {
                    let (mut a, mut b) = (v.clone(), v.clone());
                    let wrote = write_element(&mut a, &[i, j], value);
                    b.make_writable();
                    let sel = select(b.layout(), &items);
                    assert_eq!(wrote, sel.is_ok());
                    if let Ok(sel) = sel {
                        write(&mut b, &sel, &value.to_tensor()).unwrap();
                    }
                    assert_eq!(a.to_vec::<f32>(), b.to_vec::<f32>());
                }
            }
        }
        // Into an int tensor a float truncates, as the general path casts.
        let mut x = arange(&[3]);
        assert!(write_element(&mut x, &[1], Scalar::Float(-2.9)));
        assert_eq!(x.to_vec::<i64>(), vec![0, -2, 2]);
        assert!(!write_element(&mut x, &[0, 0], Scalar::Int(1)));
        assert!(read_element(&x, &[]).is_none());
    }

    #[test]
    fn nonzero_and_argwhere() {
        let x = Tensor::from_vec(vec![0.0, f32::NAN, -0.0, 2.0, 0.0, 1.0], &[2, 3]).unwrap();
        let nz = nonzero(&x).unwrap();
        assert_eq!(nz[0].to_vec::<i64>(), vec![0, 1, 1]);
        assert_eq!(nz[1].to_vec::<i64>(), vec![1, 0, 2]);
        let aw = argwhere(&x.transpose(0, 1).unwrap()).unwrap();
        assert_eq!(aw.shape(), &[3, 2]);
        assert_eq!(aw.to_vec::<i64>(), vec![0, 1, 1, 0, 2, 1]);
        assert!(nonzero(&Tensor::scalar(1i64)).is_err());
        assert_eq!(argwhere(&Tensor::scalar(1i64)).unwrap().shape(), &[1, 0]);
        assert_eq!(argwhere(&Tensor::scalar(0i64)).unwrap().shape(), &[0, 0]);
    }
}

//! Basic indexing as a view: ints, slices, `...` and new axes map one Layout to another.

use crate::tensor::{Layout, Result, SliceSpec, TensorError};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexItem {
    /// Picks one position and drops the axis (negative counts from the end).
    Int(i64),
    Slice(SliceSpec),
    /// `...`: as many full slices as needed.
    Ellipsis,
    /// `none`: inserts a size-1 axis.
    NewAxis,
}

/// The layout `x[items]` views, following NumPy's basic indexing.
pub fn index_layout(layout: &Layout, items: &[IndexItem]) -> Result<Layout> {
    let consuming = items
        .iter()
        .filter(|i| matches!(i, IndexItem::Int(_) | IndexItem::Slice(_)))
        .count();
    let ellipses = items.iter().filter(|i| **i == IndexItem::Ellipsis).count();
    if ellipses > 1 {
        return Err(TensorError::value(
            "index",
            "an index can only have a single ellipsis (`...`)",
        ));
    }
    if consuming > layout.ndim() {
        return Err(TensorError::value(
            "index",
            format!(
                "too many indices: the tensor has {} dimension{} but {consuming} were indexed",
                layout.ndim(),
                if layout.ndim() == 1 { "" } else { "s" }
            ),
        ));
    }
    let fill = layout.ndim() - consuming;
    let mut out = layout.clone();
    // `at` is the position in the output layout; `axis` the input axis, for messages.
    let (mut at, mut axis) = (0usize, 0usize);
    for item in items {
        match *item {
            IndexItem::Int(i) => {
                out = out.select(at, i).map_err(|e| match e {
                    TensorError::Index { index, size, .. } => TensorError::Index {
                        op: "index".into(),
                        index,
                        axis,
                        size,
                    },
                    other => other,
                })?;
                axis += 1;
            }
            IndexItem::Slice(s) => {
                out = out.slice(at, s)?;
                at += 1;
                axis += 1;
            }
            IndexItem::Ellipsis => {
                at += fill;
                axis += fill;
            }
            IndexItem::NewAxis => {
                out = out.unsqueeze(at);
                at += 1;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::iter::StridedIter;

    fn offsets(l: &Layout) -> Vec<usize> {
        StridedIter::new(l).collect()
    }

    #[test]
    fn ints_slices_ellipsis_newaxis() {
        let l = Layout::contiguous(&[2, 3, 4]);
        let r = index_layout(&l, &[IndexItem::Int(-1)]).unwrap();
        assert_eq!(r.shape, vec![3, 4]);
        assert_eq!(offsets(&r)[0], 12);
        let r = index_layout(&l, &[IndexItem::Ellipsis, IndexItem::Int(1)]).unwrap();
        assert_eq!(r.shape, vec![2, 3]);
        assert_eq!(offsets(&r), vec![1, 5, 9, 13, 17, 21]);
        let r = index_layout(
            &l,
            &[IndexItem::NewAxis, IndexItem::Int(0), IndexItem::NewAxis],
        )
        .unwrap();
        assert_eq!(r.shape, vec![1, 1, 3, 4]);
        let step = SliceSpec {
            start: None,
            stop: None,
            step: -2,
        };
        let r = index_layout(&l, &[IndexItem::Int(0), IndexItem::Slice(step)]).unwrap();
        assert_eq!(r.shape, vec![2, 4]);
        assert_eq!(offsets(&r)[..4], [8, 9, 10, 11]);
    }

    #[test]
    fn errors_name_the_axis() {
        let l = Layout::contiguous(&[2, 3]);
        let e = index_layout(&l, &[IndexItem::Int(0), IndexItem::Int(5)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "index: index 5 is out of bounds for axis 1 with size 3"
        );
        assert!(index_layout(&l, &[IndexItem::Int(0); 3]).is_err());
        assert!(index_layout(&l, &[IndexItem::Ellipsis, IndexItem::Ellipsis]).is_err());
        assert!(index_layout(&Layout::contiguous(&[]), &[IndexItem::Ellipsis]).is_ok());
    }
}

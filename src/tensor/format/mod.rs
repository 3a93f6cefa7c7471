//! NumPy-exact printing of tensors: `format_tensor` writes what NumPy's
//! `str(arr)` writes for the same values and dtype (bf16 as its f32 values).

mod array;
mod bignum;
mod dragon4;
mod float;

use half::{bf16, f16};

use self::array::Axis;
use self::float::{FloatFormat, PrintFloat};
use super::dtype::{DType, Elem};
use super::tensor::Tensor;

pub use self::float::{format_float_repr, scalar_str};

/// NumPy's print options (`np.set_printoptions`); the defaults are NumPy's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// Maximum digits after the decimal point (or in a scientific mantissa).
    pub precision: usize,
    /// Arrays with more elements than this are summarized with `...`.
    pub threshold: usize,
    /// Items kept at each end of every axis when summarizing.
    pub edgeitems: usize,
    /// Characters per line before wrapping.
    pub linewidth: usize,
    /// Never switch to scientific notation for small values.
    pub suppress: bool,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            precision: 8,
            threshold: 1000,
            edgeitems: 3,
            linewidth: 75,
            suppress: false,
        }
    }
}

/// The text NumPy's `print(arr)` writes for this tensor, without the final newline.
pub fn format_tensor(t: &Tensor, opts: &PrintOptions) -> String {
    if t.ndim() == 0 {
        return format_scalar(t);
    }
    if t.numel() == 0 {
        return "[]".to_string();
    }
    let (positions, axes) = shown(t, opts);
    let words = words(t, &positions, opts);
    array::render(&axes, &words, opts.linewidth)
}

/// A 1-D or 2-D tensor as the cells of a table (a notebook shows it so): the
/// elements NumPy's text shows, as it formats them.
pub struct Cells {
    /// Per table row, the tensor's row index, or `None` for the `...` of a summary.
    /// A 1-D tensor is one row.
    pub rows: Vec<Option<usize>>,
    /// Per table column, the column index, or `None` for `...`.
    pub cols: Vec<Option<usize>>,
    /// `text[r][c]`, without NumPy's padding; `...` where either index is `None`.
    pub text: Vec<Vec<String>>,
}

/// The cells of a 1-D or 2-D tensor with at least one element; `None` otherwise.
pub fn format_cells(t: &Tensor, opts: &PrintOptions) -> Option<Cells> {
    if !matches!(t.ndim(), 1 | 2) || t.numel() == 0 {
        return None;
    }
    let (positions, axes) = shown(t, opts);
    let words = words(t, &positions, opts);
    let labels = |axis: &Axis, positions: &[usize]| -> Vec<Option<usize>> {
        axis.shown
            .iter()
            .map(|at| at.and_then(|i| positions.get(i).copied()))
            .collect()
    };
    let (row_axis, col_axis) = match axes.as_slice() {
        [cols] => (None, cols),
        [rows, cols] => (Some(rows), cols),
        _ => return None,
    };
    let rows = match row_axis {
        Some(axis) => labels(axis, &positions[0]),
        None => vec![Some(0)],
    };
    let cols = labels(col_axis, positions.last()?);
    let grid_row = |r: usize| row_axis.map_or(Some(0), |axis| axis.shown[r]);
    let text = (0..rows.len())
        .map(|r| {
            col_axis
                .shown
                .iter()
                .map(|&c| match (grid_row(r), c) {
                    (Some(gr), Some(gc)) => words
                        .get(gr * col_axis.len + gc)
                        .map_or(String::new(), |w| w.trim().to_string()),
                    _ => "...".to_string(),
                })
                .collect()
        })
        .collect();
    Some(Cells { rows, cols, text })
}

/// Per axis, the positions the text shows (all, or both ends when summarizing).
fn shown(t: &Tensor, opts: &PrintOptions) -> (Vec<Vec<usize>>, Vec<Axis>) {
    let summarize = t.numel() > opts.threshold;
    t.shape()
        .iter()
        .map(|&n| Axis::new(n, summarize, opts.edgeitems))
        .unzip()
}

/// The formatted elements at the cartesian product of `positions`, row-major.
fn words(t: &Tensor, positions: &[Vec<usize>], opts: &PrintOptions) -> Vec<String> {
    match t.dtype() {
        DType::Bool => gather::<bool>(t, positions)
            .into_iter()
            .map(|b| if b { " True" } else { "False" }.to_string())
            .collect(),
        DType::F16 => format_floats(&gather::<f16>(t, positions), opts),
        DType::BF16 => {
            let values: Vec<f32> = gather::<bf16>(t, positions)
                .into_iter()
                .map(f32::from)
                .collect();
            format_floats(&values, opts)
        }
        DType::F32 => format_floats(&gather::<f32>(t, positions), opts),
        DType::F64 => format_floats(&gather::<f64>(t, positions), opts),
        ints => crate::dispatch!(ints, T => format_ints(&gather::<T>(t, positions))),
    }
}

/// A 0-d tensor prints as NumPy's scalar `str` (print options do not apply).
fn format_scalar(t: &Tensor) -> String {
    fn value<T: Elem>(t: &Tensor) -> T {
        t.to_vec::<T>().first().copied().unwrap_or_default()
    }
    match t.dtype() {
        DType::Bool => if value::<bool>(t) { "True" } else { "False" }.to_string(),
        DType::F16 => scalar_str(value::<f16>(t)),
        DType::BF16 => scalar_str(f32::from(value::<bf16>(t))),
        DType::F32 => scalar_str(value::<f32>(t)),
        DType::F64 => scalar_str(value::<f64>(t)),
        ints => crate::dispatch!(ints, T => int_text(value::<T>(t))),
    }
}

/// Integers right-aligned to the widest, which is the minimum or the maximum (NumPy).
fn format_ints<T: Elem>(values: &[T]) -> Vec<String> {
    let words: Vec<String> = values.iter().map(|&v| int_text(v)).collect();
    let width = words.iter().map(String::len).max().unwrap_or(0);
    words.iter().map(|w| format!("{w:>width$}")).collect()
}

/// The decimal digits of an integer element (Debug prints integers as Display does;
/// going through i64 would misread a u64 above i64::MAX).
fn int_text<T: Elem>(v: T) -> String {
    format!("{v:?}")
}

fn format_floats<T: PrintFloat>(values: &[T], opts: &PrintOptions) -> Vec<String> {
    let f = FloatFormat::new(values, opts);
    values.iter().map(|&v| f.format(v)).collect()
}

/// The elements at the cartesian product of `positions` (one list per axis), in
/// row-major order, read through the tensor's strides.
fn gather<T: Elem>(t: &Tensor, positions: &[Vec<usize>]) -> Vec<T> {
    let Some(data) = t.storage_slice::<T>() else {
        return Vec::new();
    };
    let strides = t.strides();
    let count: usize = positions.iter().map(Vec::len).product();
    let mut out = Vec::with_capacity(count);
    let mut index = vec![0usize; positions.len()];
    for _ in 0..count {
        let offset = index
            .iter()
            .zip(positions)
            .zip(strides)
            .fold(t.layout().offset as isize, |acc, ((&i, pos), &s)| {
                acc + pos.get(i).copied().unwrap_or(0) as isize * s
            });
        out.push(
            usize::try_from(offset)
                .ok()
                .and_then(|o| data.get(o))
                .copied()
                .unwrap_or_default(),
        );
        // Advance the multi-index, last axis fastest.
        for (i, pos) in index.iter_mut().zip(positions).rev() {
            *i += 1;
            if *i < pos.len() {
                break;
            }
            *i = 0;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t64(v: Vec<f64>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn scalars_and_small_arrays() {
        let o = PrintOptions::default();
        assert_eq!(format_tensor(&Tensor::scalar(3.5f64), &o), "3.5");
        assert_eq!(format_tensor(&Tensor::scalar(true), &o), "True");
        assert_eq!(format_tensor(&Tensor::scalar(-7i16), &o), "-7");
        // bf16 prints as the f32 it converts to: NumPy has no bf16.
        assert_eq!(
            format_tensor(&Tensor::scalar(bf16::from_f32(0.1)), &o),
            "0.100097656"
        );
        assert_eq!(format_tensor(&t64(vec![], &[2, 0]), &o), "[]");
        let ints = Tensor::from_vec(vec![-5i32, 10, 100], &[3]).unwrap();
        assert_eq!(format_tensor(&ints, &o), "[ -5  10 100]");
    }

    #[test]
    fn cells_are_the_shown_elements_with_their_indices() {
        let o = PrintOptions {
            threshold: 10,
            edgeitems: 1,
            ..PrintOptions::default()
        };
        let m = Tensor::from_vec((0..12i32).collect(), &[3, 4]).unwrap();
        let c = format_cells(&m, &o).unwrap();
        assert_eq!(c.rows, vec![Some(0), None, Some(2)]);
        assert_eq!(c.cols, vec![Some(0), None, Some(3)]);
        assert_eq!(c.text[0], vec!["0", "...", "3"]);
        assert_eq!(c.text[1], vec!["...", "...", "..."]);
        assert_eq!(c.text[2], vec!["8", "...", "11"]);
        let v = format_cells(&t64(vec![0.5, 10.0], &[2]), &PrintOptions::default()).unwrap();
        assert_eq!(v.rows, vec![Some(0)]);
        assert_eq!(v.text, vec![vec!["0.5", "10."]]);
        assert!(format_cells(&Tensor::scalar(1.0f64), &o).is_none());
        assert!(format_cells(&t64(vec![], &[2, 0]), &o).is_none());
        assert!(format_cells(&t64(vec![0.0; 8], &[2, 2, 2]), &o).is_none());
    }

    #[test]
    fn views_print_like_their_copies() {
        let o = PrintOptions {
            threshold: 10,
            ..PrintOptions::default()
        };
        let a = t64((0..60).map(|v| v as f64 / 7.0).collect(), &[3, 4, 5]);
        let v = a.permute(&[2, 0, 1]).unwrap();
        assert_eq!(format_tensor(&v, &o), format_tensor(&v.contiguous(), &o));
        let row = a.select(1, 2).unwrap();
        assert_eq!(
            format_tensor(&row, &o),
            format_tensor(&row.contiguous(), &o)
        );
    }

    #[test]
    fn extreme_options_do_not_panic() {
        let a = t64(vec![1e-300, 1.5, f64::NAN, -2e300], &[2, 2]);
        for opts in [
            PrintOptions {
                precision: usize::MAX,
                threshold: 0,
                edgeitems: usize::MAX,
                linewidth: 0,
                suppress: true,
            },
            PrintOptions {
                precision: 0,
                threshold: 0,
                edgeitems: 0,
                linewidth: usize::MAX,
                suppress: false,
            },
        ] {
            assert!(!format_tensor(&a, &opts).is_empty());
        }
    }
}

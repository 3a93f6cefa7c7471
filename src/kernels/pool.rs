//! 2-d pooling: each output element reduces a rectangular set of elements of one
//! [height, width] plane, given per axis as the list of input indices each output
//! position reads (which covers strides, padding, dilation and adaptive windows).

/// For every output position (oh, ow) of one plane, gathers the window
/// `rows[oh] × cols[ow]` of `plane` (row-major, `width` wide) in row-major order
/// and stores `f(window, oh, ow)` in `out` (row-major, `rows.len() × cols.len()`).
pub fn pool2d<T: Copy, O>(
    out: &mut [O],
    plane: &[T],
    width: usize,
    rows: &[Vec<usize>],
    cols: &[Vec<usize>],
    mut f: impl FnMut(&[T], usize, usize) -> O,
) {
    let mut window = Vec::new();
    let positions = rows
        .iter()
        .enumerate()
        .flat_map(|(oh, r)| cols.iter().enumerate().map(move |(ow, c)| (oh, ow, r, c)));
    for (dst, (oh, ow, r, c)) in out.iter_mut().zip(positions) {
        window.clear();
        for &i in r {
            window.extend(c.iter().map(|&j| plane[i * width + j]));
        }
        *dst = f(&window, oh, ow);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_gathered_row_major() {
        // A 3×4 plane holding 0..12; windows of overlapping rows and ragged columns.
        let plane: Vec<i32> = (0..12).collect();
        let rows = vec![vec![0, 1], vec![1, 2]];
        let cols = vec![vec![0], vec![1, 3], vec![]];
        let mut out = vec![vec![]; 6];
        pool2d(&mut out, &plane, 4, &rows, &cols, |w, _, _| w.to_vec());
        let want: Vec<Vec<i32>> = vec![
            vec![0, 4],
            vec![1, 3, 5, 7],
            vec![],
            vec![4, 8],
            vec![5, 7, 9, 11],
            vec![],
        ];
        assert_eq!(out, want);
        let mut at = vec![(0, 0); 6];
        pool2d(&mut at, &plane, 4, &rows, &cols, |_, oh, ow| (oh, ow));
        assert_eq!(at[4], (1, 1));
    }
}

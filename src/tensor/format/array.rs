//! Arranges formatted elements into NumPy's nested-bracket text: which elements
//! are shown when summarizing, line wrapping with a hanging indent, and blank
//! lines between blocks of rank >= 3.

/// The elements shown along one axis.
pub struct Axis {
    /// How many positions of this axis the element grid holds.
    pub len: usize,
    /// In display order: `Some(position in the grid)`, or `None` for `...`.
    pub shown: Vec<Option<usize>>,
}

impl Axis {
    /// The axis positions (of a dimension of size `n`) the grid holds, and how they
    /// are displayed. When summarizing, NumPy keeps `edge` items per side, but
    /// always displays the last item (so `edge == 0` shows `..., last`) and, for
    /// `edge == 0`, formats with the whole axis (`a[-0:]` is all of `a`).
    pub fn new(n: usize, summarize: bool, edge: usize) -> (Vec<usize>, Axis) {
        if !summarize || n <= edge.saturating_mul(2) {
            let shown = (0..n).map(Some).collect();
            return ((0..n).collect(), Axis { len: n, shown });
        }
        let tail_start = if edge == 0 { 0 } else { n - edge };
        let positions: Vec<usize> = (0..edge).chain(tail_start..n).collect();
        let len = positions.len();
        let tail_shown = if edge == 0 { len - 1 } else { len - edge };
        let shown = (0..edge)
            .map(Some)
            .chain(std::iter::once(None))
            .chain((tail_shown..len).map(Some))
            .collect();
        (positions, Axis { len, shown })
    }
}

/// Lays out `words` (the grid's elements in row-major order) within `linewidth`.
/// The text is written into one buffer and indents are slices of one string of
/// spaces, so time and memory grow with the text, never with rank squared.
pub fn render(axes: &[Axis], words: &[String], linewidth: usize) -> String {
    let mut strides = vec![1usize; axes.len()];
    for i in (0..axes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * axes[i + 1].len;
    }
    let spaces = " ".repeat(axes.len() + 1);
    let grid = Grid {
        axes,
        strides,
        words,
        spaces: &spaces,
    };
    let width = i64::try_from(linewidth).unwrap_or(i64::MAX);
    let mut out = String::new();
    grid.block(&mut out, 0, 0, 1, width);
    out
}

struct Grid<'a> {
    axes: &'a [Axis],
    strides: Vec<usize>,
    words: &'a [String],
    spaces: &'a str,
}

impl Grid<'_> {
    /// Appends to `out` the bracketed text of the sub-block at `axis` starting at
    /// grid element `base`; continuation lines start with `indent` spaces, lines
    /// end before `width`.
    fn block(&self, out: &mut String, axis: usize, base: usize, indent: usize, width: i64) {
        let (Some(ax), Some(&stride)) = (self.axes.get(axis), self.strides.get(axis)) else {
            return;
        };
        let indent_str = self.spaces.get(..indent).unwrap_or(self.spaces);
        let last = ax.shown.len().saturating_sub(1);
        out.push('[');
        if axis + 1 == self.axes.len() {
            // Innermost axis: words separated by spaces, wrapped; one column is kept
            // free for the closing bracket.
            let mut s = String::new();
            let mut line = indent_str.to_string();
            for (i, entry) in ax.shown.iter().enumerate() {
                let word = match entry {
                    Some(p) => self.words.get(base + p * stride).map_or("", String::as_str),
                    None => "...",
                };
                extend_line(&mut s, &mut line, word, width - 1, indent_str);
                if i < last {
                    line.push(' ');
                }
            }
            s.push_str(&line);
            out.push_str(s.get(indent..).unwrap_or(""));
        } else {
            let blank_lines = self.axes.len() - axis - 1;
            for (i, entry) in ax.shown.iter().enumerate() {
                if i > 0 {
                    out.push_str(indent_str);
                }
                match entry {
                    Some(p) => self.block(out, axis + 1, base + p * stride, indent + 1, width - 1),
                    None => out.push_str("..."),
                }
                if i < last {
                    out.extend(std::iter::repeat_n('\n', blank_lines));
                }
            }
        }
        out.push(']');
    }
}

/// Appends `word` to `line`, first moving `line` into `s` when the word would pass
/// `width` (unless the line holds nothing but the indent).
fn extend_line(s: &mut String, line: &mut String, word: &str, width: i64, indent: &str) {
    let too_long = (line.len() + word.len()) as i64 > width;
    if too_long && line.len() > indent.len() {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
        line.push_str(indent);
    }
    line.push_str(word);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(shape: &[usize], summarize: bool, edge: usize, width: usize) -> String {
        let axes: Vec<Axis> = shape
            .iter()
            .map(|&n| Axis::new(n, summarize, edge).1)
            .collect();
        let count: usize = axes.iter().map(|a| a.len).product();
        let words: Vec<String> = (0..count).map(|i| i.to_string()).collect();
        render(&axes, &words, width)
    }

    #[test]
    fn nests_and_separates_blocks() {
        assert_eq!(layout(&[3], false, 3, 75), "[0 1 2]");
        assert_eq!(layout(&[2, 2], false, 3, 75), "[[0 1]\n [2 3]]");
        assert_eq!(layout(&[2, 1, 2], false, 3, 75), "[[[0 1]]\n\n [[2 3]]]");
    }

    #[test]
    fn summarizes_with_ellipsis() {
        assert_eq!(layout(&[10], true, 2, 75), "[0 1 ... 2 3]");
        assert_eq!(layout(&[5, 1], true, 1, 75), "[[0]\n ...\n [1]]");
        assert_eq!(layout(&[4], true, 0, 75), "[... 3]");
    }

    // Issue #17: 100000 dimensions took about 16 GB (every level copied its
    // indent and its children's text); now the text is written once.
    #[test]
    fn deep_ranks_render_in_one_pass() {
        let n = 100_000;
        // One stack frame per dimension: run it with a stack as deep as the
        // interpreter's thread has.
        let text = std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || layout(&vec![1; n], false, 3, 75))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(text.len(), 2 * n + 1);
        assert_eq!(text, format!("{}0{}", "[".repeat(n), "]".repeat(n)));
        assert_eq!(
            layout(&[2, 1, 1, 2], false, 3, 75),
            "[[[[0 1]]]\n\n\n [[[2 3]]]]"
        );
    }

    #[test]
    fn wraps_long_rows() {
        assert_eq!(
            layout(&[12], false, 3, 12),
            "[0 1 2 3 4\n 5 6 7 8 9\n 10 11]"
        );
    }
}

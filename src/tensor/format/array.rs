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
pub fn render(axes: &[Axis], words: &[String], linewidth: usize) -> String {
    let mut strides = vec![1usize; axes.len()];
    for i in (0..axes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * axes[i + 1].len;
    }
    let grid = Grid {
        axes,
        strides,
        words,
    };
    let width = i64::try_from(linewidth).unwrap_or(i64::MAX);
    grid.block(0, 0, " ", width)
}

struct Grid<'a> {
    axes: &'a [Axis],
    strides: Vec<usize>,
    words: &'a [String],
}

impl Grid<'_> {
    /// The bracketed text of the sub-block at `axis` starting at grid element `base`;
    /// continuation lines start with `indent`, lines end before `width`.
    fn block(&self, axis: usize, base: usize, indent: &str, width: i64) -> String {
        let (Some(ax), Some(&stride)) = (self.axes.get(axis), self.strides.get(axis)) else {
            return String::new();
        };
        let last = ax.shown.len().saturating_sub(1);
        let mut s = String::new();
        if axis + 1 == self.axes.len() {
            // Innermost axis: words separated by spaces, wrapped; one column is kept
            // free for the closing bracket.
            let mut line = indent.to_string();
            for (i, entry) in ax.shown.iter().enumerate() {
                let word = match entry {
                    Some(p) => self.words.get(base + p * stride).map_or("", String::as_str),
                    None => "...",
                };
                extend_line(&mut s, &mut line, word, width - 1, indent);
                if i < last {
                    line.push(' ');
                }
            }
            s.push_str(&line);
        } else {
            let separator = "\n".repeat(self.axes.len() - axis - 1);
            let inner_indent = format!("{indent} ");
            for (i, entry) in ax.shown.iter().enumerate() {
                s.push_str(indent);
                match entry {
                    Some(p) => s.push_str(&self.block(
                        axis + 1,
                        base + p * stride,
                        &inner_indent,
                        width - 1,
                    )),
                    None => s.push_str("..."),
                }
                if i < last {
                    s.push_str(&separator);
                }
            }
        }
        format!("[{}]", s.get(indent.len()..).unwrap_or(""))
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

    #[test]
    fn wraps_long_rows() {
        assert_eq!(
            layout(&[12], false, 3, 12),
            "[0 1 2 3 4\n 5 6 7 8 9\n 10 11]"
        );
    }
}

//! `loadtxt`: whitespace- or delimiter-separated numbers, one row a line, as
//! `numpy.loadtxt` reads them (its defaults: `#` starts a comment, blank lines are
//! skipped, `skiprows` counts every line, one row or one column gives a 1-D
//! array and a single value a 0-d one).

use std::path::Path;

use super::text_file::{located, read_text};
use crate::tensor::{budget, DType, Tensor};

/// What `loadtxt` was asked for besides the path.
pub struct TxtOptions<'a> {
    /// One character between fields; `None` splits at runs of whitespace.
    pub delimiter: Option<char>,
    /// Lines skipped first, comments and blank lines included.
    pub skiprows: usize,
    /// The columns kept, in this order (negative counts from the end).
    pub usecols: Option<&'a [i64]>,
    pub dtype: DType,
}

/// Reads the text file at `path` into a tensor. Errors start with "loadtxt: " and
/// name the file, the line and the column.
pub fn load_txt(path: &Path, opts: &TxtOptions) -> Result<Tensor, String> {
    parse_txt(&read_text(path, "loadtxt")?, path, opts)
}

/// The values parsed so far: floats for float and bool dtypes, ints for integers.
enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// [`load_txt`] on text already read; `path` names it in errors.
pub fn parse_txt(text: &str, path: &Path, opts: &TxtOptions) -> Result<Tensor, String> {
    let dtype = opts.dtype;
    let mut values = if dtype.is_int() {
        Values::Int(Vec::new())
    } else {
        Values::Float(Vec::new())
    };
    let mut rows = 0usize;
    let mut width: Option<(usize, usize)> = None; // (columns, line of the first row)
    for (i, raw) in text.split('\n').enumerate().skip(opts.skiprows) {
        let line_no = i + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let content = line.split_once('#').map_or(line, |(before, _)| before);
        if content.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = match opts.delimiter {
            None => content.split_whitespace().collect(),
            Some(d) => content.split(d).collect(),
        };
        let err = |field: &str, msg: &str| {
            // Every field is a slice of `line`: its offset there gives the column.
            let offset = (field.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
            let col = line.get(..offset).map(|p| p.chars().count() + 1);
            located("loadtxt", path, line_no, col, msg)
        };
        let picked = pick_columns(&fields, opts.usecols)
            .map_err(|msg| located("loadtxt", path, line_no, None, &msg))?;
        match width {
            Some((w, first)) if w != picked.len() => {
                return Err(located(
                    "loadtxt",
                    path,
                    line_no,
                    None,
                    &format!(
                        "the number of columns changed from {w} (line {first}) to {}; \
                         use `usecols` to select a subset",
                        picked.len()
                    ),
                ))
            }
            Some(_) => {}
            None => width = Some((picked.len(), line_no)),
        }
        rows += 1;
        budget::check_bytes("loadtxt", &[rows, picked.len()], 8)
            .map_err(|e| super::escaped(format!("{e} ({})", path.display())))?;
        for field in picked {
            let text = field.trim();
            let bad = || err(field, &format!("could not convert '{text}' to {dtype}"));
            match &mut values {
                Values::Float(v) => v.push(text.parse::<f64>().map_err(|_| bad())?),
                Values::Int(v) => {
                    let n = text.parse::<i128>().map_err(|_| bad())?;
                    if !fits(n, dtype) {
                        return Err(bad());
                    }
                    // i64 carries a u64's bits; the final cast restores them.
                    v.push(n as i64);
                }
            }
        }
    }
    let cols = width.map_or(0, |(w, _)| w);
    let shape: Vec<usize> = match (rows, cols) {
        (0, _) => vec![0],
        (1, 1) => vec![],
        (1, c) => vec![c],
        (r, 1) => vec![r],
        (r, c) => vec![r, c],
    };
    let t = match values {
        Values::Float(v) => Tensor::from_vec(v, &shape),
        Values::Int(v) => Tensor::from_vec(v, &shape),
    };
    let t = t.map_err(|e| format!("loadtxt: {e}"))?;
    budget::check("loadtxt", &shape, dtype).map_err(|e| e.to_string())?;
    Ok(t.to_dtype(dtype))
}

/// The fields `usecols` selects (all when it is `None`).
fn pick_columns<'t>(fields: &[&'t str], usecols: Option<&[i64]>) -> Result<Vec<&'t str>, String> {
    let Some(cols) = usecols else {
        return Ok(fields.to_vec());
    };
    let n = fields.len() as i64;
    cols.iter()
        .map(|&c| {
            let i = if c < 0 { c + n } else { c };
            usize::try_from(i)
                .ok()
                .and_then(|i| fields.get(i).copied())
                .ok_or_else(|| format!("invalid column index {c} for a line with {n} columns"))
        })
        .collect()
}

/// Whether `n` is in the range of the integer dtype `dtype`.
fn fits(n: i128, dtype: DType) -> bool {
    let (lo, hi): (i128, i128) = match dtype {
        DType::U8 => (0, u8::MAX.into()),
        DType::U16 => (0, u16::MAX.into()),
        DType::U32 => (0, u32::MAX.into()),
        DType::U64 => (0, u64::MAX.into()),
        DType::I8 => (i8::MIN.into(), i8::MAX.into()),
        DType::I16 => (i16::MIN.into(), i16::MAX.into()),
        DType::I32 => (i32::MIN.into(), i32::MAX.into()),
        _ => (i64::MIN.into(), i64::MAX.into()),
    };
    (lo..=hi).contains(&n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(
        text: &str,
        delimiter: Option<char>,
        usecols: Option<&[i64]>,
    ) -> Result<Tensor, String> {
        let opts = TxtOptions {
            delimiter,
            skiprows: 0,
            usecols,
            dtype: DType::F64,
        };
        parse_txt(text, Path::new("t.txt"), &opts)
    }

    #[test]
    fn shapes_follow_numpy() {
        let shape = |text| load(text, None, None).map(|t| t.shape().to_vec());
        assert_eq!(shape(""), Ok(vec![0]));
        assert_eq!(shape("# c\n\n"), Ok(vec![0]));
        assert_eq!(shape("5\n"), Ok(vec![]));
        assert_eq!(shape("1 2 3"), Ok(vec![3]));
        assert_eq!(shape("1\n2\n"), Ok(vec![2]));
        assert_eq!(shape("1 2\r\n3 4 # c\n   \n"), Ok(vec![2, 2]));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = load("1 2\n3 x\n", None, None).unwrap_err();
        assert_eq!(e, "loadtxt: t.txt:2:3: could not convert 'x' to f64");
        let e = load("1 2\n3\n", None, None).unwrap_err();
        assert!(
            e.starts_with("loadtxt: t.txt:2: the number of columns changed from 2 (line 1) to 1")
        );
        let e = load("1,2,\n", Some(','), None).unwrap_err();
        assert_eq!(e, "loadtxt: t.txt:1:5: could not convert '' to f64");
        let e = load("1 2\n", None, Some(&[5])).unwrap_err();
        assert!(e.contains("invalid column index 5"), "{e}");
    }

    #[test]
    fn usecols_picks_and_reorders() {
        let t = load("1 2 3\n4 5 6\n", None, Some(&[-1, 0])).unwrap();
        assert_eq!(t.to_vec::<f64>(), vec![3.0, 1.0, 6.0, 4.0]);
    }
}

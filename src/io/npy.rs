//! NumPy `.npy` files: format versions 1.0-3.0, dtypes bool, u1, i1-i8 and f2-f8 in
//! either byte order, C or Fortran order. Saving writes exactly the bytes NumPy's
//! `np.save` writes for the same array (version 1.0 unless the header needs 2.0).

use std::io::{self, Read, Write};
use std::path::Path;

use super::le::{storage_from_le, tensor_to_le};
use crate::tensor::shape::check_rank;
use crate::tensor::{budget, DType, Storage, Tensor};

const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// Headers longer than this are rejected before they are read (NumPy's own
/// limit is 10 000 characters; real headers are well under 1 KiB).
const MAX_HEADER_LEN: usize = 1 << 20;
/// Deepest nesting of brackets the header parser accepts.
const MAX_NESTING: usize = 16;
/// NumPy aligns the data to this many bytes.
const ALIGN: usize = 64;
/// NumPy leaves room in the header for the first dimension to grow to this many digits.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// Reads a `.npy` file into a tensor.
pub fn load_npy(path: &Path) -> Result<Tensor, String> {
    decode_npy(&super::mapped::map_file(path, "npy")?)
}

/// The dtype and shape of the `.npy` file at `path`, from its header alone.
pub fn npy_header(path: &Path) -> Result<(DType, Vec<usize>), String> {
    let map = super::mapped::map_file(path, "npy")?;
    header_and_data(&map)
        .map(|(h, _)| (h.dtype, h.shape))
        .map_err(super::escaped)
}

/// The preamble and header of a `.npy` stream (an `.npz` member being inflated),
/// read without touching the data that follows; [`split_header`] parses them and
/// reports what is wrong (a short stream is a truncated file).
pub(super) fn read_header_bytes(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    read_more(r, &mut bytes, MAGIC.len() + 2)?;
    let len_size = if bytes.get(MAGIC.len()) == Some(&1) {
        2
    } else {
        4
    };
    read_more(r, &mut bytes, len_size)?;
    let header_len = bytes
        .get(MAGIC.len() + 2..)
        .unwrap_or_default()
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if header_len <= MAX_HEADER_LEN {
        read_more(r, &mut bytes, header_len)?;
    }
    Ok(bytes)
}

/// Appends up to `n` bytes of `r` to `bytes` (fewer at its end).
fn read_more(r: &mut impl Read, bytes: &mut Vec<u8>, n: usize) -> io::Result<()> {
    r.by_ref().take(n as u64).read_to_end(bytes).map(drop)
}

/// Writes `t` to `path` as a `.npy` file, atomically (see `write_atomically`).
pub fn save_npy(path: &Path, t: &Tensor) -> Result<(), String> {
    let header = encode_header(t.dtype(), t.shape())?;
    super::write_atomically(path, |w| {
        w.write_all(&header)?;
        write_data(w, t)
    })
    .map_err(|e| format!("npy: cannot write the file: {e}"))
}

/// Parses the bytes of a `.npy` file (also used for the members of `.npz` archives).
pub fn decode_npy(bytes: &[u8]) -> Result<Tensor, String> {
    decode(bytes).map_err(super::escaped)
}

fn decode(bytes: &[u8]) -> Result<Tensor, String> {
    let (
        Header {
            dtype,
            big_endian,
            fortran_order,
            shape,
        },
        data,
    ) = header_and_data(bytes)?;
    check_budget(dtype, &shape)?;
    let storage = decode_data(dtype, data, big_endian);
    if !fortran_order || shape.len() < 2 {
        return Tensor::from_storage(storage, &shape).map_err(|e| format!("npy: {e}"));
    }
    // Fortran order is the C-order array of the reversed shape, transposed.
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    let axes: Vec<i64> = (0..shape.len() as i64).rev().collect();
    Tensor::from_storage(storage, &reversed)
        .and_then(|t| t.permute(&axes))
        .map(|t| t.contiguous())
        .map_err(|e| format!("npy: {e}"))
}

/// The header of the `.npy` file `bytes` and its data, checked to be all there.
fn header_and_data(bytes: &[u8]) -> Result<(Header, &[u8]), String> {
    let (text, data_start) = split_header(bytes)?;
    let header = parse_header(&text)?;
    let nbytes = data_len(header.dtype, &header.shape)?;
    let available = bytes.len().saturating_sub(data_start);
    let data = bytes
        .get(data_start..)
        .and_then(|rest| rest.get(..nbytes))
        .ok_or_else(|| format!("npy: truncated data: expected {nbytes} bytes found {available}"))?;
    Ok((header, data))
}

/// Bytes of data an array of `dtype` and `shape` holds.
pub(super) fn data_len(dtype: DType, shape: &[usize]) -> Result<usize, String> {
    let numel = shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    numel
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or_else(|| format!("npy: shape {} is too large", shape_repr(shape)))
}

/// An error naming the memory limit when the array is over it; asked before
/// anything of the array's size is allocated.
pub(super) fn check_budget(dtype: DType, shape: &[usize]) -> Result<(), String> {
    budget::check("npy", shape, dtype)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// The complete `.npy` bytes NumPy would write for `t`.
pub fn encode_npy(t: &Tensor) -> Result<Vec<u8>, String> {
    let mut out = encode_header(t.dtype(), t.shape())?;
    out.reserve(t.nbytes());
    write_data(&mut out, t).map_err(|e| format!("npy: {e}"))?;
    Ok(out)
}

// ---- reading ---------------------------------------------------------------------

/// Checks the magic string and version; returns the header text and where the data starts.
pub(super) fn split_header(bytes: &[u8]) -> Result<(String, usize), String> {
    match bytes.get(..MAGIC.len()) {
        Some(m) if m == MAGIC => {}
        None if MAGIC.starts_with(bytes) => {
            return Err(format!(
                "npy: truncated file: {} bytes, shorter than the magic string",
                bytes.len()
            ))
        }
        _ => return Err("npy: bad magic: not a .npy file".to_string()),
    }
    let Some(&[major, minor]) = bytes.get(6..8) else {
        return Err("npy: truncated header: the format version is missing".to_string());
    };
    let len_size = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(format!(
                "npy: unsupported format version {major}.{minor} (tsr reads 1.0, 2.0 and 3.0)"
            ))
        }
    };
    let start = 8 + len_size;
    let len_bytes = bytes
        .get(8..start)
        .ok_or("npy: truncated header: the header length is missing")?;
    let header_len = len_bytes
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if header_len > MAX_HEADER_LEN {
        return Err(format!(
            "npy: header too long: {header_len} bytes (the limit is {MAX_HEADER_LEN})"
        ));
    }
    let raw = bytes.get(start..start + header_len).ok_or_else(|| {
        format!(
            "npy: truncated header: expected {header_len} bytes found {}",
            bytes.len() - start
        )
    })?;
    // Versions 1 and 2 store Latin-1 text, version 3 UTF-8.
    let text = if major == 3 {
        std::str::from_utf8(raw)
            .map_err(|_| "npy: the header is not valid UTF-8".to_string())?
            .to_string()
    } else {
        raw.iter().map(|&b| char::from(b)).collect()
    };
    Ok((text, start + header_len))
}

pub(super) struct Header {
    pub dtype: DType,
    big_endian: bool,
    fortran_order: bool,
    pub shape: Vec<usize>,
}

/// Interprets the header dict: exactly the keys descr, fortran_order and shape.
pub(super) fn parse_header(text: &str) -> Result<Header, String> {
    let entries = match Literal::parse(text)? {
        Literal::Dict(entries) => entries,
        _ => return Err("npy: the header is not a dict".to_string()),
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (key, value) in entries {
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            _ => return Err(format!("npy: unexpected header key '{key}'")),
        };
        *slot = Some(value);
    }
    let missing = |k: &str| format!("npy: the header has no '{k}' key");
    let (big_endian, dtype) = match descr.ok_or_else(|| missing("descr"))? {
        Literal::Str(s) => parse_descr(&s)?,
        other => {
            return Err(format!(
                "npy: unsupported dtype descr {} (structured arrays are not supported)",
                other.describe()
            ))
        }
    };
    let fortran_order = match fortran.ok_or_else(|| missing("fortran_order"))? {
        Literal::Bool(b) => b,
        other => {
            return Err(format!(
                "npy: fortran_order must be True or False, not {}",
                other.describe()
            ))
        }
    };
    let shape = match shape.ok_or_else(|| missing("shape"))? {
        Literal::Tuple(items) => items
            .iter()
            .map(|item| match item {
                Literal::Int(n) => {
                    usize::try_from(*n).map_err(|_| format!("npy: dimension {n} is too large"))
                }
                other => Err(format!(
                    "npy: shape entries must be integers, not {}",
                    other.describe()
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
        other => {
            return Err(format!(
                "npy: shape must be a tuple, not {}",
                other.describe()
            ))
        }
    };
    check_rank("npy: the shape", shape.len())?;
    Ok(Header {
        dtype,
        big_endian,
        fortran_order,
        shape,
    })
}

/// Maps a NumPy type string such as `<f4` to (big-endian?, dtype).
fn parse_descr(descr: &str) -> Result<(bool, DType), String> {
    let unsupported = || {
        format!(
            "npy: unsupported dtype descr '{descr}' (tsr reads |b1 |u1 |i1 <u2 <i2 <u4 <i4 <u8 <i8 <f2 <f4 <f8 \
             and their big-endian '>' forms)"
        )
    };
    let (order, code) = match descr.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &descr[1..]),
        _ => ('=', descr),
    };
    let dtype = match code {
        "b1" | "?" => DType::Bool,
        "u1" => DType::U8,
        "u2" => DType::U16,
        "u4" => DType::U32,
        "u8" => DType::U64,
        "i1" => DType::I8,
        "i2" => DType::I16,
        "i4" => DType::I32,
        "i8" => DType::I64,
        "f2" => DType::F16,
        "f4" => DType::F32,
        "f8" => DType::F64,
        _ => return Err(unsupported()),
    };
    let big_endian = match order {
        '>' => true,
        '<' => false,
        '=' => cfg!(target_endian = "big"),
        // '|' means "byte order not applicable": only valid for one-byte types.
        _ if dtype.size() == 1 => false,
        _ => return Err(unsupported()),
    };
    Ok((big_endian, dtype))
}

/// Converts raw element bytes (exactly numel * size of them) into storage;
/// big-endian files are byte-swapped first.
fn decode_data(dtype: DType, data: &[u8], big_endian: bool) -> Storage {
    if !big_endian || dtype.size() == 1 {
        return storage_from_le(dtype, data);
    }
    let mut swapped = data.to_vec();
    for word in swapped.chunks_exact_mut(dtype.size()) {
        word.reverse();
    }
    storage_from_le(dtype, &swapped)
}

/// The subset of Python literals a header holds.
#[derive(Debug, PartialEq)]
enum Literal {
    Str(String),
    Bool(bool),
    None,
    Int(u64),
    Tuple(Vec<Literal>),
    List(Vec<Literal>),
    Dict(Vec<(String, Literal)>),
}

impl Literal {
    /// Parses `text` as one literal followed only by whitespace.
    fn parse(text: &str) -> Result<Literal, String> {
        let mut p = Parser {
            chars: text.char_indices().collect(),
            pos: 0,
        };
        let value = p.value(0)?;
        p.skip_space();
        if p.pos < p.chars.len() {
            return Err(p.error("unexpected text after the header dict"));
        }
        Ok(value)
    }

    fn describe(&self) -> &'static str {
        match self {
            Literal::Str(_) => "a string",
            Literal::Bool(_) => "a bool",
            Literal::None => "None",
            Literal::Int(_) => "an integer",
            Literal::Tuple(_) => "a tuple",
            Literal::List(_) => "a list",
            Literal::Dict(_) => "a dict",
        }
    }
}

/// Recursive-descent parser over the header's characters.
struct Parser {
    chars: Vec<(usize, char)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn error(&self, what: &str) -> String {
        let offset = self.chars.get(self.pos).map_or_else(
            || self.chars.last().map_or(0, |&(i, c)| i + c.len_utf8()),
            |&(i, _)| i,
        );
        format!("npy: cannot parse the header: {what} at offset {offset}")
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    /// Consumes `c` (after whitespace) if it is next.
    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Literal, String> {
        if depth > MAX_NESTING {
            return Err(self.error("brackets nested too deeply"));
        }
        self.skip_space();
        match self.peek() {
            Some('{') => {
                self.pos += 1;
                self.dict(depth)
            }
            Some('(') => {
                self.pos += 1;
                let (items, trailing_comma) = self.sequence(')', depth)?;
                // `(x)` is just x in Python; a tuple needs a comma unless empty.
                if items.len() == 1 && !trailing_comma {
                    Ok(items.into_iter().next().unwrap_or(Literal::None))
                } else {
                    Ok(Literal::Tuple(items))
                }
            }
            Some('[') => {
                self.pos += 1;
                Ok(Literal::List(self.sequence(']', depth)?.0))
            }
            Some(q @ ('\'' | '"')) => {
                self.pos += 1;
                self.string(q).map(Literal::Str)
            }
            Some(c) if c.is_ascii_digit() => self.int(),
            Some(c) if c.is_alphabetic() => {
                let word = self.word();
                match word.as_str() {
                    "True" => Ok(Literal::Bool(true)),
                    "False" => Ok(Literal::Bool(false)),
                    "None" => Ok(Literal::None),
                    _ => Err(self.error(&format!("unknown name '{word}'"))),
                }
            }
            Some(c) => Err(self.error(&format!("unexpected character {c:?}"))),
            None => Err(self.error("unexpected end")),
        }
    }

    fn dict(&mut self, depth: usize) -> Result<Literal, String> {
        let mut entries = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(Literal::Dict(entries));
            }
            let key = match self.value(depth + 1)? {
                Literal::Str(s) => s,
                _ => return Err(self.error("dict keys must be strings")),
            };
            if !self.eat(':') {
                return Err(self.error("expected ':'"));
            }
            let value = self.value(depth + 1)?;
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(self.error(&format!("duplicate key '{key}'")));
            }
            entries.push((key, value));
            if !self.eat(',') {
                if self.eat('}') {
                    return Ok(Literal::Dict(entries));
                }
                return Err(self.error("expected ',' or '}'"));
            }
        }
    }

    /// Comma-separated values up to `close`; also reports a trailing comma.
    fn sequence(&mut self, close: char, depth: usize) -> Result<(Vec<Literal>, bool), String> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Ok((items, true));
            }
            items.push(self.value(depth + 1)?);
            if !self.eat(',') {
                if self.eat(close) {
                    return Ok((items, false));
                }
                return Err(self.error(&format!("expected ',' or '{close}'")));
            }
        }
    }

    fn string(&mut self, quote: char) -> Result<String, String> {
        let mut s = String::new();
        loop {
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(c) if c == quote => {
                    self.pos += 1;
                    return Ok(s);
                }
                Some('\\') => {
                    self.pos += 1;
                    match self.peek() {
                        Some(c) => s.push(c),
                        None => return Err(self.error("unterminated string")),
                    }
                    self.pos += 1;
                }
                Some(c) => {
                    s.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// A non-negative integer; headers written by Python 2 may end it with `L`.
    fn int(&mut self) -> Result<Literal, String> {
        let mut n: u64 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n
                .checked_mul(10)
                .and_then(|n| n.checked_add(u64::from(d)))
                .ok_or_else(|| self.error("integer too large"))?;
            self.pos += 1;
        }
        if self.peek() == Some('L') {
            self.pos += 1;
        }
        Ok(Literal::Int(n))
    }

    fn word(&mut self) -> String {
        let mut w = String::new();
        while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
            w.push(c);
            self.pos += 1;
        }
        w
    }
}

// ---- writing ---------------------------------------------------------------------

fn descr_of(dtype: DType) -> Result<&'static str, String> {
    Ok(match dtype {
        DType::Bool => "|b1",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::BF16 => {
            return Err(
                "npy: bf16 cannot be saved in .npy (NumPy has no bfloat16); \
                        convert first, e.g. x.to(f32)"
                    .to_string(),
            )
        }
    })
}

/// A shape as Python writes a tuple: `()`, `(3,)`, `(2, 3)`.
fn shape_repr(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => {
            let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
            format!("({})", dims.join(", "))
        }
    }
}

/// Magic, version, length and the padded header dict, byte for byte as NumPy writes them.
fn encode_header(dtype: DType, shape: &[usize]) -> Result<Vec<u8>, String> {
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
        descr_of(dtype)?,
        shape_repr(shape)
    );
    if let Some(first) = shape.first() {
        let digits = first.to_string().len();
        dict.push_str(&" ".repeat(GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits)));
    }
    // Version 1.0 stores the header length in 2 bytes, 2.0 in 4.
    for (major, len_size) in [(1u8, 2usize), (2, 4)] {
        let preamble = MAGIC.len() + 2 + len_size;
        let text_len = dict.len() + 1; // + the final newline
        let pad = ALIGN - (preamble + text_len) % ALIGN;
        let header_len = text_len + pad;
        if len_size == 2 && header_len > usize::from(u16::MAX) {
            continue;
        }
        let Ok(len32) = u32::try_from(header_len) else {
            break;
        };
        let mut out = Vec::with_capacity(preamble + header_len);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[major, 0]);
        out.extend_from_slice(&len32.to_le_bytes()[..len_size]);
        out.extend_from_slice(dict.as_bytes());
        out.resize(out.len() + pad, b' ');
        out.push(b'\n');
        return Ok(out);
    }
    Err(format!(
        "npy: header too long for shape {}",
        shape_repr(shape)
    ))
}

/// The elements in C order, little-endian.
fn write_data(w: &mut impl Write, t: &Tensor) -> io::Result<()> {
    w.write_all(&tensor_to_le(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_matches_numpy_layout() {
        let h = encode_header(DType::F32, &[2, 3]).unwrap();
        assert_eq!(h.len() % ALIGN, 0);
        let text = String::from_utf8(h[10..].to_vec()).unwrap();
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
        assert!(text.ends_with(" \n"));
        assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
        let scalar = encode_header(DType::Bool, &[]).unwrap();
        assert_eq!(scalar.len(), 128);
        assert!(encode_header(DType::BF16, &[1])
            .unwrap_err()
            .contains(".to(f32)"));
    }

    #[test]
    fn long_headers_use_version_2() {
        let shape = vec![1usize; 25_000];
        let h = encode_header(DType::U8, &shape).unwrap();
        assert_eq!(&h[6..8], &[2, 0]);
        assert_eq!(h.len() % ALIGN, 0);
        let mut bytes = h;
        bytes.push(7);
        // Reading is held to NumPy's 64 dimensions, so such a file is refused.
        let err = decode_npy(&bytes).unwrap_err();
        assert!(
            err.contains("has 25000 dimensions; tsr supports at most 64"),
            "{err}"
        );
        // A version 2.0 header within the limit reads back.
        let text = "{'descr': '|u1', 'fortran_order': False, 'shape': (2,), }\n";
        let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
        v2.extend_from_slice(&(text.len() as u32).to_le_bytes());
        v2.extend_from_slice(text.as_bytes());
        v2.extend_from_slice(&[7, 8]);
        assert_eq!(decode_npy(&v2).unwrap().to_vec::<u8>(), vec![7, 8]);
    }

    #[test]
    fn header_parser_accepts_python_spellings() {
        let h =
            parse_header(r#"{"shape": (3L, 4), 'fortran_order': True, 'descr': '>i2'}"#).unwrap();
        assert_eq!(h.shape, vec![3, 4]);
        assert!(h.fortran_order && h.big_endian);
        assert_eq!(h.dtype, DType::I16);
        assert_eq!(
            parse_header("{'descr':'|u1','fortran_order':False,'shape':()}")
                .unwrap()
                .shape,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn header_parser_rejects_bad_headers() {
        let cases = [
            ("{'descr': '<f4', 'fortran_order': False}", "no 'shape'"),
            (
                "{'descr': '<c8', 'fortran_order': False, 'shape': ()}",
                "unsupported dtype descr '<c8'",
            ),
            (
                "{'descr': '|i2', 'fortran_order': False, 'shape': ()}",
                "unsupported dtype descr",
            ),
            (
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}",
                "structured",
            ),
            (
                "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",
                "fortran_order",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}",
                "must be a tuple",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
                "unexpected character",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': 1}",
                "unexpected header key",
            ),
            ("{'descr': '<f4'", "expected ',' or '}' at offset 15"),
            ("{'descr': ", "unexpected end"),
            ("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", "nested too deeply"),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x",
                "after the header",
            ),
        ];
        for (text, want) in cases {
            let err = parse_header(text).err().unwrap_or_default();
            assert!(
                err.starts_with("npy: ") && err.contains(want),
                "{text}: {err}"
            );
        }
    }
}

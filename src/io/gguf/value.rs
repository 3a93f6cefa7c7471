//! GGUF metadata values: the 13 value types (`gguf_type`) and their Rust forms.
//! Arrays are stored typed (a `Vec<f32>`, a `Vec<String>`, ...), so a tokenizer's
//! 150 000-entry vocabulary costs what its elements cost, and an empty array keeps
//! its element type.

use std::fmt;

/// A metadata value type; the discriminant is the id GGUF stores for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum GgufType {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
}

impl GgufType {
    /// Every type, indexed by its id.
    const BY_ID: [GgufType; 13] = [
        GgufType::U8,
        GgufType::I8,
        GgufType::U16,
        GgufType::I16,
        GgufType::U32,
        GgufType::I32,
        GgufType::F32,
        GgufType::Bool,
        GgufType::String,
        GgufType::Array,
        GgufType::U64,
        GgufType::I64,
        GgufType::F64,
    ];

    pub fn from_id(id: u32) -> Option<GgufType> {
        Self::BY_ID.get(usize::try_from(id).ok()?).copied()
    }

    pub fn id(self) -> u32 {
        self as u32
    }

    pub fn name(self) -> &'static str {
        match self {
            GgufType::U8 => "u8",
            GgufType::I8 => "i8",
            GgufType::U16 => "u16",
            GgufType::I16 => "i16",
            GgufType::U32 => "u32",
            GgufType::I32 => "i32",
            GgufType::F32 => "f32",
            GgufType::Bool => "bool",
            GgufType::String => "string",
            GgufType::Array => "array",
            GgufType::U64 => "u64",
            GgufType::I64 => "i64",
            GgufType::F64 => "f64",
        }
    }

    /// The fewest bytes a value of this type occupies in a file (a string is at
    /// least its 8-byte length, an array its 4-byte type and 8-byte count). Bounds
    /// how many elements an array can claim before any is read.
    pub(crate) fn min_size(self) -> usize {
        match self {
            GgufType::U8 | GgufType::I8 | GgufType::Bool => 1,
            GgufType::U16 | GgufType::I16 => 2,
            GgufType::U32 | GgufType::I32 | GgufType::F32 => 4,
            GgufType::U64 | GgufType::I64 | GgufType::F64 | GgufType::String => 8,
            GgufType::Array => 12,
        }
    }
}

impl fmt::Display for GgufType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One metadata value.
#[derive(Clone, Debug, PartialEq)]
pub enum GgufValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(GgufArray),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// An array value: elements of one type, back to back. Arrays of arrays may
/// mix element types between the inner arrays (the format allows it).
#[derive(Clone, Debug, PartialEq)]
pub enum GgufArray {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    Bool(Vec<bool>),
    String(Vec<String>),
    Array(Vec<GgufArray>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
}

impl GgufValue {
    pub fn value_type(&self) -> GgufType {
        match self {
            GgufValue::U8(_) => GgufType::U8,
            GgufValue::I8(_) => GgufType::I8,
            GgufValue::U16(_) => GgufType::U16,
            GgufValue::I16(_) => GgufType::I16,
            GgufValue::U32(_) => GgufType::U32,
            GgufValue::I32(_) => GgufType::I32,
            GgufValue::F32(_) => GgufType::F32,
            GgufValue::Bool(_) => GgufType::Bool,
            GgufValue::String(_) => GgufType::String,
            GgufValue::Array(_) => GgufType::Array,
            GgufValue::U64(_) => GgufType::U64,
            GgufValue::I64(_) => GgufType::I64,
            GgufValue::F64(_) => GgufType::F64,
        }
    }

    /// The string, for a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            GgufValue::String(s) => Some(s),
            _ => None,
        }
    }
}

impl GgufArray {
    pub fn elem_type(&self) -> GgufType {
        match self {
            GgufArray::U8(_) => GgufType::U8,
            GgufArray::I8(_) => GgufType::I8,
            GgufArray::U16(_) => GgufType::U16,
            GgufArray::I16(_) => GgufType::I16,
            GgufArray::U32(_) => GgufType::U32,
            GgufArray::I32(_) => GgufType::I32,
            GgufArray::F32(_) => GgufType::F32,
            GgufArray::Bool(_) => GgufType::Bool,
            GgufArray::String(_) => GgufType::String,
            GgufArray::Array(_) => GgufType::Array,
            GgufArray::U64(_) => GgufType::U64,
            GgufArray::I64(_) => GgufType::I64,
            GgufArray::F64(_) => GgufType::F64,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            GgufArray::U8(v) => v.len(),
            GgufArray::I8(v) => v.len(),
            GgufArray::U16(v) => v.len(),
            GgufArray::I16(v) => v.len(),
            GgufArray::U32(v) => v.len(),
            GgufArray::I32(v) => v.len(),
            GgufArray::F32(v) => v.len(),
            GgufArray::Bool(v) => v.len(),
            GgufArray::String(v) => v.len(),
            GgufArray::Array(v) => v.len(),
            GgufArray::U64(v) => v.len(),
            GgufArray::I64(v) => v.len(),
            GgufArray::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i` as a value (a copy), or None past the end.
    pub fn get(&self, i: usize) -> Option<GgufValue> {
        Some(match self {
            GgufArray::U8(v) => GgufValue::U8(*v.get(i)?),
            GgufArray::I8(v) => GgufValue::I8(*v.get(i)?),
            GgufArray::U16(v) => GgufValue::U16(*v.get(i)?),
            GgufArray::I16(v) => GgufValue::I16(*v.get(i)?),
            GgufArray::U32(v) => GgufValue::U32(*v.get(i)?),
            GgufArray::I32(v) => GgufValue::I32(*v.get(i)?),
            GgufArray::F32(v) => GgufValue::F32(*v.get(i)?),
            GgufArray::Bool(v) => GgufValue::Bool(*v.get(i)?),
            GgufArray::String(v) => GgufValue::String(v.get(i)?.clone()),
            GgufArray::Array(v) => GgufValue::Array(v.get(i)?.clone()),
            GgufArray::U64(v) => GgufValue::U64(*v.get(i)?),
            GgufArray::I64(v) => GgufValue::I64(*v.get(i)?),
            GgufArray::F64(v) => GgufValue::F64(*v.get(i)?),
        })
    }
}

/// Numbers as Rust prints them, strings quoted and escaped, arrays as `[a, b]`.
/// A precision limits how many elements of each array are shown:
/// `format!("{v:.3}")` prints `[1, 2, 3, ... (1000 items)]`.
impl fmt::Display for GgufValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GgufValue::U8(v) => write!(f, "{v}"),
            GgufValue::I8(v) => write!(f, "{v}"),
            GgufValue::U16(v) => write!(f, "{v}"),
            GgufValue::I16(v) => write!(f, "{v}"),
            GgufValue::U32(v) => write!(f, "{v}"),
            GgufValue::I32(v) => write!(f, "{v}"),
            GgufValue::F32(v) => write!(f, "{v:?}"),
            GgufValue::Bool(v) => write!(f, "{v}"),
            GgufValue::String(v) => write!(f, "{v:?}"),
            GgufValue::Array(a) => a.fmt(f),
            GgufValue::U64(v) => write!(f, "{v}"),
            GgufValue::I64(v) => write!(f, "{v}"),
            GgufValue::F64(v) => write!(f, "{v:?}"),
        }
    }
}

impl fmt::Display for GgufArray {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = f.precision().unwrap_or(usize::MAX).min(self.len());
        f.write_str("[")?;
        for i in 0..shown {
            if i > 0 {
                f.write_str(", ")?;
            }
            if let Some(item) = self.get(i) {
                // Pass the precision on so nested arrays are shortened too.
                match f.precision() {
                    Some(p) => write!(f, "{item:.p$}")?,
                    None => write!(f, "{item}")?,
                }
            }
        }
        if shown < self.len() {
            let sep = if shown > 0 { ", " } else { "" };
            write!(f, "{sep}... ({} items)", self.len())?;
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_ids_follow_the_format() {
        for (id, t) in GgufType::BY_ID.iter().enumerate() {
            assert_eq!(GgufType::from_id(id as u32), Some(*t));
            assert_eq!(t.id(), id as u32);
        }
        assert_eq!(GgufType::from_id(13), None);
        assert_eq!(GgufType::F64.id(), 12);
        assert_eq!(GgufType::String.id(), 8);
    }

    #[test]
    fn display_shortens_arrays_with_a_precision() {
        let v = GgufValue::Array(GgufArray::I32((1..=5).collect()));
        assert_eq!(v.to_string(), "[1, 2, 3, 4, 5]");
        assert_eq!(format!("{v:.2}"), "[1, 2, ... (5 items)]");
        let nested = GgufValue::Array(GgufArray::Array(vec![
            GgufArray::String(vec!["a\"".into(), "b".into()]),
            GgufArray::F32(vec![]),
        ]));
        assert_eq!(nested.to_string(), r#"[["a\"", "b"], []]"#);
        assert_eq!(
            format!("{nested:.1}"),
            r#"[["a\"", ... (2 items)], ... (2 items)]"#
        );
        assert_eq!(
            format!("{:.0}", GgufValue::Array(GgufArray::U8(vec![1]))),
            "[... (1 items)]"
        );
        assert_eq!(GgufValue::F32(1.0).to_string(), "1.0");
    }

    #[test]
    fn string_accessor() {
        assert_eq!(GgufValue::String("x".into()).as_str(), Some("x"));
        assert_eq!(GgufValue::U8(1).as_str(), None);
    }
}

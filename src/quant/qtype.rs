//! The GGML type table: ids as stored in GGUF files, block sizes and bytes per block.

/// A GGML element type that tsr can read (dense types map to tsr dtypes elsewhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QType {
    F32,
    F16,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q8_1,
    Q2K,
    Q3K,
    Q4K,
    Q5K,
    Q6K,
    Q8K,
    I8,
    I16,
    I32,
    I64,
    F64,
    BF16,
}

impl QType {
    /// (type, GGML id, elements per block, bytes per block, name)
    const TABLE: [(QType, u32, usize, usize, &'static str); 20] = [
        (QType::F32, 0, 1, 4, "f32"),
        (QType::F16, 1, 1, 2, "f16"),
        (QType::Q4_0, 2, 32, 18, "q4_0"),
        (QType::Q4_1, 3, 32, 20, "q4_1"),
        (QType::Q5_0, 6, 32, 22, "q5_0"),
        (QType::Q5_1, 7, 32, 24, "q5_1"),
        (QType::Q8_0, 8, 32, 34, "q8_0"),
        (QType::Q8_1, 9, 32, 36, "q8_1"),
        (QType::Q2K, 10, 256, 84, "q2_k"),
        (QType::Q3K, 11, 256, 110, "q3_k"),
        (QType::Q4K, 12, 256, 144, "q4_k"),
        (QType::Q5K, 13, 256, 176, "q5_k"),
        (QType::Q6K, 14, 256, 210, "q6_k"),
        (QType::Q8K, 15, 256, 292, "q8_k"),
        (QType::I8, 24, 1, 1, "i8"),
        (QType::I16, 25, 1, 2, "i16"),
        (QType::I32, 26, 1, 4, "i32"),
        (QType::I64, 27, 1, 8, "i64"),
        (QType::F64, 28, 1, 8, "f64"),
        (QType::BF16, 30, 1, 2, "bf16"),
    ];

    fn row(self) -> (QType, u32, usize, usize, &'static str) {
        // Every variant has a row in TABLE (checked by a test).
        Self::TABLE
            .iter()
            .copied()
            .find(|r| r.0 == self)
            .unwrap_or(Self::TABLE[0])
    }

    /// Every type in the table.
    pub fn all() -> impl Iterator<Item = QType> {
        Self::TABLE.iter().map(|r| r.0)
    }

    pub fn from_id(id: u32) -> Option<QType> {
        Self::TABLE.iter().find(|r| r.1 == id).map(|r| r.0)
    }

    pub fn from_name(name: &str) -> Option<QType> {
        Self::TABLE.iter().find(|r| r.4 == name).map(|r| r.0)
    }

    pub fn id(self) -> u32 {
        self.row().1
    }

    pub fn block_len(self) -> usize {
        self.row().2
    }

    pub fn block_bytes(self) -> usize {
        self.row().3
    }

    pub fn name(self) -> &'static str {
        self.row().4
    }

    /// Bytes of `n` elements (a whole number of blocks), or None when `n` is not.
    pub fn bytes_for(self, n: usize) -> Option<usize> {
        n.is_multiple_of(self.block_len())
            .then(|| n / self.block_len() * self.block_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        for r in QType::TABLE {
            assert_eq!(QType::from_id(r.1), Some(r.0));
            assert_eq!(QType::from_name(r.4), Some(r.0));
            assert_eq!(r.0.row(), r);
        }
        assert_eq!(QType::from_id(4), None);
        assert_eq!(QType::Q4K.bytes_for(512), Some(288));
        assert_eq!(QType::Q4K.bytes_for(100), None);
    }
}

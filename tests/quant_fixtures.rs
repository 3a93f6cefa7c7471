//! ggml's reference vectors (tests/fixtures/kquant/): quantizing the input reproduces
//! ggml's bytes exactly, and dequantizing ggml's bytes reproduces its floats bit for bit.

use std::path::PathBuf;

use tsr::quant::{dequantize, quantize, QType};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/kquant")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn floats(name: &str) -> Vec<f32> {
    fixture(name)
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

const TYPES: [(&str, QType); 5] = [
    ("Q4_K", QType::Q4K),
    ("Q5_K", QType::Q5K),
    ("Q6_K", QType::Q6K),
    ("Q8_0", QType::Q8_0),
    ("Q8_K", QType::Q8K),
];

#[test]
fn quantize_reproduces_ggml_bytes() {
    let input = floats("input_f32.bin");
    assert_eq!(input.len(), 512);
    for (name, qtype) in TYPES {
        let want = fixture(&format!("{name}.quant.bin"));
        let got = quantize(&input, qtype).unwrap();
        assert_eq!(got.len(), want.len(), "{name}: length");
        let diffs: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
        assert!(
            diffs.is_empty(),
            "{name}: {} bytes differ, first at {:?}",
            diffs.len(),
            diffs.first()
        );
    }
}

#[test]
fn dequantize_reproduces_ggml_bits() {
    for (name, qtype) in TYPES {
        let bytes = fixture(&format!("{name}.quant.bin"));
        let want = floats(&format!("{name}.dequant_f32.bin"));
        let got = dequantize(&bytes, qtype, want.len()).unwrap();
        let diffs = got
            .iter()
            .zip(&want)
            .filter(|(a, b)| a.to_bits() != b.to_bits())
            .count();
        assert_eq!(diffs, 0, "{name}: {diffs} floats differ");
    }
}

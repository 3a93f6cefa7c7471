//! `.safetensors` and `.npz` loading and saving against files written by the
//! reference libraries (tests/fixtures/safetensors/gen_safetensors.py with the
//! `safetensors` package, tests/fixtures/npz/gen_npz.py with NumPy), round trips,
//! and damaged files.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use tsr::io::npz::{load_npz, save_npz};
use tsr::io::safetensors::{load_safetensors, save_safetensors};
use tsr::tensor::{DType, Tensor};

use common::fixture;

/// A path for `file` in a fresh scratch directory of `test`.
fn scratch(test: &str, file: &str) -> PathBuf {
    common::scratch("safetensors_npz", test, file)
}

struct Expected {
    name: String,
    dtype: DType,
    shape: Vec<usize>,
    values: Vec<f64>,
}

/// Parses a NAME.expected.txt: "tensor NAME DTYPE [d0, d1]" then "values v0 v1 ...".
fn expected(file: &str) -> Vec<Expected> {
    let text = fs::read_to_string(fixture(file)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    lines
        .chunks(2)
        .map(|pair| {
            let head = pair[0].strip_prefix("tensor ").unwrap();
            let (name, rest) = head.split_once(' ').unwrap();
            let (dtype, shape) = rest.split_once(' ').unwrap();
            let shape = shape.trim_matches(|c| c == '[' || c == ']');
            Expected {
                name: name.to_string(),
                dtype: DType::from_name(dtype).unwrap(),
                shape: shape
                    .split(", ")
                    .filter(|d| !d.is_empty())
                    .map(|d| d.parse().unwrap())
                    .collect(),
                values: pair[1]
                    .strip_prefix("values")
                    .unwrap()
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect(),
            }
        })
        .collect()
}

fn same_value(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn assert_matches(got: &[(String, Tensor)], want: &[Expected]) {
    let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
    let want_names: Vec<&str> = want.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, want_names);
    for ((name, t), e) in got.iter().zip(want) {
        assert_eq!(t.dtype(), e.dtype, "{name}");
        assert_eq!(t.shape(), &e.shape[..], "{name}");
        let values = t.to_vec::<f64>();
        assert_eq!(values.len(), e.values.len(), "{name}");
        for (i, (&g, &w)) in values.iter().zip(&e.values).enumerate() {
            assert!(same_value(g, w), "{name}[{i}]: {g} != {w}");
        }
    }
}

/// Same names, dtypes, shapes and values (NaN equal to NaN, -0.0 distinct from 0.0).
fn assert_same_tensors(got: &[(String, Tensor)], want: &[(String, Tensor)]) {
    assert_eq!(got.len(), want.len());
    for ((gn, g), (wn, w)) in got.iter().zip(want) {
        assert_eq!(gn, wn);
        assert_eq!((g.dtype(), g.shape()), (w.dtype(), w.shape()), "{gn}");
        let (gv, wv) = (g.to_vec::<f64>(), w.to_vec::<f64>());
        assert!(
            gv.iter().zip(&wv).all(|(&a, &b)| same_value(a, b)),
            "{gn}: {gv:?} != {wv:?}"
        );
    }
}

/// Tensors of every dtype, a 0-d, an empty and a non-contiguous one.
fn sample_tensors() -> Vec<(String, Tensor)> {
    let base = Tensor::from_vec(vec![-2.5f32, 0.0, 1.0, f32::NAN, -0.0, 300.0], &[2, 3]).unwrap();
    let mut out: Vec<(String, Tensor)> = DType::ALL
        .iter()
        .map(|&d| (format!("t_{d}"), base.to_dtype(d)))
        .collect();
    out.push(("zero_d".to_string(), Tensor::scalar(7i64)));
    out.push((
        "empty".to_string(),
        Tensor::zeros(DType::F16, &[3, 0]).unwrap(),
    ));
    out.push(("transposed".to_string(), base.transpose(0, 1).unwrap()));
    out
}

type Loader = fn(&Path) -> Result<Vec<(String, Tensor)>, String>;

/// Truncating `bytes` anywhere must give an error with `prefix`, never a panic.
fn assert_truncations_fail(bytes: &[u8], path: &Path, prefix: &str, load: Loader) {
    for len in 0..bytes.len() {
        fs::write(path, &bytes[..len]).unwrap();
        let err = load(path).map(|_| ()).unwrap_err();
        assert!(err.starts_with(prefix), "length {len}: {err}");
    }
}

// ---- safetensors -----------------------------------------------------------------

#[test]
fn safetensors_fixtures_load() {
    let all = load_safetensors(&fixture("safetensors/all_dtypes.safetensors")).unwrap();
    assert_matches(&all, &expected("safetensors/all_dtypes.expected.txt"));
    let bf16 = load_safetensors(&fixture("safetensors/bf16.safetensors")).unwrap();
    assert_matches(&bf16, &expected("safetensors/bf16.expected.txt"));
}

#[test]
fn safetensors_unsupported_dtype_is_named() {
    let err = load_safetensors(&fixture("safetensors/unsupported.safetensors")).unwrap_err();
    assert!(
        err.starts_with("safetensors: tensor 'f8' has dtype F8_E4M3, which tsr does not support"),
        "{err}"
    );
}

#[test]
fn safetensors_save_writes_what_the_reference_writes() {
    let path = fixture("safetensors/all_dtypes.safetensors");
    let tensors = load_safetensors(&path).unwrap();
    let copy = scratch("st_reference", "copy.safetensors");
    save_safetensors(&copy, &tensors).unwrap();
    assert_eq!(fs::read(&copy).unwrap(), fs::read(&path).unwrap());
}

#[test]
fn safetensors_round_trip() {
    let tensors = sample_tensors();
    let path = scratch("st_round_trip", "t.safetensors");
    save_safetensors(&path, &tensors).unwrap();
    let mut back = load_safetensors(&path).unwrap();
    // The format orders data by dtype alignment then name.
    back.sort_by(|a, b| a.0.cmp(&b.0));
    let mut want = tensors;
    want.sort_by(|a, b| a.0.cmp(&b.0));
    assert_same_tensors(&back, &want);

    let dup = vec![
        ("x".to_string(), Tensor::scalar(1.0f32)),
        ("x".to_string(), Tensor::scalar(2.0f32)),
    ];
    let err = save_safetensors(&path, &dup).unwrap_err();
    assert_eq!(err, "safetensors: duplicate tensor name 'x'");
}

#[test]
fn safetensors_damaged_files_are_errors() {
    let path = scratch("st_damaged", "bad.safetensors");
    let good = fs::read(fixture("safetensors/bf16.safetensors")).unwrap();
    assert_truncations_fail(&good, &path, "safetensors: ", load_safetensors);
    let mut huge = good.clone();
    huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    fs::write(&path, &huge).unwrap();
    assert_eq!(
        load_safetensors(&path).unwrap_err(),
        "safetensors: header too large: its length field says 18446744073709551615 bytes \
         (the limit is 100 MB)"
    );
    let mut not_json = good.clone();
    not_json[8] = b'[';
    fs::write(&path, &not_json).unwrap();
    let err = load_safetensors(&path).unwrap_err();
    assert!(
        err.starts_with("safetensors: invalid JSON in header"),
        "{err}"
    );
    let mut extra = good;
    extra.push(0);
    fs::write(&path, &extra).unwrap();
    let err = load_safetensors(&path).unwrap_err();
    assert!(err.starts_with("safetensors: incomplete metadata"), "{err}");
    let missing = path.with_file_name("missing.safetensors");
    let err = load_safetensors(&missing).unwrap_err();
    assert!(err.starts_with("safetensors: cannot open"), "{err}");
}

// ---- npz -------------------------------------------------------------------------

#[test]
fn npz_fixtures_load() {
    for name in ["savez", "savez_compressed"] {
        let arrays = load_npz(&fixture(&format!("npz/{name}.npz"))).unwrap();
        assert_matches(&arrays, &expected(&format!("npz/{name}.expected.txt")));
    }
}

#[test]
fn npz_round_trip_stored_and_deflated() {
    let arrays: Vec<(String, Tensor)> = sample_tensors()
        .into_iter()
        .filter(|(_, t)| t.dtype() != DType::BF16)
        .collect();
    for compressed in [false, true] {
        let path = scratch("npz_round_trip", "t.npz");
        save_npz(&path, &arrays, compressed).unwrap();
        assert_same_tensors(&load_npz(&path).unwrap(), &arrays);
    }
    // Deflate pays off on repetitive data.
    let zeros = vec![("z".to_string(), Tensor::zeros(DType::F64, &[1000]).unwrap())];
    let stored = scratch("npz_sizes", "stored.npz");
    let deflated = stored.with_file_name("deflated.npz");
    save_npz(&stored, &zeros, false).unwrap();
    save_npz(&deflated, &zeros, true).unwrap();
    let size = |p: &Path| fs::metadata(p).unwrap().len();
    assert!(size(&stored) > 8000 && size(&deflated) < 1000);
    assert_same_tensors(&load_npz(&deflated).unwrap(), &zeros);
}

#[test]
fn npz_save_errors() {
    let path = scratch("npz_save_errors", "bad.npz");
    let bf16 = vec![(
        "b".to_string(),
        Tensor::scalar(1.0f32).to_dtype(DType::BF16),
    )];
    let err = save_npz(&path, &bf16, false).unwrap_err();
    assert!(
        err.starts_with("npz: cannot write") && err.contains("array 'b': bf16 cannot be saved"),
        "{err}"
    );
    assert!(!path.exists());
    let dup = vec![
        ("x".to_string(), Tensor::scalar(1u8)),
        ("x".to_string(), Tensor::scalar(2u8)),
    ];
    assert_eq!(
        save_npz(&path, &dup, true).unwrap_err(),
        "npz: duplicate array name 'x'"
    );
}

#[test]
fn npz_damaged_files_are_errors() {
    let path = scratch("npz_damaged", "bad.npz");
    for name in ["savez", "savez_compressed"] {
        let good = fs::read(fixture(&format!("npz/{name}.npz"))).unwrap();
        assert_truncations_fail(&good, &path, "npz: ", load_npz);
        // Damage inside the first member's data: a CRC or deflate error, or bad npy.
        let mut bad = good.clone();
        for b in &mut bad[60..140] {
            *b ^= 0x5A;
        }
        fs::write(&path, &bad).unwrap();
        let err = load_npz(&path).unwrap_err();
        assert!(err.starts_with("npz: "), "{err}");
    }
    fs::write(&path, b"not a zip file at all").unwrap();
    let err = load_npz(&path).unwrap_err();
    assert!(err.contains("not a valid zip archive"), "{err}");

    // A member that is not a .npy file.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file("notes.txt", zip::write::SimpleFileOptions::default())
        .unwrap();
    std::io::Write::write_all(&mut zip, b"hello").unwrap();
    fs::write(&path, zip.finish().unwrap().into_inner()).unwrap();
    let err = load_npz(&path).unwrap_err();
    assert_eq!(err, "npz: member 'notes.txt': bad magic: not a .npy file");
}

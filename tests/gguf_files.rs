//! GGUF reading and writing against a file written by the `gguf` Python package
//! (llama.cpp's reference writer; tests/fixtures/gguf/gen_gguf.py), round trips
//! through `save_gguf` (the library function and the builtin), hostile files, and
//! (ignored by default) the cost of opening a 1 GiB file.
//!
//! The interop test runs the fixture script's `--check` mode on files tsr wrote,
//! with `$TSR_PYTHON` (default `python3`), when that Python has the `gguf` package;
//! otherwise it prints that it skipped the check.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use half::{bf16, f16};
use tsr::io::gguf::{open_gguf, save_gguf, GgufArray, GgufFile, GgufTensor, GgufType, GgufValue};
use tsr::quant::{QBytes, QTensor, QType};
use tsr::tensor::{DType, Tensor};

use common::{eval, fixture};

/// A path for `file` in a fresh scratch directory of `test`.
fn scratch(test: &str, file: &str) -> PathBuf {
    common::scratch("gguf_files", test, file)
}

// ---- the description format of gen_gguf.py --check -------------------------------

fn quote(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n");
    format!("\"{escaped}\"")
}

fn fmt_bare(v: &GgufValue) -> String {
    match v {
        GgufValue::Array(_) => fmt_typed(v),
        GgufValue::String(s) => quote(s),
        GgufValue::F32(x) => format!("{:#010x}", x.to_bits()),
        GgufValue::F64(x) => format!("{:#018x}", x.to_bits()),
        other => other.to_string(),
    }
}

fn fmt_typed(v: &GgufValue) -> String {
    match v {
        GgufValue::Array(a) => {
            let items: Vec<String> = (0..a.len()).map(|i| fmt_bare(&a.get(i).unwrap())).collect();
            format!("array<{}> [{}]", a.elem_type(), items.join(", "))
        }
        _ => format!("{} {}", v.value_type(), fmt_bare(v)),
    }
}

/// The tensor's bytes as GGUF stores them.
fn tensor_bytes(t: &GgufTensor) -> Vec<u8> {
    match t {
        GgufTensor::Quantized(q) => q.data.as_slice().to_vec(),
        GgufTensor::Dense(t) => match t.dtype() {
            DType::F32 => t
                .to_vec::<f32>()
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            DType::F64 => t
                .to_vec::<f64>()
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            DType::F16 => t
                .to_vec::<f16>()
                .iter()
                .flat_map(|x| x.to_bits().to_le_bytes())
                .collect(),
            DType::BF16 => t
                .to_vec::<bf16>()
                .iter()
                .flat_map(|x| x.to_bits().to_le_bytes())
                .collect(),
            DType::I8 => t.to_vec::<i8>().iter().map(|&x| x as u8).collect(),
            DType::I16 => t
                .to_vec::<i16>()
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            DType::I32 => t
                .to_vec::<i32>()
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            DType::I64 => t
                .to_vec::<i64>()
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            other => panic!("GGUF has no dtype {other}"),
        },
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What tsr reads from `f`, in the format of gen_gguf.py --check.
fn describe(f: &GgufFile) -> String {
    let mut lines = vec![
        format!("version {}", f.version()),
        format!("alignment {}", f.alignment()),
    ];
    for (key, value) in f.metadata() {
        lines.push(format!("kv {key} {}", fmt_typed(value)));
    }
    for info in f.tensors() {
        let t = f.tensor(&info.name).unwrap();
        let dims: Vec<String> = info.shape.iter().map(usize::to_string).collect();
        lines.push(format!(
            "tensor {} {} [{}] offset={} data={}",
            info.name,
            info.qtype.name(),
            dims.join(", "),
            info.offset,
            hex(&tensor_bytes(&t))
        ));
    }
    lines.join("\n") + "\n"
}

fn expected_description() -> String {
    fs::read_to_string(fixture("gguf/small.expected.txt")).unwrap()
}

fn assert_same_lines(got: &str, want: &str) {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count(), "line count");
}

type Tensors = Vec<(String, GgufTensor)>;
type Metadata = Vec<(String, GgufValue)>;

/// Every tensor and metadata entry of `f`, ready for `save_gguf`.
fn contents(f: &GgufFile) -> (Tensors, Metadata) {
    let tensors = f
        .tensors()
        .iter()
        .map(|i| (i.name.clone(), f.tensor(&i.name).unwrap()))
        .collect();
    (tensors, f.metadata().to_vec())
}

// ---- the fixture -----------------------------------------------------------------

#[test]
fn fixture_reads_as_the_reference_reader_reads_it() {
    let f = open_gguf(&fixture("gguf/small.gguf")).unwrap();
    assert_same_lines(&describe(&f), &expected_description());
}

#[test]
fn version_2_files_read_the_same() {
    let mut bytes = small_bytes();
    bytes[4] = 2;
    let path = scratch("version_2", "v2.gguf");
    let f = open_gguf_bytes(&path, &bytes);
    assert_eq!(f.version(), 2);
    let want = expected_description().replacen("version 3", "version 2", 1);
    assert_same_lines(&describe(&f), &want);
}

#[test]
fn fixture_metadata_and_tensor_values() {
    let f = open_gguf(&fixture("gguf/small.gguf")).unwrap();
    assert_eq!((f.version(), f.alignment()), (3, 32));
    assert_eq!(f.data_start() % 32, 0);
    assert_eq!(
        f.get("general.architecture").and_then(GgufValue::as_str),
        Some("tsr-test")
    );
    assert_eq!(f.get("test.u8"), Some(&GgufValue::U8(200)));
    assert_eq!(f.get("test.i64"), Some(&GgufValue::I64(i64::MIN)));
    assert_eq!(f.get("test.f64"), Some(&GgufValue::F64(0.1)));
    assert_eq!(f.get("test.bool_false"), Some(&GgufValue::Bool(false)));
    assert_eq!(
        f.get("test.arr_string"),
        Some(&GgufValue::Array(GgufArray::String(vec![
            "a".into(),
            "".into(),
            "ünï".into(),
            "<0x0A>".into()
        ])))
    );
    assert_eq!(
        f.get("test.nested_i32"),
        Some(&GgufValue::Array(GgufArray::Array(vec![
            GgufArray::I32(vec![1, 2]),
            GgufArray::I32(vec![3]),
            GgufArray::I32(vec![4, 5, 6]),
        ])))
    );
    assert_eq!(f.get("no.such.key"), None);

    let GgufTensor::Dense(w) = f.tensor("weight_f32").unwrap() else {
        panic!("weight_f32 should be dense")
    };
    assert_eq!((w.dtype(), w.shape()), (DType::F32, &[3usize, 4][..]));
    let want: Vec<f32> = (0..12).map(|i| i as f32 * 0.5 - 1.0).collect();
    assert_eq!(w.to_vec::<f32>(), want);
    let GgufTensor::Dense(h) = f.tensor("weight_f16").unwrap() else {
        panic!("weight_f16 should be dense")
    };
    assert_eq!((h.dtype(), h.shape()), (DType::F16, &[2usize, 5][..]));
    assert_eq!(h.to_vec::<f32>()[4], 65504.0);
    let GgufTensor::Dense(b) = f.tensor("bias_bf16").unwrap() else {
        panic!("bias_bf16 should be dense")
    };
    assert_eq!(b.dtype(), DType::BF16);
    assert_eq!(&b.to_vec::<f32>()[..3], &[1.0, -2.0, 0.5]);
    let GgufTensor::Dense(c) = f.tensor("cube_f32").unwrap() else {
        panic!("cube_f32 should be dense")
    };
    assert_eq!(c.shape(), &[2, 1, 3]);

    // Quantized tensors are zero-copy views of the map.
    let GgufTensor::Quantized(q) = f.tensor("blk.0.q4_k").unwrap() else {
        panic!("blk.0.q4_k should be quantized")
    };
    assert_eq!((q.qtype, &q.shape[..]), (QType::Q4K, &[2usize, 256][..]));
    assert!(matches!(q.data, QBytes::Mapped { .. }));
    let ggml_bytes = fs::read(fixture("kquant/Q4_K.quant.bin")).unwrap();
    assert_eq!(q.data.as_slice(), &ggml_bytes[..]);
    let GgufTensor::Quantized(q8) = f.tensor("blk.0.q8_0").unwrap() else {
        panic!("blk.0.q8_0 should be quantized")
    };
    assert_eq!((q8.qtype, &q8.shape[..]), (QType::Q8_0, &[2usize, 64][..]));
    assert_eq!(q8.data.as_slice().len(), 2 * 2 * 34);

    let info = f.info("blk.0.q8_0").unwrap();
    assert_eq!((info.offset, info.nbytes), (192, 136));
    let err = f.tensor("missing").unwrap_err();
    assert_eq!(err, "gguf: the file has no tensor named 'missing'");
}

// ---- writing ---------------------------------------------------------------------

#[test]
fn save_writes_what_the_reference_writer_writes() {
    let f = open_gguf(&fixture("gguf/small.gguf")).unwrap();
    let (tensors, metadata) = contents(&f);
    let path = scratch("reference_bytes", "copy.gguf");
    save_gguf(&path, &tensors, &metadata).unwrap();
    // Same layout rules as gguf.GGUFWriter, so the very same bytes.
    assert_eq!(
        fs::read(&path).unwrap(),
        fs::read(fixture("gguf/small.gguf")).unwrap()
    );
    let back = open_gguf(&path).unwrap();
    assert_same_lines(&describe(&back), &expected_description());
}

#[test]
fn saving_over_the_mapped_file_itself_is_safe() {
    let path = scratch("overwrite", "model.gguf");
    fs::copy(fixture("gguf/small.gguf"), &path).unwrap();
    let f = open_gguf(&path).unwrap();
    let (tensors, metadata) = contents(&f);
    // The quantized tensors still view the old file's map while the new file
    // replaces it (by rename, so the old map stays valid).
    save_gguf(&path, &tensors, &metadata).unwrap();
    assert_same_lines(&describe(&f), &expected_description());
    assert_same_lines(
        &describe(&open_gguf(&path).unwrap()),
        &expected_description(),
    );
}

#[test]
fn save_and_open_round_trip_edge_cases() {
    let strided = Tensor::from_vec((0..6).map(|i| i as f64).collect(), &[2, 3])
        .unwrap()
        .transpose(0, 1)
        .unwrap();
    let q8 = QTensor {
        qtype: QType::Q8_0,
        shape: vec![1, 32],
        data: QBytes::Owned(std::sync::Arc::new((0..34).collect())),
    };
    let tensors = vec![
        (
            "scalar".to_string(),
            GgufTensor::Dense(Tensor::scalar(2.5f32)),
        ),
        (
            "empty".to_string(),
            GgufTensor::Dense(Tensor::zeros(DType::F32, &[0, 4]).unwrap()),
        ),
        ("strided".to_string(), GgufTensor::Dense(strided.clone())),
        (
            "i8".to_string(),
            GgufTensor::Dense(Tensor::from_vec(vec![-128i8, 127], &[2]).unwrap()),
        ),
        (
            "i16".to_string(),
            GgufTensor::Dense(Tensor::from_vec(vec![-3i16; 4], &[1, 1, 2, 2]).unwrap()),
        ),
        (
            "i64".to_string(),
            GgufTensor::Dense(Tensor::from_vec(vec![i64::MIN, i64::MAX], &[2, 1]).unwrap()),
        ),
        ("q8".to_string(), GgufTensor::Quantized(q8)),
    ];
    let metadata = vec![
        ("general.alignment".to_string(), GgufValue::U32(64)),
        (
            "empty.f32".to_string(),
            GgufValue::Array(GgufArray::F32(vec![])),
        ),
        (
            "empty.nested".to_string(),
            GgufValue::Array(GgufArray::Array(vec![
                GgufArray::String(vec![]),
                GgufArray::Bool(vec![true]),
            ])),
        ),
        ("u16".to_string(), GgufValue::U16(7)),
        ("s".to_string(), GgufValue::String("π\0x".to_string())),
    ];
    let path = scratch("edge_cases", "edge.gguf");
    save_gguf(&path, &tensors, &metadata).unwrap();
    let f = open_gguf(&path).unwrap();
    assert_eq!(f.alignment(), 64);
    assert_eq!(f.data_start() % 64, 0);
    assert_eq!(f.metadata(), &metadata[..]);
    for (info, (name, want)) in f.tensors().iter().zip(&tensors) {
        assert_eq!(&info.name, name);
        assert_eq!(info.offset % 64, 0, "{name}");
        let got = f.tensor(name).unwrap();
        assert_eq!(tensor_bytes(&got), tensor_bytes(want), "{name}");
        let shape = match (&got, want) {
            (GgufTensor::Dense(g), GgufTensor::Dense(w)) => {
                assert_eq!(g.dtype(), w.dtype());
                w.shape().to_vec()
            }
            (GgufTensor::Quantized(g), GgufTensor::Quantized(w)) => {
                assert_eq!(g.qtype, w.qtype);
                w.shape.clone()
            }
            _ => panic!("{name}: dense/quantized mismatch"),
        };
        assert_eq!(info.shape, shape, "{name}");
    }
    let GgufTensor::Dense(s) = f.tensor("strided").unwrap() else {
        panic!()
    };
    assert_eq!(s.to_vec::<f64>(), strided.to_vec::<f64>());
    assert_eq!(s.shape(), &[3, 2]);
}

#[test]
fn save_rejects_what_gguf_cannot_hold() {
    let dense = |t: Tensor| GgufTensor::Dense(t);
    let f32s = |shape: &[usize]| dense(Tensor::zeros(DType::F32, shape).unwrap());
    let q = |shape: Vec<usize>, n: usize| {
        GgufTensor::Quantized(QTensor {
            qtype: QType::Q8_0,
            shape,
            data: QBytes::Owned(std::sync::Arc::new(vec![0; n])),
        })
    };
    let kv = |k: &str, v: GgufValue| (k.to_string(), v);
    let named = |n: &str, t: GgufTensor| (n.to_string(), t);
    let mut deep = GgufArray::U8(vec![1]);
    for _ in 0..8 {
        deep = GgufArray::Array(vec![deep]);
    }
    let cases: Vec<(Tensors, Metadata, &str)> = vec![
        (
            vec![named("b", dense(Tensor::scalar(true)))],
            vec![],
            "tensor 'b' has dtype bool, which GGUF cannot store",
        ),
        (
            vec![named("u", dense(Tensor::scalar(1u8)))],
            vec![],
            "dtype u8",
        ),
        (
            vec![named("x", f32s(&[1, 1, 1, 1, 1]))],
            vec![],
            "5 dimensions",
        ),
        (
            vec![named("x", f32s(&[1])), named("x", f32s(&[2]))],
            vec![],
            "duplicate tensor name 'x'",
        ),
        (
            vec![named(&"n".repeat(64), f32s(&[1]))],
            vec![],
            "64 bytes long",
        ),
        (
            vec![named("q", q(vec![2, 32], 34))],
            vec![],
            "34 bytes of q8_0 data, but its shape needs 68",
        ),
        (
            vec![named("q", q(vec![2, 16], 34))],
            vec![],
            "rows of 16 elements",
        ),
        (
            vec![],
            vec![kv("a", GgufValue::U8(1)), kv("a", GgufValue::U8(2))],
            "duplicate metadata key 'a'",
        ),
        (vec![], vec![kv("", GgufValue::U8(1))], "key is empty"),
        (
            vec![],
            vec![kv("general.alignment", GgufValue::U32(24))],
            "general.alignment must be a u32 power of two, not the u32 24",
        ),
        (
            vec![],
            vec![kv("general.alignment", GgufValue::I32(32))],
            "not the i32 32",
        ),
        (
            vec![],
            vec![kv("deep", GgufValue::Array(deep))],
            "nested more than 8 deep",
        ),
    ];
    let path = scratch("rejects", "bad.gguf");
    for (tensors, metadata, want) in cases {
        let err = save_gguf(&path, &tensors, &metadata).unwrap_err();
        assert!(
            err.starts_with("gguf: ") && err.contains(want),
            "{want}: {err}"
        );
        assert!(!path.exists(), "{want}: a file was written");
    }
}

/// The interpreter for the interop check, when it has the gguf package.
fn python_with_gguf() -> Option<String> {
    let python = std::env::var("TSR_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let ok = Command::new(&python)
        .args(["-c", "import gguf"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

#[test]
fn files_written_by_save_are_read_by_the_gguf_package() {
    let Some(python) = python_with_gguf() else {
        println!(
            "skipping gguf-package interop check: python3 with the gguf package not available \
             (set TSR_PYTHON to a Python that has it)"
        );
        return;
    };
    let f = open_gguf(&fixture("gguf/small.gguf")).unwrap();
    let (tensors, mut metadata) = contents(&f);
    let check = |path: &Path| {
        let out = Command::new(&python)
            .arg(fixture("gguf/gen_gguf.py"))
            .arg("--check")
            .arg(path)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "gen_gguf.py --check failed: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    };
    let path = scratch("interop", "saved.gguf");
    save_gguf(&path, &tensors, &metadata).unwrap();
    assert_same_lines(&check(&path), &expected_description());

    // Another alignment, and values GGUFWriter itself cannot write (empty arrays).
    metadata.push(("general.alignment".to_string(), GgufValue::U32(128)));
    metadata.push((
        "test.empty".to_string(),
        GgufValue::Array(GgufArray::U64(vec![])),
    ));
    save_gguf(&path, &tensors, &metadata).unwrap();
    let ours = describe(&open_gguf(&path).unwrap());
    let theirs = check(&path);
    assert!(theirs.contains("\nalignment 128\n"), "{theirs}");
    assert!(
        theirs.contains("\nkv test.empty array<u64> []\n"),
        "{theirs}"
    );
    assert_same_lines(&theirs, &ours);

    // A file written by the builtin, from language values.
    let path = scratch("interop", "builtin.gguf");
    save_from_script(&path);
    let ours = describe(&open_gguf(&path).unwrap());
    assert_same_lines(&check(&path), &ours);
    println!("gguf-package interop check passed ({python})");
}

// ---- the save_gguf builtin -------------------------------------------------------

/// Runs `code` with `{fixture}` and `{out}` replaced by quoted paths; must succeed.
fn run_script(code: &str, out: &Path) -> String {
    let quoted = |p: &Path| format!("{:?}", p.to_str().unwrap());
    let code = code
        .replace("{fixture}", &quoted(&fixture("gguf/small.gguf")))
        .replace("{out}", &quoted(out));
    let result = eval(&code);
    assert_eq!(result.code, 0, "{code}\n{}", result.stderr);
    result.stdout
}

/// Writes `path` with the builtin: tensors of every kind (mapped dense and quantized
/// from the fixture, quantized and dense made by the script) and metadata of every
/// language value `save_gguf` maps.
fn save_from_script(path: &Path) -> String {
    run_script(
        r#"let m = load_gguf({fixture})
        let q = quantize(arange(64).reshape(1, 64).to(f32) / 8, q8_0)
        let tensors = {"blk.0.q4_k": m.tensors["blk.0.q4_k"], "weight_f32": m.tensors["weight_f32"],
                       "q": q, "h": ones([2, 3], dtype=f16), "ids": [7, -1].to(i32)}
        let meta = {
            "general.architecture": "llama", "general.alignment": 64,
            "llama.context_length": 4096, "llama.rope.freq_base": 10000.0,
            "llama.attention.layer_norm_rms_epsilon": 1e-5,
            "neg": -5, "big": 5000000000, "flag": true,
            "tokenizer.ggml.tokens": ("<unk>", "<s>", "é
"),
            "tokenizer.ggml.scores": [0.0, -1.5, 2.25],
            "tokenizer.ggml.token_type": [1, 3, 1].to(i32),
            "counts": [1, 2, 3], "signed": [-1, 2], "mixed": (1, 2.5), "bools": (true, false),
            "nested": (("a", "b"), [1, 2]), "empty": (), "f64s": [0.5].to(f64),
            "u8": ones([], dtype=u8)}
        save_gguf({out}, tensors, meta)
        let back = load_gguf({out})
        print(back.metadata)
        print(back.tensors)
        print(all(back.tensors["weight_f32"] == m.tensors["weight_f32"]),
              all(dequantize(back.tensors["blk.0.q4_k"]) == dequantize(m.tensors["blk.0.q4_k"])),
              all(dequantize(back.tensors["q"]) == dequantize(q)), back.tensors["h"].dtype)"#,
        path,
    )
}

#[test]
fn save_builtin_writes_language_values_with_llama_cpp_types() {
    let path = scratch("builtin", "out.gguf");
    let printed = save_from_script(&path);
    insta::assert_snapshot!("builtin_reads_back", printed);
    // The types written, as a GGUF reader sees them.
    let f = open_gguf(&path).unwrap();
    assert_eq!(f.alignment(), 64);
    insta::assert_snapshot!("builtin_file", describe(&f));
}

#[test]
fn a_loaded_model_saves_back_with_the_same_tensors() {
    let path = scratch("builtin_resave", "copy.gguf");
    let printed = run_script(
        "let m = load_gguf({fixture}); save_gguf({out}, m.tensors, m.metadata)
         let back = load_gguf({out})
         for k in m.metadata { if str(m.metadata[k]) != str(back.metadata[k]) {
             print(k, m.metadata[k], back.metadata[k]) } }",
        &path,
    );
    // Every value reads back the same except u64::MAX, which the language holds as
    // a float, and a float is written as f32.
    assert_eq!(printed, "test.u64 1.8446744073709552e+19 1.8446744e+19\n");
    let original = expected_description();
    let copy = describe(&open_gguf(&path).unwrap());
    let tensors = |d: &str| -> Vec<String> {
        d.lines()
            .filter(|l| l.starts_with("tensor "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(tensors(&copy), tensors(&original));
    insta::assert_snapshot!(
        "builtin_resaved_metadata",
        copy.lines()
            .filter(|l| l.starts_with("kv "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn save_builtin_errors_name_the_argument() {
    let path = scratch("builtin_errors", "bad.gguf");
    for (call, want) in [
        (
            "save_gguf({out}, {\"x\": 1})",
            "entry \"x\" is int, not a tensor or quantized tensor",
        ),
        (
            "save_gguf({out}, [1, 2])",
            "expected a dict name -> tensor, got tensor i64[2]",
        ),
        (
            "save_gguf({out}, {1: ones([2])})",
            "the keys of name -> tensor must be strings, got the int key 1",
        ),
        (
            "save_gguf({out}, {}, {\"k\": {\"a\": 1}})",
            "metadata \"k\": dict cannot be stored",
        ),
        (
            "save_gguf({out}, {}, {\"k\": (\"a\", 1)})",
            "metadata \"k\": a tuple of string, int",
        ),
        (
            "save_gguf({out}, {}, {\"k\": zeros([2, 2])})",
            "a tensor of shape [2, 2]",
        ),
        (
            "save_gguf({out}, {}, {\"k\": none})",
            "none cannot be stored",
        ),
        (
            "save_gguf({out}, {}, {true: 1})",
            "the keys of key -> value must be strings",
        ),
        (
            "save_gguf({out}, {\"b\": ones([2]) > 0})",
            "gguf: tensor 'b' has dtype bool",
        ),
        (
            "save_gguf({out}, {}, {\"general.alignment\": 24})",
            "gguf: general.alignment must be a u32 power of two",
        ),
        (
            "save_gguf({out}, {\"q\": quantize(ones([2, 32]), q8_0).T})",
            "transposed view (q.T)",
        ),
    ] {
        let quoted = format!("{:?}", path.to_str().unwrap());
        let out = eval(&call.replace("{out}", &quoted));
        assert_eq!(out.code, 1, "{call}: {}", out.stdout);
        assert!(
            out.stderr.contains(want),
            "{call}: want {want:?} in\n{}",
            out.stderr
        );
        assert!(
            out.stderr
                .contains("signature: save_gguf(path, tensors, metadata={})"),
            "{}",
            out.stderr
        );
        assert!(!path.exists(), "{call}: a file was written");
    }
}

// ---- hostile files ---------------------------------------------------------------

/// Opens `bytes` as a file; must fail with a "gguf: " error containing `want`.
fn assert_rejected(path: &Path, bytes: &[u8], want: &str) {
    fs::write(path, bytes).unwrap();
    match open_gguf(path) {
        Ok(_) => panic!("accepted a file that should fail with '{want}'"),
        Err(e) => assert!(
            e.starts_with("gguf: ") && e.contains(want),
            "want '{want}', got: {e}"
        ),
    }
}

fn small_bytes() -> Vec<u8> {
    fs::read(fixture("gguf/small.gguf")).unwrap()
}

/// Byte position just after the first occurrence of `needle`.
fn after(bytes: &[u8], needle: &str) -> usize {
    let n = needle.as_bytes();
    bytes.windows(n.len()).position(|w| w == n).unwrap() + n.len()
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Position of the data offset field in the info of tensor `name` (2 dimensions).
fn offset_field(bytes: &[u8], name: &str) -> usize {
    after(bytes, name) + 4 + 2 * 8 + 4
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = small_bytes();
    let path = scratch("truncated", "cut.gguf");
    for len in 0..bytes.len() {
        fs::write(&path, &bytes[..len]).unwrap();
        let err = open_gguf(&path).map(|_| ()).unwrap_err();
        assert!(err.starts_with("gguf: "), "length {len}: {err}");
    }
    let cut = after(&bytes, "blk.0.q4_k") + 2;
    assert_rejected(
        &path,
        &bytes[..cut],
        &format!(
            "truncated file: the dimension count of tensor 'blk.0.q4_k' at byte {} needs 4 \
             bytes but the file ends at byte {cut}",
            cut - 2
        ),
    );
    assert_rejected(
        &path,
        &bytes[..bytes.len() - 1],
        "extend past the end of the file",
    );
}

#[test]
fn bad_header_fields_are_errors() {
    let path = scratch("header_fields", "bad.gguf");
    let good = small_bytes();
    let patched = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        b
    };
    let first_key = 24; // magic, version, tensor count, metadata count
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (patched(&|b| b[0] = b'X'), "bad magic at byte 0"),
        (b"GGML\x03\x00\x00\x00".to_vec(), "bad magic"),
        (
            patched(&|b| put_u32(b, 4, 1)),
            "unsupported version 1 at byte 4",
        ),
        (patched(&|b| put_u32(b, 4, 0)), "unsupported version 0"),
        (patched(&|b| put_u32(b, 4, 4)), "unsupported version 4"),
        (patched(&|b| put_u32(b, 4, 3 << 24)), "byte-swapped"),
        (
            patched(&|b| put_u64(b, 8, 1 << 40)),
            "the tensor count at byte 8 is 1099511627776, over the limit of 1048576",
        ),
        (patched(&|b| put_u64(b, 8, u64::MAX)), "tensor count"),
        (patched(&|b| put_u64(b, 8, 1000)), "more than the remaining"),
        (
            patched(&|b| put_u64(b, 16, 1 << 21)),
            "the metadata count at byte 16 is 2097152, over the limit",
        ),
        (
            patched(&|b| put_u64(b, first_key, 1 << 40)),
            "metadata key #0 at byte 24 has length 1099511627776, over the limit",
        ),
        (
            patched(&|b| put_u64(b, first_key, 3000)),
            "metadata key #0 at byte 24 has length 3000, past the end of the file",
        ),
        (
            patched(&|b| b[first_key + 8] = 0xFF),
            "metadata key #0 at byte 24 is not valid UTF-8",
        ),
        (
            patched(&|b| put_u64(b, first_key, 0)),
            "metadata key #0 at byte 24 is empty",
        ),
        (
            patched(&|b| {
                let at = after(b, "general.name");
                put_u64(b, at + 4, u64::MAX)
            }),
            "the value of metadata key 'general.name'",
        ),
        (
            patched(&|b| {
                let at = after(b, "test.u8");
                put_u32(b, at, 13)
            }),
            "the value of metadata key 'test.u8' at byte",
        ),
        (
            patched(&|b| {
                let at = after(b, "test.arr_u32");
                put_u64(b, at + 8, 1 << 60)
            }),
            "the element count of the value of metadata key 'test.arr_u32' at byte",
        ),
        (
            patched(&|b| {
                let at = after(b, "test.i") - 1;
                b[at] = b'u'; // test.i8 becomes a second test.u8
            }),
            "duplicate metadata key 'test.u8'",
        ),
        (
            patched(&|b| {
                let at = after(b, "weight_f16") - 3;
                b[at..at + 3].copy_from_slice(b"f32"); // a second weight_f32
            }),
            "duplicate tensor name 'weight_f32'",
        ),
    ];
    for (bytes, want) in cases {
        assert_rejected(&path, &bytes, want);
    }
}

#[test]
fn bad_tensor_infos_are_errors() {
    let path = scratch("tensor_infos", "bad.gguf");
    let good = small_bytes();
    let patched = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        f(&mut b);
        b
    };
    let dims = after(&good, "blk.0.q8_0"); // n_dims, ne0, ne1, type, offset
    let f16_offset = offset_field(&good, "weight_f16");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            patched(&|b| put_u32(b, dims, 5)),
            "tensor 'blk.0.q8_0' at byte",
        ),
        (
            patched(&|b| put_u64(b, dims + 4, 48)),
            "tensor 'blk.0.q8_0': rows of 48 elements are not a whole number of q8_0 blocks",
        ),
        (
            patched(&|b| put_u64(b, dims + 12, u64::MAX)),
            "extent 18446744073709551615",
        ),
        (patched(&|b| put_u64(b, dims + 12, 1 << 62)), "too large"),
        (
            patched(&|b| put_u64(b, dims + 12, 1 << 20)),
            "tensor 'blk.0.q8_0': 71303168 bytes of data at offset 192",
        ),
        (
            patched(&|b| put_u32(b, dims + 20, 99)),
            "tensor 'blk.0.q8_0': unknown GGML type id 99",
        ),
        (
            patched(&|b| put_u32(b, dims + 20, 4)),
            "unknown GGML type id 4",
        ),
        (
            patched(&|b| put_u64(b, f16_offset, 65)),
            "tensor 'weight_f16': data offset 65 is not a multiple of the alignment 32",
        ),
        (
            patched(&|b| put_u64(b, f16_offset, 1 << 20)),
            "extend past the end of the file",
        ),
        (
            patched(&|b| put_u64(b, f16_offset, u64::MAX - 31)),
            "extend past the end of the file",
        ),
    ];
    for (bytes, want) in cases {
        assert_rejected(&path, &bytes, want);
    }
}

/// GGUF bytes built field by field, for files `save_gguf` refuses to write.
#[derive(Default)]
struct Builder(Vec<u8>);

impl Builder {
    fn header(n_tensors: u64, n_kv: u64) -> Builder {
        Builder(b"GGUF".to_vec()).u32(3).u64(n_tensors).u64(n_kv)
    }
    fn u32(mut self, v: u32) -> Builder {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Builder {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn str(self, s: &str) -> Builder {
        let mut b = self.u64(s.len() as u64);
        b.0.extend_from_slice(s.as_bytes());
        b
    }
    fn pad(mut self, align: usize) -> Builder {
        while !self.0.len().is_multiple_of(align) {
            self.0.push(0);
        }
        self
    }
}

#[test]
fn crafted_metadata_errors() {
    let path = scratch("crafted", "bad.gguf");
    let alignment = |ty: GgufType, v: u32| {
        Builder::header(0, 1)
            .str("general.alignment")
            .u32(ty.id())
            .u32(v)
            .0
    };
    assert_rejected(
        &path,
        &alignment(GgufType::U32, 0),
        "general.alignment must be a u32 power of two, not the u32 0",
    );
    assert_rejected(&path, &alignment(GgufType::U32, 48), "not the u32 48");
    assert_rejected(&path, &alignment(GgufType::I32, 32), "not the i32 32");
    let ok = Builder::header(0, 1)
        .str("general.alignment")
        .u32(GgufType::U32.id())
        .u32(64)
        .pad(64);
    assert_eq!(open_gguf_bytes(&path, &ok.0).alignment(), 64);

    // Nine levels of arrays of arrays.
    let mut deep = Builder::header(0, 1).str("deep").u32(GgufType::Array.id());
    for _ in 0..9 {
        deep = deep.u32(GgufType::Array.id()).u64(1);
    }
    deep = deep.u32(GgufType::U8.id()).u64(0);
    assert_rejected(&path, &deep.0, "arrays nested more than 8 deep");

    // An array of strings whose second string claims more bytes than remain.
    let strings = Builder::header(0, 1)
        .str("s")
        .u32(GgufType::Array.id())
        .u32(GgufType::String.id())
        .u64(2)
        .str("ok")
        .u64(100)
        .0;
    assert_rejected(&path, &strings, "has length 100, past the end of the file");
    // Element count beyond what the remaining bytes could hold.
    let count = Builder::header(0, 1)
        .str("a")
        .u32(GgufType::Array.id())
        .u32(GgufType::U64.id())
        .u64(3)
        .u64(1)
        .0;
    assert_rejected(
        &path,
        &count,
        "is 3, more than the remaining 8 bytes can hold",
    );
    let unknown = Builder::header(0, 1).str("a").u32(13).u64(0).0;
    assert_rejected(&path, &unknown, "has unknown value type 13");

    // A tensor with no padding after its data.
    let unpadded = Builder::header(1, 0)
        .str("t")
        .u32(1)
        .u64(3)
        .u32(QType::F32.id())
        .u64(0)
        .pad(32)
        .u64(0)
        .u32(0);
    assert_rejected(&path, &unpadded.0, "once padded to the alignment 32");
}

fn open_gguf_bytes(path: &Path, bytes: &[u8]) -> GgufFile {
    fs::write(path, bytes).unwrap();
    open_gguf(path).unwrap()
}

#[test]
fn corrupted_headers_never_panic() {
    let good = small_bytes();
    let path = scratch("corrupted", "fuzz.gguf");
    let header_len = open_gguf(&fixture("gguf/small.gguf")).unwrap().data_start();
    // A fixed-seed LCG: the same corruptions on every run.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut opened = 0;
    for _ in 0..1500 {
        let mut bytes = good.clone();
        for _ in 0..1 + next() % 3 {
            let at = next() % header_len;
            bytes[at] = match next() % 4 {
                0 => 0,
                1 => 0xFF,
                _ => next() as u8,
            };
        }
        fs::write(&path, &bytes).unwrap();
        match open_gguf(&path) {
            Err(e) => assert!(e.starts_with("gguf: "), "{e}"),
            Ok(f) => {
                opened += 1;
                for info in f.tensors() {
                    if let Err(e) = f.tensor(&info.name) {
                        assert!(e.starts_with("gguf: "), "{e}");
                    }
                }
            }
        }
    }
    assert!(
        opened > 0,
        "every corruption was rejected; the test is too blunt"
    );
}

// ---- speed -----------------------------------------------------------------------

fn resident_bytes() -> u64 {
    let statm = fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// Writes a 1 GiB model-like file (a 100 000-token vocabulary and 16 Q8_0 tensors of
/// 64 MiB), then measures opening it. Run with
/// `cargo test --release --test gguf_files -- --ignored --nocapture`.
#[test]
#[ignore = "writes a 1 GiB file"]
fn opening_a_1gib_file_is_fast_and_lazy() {
    const TENSORS: usize = 16;
    const K: u64 = 4096; // row length
    const ROWS: u64 = 15_420; // 15 420 rows of 4352 bytes: just under 64 MiB
    let row_bytes = K / 32 * 34;
    let path = scratch("one_gib", "big.gguf");
    let mut b = Builder::header(TENSORS as u64, 2)
        .str("general.architecture")
        .u32(GgufType::String.id())
        .str("llama")
        .str("tokenizer.ggml.tokens")
        .u32(GgufType::Array.id())
        .u32(GgufType::String.id())
        .u64(100_000);
    for i in 0..100_000 {
        b = b.str(&format!("token{i}"));
    }
    let padded = (ROWS * row_bytes).next_multiple_of(32);
    for i in 0..TENSORS {
        b = b
            .str(&format!("blk.{i}.weight"))
            .u32(2)
            .u64(K)
            .u64(ROWS)
            .u32(QType::Q8_0.id())
            .u64(i as u64 * padded);
    }
    let header = b.pad(32).0;
    {
        use std::io::Write;
        let mut file = std::io::BufWriter::new(fs::File::create(&path).unwrap());
        file.write_all(&header).unwrap();
        let chunk: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
        let mut left = padded * TENSORS as u64;
        while left > 0 {
            let n = left.min(chunk.len() as u64) as usize;
            file.write_all(&chunk[..n]).unwrap();
            left -= n as u64;
        }
    }
    let size = fs::metadata(&path).unwrap().len();

    let rss_before = resident_bytes();
    let start = Instant::now();
    let f = open_gguf(&path).unwrap();
    let open_time = start.elapsed();
    let rss_open = resident_bytes();
    let views: Vec<GgufTensor> = f
        .tensors()
        .iter()
        .map(|i| f.tensor(&i.name).unwrap())
        .collect();
    let rss_views = resident_bytes();
    let GgufTensor::Quantized(first) = &views[0] else {
        panic!("Q8_0 should be quantized")
    };
    let sum: u64 = first.data.as_slice().iter().map(|&b| u64::from(b)).sum();
    let rss_touched = resident_bytes();
    let mib = |b: u64| b as f64 / (1 << 20) as f64;
    println!(
        "1 GiB GGUF ({size} bytes, header {} KiB): open {:.2} ms; resident {:.1} MiB before, \
         {:.1} MiB after open, {:.1} MiB with all {TENSORS} tensor views, {:.1} MiB after \
         reading one 64 MiB tensor (checksum {sum})",
        header.len() / 1024,
        open_time.as_secs_f64() * 1e3,
        mib(rss_before),
        mib(rss_open),
        mib(rss_views),
        mib(rss_touched),
    );
    assert!(size >= 1 << 30);
    assert!(open_time.as_secs_f64() < 1.0, "open took {open_time:?}");
    assert!(
        rss_open - rss_before < 32 << 20,
        "open made {} bytes resident",
        rss_open - rss_before
    );
    assert!(rss_views - rss_open < 1 << 20, "views made memory resident");
}

//! The text readers on arbitrary bytes: CSV (load_csv), JSON (load_json) and
//! numpy.loadtxt's format, each with its error path. The first byte picks the
//! CSV delimiter and loadtxt's options, the rest is the file's text. What loads
//! must be what a reader of tsr's files can hold: CSV columns of one length, JSON
//! no deeper than serde_json's limit.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use tsr::io::csv::parse_csv;
use tsr::io::json::{parse_json, Json, MAX_DEPTH};
use tsr::io::loadtxt::{parse_txt, TxtOptions};
use tsr::tensor::DType;

fn depth(j: &Json) -> usize {
    match j {
        Json::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Json::Object(members) => 1 + members.iter().map(|(_, v)| depth(v)).max().unwrap_or(0),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let path = Path::new("fuzz.txt");
    let delimiter = [b',', b';', b'\t', b' '][usize::from(pick & 3)];
    if let Ok(columns) = parse_csv(text, path, delimiter) {
        let rows = columns.first().map_or(0, |(_, c)| c.len());
        assert!(columns.iter().all(|(_, c)| c.len() == rows));
    }
    if let Ok(j) = parse_json(text, path) {
        assert!(depth(&j) <= MAX_DEPTH);
    }
    let usecols = [0i64, -1];
    let opts = TxtOptions {
        delimiter: (pick & 4 != 0).then_some(char::from(delimiter)),
        skiprows: usize::from(pick >> 6),
        usecols: (pick & 8 != 0).then_some(&usecols[..]),
        dtype: if pick & 16 != 0 {
            DType::I64
        } else {
            DType::F32
        },
    };
    if let Ok(t) = parse_txt(text, path, &opts) {
        assert!(t.ndim() <= 2);
    }
});

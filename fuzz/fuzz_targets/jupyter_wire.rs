//! The Jupyter kernel's message handling on arbitrary bytes: the input is a list of
//! ZeroMQ frames separated by 0xFF bytes (which UTF-8 and JSON never contain). The
//! frames are decoded (signature first, then JSON) with an empty key when the first
//! byte is even, with a key otherwise; a decoded message must encode and decode to
//! itself, and its code and cursor go through completion, inspection and the
//! completeness check. A single frame is also read as a connection file.
#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tsr::interp::Interp;
use tsr::jupyter::assist::{completeness, completions, inspection};
use tsr::jupyter::connection::Connection;
use tsr::jupyter::sign::Signer;
use tsr::jupyter::wire::{decode, encode};
use tsr::repl::complete::Names;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let key: &[u8] = if first % 2 == 0 { b"" } else { b"fuzz-key" };
    let Ok(signer) = Signer::new("hmac-sha256", key) else {
        return;
    };
    let frames: Vec<Bytes> = rest
        .split(|&b| b == 0xFF)
        .map(Bytes::copy_from_slice)
        .collect();
    if let [only] = frames.as_slice() {
        if let Ok(text) = std::str::from_utf8(only) {
            let _ = Connection::parse(text);
        }
    }
    let Ok(msg) = decode(frames, &signer) else {
        return;
    };
    let again = decode(encode(&msg, &signer), &signer).expect("an encoded message decodes");
    assert_eq!(again, msg, "a message survives encoding");
    let code = msg.str_field("code").unwrap_or("");
    let cursor = msg
        .content
        .get("cursor_pos")
        .and_then(Value::as_u64)
        .map_or(0, |p| usize::try_from(p).unwrap_or(usize::MAX))
        .min(code.chars().count());
    let _ = completions(code, cursor, &Names::default());
    let interp = Interp::new(Box::new(std::io::sink()));
    let _ = inspection(code, cursor, &interp);
    let _ = completeness(code);
});

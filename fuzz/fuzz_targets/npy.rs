//! The `.npy` decoder on arbitrary bytes; what decodes must print, and encode back
//! to bytes that decode to the same tensor.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsr::io::npy::{decode_npy, encode_npy};
use tsr::tensor::format::{format_tensor, PrintOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(t) = decode_npy(data) else {
        return;
    };
    let _ = format_tensor(&t, &PrintOptions::default());
    if let Ok(bytes) = encode_npy(&t) {
        let back = decode_npy(&bytes).expect("tsr reads what it writes");
        assert_eq!(back.shape(), t.shape());
        assert_eq!(back.dtype(), t.dtype());
    }
});

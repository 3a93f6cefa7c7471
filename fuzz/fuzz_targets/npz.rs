//! The `.npz` reader (zip container, stored or deflated members) on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsr::io::npz::decode_npz;
use tsr::tensor::format::{format_tensor, PrintOptions};

fuzz_target!(|data: &[u8]| {
    if let Ok(arrays) = decode_npz(data) {
        for (_, t) in &arrays {
            let _ = format_tensor(t, &PrintOptions::default());
        }
    }
});

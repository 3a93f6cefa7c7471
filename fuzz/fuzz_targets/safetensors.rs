//! The `.safetensors` reader on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsr::io::safetensors::decode_safetensors;
use tsr::tensor::format::{format_tensor, PrintOptions};

fuzz_target!(|data: &[u8]| {
    if let Ok(tensors) = decode_safetensors(data) {
        for (_, t) in &tensors {
            let _ = format_tensor(t, &PrintOptions::default());
        }
    }
});

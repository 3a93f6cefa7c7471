//! The GGUF reader on arbitrary bytes: the header, then every tensor (quantized ones
//! dequantized) and every metadata value as the language sees it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsr::builtins::gguf_meta::to_value;
use tsr::io::gguf::{parse_gguf, GgufTensor};
use tsr::tensor::format::PrintOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = parse_gguf(data) else {
        return;
    };
    let opts = PrintOptions::default();
    for (_, v) in file.metadata() {
        let _ = to_value(v).display(&opts);
    }
    for info in file.tensors() {
        match file.tensor(&info.name) {
            Ok(GgufTensor::Dense(t)) => {
                let _ = t.numel();
            }
            Ok(GgufTensor::Quantized(q)) => {
                let _ = q.dequantize();
            }
            Err(_) => {}
        }
    }
});

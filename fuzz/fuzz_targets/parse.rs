//! The lexer and parser on arbitrary text: parse, render every diagnostic, and run
//! the REPL's incomplete-input check and highlighter over the same text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsr::interp::Interp;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut interp = Interp::new(Box::new(std::io::sink()));
    if let Err(diags) = interp.parse("<fuzz>", text, None) {
        let _ = interp.render(&diags, false);
    }
    let _ = tsr::syntax::parser::is_incomplete(text);
    for line in text.lines() {
        let _ = tsr::repl::highlight::highlight(line);
    }
});

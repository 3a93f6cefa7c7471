//! The interpreter on arbitrary programs, under limits: no file access, tensors of at
//! most 64 KiB, 20,000 evaluation steps. Whatever the program, it must end with a
//! value or a diagnostic; values and diagnostics are rendered too.
#![no_main]

use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use tsr::interp::Interp;

/// The interpreter recurses per nesting level; the CLI gives it a large stack too.
const STACK: usize = 256 << 20;

fuzz_target!(|data: &[u8]| {
    static LIMITS: Once = Once::new();
    LIMITS.call_once(|| {
        tsr::io::deny_file_access();
        tsr::tensor::budget::set_limit(64 << 10);
    });
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let text = text.to_string();
    let run = move || {
        let mut interp = Interp::new(Box::new(std::io::sink()));
        interp.limit_steps(20_000);
        match interp.run("<fuzz>", &text, None) {
            Ok(v) => {
                let _ = v.display(&interp.print_opts);
            }
            Err(diags) => {
                let _ = interp.render(&diags, false);
            }
        }
    };
    std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(run)
        .expect("a thread for the interpreter")
        .join()
        .expect("the interpreter thread ends normally");
});

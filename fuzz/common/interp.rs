//! The session the `interp` and `interp_deep` targets run a program in: no file
//! access, tensors of at most 64 KiB, a step limit, and a thread of a given stack size.
//! Whatever the program, it must end with a value or a diagnostic; values and
//! diagnostics are rendered too.

use std::sync::Once;

use tsr::interp::Interp;

/// Runs `data` (when it is UTF-8) for at most `steps` evaluation steps on a thread
/// with a `stack`-byte stack.
pub fn run(data: &[u8], steps: u64, stack: usize) {
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
        interp.limit_steps(steps);
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
        .stack_size(stack)
        .spawn(run)
        .expect("a thread for the interpreter")
        .join()
        .expect("the interpreter thread ends normally");
}

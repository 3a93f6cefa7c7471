//! The interpreter on arbitrary programs, under limits (see `common/interp.rs`):
//! 20,000 evaluation steps, many short programs per second.
#![no_main]

#[path = "../common/interp.rs"]
mod session;

use libfuzzer_sys::fuzz_target;

/// The interpreter grows its own stack as it nests (`stacker`); the CLI gives it a
/// large one to start with, and so does this target.
const STACK: usize = 256 << 20;

fuzz_target!(|data: &[u8]| session::run(data, 20_000, STACK));

//! The interpreter's deeper configuration: 5,000,000 evaluation steps, enough for a
//! program to reach the evaluation-depth limit (100,000 levels of nested expressions
//! and calls) or to build values nested that deep, on a thread with a small stack of
//! its own: the interpreter must grow its stack on the heap, never overflow it.
#![no_main]

#[path = "../common/interp.rs"]
mod session;

use libfuzzer_sys::fuzz_target;

/// Smaller than one deep recursion needs: the stack must grow on the heap.
const STACK: usize = 1 << 20;

fuzz_target!(|data: &[u8]| session::run(data, 5_000_000, STACK));

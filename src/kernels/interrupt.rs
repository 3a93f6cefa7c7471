//! The process-wide Ctrl-C request. The REPL's signal handler sets it; the interpreter
//! checks it between expressions, and parallel kernels between chunks, so a long
//! loop or kernel stops soon after the key is pressed. A kernel that stops early leaves
//! its output unfinished: the interpreter discards the value of any call during which
//! an interrupt was requested.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

static REQUESTED: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));

/// The flag itself, for a signal handler to set.
pub fn flag() -> Arc<AtomicBool> {
    REQUESTED.clone()
}

/// True while an interrupt is pending (not yet taken by the interpreter).
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Takes a pending interrupt: true once per request.
pub fn take() -> bool {
    requested() && REQUESTED.swap(false, Ordering::Relaxed)
}

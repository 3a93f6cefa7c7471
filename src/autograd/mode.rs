//! Grad mode: whether ops on tracked tensors record. On by default; off inside
//! `no_grad { }` and while a backward runs without `create_graph`.

use std::cell::Cell;

thread_local! {
    static ENABLED: Cell<bool> = const { Cell::new(true) };
}

/// Whether ops record now.
pub fn enabled() -> bool {
    ENABLED.with(Cell::get)
}

/// Grad mode set for a scope: the previous mode comes back when the guard drops,
/// however the scope is left (an error, `return`, `break`).
pub struct GradMode {
    before: bool,
}

impl GradMode {
    pub fn set(on: bool) -> GradMode {
        GradMode {
            before: ENABLED.with(|e| e.replace(on)),
        }
    }

    /// `no_grad { }`.
    pub fn off() -> GradMode {
        GradMode::set(false)
    }
}

impl Drop for GradMode {
    fn drop(&mut self) {
        ENABLED.with(|e| e.set(self.before));
    }
}

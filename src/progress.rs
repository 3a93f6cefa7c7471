//! A one-line progress bar on stderr for long work (quantizing, saving a model).
//!
//! It is drawn only when stderr is a terminal and the work has already taken half a
//! second, redrawn at most ten times a second, and cleared when the [`Progress`] is
//! dropped. Pipes, test harnesses and CI never see it; nothing it does changes what
//! the work produces.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Work shorter than this never shows a bar.
const DELAY: Duration = Duration::from_millis(500);
/// The least time between two redraws.
const INTERVAL: Duration = Duration::from_millis(100);
/// Characters of the bar between its brackets.
const WIDTH: usize = 30;

/// The bar of one piece of work; `update` may be called from any thread.
pub struct Progress {
    label: &'static str,
    start: Instant,
    terminal: bool,
    /// When the bar was last drawn (None: never).
    drawn: Mutex<Option<Instant>>,
}

impl Progress {
    pub fn new(label: &'static str) -> Progress {
        Progress {
            label,
            start: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            drawn: Mutex::new(None),
        }
    }

    /// Reports that `done` of `total` units of work are finished.
    pub fn update(&self, done: usize, total: usize) {
        if !self.terminal {
            return;
        }
        let now = Instant::now();
        if now.duration_since(self.start) < DELAY {
            return;
        }
        // Another thread drawing right now is as good as drawing.
        let Ok(mut drawn) = self.drawn.try_lock() else {
            return;
        };
        if drawn.is_some_and(|t| now.duration_since(t) < INTERVAL) {
            return;
        }
        *drawn = Some(now);
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{}", bar_line(self.label, done, total));
        let _ = err.flush();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if self.terminal && matches!(self.drawn.get_mut(), Ok(Some(_))) {
            // Carriage return, then erase the line.
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
        }
    }
}

/// `quantize [###########...................]  37%`
fn bar_line(label: &str, done: usize, total: usize) -> String {
    let fraction = if total == 0 {
        1.0
    } else {
        (done.min(total) as f64) / (total as f64)
    };
    let filled = ((fraction * WIDTH as f64) as usize).min(WIDTH);
    format!(
        "{label} [{}{}] {:3.0}%",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        fraction * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_fraction_done() {
        assert_eq!(
            bar_line("save", 0, 10),
            format!("save [{}]   0%", ".".repeat(30))
        );
        assert_eq!(
            bar_line("save", 5, 10),
            format!("save [{}{}]  50%", "#".repeat(15), ".".repeat(15))
        );
        assert_eq!(
            bar_line("q", 12, 10),
            format!("q [{}] 100%", "#".repeat(30))
        );
        assert_eq!(bar_line("q", 0, 0), format!("q [{}] 100%", "#".repeat(30)));
    }

    #[test]
    fn nothing_is_drawn_without_a_terminal_or_before_the_delay() {
        for terminal in [false, true] {
            let p = Progress {
                label: "x",
                start: Instant::now(),
                terminal,
                drawn: Mutex::new(None),
            };
            p.update(1, 2);
            assert!(p.drawn.lock().unwrap().is_none());
        }
    }
}

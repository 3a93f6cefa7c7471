//! `tsr test`'s tolerant comparator and diff on arbitrary text: the input is a
//! snapshot file and an actual output, split at the first NUL byte. Comparing a text
//! with itself must always match.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tsr::testing::compare::{outputs_match, Tolerance};
use tsr::testing::diff::report;
use tsr::testing::snap::Snap;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (snap_text, actual) = text.split_once('\0').unwrap_or((text, ""));
    let (expected, tol) = match Snap::parse(snap_text) {
        Ok(snap) => {
            let d = Tolerance::default();
            let tol = Tolerance {
                rtol: snap.rtol.unwrap_or(d.rtol),
                atol: snap.atol.unwrap_or(d.atol),
            };
            (snap.output, tol)
        }
        Err(_) => (snap_text.to_string(), Tolerance::default()),
    };
    let matched = outputs_match(actual, &expected, &tol);
    let diff = report(actual, &expected, &tol);
    assert_eq!(matched, diff.is_none(), "the verdict and the diff agree");
    assert!(outputs_match(actual, actual, &tol), "a text matches itself");
});

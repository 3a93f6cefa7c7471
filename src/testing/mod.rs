//! `tsr test`: runs scripts, captures their output and compares it with `X.tsr.snap`,
//! numbers within a tolerance. Scripts run in parallel (one fresh interpreter each);
//! results are reported in a stable, sorted order.

pub(crate) mod collect;
pub mod compare;
pub mod diff;
pub(crate) mod junit;
pub mod snap;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::interp::output::SharedOutput;
use crate::interp::Interp;

use compare::Tolerance;
use junit::{Case, CaseOutcome};
use snap::{new_snap_path, snap_path, Snap};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Junit,
}

#[derive(Clone, Debug)]
pub struct Options {
    pub paths: Vec<PathBuf>,
    /// Accept the current output: write or overwrite snapshots.
    pub update: bool,
    /// Never write anything (not even `.snap.new` proposals).
    pub check: bool,
    /// Running in CI: no `.snap.new` proposals are written.
    pub ci: bool,
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    pub format: Format,
    /// Where the JUnit report goes (stdout when not given).
    pub output: Option<PathBuf>,
    /// A time limit for each script.
    pub timeout: Option<Duration>,
}

/// `CI` set to anything but empty, `false` or `0`.
pub fn ci_from_env() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "false" | "0"))
}

enum Verdict {
    Pass,
    Updated,
    Skipped(String),
    Fail(String),
}

struct FileResult {
    name: String,
    verdict: Verdict,
    /// Shown under the verdict: a diff, a diagnostic, what was written.
    detail: String,
    seconds: f64,
}

/// Interpreter stack for each worker (deeply recursive scripts must not overflow).
const WORKER_STACK: usize = 256 * 1024 * 1024;

/// Runs the tests, writing the report to `out`. `Ok(true)` when nothing failed;
/// `Err` for usage errors (a path that does not exist, an unwritable report).
pub fn run(opts: &Options, out: &mut dyn Write) -> Result<bool, String> {
    let paths = if opts.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        opts.paths.clone()
    };
    let files = collect::collect(&paths)?;
    let started = Instant::now();
    let human = opts.format == Format::Human || opts.output.is_some();
    let results = run_all(&files, opts, |r| {
        if human {
            let _ = out.write_all(human_lines(r).as_bytes());
            let _ = out.flush();
        }
    })?;
    let passed = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Pass | Verdict::Updated))
        .count();
    let skipped = results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Skipped(_)))
        .count();
    let failed = results.len() - passed - skipped;
    if opts.format == Format::Junit {
        let xml = junit::render(&junit_cases(&results), started.elapsed().as_secs_f64());
        match &opts.output {
            Some(path) => write_file(path, &xml)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
            None => {
                let _ = out.write_all(xml.as_bytes());
            }
        }
    }
    if human {
        let mut line = format!("{passed} passed, {failed} failed");
        if skipped > 0 {
            line.push_str(&format!(", {skipped} skipped"));
        }
        let _ = writeln!(out, "{line}");
    }
    Ok(failed == 0)
}

/// Runs every file on worker threads; `report` sees results in file order as they finish.
fn run_all(
    files: &[PathBuf],
    opts: &Options,
    mut report: impl FnMut(&FileResult),
) -> Result<Vec<FileResult>, String> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(files.len())
        .max(1);
    let (tx, rx) = std::sync::mpsc::channel::<(usize, FileResult)>();
    let mut ordered = Vec::with_capacity(files.len());
    std::thread::scope(|s| -> Result<(), String> {
        for _ in 0..workers {
            let tx = tx.clone();
            let next = &next;
            std::thread::Builder::new()
                .stack_size(WORKER_STACK)
                .spawn_scoped(s, move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(path) = files.get(i) else {
                        break;
                    };
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_one(path, opts)
                    }))
                    .unwrap_or_else(|_| FileResult {
                        name: collect::display_name(path),
                        verdict: Verdict::Fail("internal error while running the script".into()),
                        detail: String::new(),
                        seconds: 0.0,
                    });
                    if tx.send((i, result)).is_err() {
                        break;
                    }
                })
                .map_err(|e| format!("cannot start a worker thread: {e}"))?;
        }
        drop(tx);
        let mut pending = BTreeMap::new();
        for (i, r) in rx {
            pending.insert(i, r);
            while let Some(r) = pending.remove(&ordered.len()) {
                report(&r);
                ordered.push(r);
            }
        }
        Ok(())
    })?;
    Ok(ordered)
}

/// A script opts out with a leading comment line `# tsr: skip [reason]`.
fn skip_reason(script: &str) -> Option<String> {
    script
        .lines()
        .take_while(|l| l.trim_start().starts_with('#') || l.trim().is_empty())
        .find_map(|l| l.trim().strip_prefix("# tsr: skip"))
        .map(|r| r.trim().to_string())
}

fn run_one(path: &Path, opts: &Options) -> FileResult {
    let name = collect::display_name(path);
    let started = Instant::now();
    let (verdict, detail) = match std::fs::read_to_string(path) {
        Err(e) => (
            Verdict::Fail(format!("cannot read the script: {e}")),
            String::new(),
        ),
        Ok(text) => match skip_reason(&text) {
            Some(why) => (Verdict::Skipped(why), String::new()),
            None => judge(path, &name, &text, opts),
        },
    };
    FileResult {
        name,
        verdict,
        detail,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Runs one script and compares its output with its snapshot.
fn judge(path: &Path, name: &str, text: &str, opts: &Options) -> (Verdict, String) {
    let output = SharedOutput::default();
    let mut interp = Interp::new(Box::new(output.clone()));
    if let Some(limit) = opts.timeout {
        interp.limit_time(limit);
    }
    if let Err(diags) = interp.run(name, text, Some(path)) {
        return (
            Verdict::Fail("the script stopped with an error".into()),
            interp.render(&diags, false),
        );
    }
    if let Some(code @ 1..) = interp.exit_code() {
        return (
            Verdict::Fail(format!("the script called exit({code})")),
            String::new(),
        );
    }
    let actual = output.text();
    let snap_file = snap_path(path);
    let proposal = new_snap_path(path);
    let existing = match std::fs::read_to_string(&snap_file) {
        Ok(t) => match Snap::parse(&t) {
            Ok(s) => Some(s),
            Err(e) if !opts.update => {
                return (
                    Verdict::Fail(format!("{}: {e}", snap_file.display())),
                    String::new(),
                )
            }
            Err(_) => None,
        },
        Err(_) => None,
    };
    let tol = Tolerance {
        rtol: existing
            .as_ref()
            .and_then(|s| s.rtol)
            .or(opts.rtol)
            .unwrap_or(Tolerance::default().rtol),
        atol: existing
            .as_ref()
            .and_then(|s| s.atol)
            .or(opts.atol)
            .unwrap_or(Tolerance::default().atol),
    };
    let diff = existing
        .as_ref()
        .map(|s| diff::report(&actual, &s.output, &tol));
    let fresh = || {
        let (rtol, atol) = existing.as_ref().map_or((None, None), |s| (s.rtol, s.atol));
        Snap::new(name, actual.clone(), rtol, atol).render()
    };
    match diff {
        Some(None) => {
            if opts.update {
                let _ = std::fs::remove_file(&proposal);
            }
            (Verdict::Pass, String::new())
        }
        _ if opts.update => match write_file(&snap_file, &fresh()) {
            Ok(()) => {
                let _ = std::fs::remove_file(&proposal);
                (Verdict::Updated, String::new())
            }
            Err(e) => (
                Verdict::Fail(format!("cannot write {}: {e}", snap_file.display())),
                String::new(),
            ),
        },
        found => {
            let (message, mut detail) = match found {
                Some(Some(report)) => ("output differs from the snapshot".to_string(), report),
                _ => ("no snapshot".to_string(), String::new()),
            };
            if !opts.ci && !opts.check {
                match write_file(&proposal, &fresh()) {
                    Ok(()) => detail.push_str(&format!(
                        "wrote {} (review it, then run `tsr test --update` to accept)\n",
                        proposal.display()
                    )),
                    Err(e) => {
                        detail.push_str(&format!("cannot write {}: {e}\n", proposal.display()))
                    }
                }
            }
            (Verdict::Fail(message), detail)
        }
    }
}

/// Snapshots and reports are replaced whole (temp file + rename): an interrupted run
/// never leaves half a file behind.
fn write_file(path: &Path, text: &str) -> std::io::Result<()> {
    crate::io::write_atomically(path, |w| w.write_all(text.as_bytes()))
}

fn human_lines(r: &FileResult) -> String {
    let head = match &r.verdict {
        Verdict::Pass => format!("PASS {}", r.name),
        Verdict::Updated => format!("UPDATED {}", r.name),
        Verdict::Skipped(why) if why.is_empty() => format!("SKIP {}", r.name),
        Verdict::Skipped(why) => format!("SKIP {} ({why})", r.name),
        Verdict::Fail(msg) => format!("FAIL {}: {msg}", r.name),
    };
    let mut s = format!("{head}\n");
    for line in r.detail.lines() {
        s.push_str(&format!("  {line}\n"));
    }
    s
}

fn junit_cases(results: &[FileResult]) -> Vec<Case> {
    results
        .iter()
        .map(|r| Case {
            name: r.name.clone(),
            seconds: r.seconds,
            outcome: match &r.verdict {
                Verdict::Pass | Verdict::Updated => CaseOutcome::Passed,
                Verdict::Skipped(why) => CaseOutcome::Skipped(why.clone()),
                Verdict::Fail(msg) => CaseOutcome::Failed {
                    message: msg.clone(),
                    detail: r.detail.clone(),
                },
            },
        })
        .collect()
}

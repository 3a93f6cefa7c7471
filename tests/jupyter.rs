//! The Jupyter kernel, driven by the real Jupyter client. A test of our wire code
//! against itself would only show it agrees with itself; this shows it agrees with
//! Jupyter. `tests/jupyter/drive_kernel.py` installs the kernelspec with `tsr jupyter
//! install`, starts `tsr kernel` through jupyter_client's KernelManager exactly as
//! Jupyter does, checks the protocol item by item (execute, errors, completion,
//! inspection, interrupts by signal and by message, forged signatures, shutdown, the
//! parent dying) and runs examples/tour.ipynb with nbclient.
//!
//! Python comes from `$TSR_JUPYTER_PYTHON` (which must have the packages of
//! tests/jupyter/requirements.txt) or else from a venv made once, with those pinned
//! versions, under target/tmp/jupyter-venv. Without python3, venv or PyPI the test is
//! skipped with a note, except in CI (`CI` set), where it fails.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The driver stops itself after 170 s; this is the backstop.
const DRIVE_TIMEOUT: Duration = Duration::from_secs(240);
/// Making the venv and installing the pinned packages (downloads on the first run).
const SETUP_TIMEOUT: Duration = Duration::from_secs(600);

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "false" | "0"))
}

/// Runs `cmd` with stdout and stderr going to `log`, killing it after `timeout`.
/// Ok(log text) when it exits 0; Err(what went wrong, then the log) otherwise.
fn run_logged(cmd: &mut Command, log: &Path, timeout: Duration) -> Result<String, String> {
    let what = format!("{cmd:?}");
    let file = File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err_file = file
        .try_clone()
        .map_err(|e| format!("{}: {e}", log.display()))?;
    // A file, not a pipe: a kernel the driver leaves behind cannot keep us waiting
    // for an end of file.
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err_file))
        .spawn()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(format!("waiting for {what}: {e}")),
        }
    };
    let text = fs::read_to_string(log).unwrap_or_default();
    match status {
        Some(s) if s.success() => Ok(text),
        Some(s) => Err(format!("{what} failed ({s}):\n{text}")),
        None => Err(format!(
            "{what} was killed after {} s:\n{text}",
            timeout.as_secs()
        )),
    }
}

/// True when `python` can import the client libraries.
fn has_packages(python: &Path, log: &Path) -> bool {
    let mut cmd = Command::new(python);
    cmd.args(["-c", "import jupyter_client, nbclient, nbformat"]);
    run_logged(&mut cmd, log, Duration::from_secs(60)).is_ok()
}

/// The Python to drive the kernel with, or why there is none.
fn python() -> Result<PathBuf, String> {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    fs::create_dir_all(tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let log = tmp.join("jupyter-setup.log");

    if let Some(python) = std::env::var_os("TSR_JUPYTER_PYTHON") {
        let python = PathBuf::from(python);
        // Chosen on purpose, so a broken one is an error, never a skip.
        assert!(
            has_packages(&python, &log),
            "TSR_JUPYTER_PYTHON={} cannot import jupyter_client, nbclient and nbformat \
             (pip install -r tests/jupyter/requirements.txt):\n{}",
            python.display(),
            fs::read_to_string(&log).unwrap_or_default()
        );
        return Ok(python);
    }

    let venv = tmp.join("jupyter-venv");
    let bin = if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    };
    let requirements = Path::new(ROOT).join("tests/jupyter/requirements.txt");
    let wanted = fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    // The venv is reused while it has exactly these pins.
    let stamp = venv.join("tsr-requirements.txt");
    if bin.exists()
        && fs::read_to_string(&stamp).is_ok_and(|s| s == wanted)
        && has_packages(&bin, &log)
    {
        return Ok(bin);
    }

    let _ = fs::remove_dir_all(&venv);
    let mut make = Command::new("python3");
    make.arg("-m").arg("venv").arg(&venv);
    run_logged(&mut make, &log, SETUP_TIMEOUT)?;
    let mut install = Command::new(&bin);
    install
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-input",
        ])
        .args(["--retries", "2", "--timeout", "30", "-r"])
        .arg(&requirements);
    if let Err(e) = run_logged(&mut install, &log, SETUP_TIMEOUT) {
        // Half-installed: make it afresh next time.
        let _ = fs::remove_dir_all(&venv);
        return Err(e);
    }
    fs::write(&stamp, &wanted).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(bin)
}

#[test]
fn jupyter_client_drives_the_kernel() {
    let python = match python() {
        Ok(python) => python,
        Err(why) if in_ci() => panic!("the Jupyter kernel test cannot run: {why}"),
        Err(why) => {
            eprintln!(
                "skipped: the Jupyter kernel test needs python3 with venv and PyPI, or \
                 TSR_JUPYTER_PYTHON set to a Python with tests/jupyter/requirements.txt:\n{why}"
            );
            return;
        }
    };
    let log = Path::new(env!("CARGO_TARGET_TMPDIR")).join("jupyter-drive.log");
    let mut drive = Command::new(&python);
    drive
        .arg(Path::new(ROOT).join("tests/jupyter/drive_kernel.py"))
        .arg(env!("CARGO_BIN_EXE_tsr"))
        .env("PYTHONUNBUFFERED", "1")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("NO_COLOR", "1")
        .current_dir(env!("CARGO_TARGET_TMPDIR"));
    match run_logged(&mut drive, &log, DRIVE_TIMEOUT) {
        Ok(output) => println!("{output}"),
        Err(report) => panic!(
            "drive_kernel.py failed (python {}):\n{report}",
            python.display()
        ),
    }
}

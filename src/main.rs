//! The `tsr` command line: picks the REPL, a script, `-e` code, `tsr test`,
//! `tsr inspect`, or the Jupyter kernel and its installer.
//! No language or tensor logic lives here.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, Subcommand};
use tsr::diag::{Diagnostic, SourceMap};
use tsr::interp::Interp;
use tsr::kernels::isa::{self, Isa};
use tsr::runtime::text_size::display_checked;
use tsr::runtime::Value;
use tsr::span::Span;

#[derive(clap::Parser)]
#[command(
    name = "tsr",
    version,
    about = "A tensor REPL and scripting language",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Run CODE and print the value of its last expression (unless none); the
    /// arguments after it are the script's, returned by args()
    #[arg(short = 'e', value_name = "CODE", allow_hyphen_values = true)]
    code: Option<String>,
    /// Worker threads for kernels (also TSR_NUM_THREADS); results do not depend on it
    #[arg(long, value_name = "N", global = true)]
    threads: Option<usize>,
    /// Largest tensor tsr may allocate, e.g. 8GiB (also TSR_MAX_MEMORY; default: 3/4 of RAM)
    #[arg(long, value_name = "SIZE", global = true, value_parser = memory_size)]
    max_memory: Option<usize>,
    /// Stop a script (in `tsr test`: each script) that runs longer than SECONDS
    #[arg(long, value_name = "SECONDS", global = true, value_parser = seconds)]
    timeout: Option<Duration>,
    #[command(subcommand)]
    command: Option<Command>,
    /// Script to run (reads stdin when it is not a terminal and no file is given)
    file: Option<PathBuf>,
    /// Arguments for the script, returned by args()
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a script
    Run {
        file: PathBuf,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Run scripts and compare their output with X.tsr.snap, numbers within a tolerance
    Test {
        /// Scripts or directories (searched recursively for *.tsr); default: .
        paths: Vec<PathBuf>,
        /// Accept the current output: write or overwrite the snapshots
        #[arg(long, conflicts_with = "check")]
        update: bool,
        /// Never write any file (no .snap.new proposals)
        #[arg(long)]
        check: bool,
        /// Relative tolerance for numbers (default 1e-5; a snapshot header may override)
        #[arg(long, value_name = "R", value_parser = non_negative)]
        rtol: Option<f64>,
        /// Absolute tolerance for numbers (default 1e-8; a snapshot header may override)
        #[arg(long, value_name = "A", value_parser = non_negative)]
        atol: Option<f64>,
        /// Report format
        #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
        format: ReportFormat,
        /// Write the JUnit report to FILE (with --format junit)
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Print the tensors (name, type, shape, bytes) and metadata of a .gguf,
    /// .safetensors, .npz or .npy file
    Inspect { file: PathBuf },
    /// Run as a Jupyter kernel (Jupyter starts this; see `tsr jupyter install`)
    Kernel {
        /// The connection file Jupyter wrote
        #[arg(short = 'f', value_name = "CONNECTION_FILE")]
        connection_file: PathBuf,
    },
    /// Jupyter integration
    Jupyter {
        #[command(subcommand)]
        action: JupyterAction,
    },
}

#[derive(Subcommand)]
enum JupyterAction {
    /// Write the tsr kernelspec, so that Jupyter lists a "tsr" kernel
    Install {
        /// Into the user's Jupyter data directory (the default)
        #[arg(long, conflicts_with = "prefix")]
        user: bool,
        /// Into PREFIX/share/jupyter (e.g. a virtual environment's prefix)
        #[arg(long, value_name = "PREFIX")]
        prefix: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
    Human,
    Junit,
}

fn memory_size(s: &str) -> Result<usize, String> {
    tsr::tensor::budget::parse_size(s)
        .ok_or_else(|| format!("expected a size such as 512MiB or 16GiB, got \"{s}\""))
}

fn seconds(s: &str) -> Result<Duration, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v < 1e9 => Ok(Duration::from_secs_f64(v)),
        _ => Err(format!(
            "expected a positive number of seconds, got \"{s}\""
        )),
    }
}

fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected a non-negative number, got \"{s}\"")),
    }
}

/// Where the interpreter's deep recursion (nested expressions, user recursion) runs.
const INTERPRETER_STACK: usize = 512 * 1024 * 1024;

/// Parses the command line. An argument before a subcommand's name makes that
/// name a script argument (`tsr f.tsr test`), except the global options:
/// `tsr --threads 2 test DIR` runs `tsr test` with two threads.
fn parse_cli(isa: Isa) -> Cli {
    let args: Vec<OsString> = std::env::args_os().collect();
    // `--version` names the kernels on a second line (LANGUAGE.md, "Kernels and ISA").
    let version = format!("{}\nkernels: {}", env!("CARGO_PKG_VERSION"), isa.name());
    let cmd = Cli::command().version(&*version.leak());
    let first = first_after_global_options(&cmd, &args);
    let names_subcommand = args
        .get(first)
        .and_then(|a| a.to_str())
        .is_some_and(|a| a == "help" || cmd.find_subcommand(a).is_some());
    let matches = cmd
        .args_conflicts_with_subcommands(!names_subcommand)
        .get_matches_from(args);
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// The index of the first argument that is not a global option or its value.
fn first_after_global_options(cmd: &clap::Command, args: &[OsString]) -> usize {
    let globals: Vec<&str> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .filter_map(|a| a.get_long())
        .collect();
    let mut i = 1;
    while let Some(option) = args
        .get(i)
        .and_then(|a| a.to_str())
        .and_then(|a| a.strip_prefix("--"))
    {
        // Every global option takes a value: `--threads 2` or `--threads=2`.
        let (name, step) = option.split_once('=').map_or((option, 2), |(n, _)| (n, 1));
        if !globals.contains(&name) {
            break;
        }
        i += step;
    }
    i
}

fn main() -> ExitCode {
    // TSR_ISA is checked before anything else so that a bad value is a usage error even
    // for `--version`, and no kernel ever runs under a cap that was not understood.
    if let Err(msg) = isa::requested() {
        eprintln!("tsr: {msg}");
        return ExitCode::from(2);
    }
    let cli = parse_cli(Isa::detect());
    let threads = match thread_count(cli.threads).and_then(|n| {
        configure_memory(cli.max_memory)?;
        Ok(n)
    }) {
        Ok(n) => n,
        Err(msg) => {
            eprintln!("tsr: {msg}");
            return ExitCode::from(2);
        }
    };
    // A panic is a bug; the interpreter turns it into a diagnostic (and the REPL goes
    // on), so Rust's own "panicked at" report would only repeat it.
    std::panic::set_hook(Box::new(|_| {}));
    let worker = std::thread::Builder::new()
        .name("tsr".into())
        .stack_size(INTERPRETER_STACK)
        .spawn(move || match start_kernel_threads(threads, &cli.command) {
            Ok(()) => run(cli),
            Err(msg) => {
                eprintln!("tsr: {msg}");
                2
            }
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => ExitCode::from(code),
        _ => {
            eprintln!("tsr: internal error (the interpreter thread stopped unexpectedly)");
            ExitCode::from(1)
        }
    }
}

/// More threads than this only slows the start (each has its own stack) on any machine
/// tsr runs on.
const MAX_THREADS: usize = 1024;

/// `--threads` or TSR_NUM_THREADS, checked; `None` leaves the choice to rayon (the
/// number of CPUs, or RAYON_NUM_THREADS).
fn thread_count(flag: Option<usize>) -> Result<Option<usize>, String> {
    let n = flag_or_env(flag, "TSR_NUM_THREADS", |v| {
        v.parse::<usize>()
            .map_err(|_| format!("TSR_NUM_THREADS must be a positive integer, got \"{v}\""))
    })?;
    match n {
        Some(n) if !(1..=MAX_THREADS).contains(&n) => Err(format!(
            "--threads must be between 1 and {MAX_THREADS}, got {n}"
        )),
        _ => Ok(n),
    }
}

/// Starts the kernels' thread pool. Running a script or the REPL, the calling
/// (interpreter) thread becomes one of its workers: a parallel kernel then runs its
/// first chunks right here instead of handing all of them to other threads and
/// sleeping, and with one thread it runs inline with no thread switch at all. `tsr test`
/// keeps separate workers: its scripts run on threads of their own while this thread
/// waits for them, and a worker that waits would never take its share.
fn start_kernel_threads(n: Option<usize>, command: &Option<Command>) -> Result<(), String> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(n.unwrap_or(0));
    let pool = match command {
        Some(Command::Test { .. }) => pool,
        _ => pool.use_current_thread(),
    };
    pool.build_global()
        .map_err(|e| format!("cannot start the kernel threads: {e}"))
}

fn configure_memory(flag: Option<usize>) -> Result<(), String> {
    tsr::kernels::alloc::reuse_freed_buffers();
    let limit = flag_or_env(flag, "TSR_MAX_MEMORY", |v| {
        memory_size(v).map_err(|e| format!("TSR_MAX_MEMORY: {e}"))
    })?;
    if let Some(limit) = limit {
        tsr::tensor::budget::set_limit(limit);
    }
    Ok(())
}

/// The flag's value, else the environment variable's when it is set and not empty.
fn flag_or_env<T>(
    flag: Option<T>,
    var: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, String> {
    if flag.is_some() {
        return Ok(flag);
    }
    match std::env::var(var) {
        Ok(v) if !v.is_empty() => parse(&v).map(Some),
        _ => Ok(None),
    }
}

/// `tsr jupyter install`: the user's data directory unless a prefix is given.
fn jupyter_install(prefix: Option<PathBuf>) -> u8 {
    let target = match prefix {
        Some(prefix) => tsr::jupyter::Target::Prefix(prefix),
        None => tsr::jupyter::Target::User,
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("tsr jupyter install: cannot find this executable: {e}");
            return 2;
        }
    };
    match tsr::jupyter::install(&target, &exe) {
        Ok(dir) => {
            println!("installed the tsr kernelspec in {}", dir.display());
            0
        }
        Err(e) => {
            eprintln!("tsr jupyter install: {e}");
            1
        }
    }
}

fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn run(cli: Cli) -> u8 {
    match cli.command {
        Some(Command::Run { file, args }) => run_file(&file, args, cli.timeout),
        Some(Command::Test {
            paths,
            update,
            check,
            rtol,
            atol,
            format,
            output,
        }) => {
            if output.is_some() && matches!(format, ReportFormat::Human) {
                eprintln!("tsr test: --output writes a JUnit report; add --format junit");
                return 2;
            }
            let opts = tsr::testing::Options {
                paths,
                update,
                check,
                ci: tsr::testing::ci_from_env(),
                rtol,
                atol,
                format: match format {
                    ReportFormat::Human => tsr::testing::Format::Human,
                    ReportFormat::Junit => tsr::testing::Format::Junit,
                },
                output,
                timeout: cli.timeout,
            };
            let mut out = std::io::stdout();
            match tsr::testing::run(&opts, &mut out) {
                Ok(true) => 0,
                Ok(false) => 1,
                Err(msg) => {
                    eprintln!("tsr test: {msg}");
                    2
                }
            }
        }
        Some(Command::Inspect { file }) => inspect(&file),
        Some(Command::Kernel { connection_file }) => tsr::jupyter::run_kernel(&connection_file),
        Some(Command::Jupyter {
            action: JupyterAction::Install { user: _, prefix },
        }) => jupyter_install(prefix),
        None => match (cli.code, cli.file) {
            (Some(code), file) => {
                // After `-e CODE` the first argument is taken for the script file:
                // it is the first of the code's arguments.
                let mut args = cli.args;
                if let Some(first) = file {
                    match first.into_os_string().into_string() {
                        Ok(first) => args.insert(0, first),
                        Err(raw) => {
                            eprintln!("tsr: the argument {raw:?} is not valid UTF-8");
                            return 2;
                        }
                    }
                }
                run_code(&code, args, cli.timeout)
            }
            (None, Some(file)) => run_file(&file, cli.args, cli.timeout),
            (None, None) if std::io::stdin().is_terminal() => tsr::repl::run(),
            (None, None) => {
                let mut bytes = Vec::new();
                if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
                    eprintln!("tsr: cannot read stdin: {e}");
                    return 2;
                }
                match String::from_utf8(bytes) {
                    Ok(text) => run_script(&text, "<stdin>", None, cli.args, false, cli.timeout),
                    Err(e) => not_utf8("<stdin>", &e),
                }
            }
        },
    }
}

fn inspect(path: &Path) -> u8 {
    use tsr::builtins::inspect::InspectError;
    match tsr::builtins::inspect::inspect(path) {
        Ok(text) => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("tsr inspect: cannot write output: {e}");
                    1
                }
            }
        }
        Err(InspectError::Unsupported(msg)) => {
            eprintln!("tsr inspect: {msg}");
            2
        }
        Err(InspectError::File(msg)) => {
            eprintln!("tsr inspect: {msg}");
            1
        }
    }
}

fn run_file(path: &Path, args: Vec<String>, timeout: Option<Duration>) -> u8 {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("tsr: cannot read {}: {e}", path.display());
            return 2;
        }
    };
    let name = path.display().to_string();
    match String::from_utf8(bytes) {
        Ok(text) => run_script(&text, &name, Some(path), args, false, timeout),
        Err(e) => not_utf8(&name, &e),
    }
}

/// Reports a script that is not UTF-8 like any other error: at the first bad byte.
fn not_utf8(name: &str, e: &std::string::FromUtf8Error) -> u8 {
    let at = e.utf8_error().valid_up_to();
    let byte = e.as_bytes().get(at).copied().unwrap_or_default();
    // Up to `at` the lossy text is the file itself; the bad bytes became one U+FFFD.
    let mut sources = SourceMap::new();
    let id = sources.add(name, String::from_utf8_lossy(e.as_bytes()));
    let diag = Diagnostic::new(
        Span::new(id, at..at + char::REPLACEMENT_CHARACTER.len_utf8()),
        format!("the script is not valid UTF-8: byte 0x{byte:02x} at offset {at}"),
    )
    .with_note("tsr reads scripts as UTF-8 text");
    let text = tsr::diag::render(&[diag], &sources, stderr_color());
    let _ = std::io::stderr().write_all(text.as_bytes());
    1
}

fn run_code(code: &str, args: Vec<String>, timeout: Option<Duration>) -> u8 {
    run_script(code, "<-e>", None, args, true, timeout)
}

/// Runs a whole script; with `echo_last`, prints the last value like `print` would.
fn run_script(
    text: &str,
    name: &str,
    file: Option<&Path>,
    args: Vec<String>,
    echo_last: bool,
    timeout: Option<Duration>,
) -> u8 {
    let out = std::io::BufWriter::new(std::io::stdout());
    let mut interp = Interp::new(Box::new(out));
    interp.script_args = args;
    if let Some(limit) = timeout {
        interp.limit_time(limit);
    }
    let result = interp.run(name, text, file);
    if let Some(code) = interp.exit_code() {
        interp.flush();
        return code;
    }
    match result {
        Ok(v) => {
            if echo_last && !matches!(v, Value::None) {
                let line = match display_checked(&v, &interp.print_opts, "echo") {
                    Ok(text) => format!("{text}\n"),
                    Err(e) => format!("<{}: {e}>\n", v.describe()),
                };
                interp.write_out(&line);
            }
            interp.flush();
            0
        }
        Err(diags) => {
            interp.flush();
            let text = interp.render(&diags, stderr_color());
            let _ = std::io::stderr().write_all(text.as_bytes());
            1
        }
    }
}

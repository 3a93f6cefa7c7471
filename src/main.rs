//! The `tsr` command line: picks the REPL, a script, `-e` code, `tsr test` or
//! `tsr inspect`.
//! No language or tensor logic lives here.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use tsr::interp::{Interp, Value};

#[derive(Parser)]
#[command(
    name = "tsr",
    version,
    about = "A tensor REPL and scripting language",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Run CODE and print the value of its last expression (unless none)
    #[arg(short = 'e', value_name = "CODE", conflicts_with = "file")]
    code: Option<String>,
    /// Worker threads for kernels (also TSR_NUM_THREADS); results do not depend on it
    #[arg(long, value_name = "N", global = true)]
    threads: Option<usize>,
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
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
    Human,
    Junit,
}

fn non_negative(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("expected a non-negative number, got \"{s}\"")),
    }
}

/// Where the interpreter's deep recursion (nested expressions, user recursion) runs.
const INTERPRETER_STACK: usize = 512 * 1024 * 1024;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(msg) = configure_threads(cli.threads) {
        eprintln!("tsr: {msg}");
        return ExitCode::from(2);
    }
    // A panic is a bug; the interpreter turns it into a diagnostic (and the REPL goes
    // on), so Rust's own "panicked at" report would only repeat it.
    std::panic::set_hook(Box::new(|_| {}));
    let worker = std::thread::Builder::new()
        .name("tsr".into())
        .stack_size(INTERPRETER_STACK)
        .spawn(move || run(cli));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => ExitCode::from(code),
        _ => {
            eprintln!("tsr: internal error (the interpreter thread stopped unexpectedly)");
            ExitCode::from(1)
        }
    }
}

fn configure_threads(flag: Option<usize>) -> Result<(), String> {
    let n =
        match flag {
            Some(n) => Some(n),
            None => match std::env::var("TSR_NUM_THREADS") {
                Ok(v) if !v.is_empty() => Some(v.parse::<usize>().map_err(|_| {
                    format!("TSR_NUM_THREADS must be a positive integer, got \"{v}\"")
                })?),
                _ => None,
            },
        };
    if let Some(n) = n {
        if n == 0 {
            return Err("--threads must be at least 1".into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| format!("cannot start {n} threads: {e}"))?;
    }
    Ok(())
}

fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn run(cli: Cli) -> u8 {
    match cli.command {
        Some(Command::Run { file, args }) => run_file(&file, args),
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
        None => match (cli.code, cli.file) {
            (Some(code), _) => run_code(&code, cli.args),
            (None, Some(file)) => run_file(&file, cli.args),
            (None, None) if std::io::stdin().is_terminal() => tsr::repl::run(),
            (None, None) => {
                let mut text = String::new();
                if let Err(e) = std::io::stdin().read_to_string(&mut text) {
                    eprintln!("tsr: cannot read stdin: {e}");
                    return 2;
                }
                run_script(&text, "<stdin>", None, cli.args, false)
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

fn run_file(path: &Path, args: Vec<String>) -> u8 {
    match std::fs::read_to_string(path) {
        Ok(text) => run_script(&text, &path.display().to_string(), Some(path), args, false),
        Err(e) => {
            eprintln!("tsr: cannot read {}: {e}", path.display());
            2
        }
    }
}

fn run_code(code: &str, args: Vec<String>) -> u8 {
    run_script(code, "<-e>", None, args, true)
}

/// Runs a whole script; with `echo_last`, prints the last value like `print` would.
fn run_script(
    text: &str,
    name: &str,
    file: Option<&Path>,
    args: Vec<String>,
    echo_last: bool,
) -> u8 {
    let out = std::io::BufWriter::new(std::io::stdout());
    let mut interp = Interp::new(Box::new(out));
    interp.script_args = args;
    match interp.run(name, text, file) {
        Ok(v) => {
            if echo_last && !matches!(v, Value::None) {
                let line = format!("{}\n", v.display(&interp.print_opts));
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

//! The `tsr` command line: picks the REPL, a script, `-e` code or `tsr test`.
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
}

/// Where the interpreter's deep recursion (nested expressions, user recursion) runs.
const INTERPRETER_STACK: usize = 512 * 1024 * 1024;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(msg) = configure_threads(cli.threads) {
        eprintln!("tsr: {msg}");
        return ExitCode::from(2);
    }
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

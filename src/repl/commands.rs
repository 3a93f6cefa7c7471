//! Meta commands: lines starting with `:` (`:help`, `:vars`, `:time`, `:load`,
//! `:reset`, `:set`, `:quit`). Each returns the text to show; nothing here reads the
//! terminal, so the commands are tested without one.

use std::time::{Duration, Instant};

use comfy_table::Table;

use crate::builtins;
use crate::interp::Interp;
use crate::runtime::value::type_line;
use crate::runtime::Value;

use super::keyword_help::keyword_help;

/// What the REPL does after a command.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// Show this text (stdout) and read the next line.
    Show(String),
    /// Show this text on stderr (a mistake in the command) and read the next line.
    Error(String),
    /// Start a fresh session.
    Reset,
    Quit,
}

const OVERVIEW: &str = "\
Type an expression or statement and press Enter; open brackets continue on the next
line (a blank line submits). Tab completes names, methods after `.`, dict keys and file
paths; Up/Down walk the history; Ctrl-C stops a running evaluation (variables are
kept) or clears the line; Ctrl-D leaves.

Commands:
  :help            this overview
  :help NAME       a builtin's signature and description (or a variable's type)
  :vars            the session's variables as a table
  :time EXPR       runs EXPR repeatedly for about a second: mean ± std, min, runs
  :load FILE       runs a script in this session
  :reset           forgets every variable
  :set NAME VALUE  print options: precision, threshold, edgeitems, linewidth, suppress
  :quit            leaves (also :q, Ctrl-D)

`_` is the last value shown. The full reference is lang/SPEC.md.
";

/// Runs the command on `line` (which starts with `:`).
pub fn run(line: &str, interp: &mut Interp, color: bool) -> Outcome {
    let line = line.trim();
    let (name, rest) = match line.split_once(char::is_whitespace) {
        Some((n, r)) => (n, r.trim()),
        None => (line, ""),
    };
    match name {
        ":q" | ":quit" | ":exit" => Outcome::Quit,
        ":h" | ":help" if rest.is_empty() => Outcome::Show(OVERVIEW.to_string()),
        ":h" | ":help" => help(rest, interp),
        ":vars" => Outcome::Show(vars(interp)),
        ":time" if rest.is_empty() => Outcome::Error("usage: :time EXPR\n".into()),
        ":time" => time(rest, interp, color),
        ":load" if rest.is_empty() => Outcome::Error("usage: :load FILE\n".into()),
        ":load" => load(rest, interp, color),
        ":reset" => Outcome::Reset,
        ":set" => set(rest, interp, color),
        _ => Outcome::Error(format!("unknown command `{name}`; :help lists them\n")),
    }
}

/// `:help NAME`: a builtin's signature and doc (with the example its doc gives), a
/// keyword's forms, or what a variable is.
fn help(name: &str, interp: &Interp) -> Outcome {
    if let Some(text) = help_text(name, interp) {
        return Outcome::Show(text);
    }
    let close: Vec<&str> = builtins::all()
        .iter()
        .map(|b| b.name)
        .filter(|n| n.contains(name))
        .collect();
    let mut msg = format!("no builtin or variable named `{name}`");
    if !close.is_empty() {
        msg += &format!("; related: {}", close.join(", "));
    }
    Outcome::Error(msg + "\n")
}

/// The help of a builtin, a keyword or a variable named `name` (a notebook's
/// inspection shows it too); none for other names.
pub fn help_text(name: &str, interp: &Interp) -> Option<String> {
    if let Some(b) = builtins::lookup(name) {
        return Some(format!("{}\n\n{}\n", b.signature(), b.doc));
    }
    if let Some(text) = keyword_help(name) {
        return Some(format!("{text}\n"));
    }
    let v = interp.globals.lookup(name)?;
    Some(format!("{name}: {}\n", v.describe()))
}

/// `:vars`: one row per variable of the session, in definition order. The last column
/// says whether a tensor owns its data or views another's; for other values it shows
/// the value.
pub fn vars(interp: &Interp) -> String {
    let entries = interp.globals.entries();
    if entries.is_empty() {
        return "no variables\n".to_string();
    }
    let mut table = Table::new();
    table.set_header(vec!["name", "kind", "dtype", "shape", "bytes", "data"]);
    for (name, v) in entries {
        let row = match &v {
            Value::Tensor(t) => {
                let line = type_line(t);
                let shape = &line[line.find('[').unwrap_or(0)..];
                vec![
                    "tensor".to_string(),
                    t.dtype().to_string(),
                    shape.to_string(),
                    t.nbytes().to_string(),
                    if t.owns_data() { "owner" } else { "view" }.to_string(),
                ]
            }
            Value::Quant(q) => {
                let line = q.type_line();
                let shape = &line[line.find('[').unwrap_or(0)..];
                vec![
                    "quantized".to_string(),
                    q.q.qtype.name().to_string(),
                    shape.to_string(),
                    q.q.nbytes().to_string(),
                    "owner".to_string(),
                ]
            }
            other => {
                let text = other.repr(&interp.print_opts);
                let short = match text.char_indices().nth(40) {
                    Some((i, _)) => format!("{}…", &text[..i]),
                    None => text,
                };
                vec![
                    other.kind().to_string(),
                    String::new(),
                    String::new(),
                    String::new(),
                    short,
                ]
            }
        };
        let mut cells = vec![name.to_string()];
        cells.extend(row);
        table.add_row(cells);
    }
    format!("{table}\n")
}

/// `:time EXPR`: runs EXPR until about a second has passed (at least 3 runs, at most
/// 1,000,000), reporting per-run mean ± standard deviation, the minimum and the count.
fn time(code: &str, interp: &mut Interp, color: bool) -> Outcome {
    let program = match interp.parse("<:time>", code, None) {
        Ok(p) => p,
        Err(diags) => return Outcome::Error(interp.render(&diags, color)),
    };
    let budget = Duration::from_secs(1);
    let started = Instant::now();
    let mut samples: Vec<f64> = Vec::new();
    while samples.len() < 3 || (started.elapsed() < budget && samples.len() < 1_000_000) {
        let t = Instant::now();
        if let Err(diags) = interp.exec(&program) {
            return Outcome::Error(interp.render(&diags, color));
        }
        samples.push(t.elapsed().as_secs_f64());
    }
    Outcome::Show(format!("{}\n", timing_summary(&samples)))
}

/// `1.23 ms ± 0.05 ms per run (min 1.18 ms, 812 runs)`.
pub fn timing_summary(samples: &[f64]) -> String {
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let var = samples.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / n;
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    format!(
        "{} ± {} per run (min {}, {} runs)",
        seconds(mean),
        seconds(var.sqrt()),
        seconds(min),
        samples.len()
    )
}

/// A duration in the unit that keeps 1–3 digits before the point.
fn seconds(s: f64) -> String {
    let (value, unit) = if s >= 1.0 {
        (s, "s")
    } else if s >= 1e-3 {
        (s * 1e3, "ms")
    } else if s >= 1e-6 {
        (s * 1e6, "µs")
    } else {
        (s * 1e9, "ns")
    };
    format!("{value:.3} {unit}")
}

fn load(path: &str, interp: &mut Interp, color: bool) -> Outcome {
    let path = path.trim_matches(|c| c == '"' || c == '\'');
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Outcome::Error(format!("cannot read '{path}': {e}\n")),
    };
    match interp.run(path, &text, Some(std::path::Path::new(path))) {
        Ok(_) => Outcome::Show(String::new()),
        Err(diags) => Outcome::Error(interp.render(&diags, color)),
    }
}

/// `:set NAME VALUE`: a print option, as `set_printoptions(NAME=VALUE)` would set it.
fn set(args: &str, interp: &mut Interp, color: bool) -> Outcome {
    const OPTIONS: &[&str] = &[
        "precision",
        "threshold",
        "edgeitems",
        "linewidth",
        "suppress",
    ];
    let Some((name, value)) = args.split_once(char::is_whitespace) else {
        return Outcome::Error(format!("usage: :set NAME VALUE ({})\n", OPTIONS.join(", ")));
    };
    if name == "threads" {
        return Outcome::Error(format!(
            "the thread count is fixed for a session ({} now): start tsr with --threads N\n",
            crate::kernels::parallel::threads()
        ));
    }
    if !OPTIONS.contains(&name) {
        return Outcome::Error(format!(
            "unknown setting `{name}`; settings: {}, threads\n",
            OPTIONS.join(", ")
        ));
    }
    let code = format!("set_printoptions({name}={})", value.trim());
    match interp.run("<:set>", &code, None) {
        Ok(_) => Outcome::Show(String::new()),
        Err(diags) => Outcome::Error(interp.render(&diags, color)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::output::SharedOutput;

    fn session() -> Interp {
        Interp::new(Box::new(SharedOutput::default()))
    }

    fn shown(o: Outcome) -> String {
        match o {
            Outcome::Show(s) => s,
            other => panic!("expected output, got {other:?}"),
        }
    }

    #[test]
    fn help_names_a_builtin_signature() {
        let mut i = session();
        let text = shown(run(":help sum", &mut i, false));
        assert!(
            text.starts_with("sum(x, axis=none, keepdim=false)\n"),
            "{text}"
        );
        assert!(matches!(
            run(":help nosuch", &mut i, false),
            Outcome::Error(_)
        ));
        assert!(shown(run(":help", &mut i, false)).contains(":vars"));
    }

    #[test]
    fn vars_lists_tensors_and_scalars() {
        let mut i = session();
        i.run(
            "<t>",
            "let x = zeros([2, 3])\nlet v = x[:, 1]\nlet n = 4",
            None,
        )
        .unwrap();
        let text = shown(run(":vars", &mut i, false));
        for needle in ["x", "f32", "[2, 3]", "24", "owner", "view", "int"] {
            assert!(text.contains(needle), "{needle} missing in\n{text}");
        }
    }

    #[test]
    fn time_reports_runs_and_set_changes_print_options() {
        let mut i = session();
        let text = shown(run(":time 1 + 1", &mut i, false));
        assert!(text.contains(" ± ") && text.contains("runs)"), "{text}");
        shown(run(":set precision 3", &mut i, false));
        assert_eq!(i.print_opts.precision, 3);
        assert!(matches!(
            run(":set colour 3", &mut i, false),
            Outcome::Error(_)
        ));
        assert!(matches!(
            run(":set threads 3", &mut i, false),
            Outcome::Error(_)
        ));
        assert_eq!(run(":quit", &mut i, false), Outcome::Quit);
        assert_eq!(run(":reset", &mut i, false), Outcome::Reset);
    }

    #[test]
    fn help_and_vars_snapshots() {
        let mut i = session();
        insta::assert_snapshot!("help_sum", shown(run(":help sum", &mut i, false)));
        insta::assert_snapshot!("help_conv2d", shown(run(":help conv2d", &mut i, false)));
        i.run(
            "<t>",
            "let x = arange(12).reshape(3, 4).to(f32)\nlet col = x[:, 1]\nlet q = quantize(zeros([2, 256]), \"q8_0\")\nlet name = \"run-7\"\nfn f(a) { a }",
            None,
        )
        .unwrap();
        insta::assert_snapshot!("vars", shown(run(":vars", &mut i, false)));
    }

    #[test]
    fn durations_pick_a_unit() {
        assert_eq!(seconds(2.5), "2.500 s");
        assert_eq!(seconds(0.0125), "12.500 ms");
        assert_eq!(seconds(3e-6), "3.000 µs");
        assert_eq!(seconds(4e-8), "40.000 ns");
    }
}

//! The interpreter: values, scopes, the evaluator and modules.

mod assign;
mod attr;
mod binary;
mod bind;
mod call;
mod compare;
mod compound;
mod comprehension;
pub(crate) mod eval;
mod format_spec;
mod host;
mod index;
mod line;
mod literal;
mod loops;
pub(crate) mod modules;
mod names;
mod nesting;
pub mod output;
mod sequence_methods;
mod try_catch;
mod typed_literal;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::diag::{self, Diagnostic, ErrorKind, SourceMap};
use crate::kernels::interrupt;
use crate::runtime::{Display, Scope, Value};
use crate::span::{Span, SrcId};
use crate::syntax::ast::Program;
use crate::syntax::parser;
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;

pub use eval::Flow;
pub use modules::STDLIB;
pub use nesting::MAX_NESTING;

/// How many expressions pass between two looks at the step limit, the clock and
/// Ctrl-C (a few microseconds of work): the check per expression is one countdown.
const CHECK_EVERY: u64 = 64;

/// A front end's handler of rich output.
pub type DisplayHook = Box<dyn FnMut(Display<'_>)>;

/// One interpreter session: its sources, global scope, print options and output.
pub struct Interp {
    pub sources: SourceMap,
    pub globals: Rc<Scope>,
    pub print_opts: PrintOptions,
    pub script_args: Vec<String>,
    /// The session's random generator (`seed(n)`, `rand`, `randn`, ...).
    pub rng: RandomState,
    /// The last figure drawn by plot, hist or imshow (what savefig writes).
    pub figure: Option<crate::plot::Figure>,
    out: Box<dyn Write>,
    /// Where `eprint` writes (stderr unless a front end says otherwise).
    err: Box<dyn Write>,
    /// Shows figures and tables itself (a notebook front end), if set.
    display: Option<DisplayHook>,
    depth: usize,
    /// Evaluation levels in progress (see `nesting`).
    nesting: usize,
    /// The session before the running REPL line (see `line`).
    line: Option<line::LineStart>,
    /// Whether the last run was stopped by Ctrl-C or `--timeout`.
    stopped: bool,
    modules: modules::Modules,
    /// Directory of each source that came from a file, for relative imports.
    file_dirs: HashMap<SrcId, PathBuf>,
    /// Expressions the session may still evaluate past `countdown`; `None` is no limit.
    steps_left: Option<u64>,
    /// When a run must stop (`--timeout`), and the limit as given.
    deadline: Option<(Instant, Duration)>,
    /// Expressions left to evaluate before the next [`Interp::checkpoint`].
    countdown: u64,
    /// Set by the `exit` builtin during a call, taken right after it.
    exit_request: Option<u8>,
    /// The code the program ended with by `exit(code)`.
    exit_code: Option<u8>,
}

impl Interp {
    /// A fresh session writing `print` output to `out`.
    pub fn new(out: Box<dyn Write>) -> Interp {
        Interp {
            sources: SourceMap::new(),
            globals: Scope::globals(),
            print_opts: PrintOptions::default(),
            script_args: Vec::new(),
            rng: RandomState::default(),
            figure: None,
            out,
            err: Box::new(std::io::stderr()),
            display: None,
            depth: 0,
            nesting: 0,
            line: None,
            stopped: false,
            modules: modules::Modules::default(),
            file_dirs: HashMap::new(),
            steps_left: None,
            deadline: None,
            countdown: 0,
            exit_request: None,
            exit_code: None,
        }
    }

    /// Sends `eprint` output to `err` instead of stderr.
    pub fn set_err(&mut self, err: Box<dyn Write>) {
        self.err = err;
    }

    /// Lets a front end show figures and tables itself (see [`Display`]).
    pub fn set_display(&mut self, hook: DisplayHook) {
        self.display = Some(hook);
    }

    /// The code of the `exit(code)` that ended the last run, if one did. A run
    /// that exits returns `Ok(none)`; the caller ends the program (or the REPL)
    /// with this code.
    pub fn exit_code(&self) -> Option<u8> {
        self.exit_code
    }

    /// Limits the session to evaluating `steps` more expressions (each expression
    /// node counts one, a loop body once per iteration); past that, evaluation stops
    /// with an error. For embedders and fuzzing that must bound any program's run.
    pub fn limit_steps(&mut self, steps: u64) {
        self.steps_left = Some(steps);
        self.countdown = 0;
    }

    /// Stops evaluation with an error once `limit` has passed from now (`--timeout`).
    /// The clock is read after every operator and call: a single long kernel call
    /// finishes first.
    pub fn limit_time(&mut self, limit: Duration) {
        self.deadline = Some((Instant::now() + limit, limit));
    }

    /// Parses and runs `text` in the global scope; `file` is its path when it has one.
    /// Returns the value of the last statement, or every diagnostic (all syntax errors
    /// at once, or the one runtime error).
    pub fn run(
        &mut self,
        name: &str,
        text: &str,
        file: Option<&Path>,
    ) -> Result<Value, Vec<Diagnostic>> {
        let program = self.parse(name, text, file)?;
        self.exec(&program)
    }

    /// Parses `text` as a new source of this session, to be run (any number of times)
    /// with [`Interp::exec`].
    pub fn parse(
        &mut self,
        name: &str,
        text: &str,
        file: Option<&Path>,
    ) -> Result<Program, Vec<Diagnostic>> {
        let id = self.sources.add(name, text);
        if let Some(dir) = file.and_then(Path::parent) {
            self.file_dirs.insert(id, dir.to_path_buf());
        }
        parser::parse(text, id)
    }

    /// Runs a parsed program in the global scope. A panic (a bug in tsr) becomes a
    /// diagnostic over the whole program, so a session survives it.
    pub fn exec(&mut self, program: &Program) -> Result<Value, Vec<Diagnostic>> {
        let globals = self.globals.clone();
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.eval_stmts(&program.stmts, &globals)
        }));
        let _ = self.out.flush();
        match run {
            Ok(Err(Flow::Exit(code, _))) => {
                self.exit_code = Some(code);
                Ok(Value::None)
            }
            Ok(result) => result.map_err(|f| vec![f.into_diagnostic()]),
            Err(payload) => {
                // The panic skipped the code that unwinds these on the way out.
                self.depth = 0;
                self.nesting = 0;
                self.modules.forget_loading();
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                Err(vec![Diagnostic::new(
                    program.span,
                    format!("internal error: {what}"),
                )
                .with_note(
                    "this is a bug in tsr; the session's variables are kept",
                )])
            }
        }
    }

    /// Renders diagnostics against this session's sources.
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        diag::render(diags, &self.sources, color)
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }

    /// Writes text to this session's output (the REPL's echo).
    pub fn write_out(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    /// Counts one evaluation step, now and then stopping the evaluation with an error
    /// at `span` for the step limit, a `--timeout` or Ctrl-C.
    #[inline(always)]
    fn step(&mut self, span: Span) -> Result<(), Flow> {
        if self.countdown == 0 {
            self.checkpoint(span)?;
        }
        self.countdown -= 1;
        Ok(())
    }

    /// The countdown ran out: looks at the limits and Ctrl-C, then grants the next
    /// steps (no more than the step limit leaves).
    #[cold]
    fn checkpoint(&mut self, span: Span) -> Result<(), Flow> {
        if self.steps_left == Some(0) {
            return Err(Diagnostic::new(span, "the step limit was reached")
                .with_note("the session was limited to a number of evaluation steps")
                .with_kind(ErrorKind::Limit)
                .into());
        }
        self.check_stop(span)?;
        let grant = self
            .steps_left
            .map_or(CHECK_EVERY, |left| left.min(CHECK_EVERY));
        if let Some(left) = &mut self.steps_left {
            *left -= grant;
        }
        self.countdown = grant;
        Ok(())
    }

    /// A passed `--timeout` deadline or Ctrl-C: stops the evaluation with an error at
    /// `span`. Checked after every operator and call, so a slow kernel is the most a
    /// run overshoots its limit by.
    fn check_stop(&mut self, span: Span) -> Result<(), Flow> {
        if let Some((at, limit)) = self.deadline {
            if Instant::now() >= at {
                self.stopped = true;
                return Err(Diagnostic::new(
                    span,
                    format!(
                        "timed out: the run took longer than {} s",
                        limit.as_secs_f64()
                    ),
                )
                .with_note("hint: the limit is set by --timeout")
                .with_kind(ErrorKind::Timeout)
                .into());
            }
        }
        if interrupt::take() {
            self.stopped = true;
            return Err(Diagnostic::new(span, "interrupted")
                .with_kind(ErrorKind::Interrupt)
                .into());
        }
        Ok(())
    }
}

//! The interpreter: values, scopes, the evaluator and modules.

mod arith;
pub mod env;
pub mod eval;
mod format_spec;
mod literal;
mod modules;
pub mod output;
pub mod value;

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::diag::{self, Diagnostic, SourceMap};
use crate::syntax::{parser, Span, SrcId};
use crate::tensor::format::PrintOptions;
use crate::tensor::random::RandomState;

pub use env::Scope;
pub use eval::Flow;
pub use modules::STDLIB;
pub use value::Value;

/// One interpreter session: its sources, global scope, print options and output.
pub struct Interp {
    pub sources: SourceMap,
    pub globals: Rc<Scope>,
    pub print_opts: PrintOptions,
    pub script_args: Vec<String>,
    /// The session's random generator (`seed(n)`, `rand`, `randn`, ...).
    pub rng: RandomState,
    out: Box<dyn Write>,
    depth: usize,
    modules: modules::Modules,
    /// Directory of each source that came from a file, for relative imports.
    file_dirs: HashMap<SrcId, PathBuf>,
    interrupt: Arc<AtomicBool>,
}

impl Interp {
    /// A fresh session writing `print` output to `out`.
    pub fn new(out: Box<dyn Write>) -> Interp {
        Interp {
            sources: SourceMap::new(),
            globals: Scope::new(None),
            print_opts: PrintOptions::default(),
            script_args: Vec::new(),
            rng: RandomState::default(),
            out,
            depth: 0,
            modules: modules::Modules::default(),
            file_dirs: HashMap::new(),
            interrupt: Arc::new(AtomicBool::new(false)),
        }
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
        let globals = self.globals.clone();
        let result = self.run_in(name, text, file, &globals);
        let _ = self.out.flush();
        result
    }

    fn run_in(
        &mut self,
        name: &str,
        text: &str,
        file: Option<&Path>,
        scope: &Rc<Scope>,
    ) -> Result<Value, Vec<Diagnostic>> {
        let id = self.sources.add(name, text);
        if let Some(dir) = file.and_then(Path::parent) {
            self.file_dirs.insert(id, dir.to_path_buf());
        }
        let program = parser::parse(text, id)?;
        self.eval_stmts(&program.stmts, scope)
            .map_err(|f| vec![f.into_diagnostic()])
    }

    /// Renders diagnostics against this session's sources.
    pub fn render(&self, diags: &[Diagnostic], color: bool) -> String {
        diag::render(diags, &self.sources, color)
    }

    /// Setting this flag makes the running evaluation stop with an "interrupted" error.
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }

    /// Writes text to this session's output (the REPL's echo).
    pub fn write_out(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    fn check_interrupt(&self, span: Span) -> Result<(), Flow> {
        // A plain load first: an atomic swap on every node would cost more than the node.
        if self.interrupt.load(Ordering::Relaxed) && self.interrupt.swap(false, Ordering::Relaxed) {
            return Err(Diagnostic::new(span, "interrupted").into());
        }
        Ok(())
    }
}

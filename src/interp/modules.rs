//! `import "file.tsr" as m` and `use name` (stdlib modules compiled into the binary).
//! A module runs once in its own global scope; later imports share the result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::diag::Diagnostic;
use crate::span::Span;

use super::Interp;
use crate::runtime::value::Module;
use crate::runtime::Scope;

/// The standard library: name → source, embedded at build time.
pub const STDLIB: &[(&str, &str)] = &[
    ("stats", include_str!("../../stdlib/stats.tsr")),
    ("nn", include_str!("../../stdlib/nn.tsr")),
    ("optim", include_str!("../../stdlib/optim.tsr")),
];

#[derive(Default)]
pub struct Modules {
    loaded: HashMap<PathBuf, Rc<Module>>,
    /// Files being imported right now, to report import cycles.
    loading: Vec<PathBuf>,
}

impl Modules {
    /// Forgets the imports under way (after a panic cut them short).
    pub(super) fn forget_loading(&mut self) {
        self.loading.clear();
    }
}

impl Interp {
    pub(crate) fn import(&mut self, path: &str, span: Span) -> Result<Rc<Module>, Diagnostic> {
        let base = self
            .file_dirs
            .get(&span.src)
            .cloned()
            .unwrap_or_else(|| PathBuf::from("."));
        let full = base.join(path);
        let key = crate::io::check_file_access()
            .and_then(|()| full.canonicalize())
            .map_err(|e| {
                Diagnostic::new(span, format!("cannot import \"{path}\": {e}"))
                    .with_note(format!("looked for {}", full.display()))
            })?;
        if let Some(m) = self.modules.loaded.get(&key) {
            return Ok(m.clone());
        }
        if self.modules.loading.contains(&key) {
            return Err(Diagnostic::new(
                span,
                format!("import cycle: \"{path}\" is already being imported"),
            ));
        }
        let text = std::fs::read_to_string(&key)
            .map_err(|e| Diagnostic::new(span, format!("cannot read \"{path}\": {e}")))?;
        let name = Path::new(path)
            .file_stem()
            .map_or_else(|| path.to_string(), |s| s.to_string_lossy().into_owned());
        self.modules.loading.push(key.clone());
        let result = self.run_module(&name, &full.display().to_string(), &text, Some(&key), span);
        self.modules.loading.pop();
        let m = result?;
        self.modules.loaded.insert(key, m.clone());
        Ok(m)
    }

    pub(crate) fn use_stdlib(&mut self, name: &str, span: Span) -> Result<Rc<Module>, Diagnostic> {
        let key = PathBuf::from(format!("<stdlib>/{name}"));
        if let Some(m) = self.modules.loaded.get(&key) {
            return Ok(m.clone());
        }
        let Some((_, text)) = STDLIB.iter().find(|(n, _)| *n == name) else {
            let names: Vec<&str> = STDLIB.iter().map(|(n, _)| *n).collect();
            return Err(Diagnostic::new(
                span,
                format!("no standard library module named `{name}`"),
            )
            .with_note(format!("available: {}", names.join(", "))));
        };
        let m = self.run_module(name, &format!("<stdlib>/{name}.tsr"), text, None, span)?;
        self.modules.loaded.insert(key, m.clone());
        Ok(m)
    }

    fn run_module(
        &mut self,
        name: &str,
        display: &str,
        text: &str,
        file: Option<&Path>,
        span: Span,
    ) -> Result<Rc<Module>, Diagnostic> {
        let scope = Scope::globals();
        let imported_here =
            |d: Diagnostic| d.with_label(span, format!("while importing `{name}` here"));
        let program = self
            .parse(display, text, file)
            .map_err(|mut errs| imported_here(errs.remove(0)))?;
        self.eval_stmts(&program.stmts, &scope)
            .map_err(|f| imported_here(f.into_diagnostic()))?;
        Ok(Rc::new(Module {
            name: name.to_string(),
            scope,
        }))
    }
}

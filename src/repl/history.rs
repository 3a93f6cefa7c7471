//! The REPL's history file: read only when it is a regular file (a FIFO would
//! block the start and an endless device exhaust memory), appended to after
//! every line, and one warning when it cannot be written.

use std::path::{Path, PathBuf};

use rustyline::history::FileHistory;
use rustyline::Editor;

use super::helper::TsrHelper;

/// The history file of a session; `None` once writing it has failed.
pub struct History {
    path: Option<PathBuf>,
}

impl History {
    /// Loads the history at `path` into `editor` when it is a regular file (or
    /// does not exist yet); anything else is left alone, with a warning.
    pub fn open(editor: &mut Editor<TsrHelper, FileHistory>, path: Option<PathBuf>) -> History {
        let Some(path) = path else {
            return History { path: None };
        };
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => {
                let _ = editor.load_history(&path);
            }
            Ok(meta) => {
                eprintln!(
                    "tsr: the history file {} is {}, not a regular file; history is not kept",
                    path.display(),
                    crate::io::kind_name(meta.file_type())
                );
                return History { path: None };
            }
            Err(_) => {}
        }
        History { path: Some(path) }
    }

    /// Appends the new entries after every line, so a crash or a killed terminal
    /// loses nothing. rustyline's append locks the file and merges, so two
    /// sessions at once do not corrupt it. The first failure is reported and
    /// ends saving for the session.
    pub fn save(&mut self, editor: &mut Editor<TsrHelper, FileHistory>) {
        let Some(path) = &self.path else {
            return;
        };
        if let Err(e) = append(editor, path) {
            eprintln!(
                "tsr: cannot write the history file {}: {e}; history is not saved in this session",
                path.display()
            );
            self.path = None;
        }
    }
}

fn append(editor: &mut Editor<TsrHelper, FileHistory>, path: &Path) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            return Err(format!("it is {}", crate::io::kind_name(meta.file_type())))
        }
        _ => {}
    }
    editor.append_history(path).map_err(|e| e.to_string())
}

//! Whole text files and directories: `read_text`, `write_text`, `exists`, `list_dir`.

use std::path::Path;
use std::rc::Rc;

use super::io::path_err;
use super::Builtin;
use crate::io::{paths, text_file};
use crate::runtime::builtin;
use crate::runtime::value::Value;

pub const BUILTINS: &[Builtin] = &[
    builtin! {
        name: "read_text",
        doc: "The contents of a UTF-8 text file as a string.",
        fn(_, a; path: String) {
            let text = text_file::read_text(Path::new(&path), "read_text").map_err(|e| a.err(e))?;
            Ok(Value::str(&text))
        }
    },
    builtin! {
        name: "write_text",
        doc: "Writes the string s to a file (UTF-8, as is: no newline is added), atomically.",
        fn(_, a; path: String, s: String) {
            text_file::write_text(Path::new(&path), &s, "write_text")
                .map_err(|e| path_err(&a, e, &path))?;
            Ok(Value::None)
        }
    },
    builtin! {
        name: "exists",
        doc: "Whether a file or directory is at path (symlinks followed; a dangling one is false).",
        fn(_, a; path: String) {
            paths::exists(Path::new(&path)).map(Value::Bool).map_err(|e| a.err(e))
        }
    },
    builtin! {
        name: "list_dir",
        doc: "The names in a directory (not . and ..) as a tuple of strings, sorted.",
        fn(_, a; path: String) {
            let names = paths::list_dir(Path::new(&path)).map_err(|e| a.err(e))?;
            Ok(Value::Tuple(Rc::new(names.iter().map(|n| Value::str(n)).collect())))
        }
    },
];

//! What is at a path: `exists` and `list_dir`.

use std::fs;
use std::path::Path;

/// Whether something (a file, a directory, ...) is at `path`, following symlinks:
/// a dangling link or a path tsr may not look at is `false`, as in Python's
/// `os.path.exists`. An error only when file access is disabled.
pub fn exists(path: &Path) -> Result<bool, String> {
    super::check_file_access().map_err(|e| format!("exists: {e}"))?;
    Ok(fs::metadata(path).is_ok())
}

/// The names in the directory at `path` (not `.` and `..`), sorted by their
/// bytes so the order never depends on the file system. A name that is not
/// UTF-8 is an error: tsr strings are UTF-8, and a lossy name could not be opened.
pub fn list_dir(path: &Path) -> Result<Vec<String>, String> {
    let shown = path.display();
    let cannot = |e: std::io::Error| format!("list_dir: cannot list '{shown}': {e}");
    super::check_file_access().map_err(cannot)?;
    let mut names = Vec::new();
    for entry in fs::read_dir(path).map_err(cannot)? {
        let name = entry.map_err(cannot)?.file_name();
        match name.into_string() {
            Ok(name) => names.push(name),
            Err(raw) => {
                return Err(super::escaped(format!(
                    "list_dir: '{shown}' holds a name that is not UTF-8: '{}'",
                    raw.to_string_lossy()
                )))
            }
        }
    }
    names.sort();
    Ok(names)
}

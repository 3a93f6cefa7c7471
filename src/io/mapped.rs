//! Read-only memory maps of model and array files: the one place tsr maps a file.
//!
//! The OS gives no protection against the file changing while it is mapped: if
//! another process truncates or rewrites a mapped file, what tsr then reads is
//! undefined (a truncation typically kills the process with SIGBUS). Every loader
//! therefore validates the header against the map's length when it opens the file,
//! and tsr's own savers never write into an existing file: they replace it by
//! renaming a new one over it (`write_atomically`), which leaves existing maps of
//! the old file intact.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

/// Maps the whole file at `path` read-only. `format` prefixes the error messages
/// ("gguf", "safetensors", ...).
pub(crate) fn map_file(path: &Path, format: &str) -> Result<Mmap, String> {
    // The callers name the path in their own messages.
    let file = super::check_file_access()
        .and_then(|()| File::open(path))
        .map_err(|e| format!("{format}: cannot open the file: {e}"))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(format!("{format}: the path is a directory, not a file"));
    }
    // SAFETY: mapping a file is sound only while no one modifies or truncates it.
    // tsr never writes into a file in place (savers rename a new file over the old
    // one, so existing maps keep the old contents); another process changing the
    // file underneath is outside tsr's control and is documented above as
    // undefined, the risk every mmap-based loader accepts. The map is read-only
    // and all lengths are validated against `map.len()` before any access.
    let map =
        unsafe { Mmap::map(&file) }.map_err(|e| format!("{format}: cannot map the file: {e}"))?;
    Ok(map)
}

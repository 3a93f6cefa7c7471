//! File formats. memmap2 and the file-replacing logic are confined to this module.

pub mod csv;
pub mod gguf;
pub mod json;
mod le;
pub mod loadtxt;
mod mapped;
pub mod npy;
pub mod npz;
pub(crate) mod paths;
mod printf;
pub mod safetensors;
pub(crate) mod savetxt;
pub(crate) mod text_file;
mod untrusted;

pub use untrusted::display_safe;
use untrusted::escaped;

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static FILES_DENIED: AtomicBool = AtomicBool::new(false);

/// From now on, every file a script reads, writes or imports is refused with an
/// error: for running programs nobody has read, as the fuzzer does.
pub fn deny_file_access() {
    FILES_DENIED.store(true, Ordering::Relaxed);
}

/// Whether scripts may touch files; every file access of the interpreter and the
/// loaders asks first.
pub fn check_file_access() -> io::Result<()> {
    if FILES_DENIED.load(Ordering::Relaxed) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "file access is disabled in this session",
        ));
    }
    Ok(())
}

/// Creates `path` (or replaces it) so that readers see either the old file or the
/// complete new one: the contents go to a temp file in the same directory, which
/// is flushed to disk and then renamed over `path`. On any error the temp file is
/// removed, so a failed save never leaves a half-written file behind. A symlink
/// stays in place and its target is replaced; a path that is neither new nor a
/// regular file (a directory, device, FIFO or socket) is refused. Every saver
/// writes through here.
pub(crate) fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    check_file_access()?;
    let path = &save_target(path)?;
    let tmp = temp_path(path)?;
    let file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let result = fill_and_rename(file, &tmp, path, write);
    if result.is_err() {
        // Best effort: the original error is the one worth reporting.
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn fill_and_rename(
    file: File,
    tmp: &Path,
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let mut w = BufWriter::new(file);
    write(&mut w)?;
    w.flush()?;
    let file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
    file.sync_all()?;
    drop(file);
    fs::rename(tmp, path)?;
    // Persist the rename itself; not every platform can sync a directory.
    if let Ok(dir) = File::open(parent_dir(path)) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// More symlinks than this in a row are a loop (Linux's own limit is 40).
const MAX_LINKS: usize = 40;

/// The file a save to `path` replaces: `path` itself, or the end of the chain of
/// symlinks at `path` (which may not exist yet). Anything but a regular file there
/// is an error naming the path and what it is.
fn save_target(path: &Path) -> io::Result<PathBuf> {
    let mut target = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let kind = match fs::symlink_metadata(&target) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(target),
            Err(e) => return Err(e),
            Ok(meta) => meta.file_type(),
        };
        if kind.is_file() {
            return Ok(target);
        }
        if !kind.is_symlink() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "'{}' is {}, not a regular file; saves only create or replace regular files",
                    target.display(),
                    kind_name(kind)
                ),
            ));
        }
        let next = fs::read_link(&target)?;
        target = parent_dir(&target).join(next);
    }
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "'{}' is a chain of more than {MAX_LINKS} symlinks (a loop?)",
            path.display()
        ),
    ))
}

/// What a file that is not a regular file or a symlink is, for a message.
pub(crate) fn kind_name(kind: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() {
            return "a character device";
        }
        if kind.is_block_device() {
            return "a block device";
        }
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A hidden, unique name next to `path` (same directory, so the rename is atomic).
fn temp_path(path: &Path) -> io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "the path does not name a file")
    })?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp_name = format!(".{}.tmp-{}-{n}", name.to_string_lossy(), std::process::id());
    Ok(parent_dir(path).join(tmp_name))
}

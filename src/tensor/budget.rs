//! The memory limit: the largest tensor buffer tsr allocates. A request over it is an
//! error that names the request, where the allocation itself would abort the process
//! or, with the OS's overcommit, succeed and bring in the OOM killer later.
//!
//! The limit bounds each buffer, not their sum: it stops the one runaway shape
//! (`zeros([100000, 100000, 100000])`, a broadcast of two long vectors), which is
//! what a typo or a fuzzed script produces. Broadcast views are held to it as well,
//! although they share their storage, so that any view can be copied out.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::dtype::DType;
use super::error::{Result, TensorError};
use super::shape::{check_op_rank, shape_str};

/// The limit in bytes; 0 means the default, worked out on first use.
static LIMIT: AtomicUsize = AtomicUsize::new(0);

/// Used when physical memory cannot be read.
const FALLBACK_LIMIT: usize = 8 << 30;

/// The end of every memory-limit message: how an error is known to be the limit's
/// (which `try` does not catch), wherever it was raised.
pub const LIMIT_HINT: &str = "the limit is set with --max-memory";

/// Sets the limit (`--max-memory`, `TSR_MAX_MEMORY`, or an embedder's choice).
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes.max(1), Ordering::Relaxed);
}

/// The limit in bytes: as set, or by default three quarters of physical memory.
pub fn limit() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        0 => {
            let default = physical_memory().map_or(FALLBACK_LIMIT, |m| m / 4 * 3);
            LIMIT.store(default, Ordering::Relaxed);
            default
        }
        n => n,
    }
}

/// The element count of a `dtype` tensor of `shape`, or an error naming the request
/// when its buffer would be over the limit (or its size overflows).
pub fn check(op: &str, shape: &[usize], dtype: DType) -> Result<usize> {
    check_bytes(op, shape, dtype.size())
}

/// [`check`] for a buffer of `elem_bytes`-byte elements. A shape of more than
/// `MAX_RANK` dimensions is an error too.
pub fn check_bytes(op: &str, shape: &[usize], elem_bytes: usize) -> Result<usize> {
    check_op_rank(op, shape.len())?;
    let numel = shape
        .iter()
        .try_fold(1u128, |acc, &d| acc.checked_mul(d as u128));
    let bytes = numel.and_then(|n| n.checked_mul(elem_bytes as u128));
    let (Some(numel), Some(bytes)) = (numel, bytes) else {
        return Err(TensorError::shape(
            op,
            format!(
                "a tensor of shape {} has more elements than can be counted",
                shape_str(shape)
            ),
        ));
    };
    let limit = limit();
    if bytes > limit as u128 {
        return Err(TensorError::value(
            op,
            format!(
                "a tensor of shape {} has {numel} elements ({}), more than the memory limit of {} allows; \
                 {LIMIT_HINT}",
                shape_str(shape),
                human_bytes(bytes),
                human_bytes(limit as u128)
            ),
        ));
    }
    // Cannot truncate: bytes <= limit, a usize.
    Ok(numel as usize)
}

/// An error when a buffer of `count` items of `item_bytes` bytes each (`what`: "a
/// string", "a dict") would be over the limit: strings, tuples and dicts a script
/// grows are held to it like tensors.
pub fn check_items(op: &str, what: &str, count: usize, item_bytes: usize) -> Result<()> {
    let bytes = count as u128 * item_bytes as u128;
    let limit = limit();
    if bytes > limit as u128 {
        return Err(TensorError::value(
            op,
            format!(
                "{what} of {} is more than the memory limit of {} allows; \
                 {LIMIT_HINT}",
                human_bytes(bytes),
                human_bytes(limit as u128)
            ),
        ));
    }
    Ok(())
}

/// `512 bytes`, `1.5 GiB`: a size for people.
pub fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut size = bytes as f64;
    let mut unit = "bytes";
    for u in UNITS {
        if size < 1024.0 {
            break;
        }
        size /= 1024.0;
        unit = u;
    }
    format!("{size:.1} {unit}")
}

/// Parses a size such as `512MiB`, `16G`, `2.5GB` or `1000000` (bytes). Units are
/// powers of 1024 whichever spelling is used (K, KB, KiB, ...).
pub fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    let bytes = number * (1u64 << shift) as f64;
    (bytes.is_finite() && bytes >= 1.0 && bytes < usize::MAX as f64).then_some(bytes as usize)
}

#[cfg(target_os = "linux")]
fn physical_memory() -> Option<usize> {
    // SAFETY: sysconf only reads system configuration; a failure is -1, handled below.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let pages = usize::try_from(pages).ok()?;
    let page_size = usize::try_from(page_size).ok()?;
    pages.checked_mul(page_size)
}

#[cfg(not(target_os = "linux"))]
fn physical_memory() -> Option<usize> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_in_powers_of_1024() {
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("512MiB"), Some(512 << 20));
        assert_eq!(parse_size("16g"), Some(16 << 30));
        assert_eq!(parse_size("2.5 GB"), Some(5 << 29));
        assert_eq!(parse_size("1K"), Some(1024));
        for bad in ["", "G", "-1G", "0", "1.5.2G", "3 lightyears", "1e999"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
    }

    #[test]
    fn sizes_print_for_people() {
        assert_eq!(human_bytes(0), "0 bytes");
        assert_eq!(human_bytes(1023), "1023 bytes");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
        assert_eq!(human_bytes(4_000_000_000_000_000), "3.6 PiB");
    }

    #[test]
    fn requests_over_the_limit_name_their_size() {
        // The default limit: tests never set one, so they cannot race each other.
        assert!(limit() >= 1 << 20);
        assert_eq!(check("zeros", &[2, 3], DType::F32), Ok(6));
        assert_eq!(check("zeros", &[0, usize::MAX], DType::F64), Ok(0));
        let e = check("zeros", &[100000, 100000, 100000], DType::F32)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "zeros: a tensor of shape [100000, 100000, 100000] has 1000000000000000 elements (3.6 PiB), \
                 more than the memory limit of "
            ),
            "{e}"
        );
        let e = check("ones", &[usize::MAX, usize::MAX, usize::MAX], DType::U8)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more elements than can be counted"), "{e}");
    }
}

//! NumPy `.npz` archives: zip files of `.npy` members, stored (`np.savez`) or
//! deflated (`np.savez_compressed`). Each member `NAME.npy` is the array `NAME`.

use std::io::{Cursor, Read, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::mapped::map_file;
use super::npy::{decode_npy, encode_npy};
use crate::tensor::Tensor;

/// Reads every array of an `.npz` archive, in archive order. A member's name
/// without its `.npy` suffix is the array's name. Errors start with "npz: ".
pub fn load_npz(path: &Path) -> Result<Vec<(String, Tensor)>, String> {
    decode_npz(&map_file(path, "npz")?)
}

/// [`load_npz`] over the bytes of a whole archive.
pub fn decode_npz(map: &[u8]) -> Result<Vec<(String, Tensor)>, String> {
    let mut archive = ZipArchive::new(Cursor::new(map))
        .map_err(|e| format!("npz: not a valid zip archive: {e}"))?;
    let mut arrays = Vec::with_capacity(archive.len());
    for i in 0..archive.len() {
        let mut member = archive
            .by_index(i)
            .map_err(|e| format!("npz: cannot read member #{i}: {e}"))?;
        let member_name = member
            .name()
            .map_err(|e| format!("npz: member #{i} has an unreadable name: {e}"))?
            .into_owned();
        if member.is_dir() {
            continue;
        }
        let name = member_name
            .strip_suffix(".npy")
            .unwrap_or(&member_name)
            .to_string();
        // The declared size is only a hint: a corrupt archive may understate it,
        // and reading stops at the real end of the member either way.
        let hint = usize::try_from(member.size())
            .unwrap_or(0)
            .min(map.len() * 2);
        let mut bytes = Vec::with_capacity(hint);
        member
            .read_to_end(&mut bytes)
            .map_err(|e| format!("npz: cannot read member '{member_name}': {e}"))?;
        let tensor = decode_npy(&bytes).map_err(|e| {
            let reason = e.strip_prefix("npy: ").unwrap_or(&e);
            format!("npz: member '{member_name}': {reason}")
        })?;
        arrays.push((name, tensor));
    }
    Ok(arrays)
}

/// Writes `arrays` to `path` as an `.npz` archive (member `NAME.npy` per array, in
/// the given order), deflated when `compressed` (like `np.savez_compressed`), else
/// stored (like `np.savez`). Atomic: a temp file is renamed over `path`. bf16
/// cannot be saved (NumPy has no bfloat16).
pub fn save_npz(path: &Path, arrays: &[(String, Tensor)], compressed: bool) -> Result<(), String> {
    let method = if compressed {
        CompressionMethod::Deflated
    } else {
        CompressionMethod::Stored
    };
    let mut names = std::collections::HashSet::new();
    for (name, _) in arrays {
        if !names.insert(name.as_str()) {
            return Err(format!("npz: duplicate array name '{name}'"));
        }
    }
    super::write_atomically(path, |w| {
        let mut zip = ZipWriter::new(w);
        for (name, tensor) in arrays {
            let bytes = encode_npy(tensor).map_err(|e| {
                let reason = e.strip_prefix("npy: ").unwrap_or(&e);
                std::io::Error::other(format!("array '{name}': {reason}"))
            })?;
            let options = SimpleFileOptions::default()
                .compression_method(method)
                .large_file(bytes.len() >= u32::MAX as usize);
            zip.start_file(format!("{name}.npy"), options)?;
            zip.write_all(&bytes)?;
        }
        zip.finish()?;
        Ok(())
    })
    .map_err(|e| format!("npz: cannot write '{}': {e}", path.display()))
}

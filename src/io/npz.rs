//! NumPy `.npz` archives: zip files of `.npy` members, stored (`np.savez`) or
//! deflated (`np.savez_compressed`). Each member `NAME.npy` is the array `NAME`.

use std::io::{self, Cursor, Read, Write};
use std::path::Path;

use zip::read::ZipFile;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::mapped::map_file;
use super::npy::{self, decode_npy, encode_npy, read_header_bytes, split_header};
use crate::tensor::{budget, DType, Tensor};

/// Reads every array of an `.npz` archive, in archive order. A member's name
/// without its `.npy` suffix is the array's name. Errors start with "npz: ".
pub fn load_npz(path: &Path) -> Result<Vec<(String, Tensor)>, String> {
    decode_npz(&map_file(path, "npz")?)
}

/// [`load_npz`] over the bytes of a whole archive. Each member is inflated only
/// after its header's shape has passed the memory limit, and never past it.
pub fn decode_npz(map: &[u8]) -> Result<Vec<(String, Tensor)>, String> {
    decode(map).map_err(super::escaped)
}

fn decode(map: &[u8]) -> Result<Vec<(String, Tensor)>, String> {
    let mut arrays = Vec::new();
    for_each_member(map, |name, member_name, member| {
        let cannot_read = |e: io::Error| format!("npz: cannot read member '{member_name}': {e}");
        let mut bytes = read_header_bytes(member).map_err(cannot_read)?;
        let data_len =
            member_data_len(&bytes, member.size()).map_err(|e| in_member(member_name, &e))?;
        bytes.reserve_exact(data_len);
        member
            .by_ref()
            .take(data_len as u64)
            .read_to_end(&mut bytes)
            .map_err(cannot_read)?;
        // Reading on to the member's end checks its CRC; what a lying archive
        // inflates past the array is bounded by the limit and kept nowhere.
        io::copy(
            &mut member.by_ref().take(budget::limit() as u64),
            &mut io::sink(),
        )
        .map_err(cannot_read)?;
        let tensor = decode_npy(&bytes).map_err(|e| in_member(member_name, &e))?;
        arrays.push((name, tensor));
        Ok(())
    })?;
    Ok(arrays)
}

/// The name, dtype and shape of every array of the `.npz` archive at `path`, in
/// archive order, from the members' headers: no member's data is inflated.
pub fn npz_headers(path: &Path) -> Result<Vec<(String, DType, Vec<usize>)>, String> {
    let map = map_file(path, "npz")?;
    let mut headers = Vec::new();
    for_each_member(&map, |name, member_name, member| {
        let bytes = read_header_bytes(member)
            .map_err(|e| format!("npz: cannot read member '{member_name}': {e}"))?;
        let (text, _) = split_header(&bytes).map_err(|e| in_member(member_name, &e))?;
        let header = npy::parse_header(&text).map_err(|e| in_member(member_name, &e))?;
        headers.push((name, header.dtype, header.shape));
        Ok(())
    })
    .map_err(super::escaped)?;
    Ok(headers)
}

/// Calls `f` with the array name (the member name without `.npy`), the member
/// name and the member, for every file member of the archive in order.
fn for_each_member(
    map: &[u8],
    mut f: impl FnMut(String, &str, &mut ZipFile<'_, Cursor<&[u8]>>) -> Result<(), String>,
) -> Result<(), String> {
    let mut archive = ZipArchive::new(Cursor::new(map))
        .map_err(|e| format!("npz: not a valid zip archive: {e}"))?;
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
        f(name, &member_name, &mut member)?;
    }
    Ok(())
}

/// How many data bytes to inflate after a member's header: the array's size once
/// it is within the memory limit. An array over the limit whose member declares
/// too few bytes to hold it is read as far as it goes (at most the limit), so the
/// error is the truncation, as for a `.npy` file.
fn member_data_len(header: &[u8], declared: u64) -> Result<usize, String> {
    let (text, data_start) = split_header(header)?;
    let h = npy::parse_header(&text)?;
    let nbytes = npy::data_len(h.dtype, &h.shape)?;
    let declared_data =
        usize::try_from(declared.saturating_sub(data_start as u64)).unwrap_or(usize::MAX);
    if declared_data >= nbytes {
        npy::check_budget(h.dtype, &h.shape)?;
    }
    Ok(nbytes.min(budget::limit()))
}

/// An `npy: ...` error as the error of member `member_name`.
fn in_member(member_name: &str, e: &str) -> String {
    let reason = e.strip_prefix("npy: ").unwrap_or(e);
    format!("npz: member '{member_name}': {reason}")
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

#[cfg(test)]
mod tests {
    use super::*;

    fn archive(member: &[u8]) -> Vec<u8> {
        let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        zip.start_file("x.npy", options).unwrap();
        zip.write_all(member).unwrap();
        zip.finish().unwrap().into_inner()
    }

    // The data past a member's array is drained, never kept: what is read into
    // memory is sized by the header, whatever the member inflates to.
    #[test]
    fn a_member_longer_than_its_array_reads_the_array() {
        let mut npy = encode_npy(&Tensor::from_vec(vec![7u8, 8], &[2]).unwrap()).unwrap();
        npy.resize(npy.len() + (8 << 20), 0);
        let arrays = decode_npz(&archive(&npy)).unwrap();
        assert_eq!(arrays[0].0, "x");
        assert_eq!(arrays[0].1.to_vec::<u8>(), vec![7, 8]);
    }

    #[test]
    fn a_short_member_is_a_truncated_array() {
        let npy = encode_npy(&Tensor::from_vec(vec![1.0f32; 4], &[4]).unwrap()).unwrap();
        let err = decode_npz(&archive(&npy[..npy.len() - 3])).unwrap_err();
        assert_eq!(
            err,
            "npz: member 'x.npy': truncated data: expected 16 bytes found 13"
        );
    }
}

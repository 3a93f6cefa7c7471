//! `tsr jupyter install`: writes the kernelspec (kernel.json and two logos) where
//! Jupyter looks for kernels, so notebooks list a "tsr" kernel.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

/// Where the kernelspec goes.
pub enum Target {
    /// The user's Jupyter data directory.
    User,
    /// `PREFIX/share/jupyter` (a virtual environment or a system prefix).
    Prefix(PathBuf),
}

/// Writes the kernelspec for the `tsr` at `exe`; returns the directory written.
pub fn install(target: &Target, exe: &Path) -> Result<PathBuf, String> {
    let data = match target {
        Target::User => user_data_dir()?,
        Target::Prefix(prefix) => prefix.join("share").join("jupyter"),
    };
    let dir = data.join("kernels").join("tsr");
    fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let exe = exe
        .canonicalize()
        .map_err(|e| format!("cannot find the tsr executable {}: {e}", exe.display()))?;
    let spec = json!({
        "argv": [exe.to_string_lossy(), "kernel", "-f", "{connection_file}"],
        "display_name": "tsr",
        "language": "tsr",
        "interrupt_mode": "signal",
        "metadata": { "debugger": false },
    });
    let text = serde_json::to_string_pretty(&spec).unwrap_or_default() + "\n";
    write(&dir.join("kernel.json"), text.as_bytes())?;
    for size in [32, 64] {
        write(&dir.join(format!("logo-{size}x{size}.png")), &logo(size)?)?;
    }
    Ok(dir)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Jupyter's user data directory: `$JUPYTER_DATA_DIR`, else on Linux
/// `$XDG_DATA_HOME/jupyter` or `~/.local/share/jupyter`, on macOS
/// `~/Library/Jupyter`.
fn user_data_dir() -> Result<PathBuf, String> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("JUPYTER_DATA_DIR") {
        return Ok(dir);
    }
    let home = var("HOME").ok_or("cannot find the user's Jupyter directory: HOME is not set")?;
    if cfg!(target_os = "macos") {
        return Ok(home.join("Library").join("Jupyter"));
    }
    Ok(var("XDG_DATA_HOME")
        .unwrap_or_else(|| home.join(".local").join("share"))
        .join("jupyter"))
}

/// A `size`² PNG: a 3×3 grid of cells, the diagonal lit, on a dark square.
fn logo(size: u32) -> Result<Vec<u8>, String> {
    const BACK: [u8; 4] = [0x1f, 0x2a, 0x44, 0xff];
    const CELL: [u8; 4] = [0x5b, 0x6b, 0x8c, 0xff];
    const LIT: [u8; 4] = [0xf2, 0x8c, 0x28, 0xff];
    let cell = size / 4;
    let gap = (size - 3 * cell) / 4;
    let mut pixels = Vec::with_capacity((size * size * 4) as usize);
    for y in 0..size {
        for x in 0..size {
            let at = |v: u32| {
                (0..3).find(|&i| {
                    let start = gap + i * (cell + gap);
                    (start..start + cell).contains(&v)
                })
            };
            let colour = match (at(x), at(y)) {
                (Some(i), Some(j)) if i == j => LIT,
                (Some(_), Some(_)) => CELL,
                _ => BACK,
            };
            pixels.extend_from_slice(&colour);
        }
    }
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, size, size);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut w| w.write_image_data(&pixels))
        .map_err(|e| format!("cannot draw the logo: {e}"))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernelspec_names_this_executable() {
        let root = std::env::temp_dir().join(format!("tsr-kernelspec-{}", std::process::id()));
        let exe = std::env::current_exe().unwrap();
        let dir = install(&Target::Prefix(root.clone()), &exe).unwrap();
        assert_eq!(dir, root.join("share/jupyter/kernels/tsr"));
        let spec: serde_json::Value =
            serde_json::from_slice(&fs::read(dir.join("kernel.json")).unwrap()).unwrap();
        assert_eq!(
            spec["argv"],
            json!([
                exe.canonicalize().unwrap(),
                "kernel",
                "-f",
                "{connection_file}"
            ])
        );
        assert_eq!(spec["language"], "tsr");
        let logo = fs::read(dir.join("logo-64x64.png")).unwrap();
        assert_eq!(&logo[16..24], &[0, 0, 0, 64, 0, 0, 0, 64]);
        fs::remove_dir_all(root).unwrap();
    }
}

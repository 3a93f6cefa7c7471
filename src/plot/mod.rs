//! Figures: the data of the session's last `plot`, `hist` or `imshow`, drawn in
//! the terminal (braille, block characters, optional ANSI colour) or written as a
//! PNG or SVG image. Knows nothing of Values: the builtins hand it plain numbers.

mod colormap;
mod figure;
mod font;
mod png;
mod raster;
mod scale;
mod scene;
mod svg;
mod terminal;

use std::io::{self, Write};
use std::path::Path;

pub use figure::{Figure, MAX_BINS};
pub use terminal::{render, ColorMode};

/// The image formats `savefig` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Svg,
}

impl ImageFormat {
    /// The format named by a path's extension (case-insensitive), if any.
    pub fn from_path(path: &Path) -> Option<ImageFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "png" => Some(ImageFormat::Png),
            "svg" => Some(ImageFormat::Svg),
            _ => None,
        }
    }
}

/// Writes `fig` to `path` as an image, atomically (a temp file renamed into place).
pub fn save(fig: &Figure, path: &Path, format: ImageFormat) -> io::Result<()> {
    let bytes = encode(fig, format)?;
    crate::io::write_atomically(path, |w| w.write_all(&bytes))
}

/// The bytes of `fig` as an image file (what `save` writes; a notebook shows them).
pub fn encode(fig: &Figure, format: ImageFormat) -> io::Result<Vec<u8>> {
    let shapes = scene::scene(fig);
    match format {
        ImageFormat::Png => {
            let mut bytes = Vec::new();
            png::write(&shapes, &mut bytes)?;
            Ok(bytes)
        }
        ImageFormat::Svg => Ok(svg::document(&shapes).into_bytes()),
    }
}

//! The `.tsr.snap` file: a few `key: value` header lines, a `---` line, then the
//! script's output verbatim.
//!
//! ```text
//! tsr-snapshot: 1
//! script: tests/golden/basics.tsr
//! tsr: 0.1.0
//! rtol: 1e-4        (optional, overrides --rtol for this file)
//! atol: 1e-6        (optional, overrides --atol for this file)
//! ---
//! [1. 2. 3.]
//! ```

use std::path::{Path, PathBuf};

pub const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq)]
pub struct Snap {
    pub script: String,
    pub written_by: String,
    pub rtol: Option<f64>,
    pub atol: Option<f64>,
    pub output: String,
}

/// `X.tsr` → `X.tsr.snap`
pub fn snap_path(script: &Path) -> PathBuf {
    let mut s = script.as_os_str().to_owned();
    s.push(".snap");
    PathBuf::from(s)
}

/// `X.tsr` → `X.tsr.snap.new` (a proposed snapshot, written for review)
pub fn new_snap_path(script: &Path) -> PathBuf {
    let mut s = script.as_os_str().to_owned();
    s.push(".snap.new");
    PathBuf::from(s)
}

impl Snap {
    pub fn new(script: &str, output: String, rtol: Option<f64>, atol: Option<f64>) -> Snap {
        Snap {
            script: script.to_string(),
            written_by: env!("CARGO_PKG_VERSION").to_string(),
            rtol,
            atol,
            output,
        }
    }

    pub fn render(&self) -> String {
        let mut s = format!(
            "tsr-snapshot: {FORMAT_VERSION}\nscript: {}\ntsr: {}\n",
            self.script, self.written_by
        );
        if let Some(r) = self.rtol {
            s.push_str(&format!("rtol: {r:e}\n"));
        }
        if let Some(a) = self.atol {
            s.push_str(&format!("atol: {a:e}\n"));
        }
        s.push_str("---\n");
        s.push_str(&self.output);
        s
    }

    pub fn parse(text: &str) -> Result<Snap, String> {
        let mut snap = Snap {
            script: String::new(),
            written_by: String::new(),
            rtol: None,
            atol: None,
            output: String::new(),
        };
        let mut rest = text;
        let mut version = None;
        loop {
            let (line, after) = match rest.split_once('\n') {
                Some(pair) => pair,
                None => return Err("the header has no `---` line".into()),
            };
            rest = after;
            if line == "---" {
                break;
            }
            let (key, value) = line
                .split_once(':')
                .ok_or_else(|| format!("header line \"{line}\" is not `key: value`"))?;
            let value = value.trim();
            let float = |v: &str| {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| format!("{key} must be a non-negative number, got \"{v}\""))
            };
            match key.trim() {
                "tsr-snapshot" => version = Some(value.to_string()),
                "script" => snap.script = value.to_string(),
                "tsr" => snap.written_by = value.to_string(),
                "rtol" => snap.rtol = Some(float(value)?),
                "atol" => snap.atol = Some(float(value)?),
                other => return Err(format!("unknown header key \"{other}\"")),
            }
        }
        match version.as_deref() {
            Some(v) if v == FORMAT_VERSION.to_string() => {}
            Some(v) => {
                return Err(format!(
                    "snapshot format {v} is not supported (this tsr reads {FORMAT_VERSION})"
                ))
            }
            None => return Err("not a tsr snapshot (no `tsr-snapshot:` line)".into()),
        }
        snap.output = rest.to_string();
        Ok(snap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let s = Snap::new("a.tsr", "1\n---\n2\n".into(), Some(1e-4), None);
        let text = s.render();
        assert!(text.starts_with("tsr-snapshot: 1\nscript: a.tsr\n"));
        assert!(text.contains("rtol: 1e-4\n"));
        assert_eq!(Snap::parse(&text).unwrap(), s);
    }

    #[test]
    fn rejects_bad_headers() {
        assert!(Snap::parse("1\n2\n").is_err());
        assert!(Snap::parse("tsr-snapshot: 9\n---\n").is_err());
        assert!(Snap::parse("tsr-snapshot: 1\nrtol: -1\n---\n").is_err());
        assert!(Snap::parse("tsr-snapshot: 1\ncolor: red\n---\n").is_err());
        assert_eq!(Snap::parse("tsr-snapshot: 1\n---\n").unwrap().output, "");
    }

    #[test]
    fn paths() {
        assert_eq!(
            snap_path(Path::new("t/a.tsr")),
            PathBuf::from("t/a.tsr.snap")
        );
        assert_eq!(
            new_snap_path(Path::new("a.tsr")),
            PathBuf::from("a.tsr.snap.new")
        );
    }
}

//! The house stays drawn the way it is built: every `crate::…` path in `src/` names a
//! module at or below the file's own layer, and the rooms of `src/kernels/` import each
//! other without a circle. Reads the source as text (use lines and inline paths), so a
//! new upward import fails here with the file and line that made it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and the modules directly below it. A module may use
/// anything reachable downward from here (the table is closed transitively).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "main",
        &[
            "jupyter", "repl", "testing", "interp", "runtime", "syntax", "diag",
        ],
    ),
    ("jupyter", &["repl", "markup"]),
    ("repl", &["interp"]),
    ("testing", &["interp", "markup"]),
    ("interp", &["builtins"]),
    ("builtins", &["runtime"]),
    (
        "runtime",
        &[
            "autograd", "ops", "quant", "io", "plot", "syntax", "progress",
        ],
    ),
    ("autograd", &["ops", "quant"]),
    ("plot", &["io", "markup"]),
    ("io", &["quant"]),
    ("quant", &["kernels"]),
    ("ops", &["kernels"]),
    ("kernels", &["tensor"]),
    ("tensor", &[]),
    ("progress", &[]),
    ("markup", &[]),
    ("syntax", &["diag"]),
    ("diag", &["span"]),
    ("span", &[]),
];

/// A `crate::` path found in a file: the module it names and where.
struct Import {
    file: PathBuf,
    line: usize,
    target: Vec<String>,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file: `src/kernels/conv/mod.rs` → `["kernels", "conv"]`.
fn module_of(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src_dir()).expect("file under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// Files declared as `#[cfg(test)] mod name;`: test code may reach anywhere.
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut test_files = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(file).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.windows(2) {
            let declared = pair[1]
                .trim()
                .strip_prefix("mod ")
                .and_then(|m| m.strip_suffix(';'));
            if let (true, Some(name)) = (pair[0].trim() == "#[cfg(test)]", declared) {
                let dir = if file.ends_with("mod.rs") || file.ends_with("lib.rs") {
                    file.parent().unwrap().to_path_buf()
                } else {
                    file.with_extension("")
                };
                test_files.insert(dir.join(format!("{name}.rs")));
                test_files.insert(dir.join(name).join("mod.rs"));
            }
        }
    }
    test_files
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The leading path segments of `text`: `crate::ops::binary::{x}` → `[ops, binary]`.
fn segments(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        out.push(rest[..end].to_string());
        match rest[end..].strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    out
}

/// Every `crate::…` and `super::…` path of a file, resolved to an absolute module path,
/// skipping comments and the `#[cfg(test)]` module at the end of the file.
fn imports_of(file: &Path) -> Vec<Import> {
    let text = fs::read_to_string(file).unwrap_or_default();
    let module = module_of(file);
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        let parent = module[..module.len().saturating_sub(1)].to_vec();
        for (prefix, base) in [("crate::", Vec::new()), ("super::", parent)] {
            let mut from = 0;
            while let Some(pos) = code[from..].find(prefix) {
                let at = from + pos;
                from = at + prefix.len();
                let preceded = code[..at].chars().next_back();
                if preceded.is_some_and(|c| is_ident_char(c) || c == ':') {
                    continue;
                }
                let mut target = base.clone();
                target.extend(segments(&code[from..]));
                out.push(Import {
                    file: file.to_path_buf(),
                    line: i + 1,
                    target,
                });
            }
        }
    }
    out
}

fn allowed_below(top: &str) -> BTreeSet<&'static str> {
    let table: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = table.get(top).map(|d| d.to_vec()).unwrap_or_default();
    while let Some(m) = todo.pop() {
        if seen.insert(m) {
            todo.extend(table.get(m).copied().unwrap_or_default());
        }
    }
    seen
}

fn all_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let tests = test_only_files(&files);
    files.retain(|f| !tests.contains(f));
    files.sort();
    files
}

#[test]
fn every_top_level_module_is_in_the_layer_table() {
    let known: BTreeSet<&str> = LAYERS.iter().map(|(m, _)| *m).collect();
    for file in all_files() {
        let module = module_of(&file);
        let Some(top) = module.first() else { continue };
        assert!(
            known.contains(top.as_str()),
            "src/{top} is not in tests/layering.rs's LAYERS: give it a place in the house"
        );
    }
}

#[test]
fn modules_import_only_downward() {
    let mut upward = Vec::new();
    for file in all_files() {
        let module = module_of(&file);
        let Some(top) = module.first().cloned() else {
            continue; // lib.rs wires the phases
        };
        let allowed = allowed_below(&top);
        for import in imports_of(&file) {
            let Some(target) = import.target.first() else {
                continue;
            };
            if *target == top || allowed.contains(target.as_str()) || !is_module(target) {
                continue;
            }
            upward.push(format!(
                "{}:{}: `{top}` uses `{target}`",
                import.file.display(),
                import.line
            ));
        }
    }
    assert!(
        upward.is_empty(),
        "imports against the layer order (see LAYERS):\n{}",
        upward.join("\n")
    );
}

/// A top-level module name (as opposed to a macro or item exported at the crate root).
fn is_module(name: &str) -> bool {
    LAYERS.iter().any(|(m, _)| *m == name)
}

/// The rooms of `src/kernels/` (its sub-modules, or `kernels` itself for its mod.rs)
/// as a graph of who imports whom; fails on any circle.
#[test]
fn kernel_rooms_have_no_circle() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut origin: BTreeMap<(String, String), String> = BTreeMap::new();
    let files = all_files();
    let kernel_files: Vec<&PathBuf> = files
        .iter()
        .filter(|f| module_of(f).first().map(String::as_str) == Some("kernels"))
        .collect();
    let rooms: BTreeSet<String> = kernel_files
        .iter()
        .filter_map(|f| module_of(f).get(1).cloned())
        .collect();
    // A path into `kernels` that names no room names an item of kernels/mod.rs.
    let room_of = |module: &[String]| -> String {
        match module.get(1) {
            Some(room) if rooms.contains(room) => room.clone(),
            _ => "(kernels)".to_string(),
        }
    };
    for file in kernel_files {
        let module = module_of(file);
        let from = room_of(&module);
        let mut imports = imports_of(file);
        if module.len() == 1 {
            imports.extend(root_reexports(file, &rooms));
        }
        for import in imports {
            if import.target.first().map(String::as_str) != Some("kernels") {
                continue;
            }
            let to = room_of(&import.target);
            if to == from {
                continue;
            }
            origin
                .entry((from.clone(), to.clone()))
                .or_insert_with(|| format!("{}:{}", import.file.display(), import.line));
            edges.entry(from.clone()).or_default().insert(to);
        }
    }
    if let Some(circle) = find_circle(&edges) {
        let steps: Vec<String> = circle
            .windows(2)
            .map(|w| {
                format!(
                    "{} → {} ({})",
                    w[0],
                    w[1],
                    origin[&(w[0].clone(), w[1].clone())]
                )
            })
            .collect();
        panic!("kernels' rooms import in a circle:\n{}", steps.join("\n"));
    }
}

/// `pub use room::item` lines of a mod.rs: the module then depends on that room.
fn root_reexports(file: &Path, rooms: &BTreeSet<String>) -> Vec<Import> {
    let text = fs::read_to_string(file).unwrap_or_default();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(path) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let path = path.strip_prefix("self::").unwrap_or(path);
        let first = segments(path).into_iter().next().unwrap_or_default();
        if rooms.contains(&first) {
            out.push(Import {
                file: file.to_path_buf(),
                line: i + 1,
                target: vec!["kernels".to_string(), first],
            });
        }
    }
    out
}

/// A circle in the graph as its nodes, the first repeated at the end.
fn find_circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|p| p == node) {
            let mut circle = path[start..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|start| visit(start, edges, &mut Vec::new(), &mut done))
}

#[test]
fn the_circle_finder_finds_circles() {
    let graph = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert!(find_circle(&graph(&[("a", "b"), ("b", "c")])).is_none());
    let circle = find_circle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])).unwrap();
    assert_eq!(circle.first(), circle.last());
    assert_eq!(
        segments("ops::binary::{x, y}"),
        vec!["ops".to_string(), "binary".to_string()]
    );
}

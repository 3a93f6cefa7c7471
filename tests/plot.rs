//! Plots through the CLI: terminal drawings (colour off, pinned by insta
//! snapshots), their diagnostics, and `savefig` writing a PNG that decodes and
//! an SVG that parses.

mod common;

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

fn run(code: &str) -> String {
    let out = common::eval(code);
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    assert!(!out.stdout.contains('\x1b'), "colour in piped output");
    out.stdout
}

macro_rules! plot_snapshot {
    ($name:ident, $code:expr) => {
        #[test]
        fn $name() {
            insta::assert_snapshot!(stringify!($name), run($code), $code);
        }
    };
}

plot_snapshot!(line_y, "plot(sin(linspace(0, 6.283185, 100)))");
plot_snapshot!(line_x_y, "let x = linspace(-2, 2, 41); plot(x, x ** 3 - x)");
plot_snapshot!(
    hist_bins,
    "hist([1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 7], bins=7)"
);
plot_snapshot!(hist_default_bins, "hist(arange(100) % 17)");
plot_snapshot!(imshow_ramp, "imshow(arange(24).reshape(4, 6))");
plot_snapshot!(
    degenerate,
    "plot([]); plot([3.5]); plot([2, 2, 2]); hist([]); hist([7, 7], bins=3); imshow(zeros([0, 4]))"
);
plot_snapshot!(
    nan_and_inf_are_skipped,
    "plot([0, 1, nan, 3, 4, inf, 2]); hist([1, nan, 2, -inf, 3], bins=2); imshow([[1, nan], [inf, 4]])"
);
plot_snapshot!(
    any_dtype,
    "plot([true, false, true]); plot(arange(4).to(u8), [1, 4, 2, 8].to(f16))"
);

/// Runs `code` and returns the diagnostic it fails with.
fn error(code: &str) -> String {
    let out = common::eval(code);
    assert_ne!(out.code, 0, "{code} should fail");
    out.stderr
}

#[test]
fn bad_arguments_are_named() {
    let cases = [
        ("plot(\"a\")", "argument `x` of plot must be a tensor"),
        (
            "plot([[1, 2]])",
            "argument `x` of plot must be a 1-D tensor, got shape [1, 2]",
        ),
        (
            "plot([1, 2], 5)",
            "argument `y` of plot must be a 1-D tensor, got shape []",
        ),
        (
            "plot([1, 2], [1, 2, 3])",
            "x and y must have the same length, got 2 and 3",
        ),
        (
            "hist([1], bins=0)",
            "bins must be between 1 and 100000, got 0",
        ),
        ("hist([1], bins=-2)", "`bins` must not be negative"),
        (
            "hist([1], bins=1.5)",
            "argument `bins` of hist must be an integer",
        ),
        (
            "imshow([1, 2])",
            "argument `m` of imshow must be a 2-D tensor, got shape [2]",
        ),
        ("savefig(\"a.png\")", "no figure to write to \"a.png\" yet"),
        (
            "plot([1]); savefig(\"a.jpg\")",
            "cannot tell the image format of \"a.jpg\"",
        ),
        (
            "plot([1]); savefig(\"no/such/dir/a.svg\")",
            "(no/such/dir/a.svg)",
        ),
    ];
    for (code, want) in cases {
        let err = error(code);
        assert!(err.contains(want), "{code}: {err}");
    }
}

/// Runs `code` in a fresh directory and returns that directory.
fn run_in_dir(test: &str, code: &str) -> std::path::PathBuf {
    let dir = common::temp_dir(test);
    let out = common::tsr_in(&["-e", code], None, Some(&dir));
    assert_eq!(out.code, 0, "{code}\n{}", out.stderr);
    dir
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).expect("read png");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "no PNG signature");
    let file = BufReader::new(File::open(path).expect("open png"));
    let mut reader = png::Decoder::new(file).read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("png data");
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height)
}

#[test]
fn savefig_writes_png_files_that_decode() {
    let dir = run_in_dir(
        "plot-png",
        "plot(randn(50)); savefig(\"line.png\"); hist(randn(500), bins=20); savefig(\"hist.PNG\"); \
         imshow(randn([300, 200])); savefig(\"heat.png\"); plot([]); savefig(\"empty.png\")",
    );
    for name in ["line.png", "hist.PNG", "heat.png", "empty.png"] {
        assert_eq!(png_size(&dir.join(name)), (640, 480), "{name}");
    }
    // Only the figures themselves: no temp files left behind.
    assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 4);
}

fn svg_elements(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read svg");
    let doc = roxmltree::Document::parse(&text).expect("svg parses");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("640"));
    root.descendants()
        .filter(|n| n.is_element())
        .map(|n| n.tag_name().name().to_string())
        .collect()
}

#[test]
fn savefig_writes_svg_files_that_parse() {
    let dir = run_in_dir(
        "plot-svg",
        "plot([1, 3, nan, 2, 5]); savefig(\"line.svg\"); hist([1, 2, 2, 3], bins=3); savefig(\"hist.svg\"); \
         imshow([[1, 2], [3, 4]]); savefig(\"heat.svg\")",
    );
    let line = svg_elements(&dir.join("line.svg"));
    // The NaN splits the line in two; the axes box is a polyline too.
    assert!(
        line.iter().filter(|e| *e == "polyline").count() >= 3,
        "{line:?}"
    );
    assert!(line.iter().any(|e| e == "text"));
    let hist = svg_elements(&dir.join("hist.svg"));
    // Background plus three bars.
    assert!(
        hist.iter().filter(|e| *e == "rect").count() >= 4,
        "{hist:?}"
    );
    let heat = svg_elements(&dir.join("heat.svg"));
    assert!(
        heat.iter().filter(|e| *e == "rect").count() >= 5,
        "{heat:?}"
    );
}

#[test]
fn the_last_figure_is_saved_and_replaced_atomically() {
    let dir = run_in_dir(
        "plot-last",
        "plot([1, 2]); savefig(\"f.svg\"); imshow([[1, 2]]); savefig(\"f.svg\")",
    );
    let elements = svg_elements(&dir.join("f.svg"));
    // The heatmap replaced the line chart: 1 background + 2 cells + 64 colour-bar steps.
    assert_eq!(elements.iter().filter(|e| *e == "rect").count(), 67);
}

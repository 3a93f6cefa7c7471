//! Plot builtins: `plot`, `hist` and `imshow` draw in the script's output and
//! become the session's last figure; `savefig` writes that figure as PNG or SVG.

use std::io::IsTerminal;
use std::path::Path;

use super::{Bound, Builtin, Ctx};
use crate::diag::Diagnostic;
use crate::plot::{self, ColorMode, Figure, ImageFormat, MAX_BINS};
use crate::runtime::value::Value;

pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "plot",
        params: &["x", "y=none"],
        doc: "Draws a line chart of y against x (plot(y) uses 0, 1, 2, ...) in the terminal; x and y are 1-D and equally long; NaN and inf are skipped.",
        func: plot_fn,
    },
    Builtin {
        name: "hist",
        params: &["x", "bins=10"],
        doc: "Draws a histogram of x's finite values in bins equal-width bins over [min, max] (numpy.histogram; the last bin is closed).",
        func: hist,
    },
    Builtin {
        name: "imshow",
        params: &["m"],
        doc: "Draws a 2-D tensor as a heatmap (row 0 at the top; shades, or viridis colours on a terminal); NaN and inf cells stay blank.",
        func: imshow,
    },
    Builtin {
        name: "savefig",
        params: &["path"],
        doc: "Writes the last figure of plot, hist or imshow to path as a 640x480 PNG or an SVG, by extension, atomically.",
        func: savefig,
    },
];

/// Colour only for a terminal, and never when NO_COLOR is set (to anything non-empty).
fn color_mode() -> ColorMode {
    let allowed = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let truecolor = std::env::var("COLORTERM").is_ok_and(|v| v == "truecolor" || v == "24bit");
    match (allowed, truecolor) {
        (false, _) => ColorMode::Off,
        (true, false) => ColorMode::Ansi256,
        (true, true) => ColorMode::TrueColor,
    }
}

/// Draws `fig` in the output and keeps it as the last figure.
fn show(ctx: &mut Ctx, a: &Bound, fig: Figure) -> Result<Value, Diagnostic> {
    let text = plot::render(&fig, color_mode());
    ctx.out
        .write_all(text.as_bytes())
        .map_err(|e| a.err(format!("{}: cannot write the drawing: {e}", a.builtin.name)))?;
    *ctx.figure = Some(fig);
    Ok(Value::None)
}

/// Argument `i` as the f64 values of a tensor with `ndim` dimensions.
fn values(a: &Bound, i: usize, ndim: usize) -> Result<(Vec<usize>, Vec<f64>), Diagnostic> {
    let t = a.tensor(i)?;
    if t.ndim() != ndim {
        let name = crate::runtime::args::ParamSpec::parse(a.builtin.params[i]).name();
        return Err(a.arg_err(
            i,
            format!(
                "argument `{name}` of {} must be a {ndim}-D tensor, got shape {}",
                a.builtin.name,
                crate::tensor::shape::shape_str(t.shape())
            ),
        ));
    }
    Ok((t.shape().to_vec(), t.to_vec::<f64>()))
}

fn plot_fn(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (_, first) = values(&a, 0, 1)?;
    let (x, y) = match a.get(1) {
        None => ((0..first.len()).map(|i| i as f64).collect(), first),
        Some(_) => {
            let (_, y) = values(&a, 1, 1)?;
            if y.len() != first.len() {
                return Err(a.arg_err(
                    1,
                    format!(
                        "plot: x and y must have the same length, got {} and {}",
                        first.len(),
                        y.len()
                    ),
                ));
            }
            (first, y)
        }
    };
    show(ctx, &a, Figure::Line { x, y })
}

fn hist(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let t = a.tensor(0)?;
    let bins = match a.get(1) {
        None => 10,
        Some(_) => a.count(1)?,
    };
    if !(1..=MAX_BINS).contains(&bins) {
        return Err(a.arg_err(
            1,
            format!("hist: bins must be between 1 and {MAX_BINS}, got {bins}"),
        ));
    }
    show(ctx, &a, Figure::histogram(&t.to_vec::<f64>(), bins))
}

fn imshow(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let (shape, values) = values(&a, 0, 2)?;
    let fig = Figure::Heatmap {
        rows: shape[0],
        cols: shape[1],
        values,
    };
    show(ctx, &a, fig)
}

fn savefig(ctx: &mut Ctx, a: Bound) -> Result<Value, Diagnostic> {
    let path = a.string(0)?;
    let Some(format) = ImageFormat::from_path(Path::new(&path)) else {
        return Err(a.arg_err(
            0,
            format!("savefig: cannot tell the image format of \"{path}\"; use a .png or .svg name"),
        ));
    };
    let Some(fig) = ctx.figure.as_ref() else {
        return Err(a
            .err(format!("savefig: no figure to write to \"{path}\" yet"))
            .with_note("draw one first with plot, hist or imshow"));
    };
    plot::save(fig, Path::new(&path), format)
        .map_err(|e| a.arg_err(0, format!("savefig: {e} ({path})")))?;
    Ok(Value::None)
}
